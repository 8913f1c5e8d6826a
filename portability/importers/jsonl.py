"""Import a generic JSONL file: one memory per line, from any tool or script.

Each line is a JSON object with `content` and `kind` (Continuity's kinds), and optionally
`id` (the source's own id, kept as provenance), `type`, `scope_type` + `scope_key`, `key`,
`value`, `tags`, `retrieval_hints`, `confidence` + `confidence_basis`, `trust` (inferred,
observed or confirmed; default observed), `status` (active or archived), `created_at`.
Lines without an `id` are numbered (`line-7`). Unknown fields are refused: a misspelt field
must not be dropped silently.
"""

from __future__ import annotations

from pathlib import Path

from django.utils.translation import gettext_noop

from foundation.actors import Actor
from foundation.errors import ServiceError
from foundation.input_guard import loads
from portability.files import NotReadable, TooLarge, read_regular
from portability.importers.common import RecordsBuilder
from portability.packages.importer import ImportReport
from portability.packages.reader import Problems

SOURCE = "jsonl"
MAX_FILE_BYTES = 64 * 1024 * 1024
ALLOWED = {
    "id", "content", "kind", "type", "scope_type", "scope_key", "key", "value", "tags",
    "retrieval_hints", "confidence", "confidence_basis", "trust", "status", "created_at",
}  # fmt: skip
DEFAULT_TYPE = {
    "event": "episodic",
    "outcome": "episodic",
    "task_state": "episodic",
    "procedure": "procedural",
}
TRUSTS = {"inferred", "observed", "confirmed"}
STATUSES = {"active", "archived"}


def build(path: Path, *, source: str = SOURCE) -> RecordsBuilder:
    problems = Problems()
    name = path.name
    if not path.exists() and not path.is_symlink():
        problems.add(f"no such file: {path}")
        problems.refuse_if_any("The JSONL file")
    try:
        data = read_regular(path, MAX_FILE_BYTES)
    except TooLarge:
        problems.add(f"the file is larger than {MAX_FILE_BYTES:,} bytes", file=name)
    except NotReadable as error:
        problems.add(str(error), file=name)
    problems.refuse_if_any("The JSONL file")
    builder = RecordsBuilder(source)
    seen = set()
    for number, line in enumerate(data.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            entry = loads(line, where="the line")
        except ServiceError as error:
            problems.add(error.message, file=name, line=number)
            continue
        if not isinstance(entry, dict):
            problems.add("not a JSON object", file=name, line=number)
            continue
        unknown = sorted(set(entry) - ALLOWED)
        if unknown:
            problems.add(f"unknown fields: {', '.join(unknown)}", file=name, line=number)
            continue
        foreign_id = entry.get("id", f"line-{number}")
        if not isinstance(foreign_id, (str, int)) or isinstance(foreign_id, bool):
            problems.add("id must be a string or an integer", file=name, line=number, field="id")
            continue
        foreign_id = str(foreign_id)
        if foreign_id in seen:
            problems.add("duplicate id", file=name, line=number, field="id")
            continue
        seen.add(foreign_id)
        if entry.get("trust", "observed") not in TRUSTS:
            problems.add(
                f"trust must be one of: {', '.join(sorted(TRUSTS))}",
                file=name,
                line=number,
                field="trust",
            )
            continue
        if entry.get("status", "active") not in STATUSES:
            problems.add(
                f"status must be one of: {', '.join(sorted(STATUSES))}",
                file=name,
                line=number,
                field="status",
            )
            continue
        fields = {
            "content": entry.get("content"), "kind": entry.get("kind"),
            "type": entry.get("type") or DEFAULT_TYPE.get(entry.get("kind"), "semantic"),
            "scope_type": entry.get("scope_type", "global"), "scope_key": entry.get("scope_key") or "",
            "key": entry.get("key"), "value": entry.get("value"), "tags": entry.get("tags", []),
            "retrieval_hints": entry.get("retrieval_hints", []), "confidence": entry.get("confidence"),
            "confidence_basis": entry.get("confidence_basis") or "", "trust": entry.get("trust", "observed"),
            "status": entry.get("status", "active"),
        }  # fmt: skip
        if entry.get("created_at"):
            fields["created_at"] = fields["updated_at"] = entry["created_at"]
        builder.add_memory(
            foreign_id=foreign_id, provenance_uri=f"{source}:{name}#{foreign_id}",
            origin_file=name, origin_line=number, **fields,
        )  # fmt: skip
    problems.refuse_if_any("The JSONL file")
    return builder


def jsonl_import(*, actor: Actor, path, merge: bool = False, dry_run: bool = False) -> ImportReport:
    """Import a generic JSONL file of memories (owner-only), under the rules of a package
    import; a refusal names the file's own line numbers."""
    actor.require_owner(gettext_noop("import memories"))
    return build(Path(path)).run(actor=actor, merge=merge, dry_run=dry_run)
