"""What happens to a memory after it is written: trust, corrections, forgetting, deletion.

Owner-only operations (confirm, lock, unlock, correct, restore, delete) refuse agents with
FORBIDDEN. Agents may archive or supersede only what they can see and the owner has not
confirmed or locked. Each change and its event commit together.
"""

from __future__ import annotations

from django.utils import timezone
from django.utils.translation import gettext_noop

from foundation.actors import Actor
from foundation.errors import ErrorCode, ServiceError, validation_error
from memories import gates, text
from memories.models import (
    LIVE_STATUSES,
    EventType,
    Kind,
    Memory,
    MemoryEvent,
    MemoryLink,
    Origin,
    Status,
    Trust,
)
from memories.retrieval import index as search_index
from memories.selectors import version_chain_ids
from memories.services import validation as check
from memories.services.common import (
    atomic_change,
    lock_key_holders,
    memory_for_write,
    record_event,
    refuse_agent_on_owner_trusted,
    save_changes,
    serialize_writers,
    supersede,
)
from memories.values import check_value


def _conflict(message: str, memory_id, **params) -> ServiceError:
    return ServiceError(ErrorCode.CONFLICT, message, [{"id": str(memory_id)}], params=params)


def _take_over_key(actor: Actor, memory: Memory) -> None:
    """Make `memory` the active holder of its key: the memories that held it are superseded
    and `memory` becomes the next version of the one it continues (of its own visibility
    when there is one). Used when the owner sides with a disputed write."""
    if memory.key is None:
        return
    holders = [
        holder
        for holder in lock_key_holders(
            owner_id=memory.owner_id,
            scope_type=memory.scope_type,
            scope_key=memory.scope_key,
            key=memory.key,
        )  # fmt: skip
        if holder.pk != memory.pk
    ]
    if not holders:
        return
    for holder in holders:
        supersede(actor, holder, successor=memory)
    holders.sort(key=lambda holder: holder.visibility != memory.visibility)
    memory.supersedes = holders[0]
    memory.version = max(holder.version for holder in holders) + 1


def _refuse_twin(memory: Memory) -> None:
    """Statements are unique among active, readable memories of one visibility: a memory
    that becomes one while another already says the same thing would be a copy."""
    twin = (
        Memory.objects.filter(
            owner=memory.owner_id,
            fingerprint=memory.fingerprint,
            visibility=memory.visibility,
            status=Status.ACTIVE,
            held=False,
        )  # fmt: skip
        .exclude(pk=memory.pk)
        .first()
    )
    if twin is not None:
        raise _conflict(
            gettext_noop("Memory %(id)s already says the same thing; archive one of them first."),
            twin.pk, id=twin.pk,
        )  # fmt: skip


def _set_trust(actor: Actor, memory: Memory, trust: str, event_type: str) -> Memory:
    if memory.trust == trust and memory.status != Status.DISPUTED and not memory.held:
        return memory  # idempotent: nothing changes, nothing is recorded
    memory.trust = trust
    memory.verified_at = timezone.now()
    fields = ["trust", "verified_at"]
    if memory.status in LIVE_STATUSES and (memory.held or memory.status == Status.DISPUTED):
        # The owner sides with a disputed or held memory: it becomes the live statement.
        _take_over_key(actor, memory)
        _refuse_twin(memory)
        memory.status = Status.ACTIVE
        fields += ["status", "supersedes", "version"]
    if memory.held:
        # Released: agents may read it from now on, whatever its status.
        memory.held = False
        fields.append("held")
    save_changes(memory, *fields)
    record_event(actor=actor, memory=memory, event_type=event_type)
    return memory


@atomic_change
def memory_confirm(*, actor: Actor, memory_id) -> Memory:
    """Owner-only. Idempotent; a locked memory stays locked; a disputed one becomes active."""
    actor.require_owner(gettext_noop("confirm memories"))
    memory = memory_for_write(actor=actor, memory_id=memory_id)
    if memory.trust == Trust.LOCKED and memory.status != Status.DISPUTED and not memory.held:
        return memory
    return _set_trust(actor, memory, Trust.CONFIRMED, EventType.CONFIRMED)


@atomic_change
def memory_lock(*, actor: Actor, memory_id) -> Memory:
    """Owner-only. Idempotent. A locked memory is what agents can never change."""
    actor.require_owner(gettext_noop("lock memories"))
    memory = memory_for_write(actor=actor, memory_id=memory_id)
    return _set_trust(actor, memory, Trust.LOCKED, EventType.LOCKED)


@atomic_change
def memory_unlock(*, actor: Actor, memory_id) -> Memory:
    """Owner-only. A locked memory becomes confirmed; anything else is left as it is."""
    actor.require_owner(gettext_noop("unlock memories"))
    memory = memory_for_write(actor=actor, memory_id=memory_id)
    if memory.trust != Trust.LOCKED:
        return memory
    memory.trust = Trust.CONFIRMED
    save_changes(memory, "trust")
    record_event(actor=actor, memory=memory, event_type=EventType.UNLOCKED)
    return memory


