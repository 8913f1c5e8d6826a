"""Undo: the owner takes back their own last reversible action on a memory.

An action that changed something recorded one event; `memory_act` runs the action and
returns that event's id, and `memory_undo` takes it. The inverse always goes through the
lifecycle services, with the owner's actor:

    archived  -> memory_restore        restored -> memory_archive
    unlocked  -> memory_lock           confirmed, locked -> the trust it had before

Undo is refused (CONFLICT, nothing changes) when anything happened to the memory after
that event, so an undo never overwrites a later change; when the event is not the owner's;
and when a confirm settled a dispute (keys and versions moved: correct or archive instead).
A hard delete has no undo. Undoing twice is refused the same way: the undo is the newest
event then.
"""

from __future__ import annotations

from collections.abc import Callable

from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from foundation.actors import Actor
from foundation.errors import ErrorCode, ServiceError, not_found, validation_error
from foundation.messages import rendered
from memories.models import EventType, Memory, MemoryEvent, Trust
from memories.selectors import parse_memory_id
from memories.services import reasons
from memories.services.common import memory_for_write, record_event, save_changes
from memories.services.lifecycle import (
    memory_archive,
    memory_confirm,
    memory_lock,
    memory_restore,
    memory_unlock,
)
from memories.templatetags.dashboard import label

# The card's reversible actions: the service and the event it records when it changes something.
ACTIONS: dict[str, tuple[Callable, str]] = {
    "confirm": (memory_confirm, EventType.CONFIRMED),
    "lock": (memory_lock, EventType.LOCKED),
    "unlock": (memory_unlock, EventType.UNLOCKED),
    "archive": (memory_archive, EventType.ARCHIVED),
    "restore": (memory_restore, EventType.RESTORED),
}
INVERSES: dict[str, Callable] = {
    EventType.ARCHIVED: memory_restore,
    EventType.RESTORED: memory_archive,
    EventType.UNLOCKED: memory_lock,
}
TRUST_EVENTS = (EventType.CONFIRMED, EventType.LOCKED)
MAX_STATE_CHARS = 64
CHANGED_SINCE_SHOWN = gettext_noop(
    "This memory changed since the page showed it: it is now %(trust)s and %(status)s. "
    "Nothing was changed; here it is as it stands, act on it again if you still want to."
)


def _newest_event_id(owner, memory_id) -> int:
    newest = (
        MemoryEvent.objects.filter(owner=owner, memory_id=memory_id)
        .order_by("-pk")
        .values_list("pk", flat=True)
        .first()
    )
    return newest or 0


def _refuse_moved(actor: Actor, memory_id, expected_state: str) -> None:
    """CONFLICT unless the memory is still in the state the caller acted on (its row
    locked until the action is done)."""
    memory = memory_for_write(actor=actor, memory_id=memory_id)
    if memory.shown_state != str(expected_state)[:MAX_STATE_CHARS]:
        raise ServiceError(
            ErrorCode.CONFLICT, CHANGED_SINCE_SHOWN, [{"id": str(memory.pk)}],
            params={"trust": memory.trust, "status": memory.status},
        )  # fmt: skip


@transaction.atomic
def memory_act(
    *, actor: Actor, memory_id, action: str, expected_state: str | None = None
) -> tuple[Memory, int | None]:
    """Owner-only. One of `ACTIONS` on a memory; returns the memory and the id of the event
    the action recorded (what `memory_undo` takes), or None when it changed nothing (an
    idempotent repeat has nothing to undo).

    With `expected_state` (the `Memory.shown_state` the caller's buttons were chosen from)
    it is a compare-and-set: when the memory's version, status or trust moved since (another
    card of it, a dispute settled beside it, an agent), CONFLICT and nothing changes, so a
    stale button never acts on a state it did not show."""
    if action not in ACTIONS:
        raise validation_error(_("This action cannot be run here."), field="action")
    actor.require_owner(gettext_noop("act on memories from the dashboard"))
    service, event_type = ACTIONS[action]
    if expected_state:
        _refuse_moved(actor, memory_id, expected_state)
    before = _newest_event_id(actor.user, parse_memory_id(memory_id))
    memory = service(actor=actor, memory_id=memory_id)
    recorded = (
        MemoryEvent.objects.filter(
            owner=actor.user, memory_id=memory.pk, event_type=event_type, pk__gt=before
        )
        .order_by("-pk")
        .values_list("pk", flat=True)
        .first()
    )
    return memory, recorded


def _event_id(value) -> int:
    text = str(value).strip() if value is not None else ""
    if not text.isdecimal() or len(text) > 18:
        raise validation_error(_("There is no action to undo here."), field="event")
    return int(text)


def _refused(message: str, memory: Memory) -> ServiceError:
    return ServiceError(ErrorCode.CONFLICT, message, [{"id": str(memory.pk)}])


def _prior_trust(memory: Memory, event: MemoryEvent) -> str:
    """The trust before a confirm or lock: the snapshot the event before it recorded. A
    confirm that settled a dispute (status or version moved) is not a trust change alone."""
    prior = (
        MemoryEvent.objects.filter(owner=memory.owner_id, memory_id=memory.pk, pk__lt=event.pk)
        .order_by("-pk")
        .values_list("result", flat=True)
        .first()
    ) or {}
    trust = prior.get("trust")
    if (
        trust not in Trust.values
        or prior.get("status") != event.result.get("status")
        or prior.get("version") != event.version
    ):
        raise _refused(
            _(
                "This confirmation settled a dispute, so it cannot be undone; "
                "correct or archive the memory instead. Nothing was changed."
            ),
            memory,
        )
    return trust


def memory_undo(*, actor: Actor, memory_id, event) -> Memory:
    """Owner-only. Take back the owner's action that recorded `event` on this memory, if
    nothing happened to the memory since (else CONFLICT, and nothing changes)."""
    actor.require_owner(gettext_noop("undo changes"))
    event_id = _event_id(event)
    with transaction.atomic():
        memory = memory_for_write(actor=actor, memory_id=memory_id)
        found = MemoryEvent.objects.filter(
            owner=actor.user, memory_id=memory.pk, pk=event_id
        ).first()
        if found is None:
            raise not_found("action to undo")
        if found.actor_token_id is not None or found.actor_agent:
            raise _refused(_("Only your own changes can be undone here."), memory)
        if found.pk != _newest_event_id(actor.user, memory.pk):
            raise _refused(
                _(
                    "This memory changed after that action (it is now %(trust)s and "
                    "%(status)s), so it was not undone. Nothing was changed."
                )
                % {"trust": label(memory.trust), "status": label(memory.status)},
                memory,
            )
        if found.event_type in INVERSES:
            return INVERSES[found.event_type](actor=actor, memory_id=memory.pk)
        if found.event_type not in TRUST_EVENTS:
            raise _refused(_("This change cannot be undone."), memory)
        memory.trust = _prior_trust(memory, found)
        save_changes(memory, "trust")
        record_event(
            actor=actor,
            memory=memory,
            event_type=EventType.UNDONE,
            patch={"undoes": found.pk, "trust": memory.trust},
            reason=rendered(reasons.UNDID, event=found.event_type),
        )
        return memory
