"""Import a package into one owner's store: read, check everything, plan, then write all of
it in one transaction, or nothing.

Default: only into an empty store (no memories, events, links or handoffs), and the
package's history comes along as it was. With `merge`: a memory whose statement (content +
scope, by fingerprint) the owner already has is a *duplicate* and is not written again; an
active keyed memory whose key the owner already holds with another statement is
*conflicting*: it is imported as `disputed`, linked `contradicts` to the holder, and lands
in Review, never overwriting it. Everything else is *created*.

Records keep their ids unless an id is already taken in this database (another owner's
rows, or an earlier import), in which case they get new ones and every reference follows.
"""

from __future__ import annotations

import uuid
from dataclasses import asdict, dataclass, field

from django.db import transaction
from django.utils.translation import gettext_noop

from foundation.actors import Actor
from foundation.errors import ErrorCode, ServiceError
from foundation.messages import rendered
from handoff.models import HandoffCapsule
from memories.models import (
    LIVE_STATUSES,
    EventType,
    Memory,
    MemoryEvent,
    MemoryLink,
    Relation,
    Status,
)
from memories.services import reasons, relations
from memories.services.common import serialize_writers
from memories.services.follow_up import memories_follow_up
from portability.packages.format import MAX_PACKAGE_BYTES
from portability.packages.reader import check_manifest, read_files
from portability.packages.records import parse_records

CHUNK = 500


@dataclass
class ImportReport:
    mode: str
    dry_run: bool
    source_instance: str | None
    created: dict = field(
        default_factory=lambda: {"memories": 0, "events": 0, "links": 0, "handoffs": 0}
    )
    duplicate: dict = field(default_factory=lambda: {"memories": 0, "links": 0, "handoffs": 0})
    conflicting: list = field(default_factory=list)  # [{"id", "key", "existing_id"}]
    skipped_events: int = 0
    new_ids: int = 0
    # Merge: pairs of an imported memory and one already there that cannot both be true,
    # linked and raised in Review by the relation judge (memories.services.relations).
    raised_for_review: int = 0

    def as_dict(self) -> dict:
        return asdict(self)


def package_import(
    *, actor: Actor, source, merge: bool = False, dry_run: bool = False,
    max_bytes: int = MAX_PACKAGE_BYTES,
) -> ImportReport:  # fmt: skip
    """Import the package at `source` (a `.tar.gz` path, a directory, or a binary file
    object) into the actor's store. Owner-only. A package with any problem — bad checksum,
    missing file, unknown format version, one malformed record — is refused whole with a
    report (VALIDATION_ERROR, details list every problem) and the store is unchanged. A
    non-empty store without `merge` is refused with CONFLICT. `dry_run` reports what would
    happen and writes nothing. At most `max_bytes` are read uncompressed (an upload passes
    a cap proportional to its own size)."""
    actor.require_owner(gettext_noop("import a memory package"))
    files = read_files(source, max_bytes=max_bytes)
    manifest = check_manifest(files)
    records = parse_records(files)
    report = ImportReport(
        mode="merge" if merge else "empty", dry_run=dry_run,
        source_instance=manifest.get("source_instance") if isinstance(manifest.get("source_instance"), str) else None,
    )  # fmt: skip
    with transaction.atomic():
        # One import per owner at a time; SQLite's immediate transactions already serialise.
        serialize_writers("package-import", actor.user.pk)
        owner = actor.user
        if not merge:
            _require_empty(owner)
        plan = _Plan(owner, records, merge, report)
        if not dry_run:
            plan.write()
    return report


def records_import(
    *, actor: Actor, records: dict[str, list[dict]], merge: bool, dry_run: bool, source: str
) -> ImportReport:
    """Import already validated records (the importers from other tools build them)."""
    actor.require_owner(gettext_noop("import memories"))
    report = ImportReport(
        mode="merge" if merge else "empty", dry_run=dry_run, source_instance=source
    )
    with transaction.atomic():
        serialize_writers("package-import", actor.user.pk)
        if not merge:
            _require_empty(actor.user)
        plan = _Plan(actor.user, records, merge, report)
        if not dry_run:
            plan.write()
    return report