@atomic_change
def memory_correct(
    *,
    actor: Actor,
    memory_id,
    content: str,
    value: dict | None = None,
    kind: str | None = None,
    tags: list[str] | None = None,
    retrieval_hints: list[str] | None = None,
    reason: str | None = None,
    expected_version: int | None = None,
) -> Memory:
    """Owner-only edit of a live memory: a new version, trusted as confirmed (or locked if
    the old one was), that supersedes the old one. Correcting to identical text is a no-op.

    With `expected_version` it is a compare-and-set: unless the memory is still live at that
    version (nobody corrected, archived or replaced it since the caller read it), the answer
    is VERSION_CONFLICT and nothing changes."""
    actor.require_owner(gettext_noop("correct memories"))
    expected_version = check.expected_version(expected_version)
    memory = memory_for_write(actor=actor, memory_id=memory_id)
    if expected_version is not None and (
        memory.version != expected_version or memory.status not in LIVE_STATUSES
    ):
        raise ServiceError(
            ErrorCode.VERSION_CONFLICT,
            gettext_noop(
                "expected version %(expected)s, but this memory is at version %(actual)s and "
                "%(status)s; reload it and correct it again."
            ),
            [{"field": "expected_version", "expected": expected_version,
              "actual": memory.version, "status": memory.status}],
            params={"expected": expected_version, "actual": memory.version, "status": memory.status},
        )  # fmt: skip
    if memory.status not in LIVE_STATUSES:
        raise validation_error(
            gettext_noop("Only a live memory can be corrected; this one is %(status)s."),
            field="id", status=memory.status,
        )  # fmt: skip
    content = check.statement(content)
    value = check_value(value) if value is not None else memory.value
    kind = check.choice(kind, Kind, "kind", default=memory.kind)
    tags = (
        memory.tags
        if tags is None
        else check.string_list(tags, "tags", check.MAX_TAGS, check.MAX_TAG_CHARS, fold=True)
    )
    hints = (
        memory.retrieval_hints
        if retrieval_hints is None
        else check.string_list(
            retrieval_hints, "retrieval_hints", check.MAX_HINTS, check.MAX_HINT_CHARS, fold=False
        )
    )
    reason = check.reason(reason)
    gates.gate_memory(
        content=content, key=memory.key, value=value, scope_key=memory.scope_key, tags=tags,
        retrieval_hints=hints, reason=reason,
    )  # fmt: skip
    if (content, value, kind, tags, hints) == (
        memory.content,
        memory.value,
        memory.kind,
        memory.tags,
        memory.retrieval_hints,
    ):
        return memory
    if memory.status == Status.DISPUTED:
        # Correcting a disputed memory first sides with it (it takes over its key), then edits.
        memory = _set_trust(actor, memory, Trust.CONFIRMED, EventType.CONFIRMED)
    fingerprint = text.fingerprint(content, memory.scope_type, memory.scope_key)
    # No advisory lock here: this transaction already holds the row lock, and taking the
    # fingerprint lock after it could deadlock with remember (which takes it first).
    twin = (
        Memory.objects.filter(owner=actor.user, fingerprint=fingerprint, status__in=LIVE_STATUSES)
        .exclude(pk=memory.pk)
        .first()
    )
    if twin is not None:
        raise _conflict(gettext_noop("An identical memory already exists in this scope."), twin.pk)

    corrected = Memory(
        owner=actor.user, content=content, key=memory.key, value=value, type=memory.type,
        kind=kind, scope_type=memory.scope_type, scope_key=memory.scope_key,
        trust=Trust.LOCKED if memory.trust == Trust.LOCKED else Trust.CONFIRMED,
        status=Status.ACTIVE, visibility=memory.visibility, origin=Origin.USER,
        confidence=None, confidence_basis="", version=memory.version + 1, supersedes=memory,
        fingerprint=fingerprint, tags=tags, retrieval_hints=hints, verified_at=timezone.now(),
    )  # fmt: skip
    corrected.full_clean(validate_unique=False, validate_constraints=False)
    supersede(
        actor, memory, successor=corrected, reason=reason or gettext_noop("corrected by the owner")
    )
    patch = {
        "content": content,
        "value": value,
        "kind": kind,
        "tags": tags,
        "retrieval_hints": hints,
    }
    record_event(
        actor=actor, memory=corrected, event_type=EventType.CORRECTED, patch=patch, reason=reason
    )
    return corrected


@atomic_change
def memory_archive(*, actor: Actor, memory_id, reason: str | None = None) -> Memory:
    """Archive a live memory (it leaves recall, keeps its history). Idempotent."""
    memory = memory_for_write(actor=actor, memory_id=memory_id)
    reason = check.reason(reason)
    gates.gate_secrets(reason=reason)
    if memory.status == Status.ARCHIVED:
        return memory
    refuse_agent_on_owner_trusted(actor, memory, gettext_noop("archive"))
    if memory.status not in LIVE_STATUSES:
        raise validation_error(
            gettext_noop("This memory is %(status)s; it cannot be archived."), field="id",
            status=memory.status,
        )  # fmt: skip
    memory.status = Status.ARCHIVED
    save_changes(memory, "status")
    record_event(actor=actor, memory=memory, event_type=EventType.ARCHIVED, reason=reason)
    return memory


