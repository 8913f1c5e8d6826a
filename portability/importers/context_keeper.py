"""Import a context-keeper store (`.context/` of the context-keeper-mcp tool, schema 4).

The store holds three JSON arrays: `decisions.json`, `constraints.json`, `pipelines.json`.
Mapping:

| context-keeper | Continuity memory |
| --- | --- |
| decision (`dec-…`): summary, why_chosen, tradeoffs | kind decision, semantic |
| constraint (`con-…`): rule, reason, scope, hardness | kind constraint, semantic |
| pipeline (`pipe-…`): name, purpose, steps | kind procedure, procedural |
| status active / superseded / deprecated | active / superseded / archived |
| origin user / agent / import | trust confirmed / observed / observed |
| `superseded_by` | the successor memory `supersedes` the old one (+ a supersedes link) |
| `related_to` | `related_to` links |
| tags, retrieval_hints, created_at, updated_at, verified_at | the same |

Each memory keeps its context-keeper id: as its logical key `context-keeper/<id>` (so a later
merge import of the same store finds duplicates and key conflicts), in `value.context_keeper`,
in the `created` event, and as a `derived_from` link to `context-keeper:<file>#<id>`. The
full structured entry (problem, alternatives, steps...) is kept in `value`. Everything goes
to the given project scope, or global when none is given.
"""

from __future__ import annotations

from pathlib import Path

from django.utils.translation import gettext_noop

from foundation.actors import Actor
from foundation.errors import ServiceError, validation_error
from foundation.input_guard import loads
from memories.gates import MAX_CONTENT_CHARS
from portability.files import NotReadable, TooLarge, read_regular
from portability.importers.common import RecordsBuilder
from portability.packages.importer import ImportReport
from portability.packages.reader import Problems

SOURCE = "context-keeper"
FILES = ("decisions.json", "constraints.json", "pipelines.json")
STATUS = {"active": "active", "superseded": "superseded", "deprecated": "archived"}
TRUST = {"user": "confirmed", "agent": "observed", "import": "observed"}
MAX_STORE_BYTES = 64 * 1024 * 1024
# Structured fields kept in the memory's value, per file.
VALUE_FIELDS = {
    "decisions.json": ("problem", "why_chosen", "what_we_tried", "tradeoffs", "alternatives", "constraints_created"),
    "constraints.json": ("reason", "triggering_incident", "enforced_by", "scope", "hardness"),
    "pipelines.json": ("purpose", "when_to_invoke", "steps", "constraints"),
}  # fmt: skip


def context_dir(path) -> Path:
    """The `.context/` folder itself, or a project folder that holds one."""
    path = Path(path)
    if (path / ".context").is_dir():
        return path / ".context"
    if not path.is_dir():
        raise validation_error(f"{path} is not a directory.", field="path")
    return path


def _text(entry: dict, name: str) -> str:
    value = entry.get(name)
    return value.strip() if isinstance(value, str) else ""


def _content(file: str, entry: dict) -> tuple[str, str]:
    """(full statement, short statement): the short one is used when the full one is over
    the size limit; the long fields stay in the value either way."""
    if file == "decisions.json":
        short = _text(entry, "summary")
        parts = [short, f"Why: {_text(entry, 'why_chosen')}" if _text(entry, "why_chosen") else ""]
        if _text(entry, "tradeoffs"):
            parts.append(f"Trade-offs: {_text(entry, 'tradeoffs')}")
    elif file == "constraints.json":
        short = _text(entry, "rule")
        scope = _text(entry, "scope")
        parts = [short, f"Reason: {_text(entry, 'reason')}" if _text(entry, "reason") else ""]
        if scope and scope != "global":
            parts.append(f"Applies to: {scope}")
        if _text(entry, "hardness") and _text(entry, "hardness") != "absolute":
            parts.append(f"Hardness: {_text(entry, 'hardness')}")
    else:
        short = f"{_text(entry, 'name')}: {_text(entry, 'purpose')}".strip(": ")
        steps = []
        for number, step in enumerate(entry.get("steps") or [], start=1):
            if isinstance(step, dict):
                action = str(step.get("action", "")).strip()
                output = str(step.get("output", "")).strip()
                steps.append(
                    f"{step.get('order', number)}. {action}" + (f" → {output}" if output else "")
                )
            elif isinstance(step, str):
                steps.append(f"{number}. {step.strip()}")
        parts = [short, "Steps: " + "; ".join(steps) if steps else ""]
        if _text(entry, "when_to_invoke"):
            parts.append(f"When: {_text(entry, 'when_to_invoke')}")
    full = "\n".join(part for part in parts if part)
    return full, short