def _require_empty(owner) -> None:
    held = {
        "memories": Memory.objects.filter(owner=owner).count(),
        "events": MemoryEvent.objects.filter(owner=owner).count(),
        "links": MemoryLink.objects.filter(owner=owner).count(),
        "handoffs": HandoffCapsule.objects.filter(owner=owner).count(),
    }
    if any(held.values()):
        summary = ", ".join(f"{count} {kind}" for kind, count in held.items() if count)
        raise ServiceError(
            ErrorCode.CONFLICT,
            f"The store is not empty ({summary}); a package imports into an empty store only. "
            "Use merge to add it beside what is there (duplicates are skipped, conflicts "
            "reported, nothing overwritten).",
            [{"field": kind, "count": count} for kind, count in held.items()],
        )


def _chunks(items):
    items = list(items)
    for start in range(0, len(items), CHUNK):
        yield items[start : start + CHUNK]


def _taken(model, ids) -> set:
    taken = set()
    for chunk in _chunks(ids):
        taken |= set(model.objects.filter(pk__in=chunk).values_list("pk", flat=True))
    return taken


class _Plan:
    """Decides, record by record, what the import does; reads only. `write` does it."""

    def __init__(self, owner, records: dict, merge: bool, report: ImportReport):
        self.owner, self.records, self.merge, self.report = owner, records, merge, report
        memories = records["memories"]
        package_ids = [record["id"] for record in memories]
        event_ids = [record["memory_id"] for record in records["events"]]
        taken = _taken(Memory, {*package_ids, *event_ids})
        self.memory_ids = {
            old: (uuid.uuid4() if old in taken else old) for old in {*package_ids, *event_ids}
        }
        self.duplicates: dict = {}  # package id -> existing memory id
        self.conflicts: dict = {}  # package id -> existing key holder id
        if merge:
            self._classify_memories(memories)
        self.new_memories = [record for record in memories if record["id"] not in self.duplicates]
        self.links = self._plan_links()
        self.events = [
            record for record in records["events"] if record["memory_id"] not in self.duplicates
        ]
        if merge:
            self.events = self._without_known_events(self.events)
        report.skipped_events = len(records["events"]) - len(self.events)
        self.handoffs = self._plan_handoffs()
        report.created |= {
            "memories": len(self.new_memories), "events": len(self.events) + len(self.conflicts),
            "links": len(self.links), "handoffs": len(self.handoffs),
        }  # fmt: skip
        report.new_ids = sum(1 for old, new in self.memory_ids.items() if old != new) + sum(
            1 for record in self.handoffs if record["_new_id"] != record["id"]
        )

    def target(self, package_id):
        if package_id in self.duplicates:
            return self.duplicates[package_id]
        return self.memory_ids.get(package_id, package_id)

    def _classify_memories(self, memories) -> None:
        existing = {}
        for chunk in _chunks({record["fingerprint"] for record in memories}):
            for pk, fingerprint, status in Memory.objects.filter(
                owner=self.owner, fingerprint__in=chunk
            ).values_list("pk", "fingerprint", "status"):
                # Prefer the live memory when several share the statement.
                if fingerprint not in existing or status in LIVE_STATUSES:
                    existing[fingerprint] = pk
        for record in memories:
            if record["fingerprint"] in existing:
                self.duplicates[record["id"]] = existing[record["fingerprint"]]
                continue
            if record["status"] == Status.ACTIVE and record["key"] is not None:
                holder = Memory.objects.filter(
                    owner=self.owner, scope_type=record["scope_type"], scope_key=record["scope_key"],
                    key=record["key"], status=Status.ACTIVE,
                ).values_list("pk", flat=True).first()  # fmt: skip
                if holder is not None:
                    self.conflicts[record["id"]] = holder
                    self.report.conflicting.append(
                        {"id": str(self.target(record["id"])), "key": record["key"],
                         "scope_type": record["scope_type"], "scope_key": record["scope_key"],
                         "existing_id": str(holder)}
                    )  # fmt: skip
        self.report.duplicate["memories"] = len(self.duplicates)

    def _without_known_events(self, events: list[dict]) -> list[dict]:
        """Events already in the owner's history (a tombstone imported before) are not
        written twice."""
        known = set()
        for chunk in _chunks({self.target(record["memory_id"]) for record in events}):
            known |= set(
                MemoryEvent.objects.filter(owner=self.owner, memory_id__in=chunk).values_list(
                    "memory_id", "event_type", "version", "created_at"
                )
            )
        return [
            record
            for record in events
            if (
                self.target(record["memory_id"]),
                record["event_type"],
                record["version"],
                record["created_at"],
            )
            not in known
        ]

    def _plan_links(self) -> list[dict]:
        planned, seen = [], set()
        for record in self.records["links"]:
            source, target = (
                self.target(record["from_id"]),
                (self.target(record["to_id"]) if record["to_id"] is not None else None),
            )
            edge = (source, target, record["uri"], record["relation"])
            if source == target or edge in seen:
                self.report.duplicate["links"] += 1
                continue
            seen.add(edge)
            if (
                self.merge
                and MemoryLink.objects.filter(
                    from_memory_id=source,
                    to_memory_id=target,
                    uri=record["uri"],
                    relation=record["relation"],
                ).exists()
            ):
                self.report.duplicate["links"] += 1
                continue
            planned.append({**record, "from_id": source, "to_id": target})
        return planned

    def _plan_handoffs(self) -> list[dict]:
        records = self.records["handoffs"]
        taken = _taken(HandoffCapsule, [record["id"] for record in records])
        planned = []
        for record in records:
            if self.merge and HandoffCapsule.objects.filter(
                owner=self.owner, task_id=record["task_id"], created_at=record["created_at"],
                summary=record["summary"],
            ).exists():  # fmt: skip
                self.report.duplicate["handoffs"] += 1
                continue
            planned.append(
                {**record, "_new_id": uuid.uuid4() if record["id"] in taken else record["id"]}
            )
        return planned

    def write(self) -> None:
        memories = []
        for record in self.new_memories:
            memory = Memory(
                id=self.target(record["id"]), owner=self.owner,
                **{name: record[name] for name in (
                    "content", "key", "value", "type", "kind", "scope_type", "scope_key", "trust",
                    "visibility", "origin", "source_agent", "confidence", "confidence_basis",
                    "version", "tags", "retrieval_hints", "verified_at", "created_at", "updated_at",
                    "fingerprint", "held",
                )},
                status=Status.DISPUTED if record["id"] in self.conflicts else record["status"],
                supersedes_id=self.target(record["supersedes"]) if record["supersedes"] else None,
            )  # fmt: skip
            memory.refresh_search_fields()
            memories.append(memory)
        Memory.objects.bulk_create(memories, batch_size=CHUNK)
        memories_follow_up(memories)  # words and embeddings, once the import commits
        MemoryEvent.objects.bulk_create(
            [
                MemoryEvent(
                    owner=self.owner,
                    memory_id=self.target(record["memory_id"]),
                    **{
                        name: record[name]
                        for name in (
                            "event_type",
                            "version",
                            "actor_agent",
                            "patch",
                            "result",
                            "reason",
                            "idempotency_key",
                            "created_at",
                        )
                    },
                )  # fmt: skip
                for record in self.events
            ],
            batch_size=CHUNK,
        )
        links = [
            MemoryLink(
                owner=self.owner,
                from_memory_id=record["from_id"],
                to_memory_id=record["to_id"],
                uri=record["uri"],
                relation=record["relation"],
                created_by_agent=record["created_by_agent"],
                created_at=record["created_at"],
            )  # fmt: skip
            for record in self.links
        ]
        for package_id, holder in self.conflicts.items():
            memory_id = self.target(package_id)
            links.append(
                MemoryLink(
                    owner=self.owner,
                    from_memory_id=memory_id,
                    to_memory_id=holder,
                    relation=Relation.CONTRADICTS,
                )
            )
        MemoryLink.objects.bulk_create(links, batch_size=CHUNK)
        if self.merge:
            self.report.raised_for_review = relations.raise_for_imported(self.owner, memories)
        # A conflicting memory's own history says why it is disputed.
        by_id = {memory.pk: memory for memory in memories}
        MemoryEvent.objects.bulk_create([
            MemoryEvent(
                owner=self.owner, memory_id=self.target(package_id), event_type=EventType.LINKED,
                version=by_id[self.target(package_id)].version,
                reason=rendered(reasons.IMPORTED_DISPUTED, holder=holder),
                patch={"relation": Relation.CONTRADICTS, "to_id": str(holder)},
            )
            for package_id, holder in self.conflicts.items()
        ])  # fmt: skip
        HandoffCapsule.objects.bulk_create(
            [
                HandoffCapsule(
                    id=record["_new_id"],
                    owner=self.owner,
                    **{
                        name: record[name]
                        for name in (
                            "task_id",
                            "summary",
                            "status",
                            "decisions",
                            "next_steps",
                            "artifacts",
                            "blockers",
                            "from_agent",
                            "created_at",
                            "expires_at",
                            "resumed_at",
                            "resumed_by",
                            "resume_count",
                        )
                    },
                )  # fmt: skip
                for record in self.handoffs
            ],
            batch_size=CHUNK,
        )
