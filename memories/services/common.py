"""Pieces every memory service shares: loading a row for a write, history events, locks."""

from __future__ import annotations

import functools
import hashlib

from django.db import IntegrityError, connection, transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

from foundation.actors import Actor
from foundation.errors import ErrorCode, ServiceError, forbidden, not_found
from foundation.messages import known
from memories.models import SEARCH_SOURCE_FIELDS, Memory, MemoryEvent, MemoryLink, Relation, Status
from memories.selectors import is_visible_to, memories_visible_to, parse_memory_id
from memories.services import reasons
from memories.services.follow_up import memories_follow_up


def snapshot(memory: Memory) -> dict:
    """The state of a memory as its history records it (scrubbed again on owner delete)."""
    return {
        "content": memory.content,
        "key": memory.key,
        "value": memory.value,
        "type": memory.type,
        "kind": memory.kind,
        "scope_type": memory.scope_type,
        "scope_key": memory.scope_key,
        "trust": memory.trust,
        "status": memory.status,
        "visibility": memory.visibility,
        "version": memory.version,
        "tags": memory.tags,
        "retrieval_hints": memory.retrieval_hints,
        "confidence": memory.confidence,
        "confidence_basis": memory.confidence_basis,
        "supersedes": str(memory.supersedes_id) if memory.supersedes_id else None,
    }


def record_event(
    *,
    actor: Actor,
    memory: Memory,
    event_type: str,
    patch: dict | None = None,
    reason: str = "",
    idempotency_key: str = "",
    result: dict | None = None,
) -> MemoryEvent:
    return MemoryEvent.objects.create(
        owner=actor.user,
        memory_id=memory.pk,
        event_type=event_type,
        version=memory.version,
        actor_token=actor.token,
        actor_agent=actor.agent_name,
        patch=patch or {},
        result=snapshot(memory) if result is None else result,
        reason=reason,
        idempotency_key=idempotency_key or "",
    )


def save_new(memory: Memory) -> None:
    """Insert a new memory and set its follow-up work in motion."""
    memory.save()
    memories_follow_up([memory])


def save_changes(memory: Memory, *fields: str) -> None:
    """Save these fields of an existing memory; when its text changed, its follow-up too."""
    memory.updated_at = timezone.now()
    memory.save(update_fields=[*fields, "updated_at"])
    if SEARCH_SOURCE_FIELDS.intersection(fields):
        memories_follow_up([memory])


def memory_for_write(*, actor: Actor, memory_id) -> Memory:
    """The memory, locked for this transaction, if the actor may see and write it."""
    actor.require_scope("memories:write")
    memory = (
        memories_visible_to(actor).select_for_update().filter(pk=parse_memory_id(memory_id)).first()
    )
    if memory is None:
        raise not_found()
    return memory


# Kept on the refused token for its owner (accounts.refusals); `action` is a msgid too.
OWNER_TRUSTED = known(
    gettext_noop(
        "This memory is %(trust)s by the owner; an agent cannot %(action)s it. "
        "Write a new memory instead; the owner reviews it."
    )
)


def refuse_agent_on_owner_trusted(actor: Actor, memory: Memory, action: str) -> None:
    """The owner outranks every agent: what the owner confirmed or locked stays as it is, on
    either side of any relation (forget, supersede, link, merge, checkpoint)."""
    if actor.is_agent and memory.is_owner_trusted:
        raise forbidden(OWNER_TRUSTED, trust=memory.trust, action=action)


def serialize_writers(*parts: object) -> None:
    """Queue concurrent writers of the same logical thing (a key, a fingerprint) behind one
    another until commit. PostgreSQL: a transaction-scoped advisory lock. SQLite needs none:
    its IMMEDIATE transactions already admit one writer at a time."""
    if connection.vendor != "postgresql":
        return
    digest = hashlib.sha256("\x1f".join(str(part) for part in parts).encode()).digest()
    lock_id = int.from_bytes(digest[:8], "big", signed=True)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [lock_id])


def supersede(
    actor: Actor, memory: Memory, *, successor: Memory, reason: str = "", idempotency_key: str = ""
) -> None:
    """Retire `memory` in favour of `successor`: status, `supersedes` link, history event.

    The old row is retired before a new successor is inserted (the successor is saved here
    when it is new), because the key may have one active holder at any instant. The event's
    reason never names the successor: whoever reads the old memory's history may not be
    allowed to see it (the `supersedes` link records it, and the owner sees the link).
    """
    memory.status = Status.SUPERSEDED
    save_changes(memory, "status")
    if successor._state.adding:
        save_new(successor)
    MemoryLink.objects.get_or_create(
        owner=memory.owner,
        from_memory=successor,
        to_memory=memory,
        relation=Relation.SUPERSEDES,
        defaults={"created_by_agent": actor.agent_name},
    )
    record_event(
        actor=actor,
        memory=memory,
        event_type="superseded",
        reason=reason or reasons.SUPERSEDED,
        idempotency_key=idempotency_key,
    )


def atomic_change(service):
    """Run a service in one transaction. A uniqueness constraint that a concurrent writer
    won (same key or same statement) becomes CONFLICT instead of a database error."""

    @functools.wraps(service)
    def run(*args, **kwargs):
        try:
            with transaction.atomic():
                return service(*args, **kwargs)
        except IntegrityError:
            raise ServiceError(
                ErrorCode.CONFLICT,
                gettext_noop("A concurrent change got there first; reload and try again."),
            ) from None

    return run


def lock_key_holders(*, owner_id, scope_type: str, scope_key: str, key: str) -> list[Memory]:
    """Queue behind other writers of this key, then return its active holders, row-locked:
    at most one per visibility (an agent that cannot read the private holder writes beside
    it). Whoever writes compares only with the holders it may see (`visible_holder`)."""
    serialize_writers("key", owner_id, scope_type, scope_key, key)
    return list(
        Memory.objects.select_for_update()
        .filter(owner=owner_id, scope_type=scope_type, scope_key=scope_key, key=key)
        .filter(status=Status.ACTIVE)
        .order_by("visibility", "pk")
    )


def visible_holder(actor: Actor, holders: list[Memory], visibility: str) -> Memory | None:
    """The holder this actor's write continues: one it may see, of the write's visibility if
    there is one. A holder it may not see is, for this writer, not there."""
    visible = [holder for holder in holders if is_visible_to(actor, holder)]
    same = [holder for holder in visible if holder.visibility == visibility]
    return (same or visible or [None])[0]