def _strings(value) -> list[str]:
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else value


def read_store(folder: Path) -> dict[str, list[dict]]:
    problems = Problems()
    entries: dict[str, list[dict]] = {}
    total = 0
    for name in FILES:
        path = folder / name
        if not path.exists() and not path.is_symlink():
            entries[name] = []
            continue
        try:
            raw = read_regular(path, MAX_STORE_BYTES - total)
        except TooLarge:
            problems.add(f"the store is larger than {MAX_STORE_BYTES:,} bytes", file=name)
            break
        except NotReadable as error:
            problems.add(str(error), file=name)
            continue
        total += len(raw)
        try:
            data = loads(raw, where=name)
        except ServiceError as error:
            problems.add(error.message, file=name)
            continue
        if not isinstance(data, list):
            problems.add("must be a JSON array of entries", file=name)
            continue
        for index, entry in enumerate(data, start=1):
            if (
                not isinstance(entry, dict)
                or not isinstance(entry.get("id"), str)
                or not entry["id"].strip()
            ):
                problems.add("an entry must be an object with an id", file=name, line=index)
        entries[name] = data
    if not any(entries.values()) and not problems:
        problems.add(f"no context-keeper entries found in {folder} ({', '.join(FILES)})")
    problems.refuse_if_any("The context-keeper store")
    return entries


def build(folder: Path, *, project_key: str | None = None) -> RecordsBuilder:
    entries = read_store(folder)
    builder = RecordsBuilder(SOURCE)
    scope = (
        {"scope_type": "project", "scope_key": project_key}
        if project_key
        else {"scope_type": "global", "scope_key": ""}
    )
    by_id: dict[str, dict] = {}
    for file, items in entries.items():
        kind, memory_type = {
            "decisions.json": ("decision", "semantic"),
            "constraints.json": ("constraint", "semantic"),
            "pipelines.json": ("procedure", "procedural"),
        }[file]
        for position, entry in enumerate(items, start=1):
            foreign_id = entry["id"].strip()
            full, short = _content(file, entry)
            content = full if len(full) <= MAX_CONTENT_CHARS else short
            value = {
                field: entry[field]
                for field in VALUE_FIELDS[file]
                if entry.get(field) not in (None, "", [])
            }
            value["context_keeper"] = {
                "id": foreign_id, "file": file, "origin": entry.get("origin"),
                "schema_version": entry.get("schema_version"),
            }  # fmt: skip
            if entry.get("deprecated_reason"):
                value["context_keeper"]["deprecated_reason"] = entry["deprecated_reason"]
            timestamps = {
                name: entry[name] for name in ("created_at", "updated_at", "verified_at")
                if isinstance(entry.get(name), str) and entry[name]
            }  # fmt: skip
            builder.add_memory(
                foreign_id=foreign_id, provenance_uri=f"context-keeper:{file}#{foreign_id}",
                origin_file=file, origin_line=position,
                content=content, kind=kind, type=memory_type, key=f"context-keeper/{foreign_id}",
                value=value, status=STATUS.get(entry.get("status", "active"), entry.get("status")),
                trust=TRUST.get(entry.get("origin", "agent"), "observed"),
                tags=_strings(entry.get("tags", [])), retrieval_hints=_strings(entry.get("retrieval_hints", [])),
                **scope, **timestamps,
            )  # fmt: skip
            by_id[foreign_id] = entry
    memories = {record["value"]["context_keeper"]["id"]: record for record in builder.memories}
    for foreign_id, entry in by_id.items():
        successor = entry.get("superseded_by")
        if isinstance(successor, str) and successor in memories and successor != foreign_id:
            newer = memories[successor]
            if newer["supersedes"] is None:
                newer["supersedes"] = builder.ids[foreign_id]
                newer["version"] = memories[foreign_id]["version"] + 1
            builder.link(successor, foreign_id, "supersedes")
        for related in entry.get("related_to") or []:
            if isinstance(related, str):
                builder.link(foreign_id, related, "related_to")
    versions = {record["id"]: record["version"] for record in builder.memories}
    for event in builder.events:
        event["version"] = versions[event["memory_id"]]
    return builder


def context_keeper_import(*, actor: Actor, path, project_key: str | None = None,
                          merge: bool = False, dry_run: bool = False) -> ImportReport:  # fmt: skip
    """Import a context-keeper `.context/` store into the actor's memory (owner-only), under
    the rules of a package import: all checked first, refused whole, empty store unless
    merge, never overwriting."""
    actor.require_owner(gettext_noop("import memories"))
    return build(context_dir(path), project_key=project_key).run(
        actor=actor, merge=merge, dry_run=dry_run
    )