@atomic_change
def memory_restore(*, actor: Actor, memory_id) -> Memory:
    """Owner-only: an archived or superseded memory becomes active again, unless a live
    memory already holds its key or says the same thing (CONFLICT: resolve that first)."""
    actor.require_owner(gettext_noop("restore memories"))
    memory = memory_for_write(actor=actor, memory_id=memory_id)
    if memory.status in LIVE_STATUSES:
        return memory
    if memory.key is not None:
        holders = lock_key_holders(
            owner_id=memory.owner_id, scope_type=memory.scope_type,
            scope_key=memory.scope_key, key=memory.key,
        )  # fmt: skip
        if holders:
            holder = holders[0]
            raise _conflict(
                gettext_noop("Memory %(id)s now holds the key '%(key)s'; archive it first."),
                holder.pk, id=holder.pk, key=memory.key,
            )  # fmt: skip
    serialize_writers("fingerprint", memory.owner_id, memory.fingerprint)
    twin = Memory.objects.filter(
        owner=actor.user, fingerprint=memory.fingerprint, status__in=LIVE_STATUSES
    ).first()
    if twin is not None:
        raise _conflict(gettext_noop("A live memory already says the same thing."), twin.pk)
    memory.status = Status.ACTIVE
    save_changes(memory, "status")
    record_event(actor=actor, memory=memory, event_type=EventType.RESTORED)
    return memory


@atomic_change
def memory_supersede(
    *, actor: Actor, memory_id, superseded_by, reason: str | None = None
) -> Memory:
    """Mark a live memory as replaced by another live memory of the same owner."""
    memory = memory_for_write(actor=actor, memory_id=memory_id)
    successor = memory_for_write(actor=actor, memory_id=superseded_by)
    reason = check.reason(reason)
    gates.gate_secrets(reason=reason)
    if successor.pk == memory.pk:
        raise validation_error(
            gettext_noop("A memory cannot supersede itself."), field="superseded_by"
        )
    # Both sides: the successor becomes the next version of the retired memory.
    refuse_agent_on_owner_trusted(actor, memory, gettext_noop("supersede"))
    refuse_agent_on_owner_trusted(actor, successor, gettext_noop("make a successor of"))
    if memory.status == Status.SUPERSEDED:
        return memory
    if memory.status not in LIVE_STATUSES or successor.status not in LIVE_STATUSES:
        raise validation_error(
            gettext_noop("Both memories must be live (active or disputed)."), field="superseded_by"
        )
    supersede(actor, memory, successor=successor, reason=reason)
    if successor.supersedes_id is None:
        # The successor continues the replaced memory's line: its next version.
        successor.supersedes = memory
        fields = ["supersedes"]
        if successor.version == 1:
            successor.version = memory.version + 1
            fields.append("version")
        save_changes(successor, *fields)
    return memory


def memory_forget(
    *, actor: Actor, memory_id, reason: str | None = None, superseded_by=None
) -> Memory:
    """How agents forget: archive, or supersede when a replacement is named. Never deletes."""
    if superseded_by is not None:
        return memory_supersede(
            actor=actor, memory_id=memory_id, superseded_by=superseded_by, reason=reason
        )
    return memory_archive(actor=actor, memory_id=memory_id, reason=reason)


@atomic_change
def memory_delete(*, actor: Actor, memory_id) -> str:
    """Owner-only hard delete of a memory and every earlier version of it.

    The rows go, their links go, and their history is scrubbed of content; one tombstone
    event per deleted row remains so the history says something was deleted, not what.
    Returns the id of the deleted memory.
    """
    actor.require_owner(gettext_noop("delete memories"))
    memory = memory_for_write(actor=actor, memory_id=memory_id)
    chain = version_chain_ids(memory)
    MemoryEvent.objects.filter(owner=actor.user, memory_id__in=chain).update(
        patch={}, result={}, reason="", idempotency_key=""
    )
    versions = {row.pk: row.version for row in Memory.objects.filter(pk__in=chain)}
    Memory.objects.filter(supersedes__in=chain).exclude(pk__in=chain).update(supersedes=None)
    MemoryLink.objects.filter(owner=actor.user, from_memory__in=chain).delete()
    MemoryLink.objects.filter(owner=actor.user, to_memory__in=chain).delete()
    Memory.objects.filter(pk__in=chain).delete()
    search_index.compact()  # the index drops the deleted terms now, not at some later merge
    MemoryEvent.objects.bulk_create(
        MemoryEvent(
            owner=actor.user,
            memory_id=pk,
            event_type=EventType.DELETED,
            version=versions[pk],
            actor_token=None,
            actor_agent="",
            result={"deleted": True},
        )  # fmt: skip
        for pk in chain
    )
    return str(memory.pk)
