"""What every importer from another tool shares: turning foreign entries into package
records, so they pass the very checks and import rules of a memory package.

An importer maps each foreign entry to a memory record (origin `import`, source_agent the
tool's name), a `created` history event that names the foreign id, and a `derived_from`
link to a URI naming the source and that id: the foreign id stays as provenance.
"""

from __future__ import annotations

import uuid

from django.utils import timezone

from foundation.actors import Actor
from foundation.errors import ServiceError
from foundation.messages import rendered
from memories.services import reasons
from portability.packages.format import FILES, jsonl
from portability.packages.importer import ImportReport, records_import
from portability.packages.records import parse_records

# A stable namespace, so one foreign id always maps to the same memory id on one instance.
IMPORT_NAMESPACE = uuid.UUID("7b0c3f0e-5d7e-4a55-9a53-2f1d3c1c9e11")


class RecordsBuilder:
    """Collects package records for one import source."""

    def __init__(self, source: str):
        self.source = source
        self.memories: list[dict] = []
        self.events: list[dict] = []
        self.links: list[dict] = []
        self.ids: dict[str, str] = {}  # foreign id -> memory id
        self.origins: list[dict] = []  # where each memory record came from, in order

    def memory_id(self, foreign_id: str) -> str:
        return str(uuid.uuid5(IMPORT_NAMESPACE, f"{self.source}\x1f{foreign_id}"))

    def add_memory(self, *, foreign_id: str, provenance_uri: str, origin_file: str,
                   origin_line: int | None = None, **fields) -> str:  # fmt: skip
        now = timezone.now().isoformat()
        memory_id = self.memory_id(foreign_id)
        record = {
            "id": memory_id, "key": None, "value": None, "type": "semantic",
            "scope_type": "global", "scope_key": "", "trust": "observed", "status": "active",
            "visibility": "shared", "origin": "import", "source_agent": self.source,
            "confidence": None, "confidence_basis": "", "version": 1, "supersedes": None,
            "tags": [], "retrieval_hints": [], "verified_at": None, "created_at": now,
            "updated_at": now,
        }  # fmt: skip
        record.update(fields)
        self.memories.append(record)
        self.origins.append({"file": origin_file, "line": origin_line, "id": foreign_id})
        self.ids[foreign_id] = memory_id
        self.events.append({
            "memory_id": memory_id, "event_type": "created", "version": 1, "actor_agent": "",
            "patch": {"source": self.source, "source_id": foreign_id},
            "result": {"content": record["content"], "kind": record["kind"], "status": record["status"]},
            "reason": rendered(reasons.IMPORTED_FROM, source=self.source, id=foreign_id)[:500], "idempotency_key": "",
            "created_at": record["created_at"],
        })  # fmt: skip
        self.links.append({
            "from_id": memory_id, "to_id": None, "uri": provenance_uri, "relation": "derived_from",
            "created_by_agent": self.source, "created_at": record["created_at"],
        })  # fmt: skip
        return memory_id

    def link(self, from_foreign: str, to_foreign: str, relation: str) -> bool:
        """Link two imported entries; False when either is not in this import."""
        if from_foreign not in self.ids or to_foreign not in self.ids or from_foreign == to_foreign:
            return False
        edge = {"from_id": self.ids[from_foreign], "to_id": self.ids[to_foreign], "uri": None,
                "relation": relation, "created_by_agent": self.source,
                "created_at": timezone.now().isoformat()}  # fmt: skip
        if not any(
            (item["from_id"], item["to_id"], item["relation"])
            == (edge["from_id"], edge["to_id"], relation)
            for item in self.links
        ):
            self.links.append(edge)
        return True

    def run(self, *, actor: Actor, merge: bool, dry_run: bool) -> ImportReport:
        """Check every record like a package's (refused whole on any problem), then import."""
        files = {
            FILES["memories"]: jsonl(self.memories), FILES["events"]: jsonl(self.events),
            FILES["links"]: jsonl(self.links), FILES["handoffs"]: b"",
        }  # fmt: skip
        try:
            records = parse_records(files)
        except ServiceError as error:
            raise self._in_source_terms(error) from None
        return records_import(
            actor=actor, records=records, merge=merge, dry_run=dry_run, source=self.source
        )

    def _in_source_terms(self, error: ServiceError) -> ServiceError:
        """A refusal that names the source file, line and id, not the generated records."""
        details = []
        for detail in error.details:
            if detail.get("file") == FILES["memories"] and detail.get("line"):
                origin = self.origins[detail["line"] - 1]
                detail = {
                    **detail,
                    "file": origin["file"],
                    "line": origin["line"],
                    "id": origin["id"],
                }
            details.append(detail)
        first = details[0]
        where = ":".join(
            str(part) for part in (first.get("file"), first.get("line") or first.get("id")) if part
        )
        message = (
            f"The {self.source} import was refused, nothing was imported: {len(details)} "
            f"problem(s); first: {where + ': ' if where else ''}"
            f"{first.get('field') + ' ' if first.get('field') else ''}{first['message']}"
        )
        return ServiceError(error.code, message, details)
