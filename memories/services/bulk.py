"""Bulk review: one owner action over many memories or proposals.

Each item goes through the very service the single card calls, with the caller's actor,
in its own transaction: a refusal of one (the service's rule, in the service's words)
never undoes the others, and no rule is restated here. The answer reports every item
like a batch operation: `done`, `refused` (the service's code and message) or
`not_found` (unknown, malformed or another owner's id: the same answer for each).

Bounded: at most `MAX_BULK_ITEMS` ids per call, and none is a VALIDATION_ERROR, raised
before anything changes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from uuid import UUID

from django.utils.translation import gettext_noop

from foundation.actors import Actor
from foundation.errors import ErrorCode, ServiceError, validation_error
from memories.contract import MAX_BULK_ITEMS
from memories.services.lifecycle import (
    memory_archive,
    memory_confirm,
    memory_delete,
    memory_lock,
    memory_restore,
)
from memories.services.proposals import proposal_dismiss
from memories.services.undo import ACTIONS as UNDOABLE
from memories.services.undo import memory_act, memory_undo

MEMORY_ACTIONS: dict[str, Callable] = {
    "confirm": memory_confirm,
    "lock": memory_lock,
    "archive": memory_archive,
    "restore": memory_restore,
    "delete": memory_delete,
}
PROPOSAL_ACTIONS: dict[str, Callable] = {"dismiss": proposal_dismiss}

DONE, REFUSED, NOT_FOUND = "done", "refused", "not_found"
EMPTY = gettext_noop("Select at least one item first.")


@dataclass(frozen=True)
class BulkItem:
    id: str
    outcome: str  # done | refused | not_found
    code: str = ""
    message: str = ""
    event: int | None = None  # the event a reversible action recorded: what undo takes


@dataclass
class BulkResult:
    action: str
    items: list[BulkItem] = field(default_factory=list)

    def _count(self, outcome: str) -> int:
        return sum(1 for item in self.items if item.outcome == outcome)

    @property
    def done(self) -> int:
        return self._count(DONE)

    @property
    def refused(self) -> int:
        return self._count(REFUSED)

    @property
    def not_found(self) -> int:
        return self._count(NOT_FOUND)


def bulk_ids(ids, *, limit: int = MAX_BULK_ITEMS) -> list[str]:
    """The ids once each, in the order given; none, or more than `limit`, is refused."""
    if isinstance(ids, str) or not isinstance(ids, list | tuple):
        raise validation_error(gettext_noop("ids must be a list."), field="ids")
    wanted = list(dict.fromkeys(str(pk).strip() for pk in ids if str(pk).strip()))
    if not wanted:
        raise validation_error(EMPTY, field="ids")
    if len(wanted) > limit:
        raise validation_error(
            gettext_noop(
                "At most %(limit)s items at a time; %(count)s were selected. Nothing was changed."
            ),
            field="ids",
            limit=limit,
            count=len(wanted),
        )
    return wanted


def _parsed(kind: str, pk: str):
    try:
        return UUID(pk) if kind == "memory" else int(pk)
    except ValueError:
        return None


def _run(actor: Actor, kind: str, service: Callable, ids: list[str]) -> list[BulkItem]:
    items = []
    for pk in ids:
        parsed = _parsed(kind, pk)
        if parsed is None:
            items.append(BulkItem(pk, NOT_FOUND, ErrorCode.NOT_FOUND, "not found"))
            continue
        try:
            if kind == "memory":
                answer = service(actor=actor, memory_id=parsed)
            else:
                answer = service(actor=actor, proposal_id=parsed)
        except ServiceError as error:
            outcome = NOT_FOUND if error.code == ErrorCode.NOT_FOUND else REFUSED
            items.append(BulkItem(pk, outcome, error.code, error.message))
        else:
            event = answer if type(answer) is int else None
            items.append(BulkItem(pk, DONE, event=event))
    return items


def _reversible(action: str) -> Callable:
    """The action through `memory_act`, answering the id of the event it recorded."""

    def run(*, actor: Actor, memory_id) -> int | None:
        return memory_act(actor=actor, memory_id=memory_id, action=action)[1]

    return run


def _action(actions: dict[str, Callable], action) -> Callable:
    if action not in actions:
        raise validation_error(
            gettext_noop("action must be one of %(choices)s."),
            field="action",
            choices=", ".join(actions),
        )
    return actions[action]


def memories_bulk(*, actor: Actor, action: str, ids) -> BulkResult:
    """Owner-only. `action` (confirm, lock, archive, restore, delete) on each memory, one
    service call each; every item's outcome in order. Idempotent as each service is."""
    actor.require_owner(gettext_noop("review memories in bulk"))
    service, wanted = _action(MEMORY_ACTIONS, action), bulk_ids(ids)
    if action in UNDOABLE:
        service = _reversible(action)
    return BulkResult(action, _run(actor, "memory", service, wanted))


def memories_bulk_undo(*, actor: Actor, undo) -> BulkResult:
    """Owner-only. Take back a bulk action: `undo` lists "<memory id>:<event id>" pairs (the
    events the action recorded); each goes through `memory_undo` on its own, so one that
    changed since is refused (and left as it is) while the others are undone."""
    actor.require_owner(gettext_noop("undo in bulk"))
    items = []
    for pair in bulk_ids(undo):
        memory_id, _, event = pair.partition(":")
        parsed = _parsed("memory", memory_id)
        if parsed is None:
            items.append(BulkItem(memory_id, NOT_FOUND, ErrorCode.NOT_FOUND, "not found"))
            continue
        try:
            memory_undo(actor=actor, memory_id=parsed, event=event)
        except ServiceError as error:
            outcome = NOT_FOUND if error.code == ErrorCode.NOT_FOUND else REFUSED
            items.append(BulkItem(memory_id, outcome, error.code, error.message))
        else:
            items.append(BulkItem(memory_id, DONE))
    return BulkResult("undo", items)


def proposals_bulk(*, actor: Actor, action: str, ids) -> BulkResult:
    """Owner-only. `action` (dismiss) on each of compaction's proposals, one service call
    each; every item's outcome in order."""
    actor.require_owner(gettext_noop("review proposals in bulk"))
    service, wanted = _action(PROPOSAL_ACTIONS, action), bulk_ids(ids)
    return BulkResult(action, _run(actor, "proposal", service, wanted))
