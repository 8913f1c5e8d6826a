"""Checkpoints: a progress summary plus the durable facts learned along the way."""

from __future__ import annotations

from django.db import transaction
from django.utils.translation import gettext_noop

from foundation.actors import Actor
from foundation.errors import AT_MOST_ITEMS, ServiceError, validation_error
from memories.contract import CHECKPOINT_MAX_MEMORIES as MAX_ATOMS
from memories.models import OWNER_TRUSTS, Kind, MemoryType, ScopeType
from memories.services.links import memory_link
from memories.services.remember import memory_remember

ATOM_FIELDS = frozenset(
    {
        "content", "kind", "type", "scope_type", "scope_key", "key", "value", "write_mode",
        "expected_version", "tags", "retrieval_hints", "confidence", "confidence_basis",
        "visibility", "trust",
    }
)  # fmt: skip


def memory_checkpoint(
    *,
    actor: Actor,
    summary: str,
    memories: list[dict] | None = None,
    project_key: str | None = None,
    task_id: str | None = None,
) -> dict:
    """Write one episodic summary and up to 20 atomic memories in one transaction, each
    atom linked `derived_from` the summary. Every atom passes the same gates as remember;
    if any fails, nothing is written and the error names the atom's index.

    Returns {"summary_id", "memory_ids"} (an atom that duplicates an existing memory
    returns that memory's id, linked all the same, unless an agent wrote the checkpoint
    and that memory, or the summary, is one the owner confirmed or locked)."""
    memories = memories or []
    if not isinstance(memories, list) or len(memories) > MAX_ATOMS:
        raise validation_error(AT_MOST_ITEMS, field="memories", name="memories", limit=MAX_ATOMS)
    for index, atom in enumerate(memories):
        if not isinstance(atom, dict) or "content" not in atom or "kind" not in atom:
            raise validation_error(
                gettext_noop("memories[%(index)s] needs at least content and kind."),
                field="memories",
                index=index,
            )
        unknown = sorted(set(atom) - ATOM_FIELDS)
        if unknown:
            raise validation_error(
                gettext_noop("memories[%(index)s] has unknown fields: %(fields)s."),
                field="memories",
                index=index,
                fields=", ".join(unknown),
            )

    if task_id:
        summary_scope = {"scope_type": ScopeType.TASK, "scope_key": task_id}
    elif project_key:
        summary_scope = {"scope_type": ScopeType.PROJECT, "scope_key": project_key}
    else:
        summary_scope = {"scope_type": ScopeType.GLOBAL, "scope_key": None}
    atom_scope = (
        {"scope_type": ScopeType.PROJECT, "scope_key": project_key}
        if project_key
        else {"scope_type": ScopeType.GLOBAL, "scope_key": None}
    )

    with transaction.atomic():
        summary_receipt = memory_remember(
            actor=actor, content=summary, kind=Kind.TASK_STATE if task_id else Kind.EVENT,
            type=MemoryType.EPISODIC, **summary_scope,
        )  # fmt: skip
        memory_ids = []
        for index, atom in enumerate(memories):
            try:
                receipt = memory_remember(actor=actor, **{**atom_scope, **atom})
            except ServiceError as error:
                raise ServiceError(
                    error.code,
                    gettext_noop("memories[%(index)s]: %(message)s"),
                    [{"index": index}, *error.details],
                    params={"index": index, "message": error.message},
                ) from None
            owner_trusted = {receipt.trust, summary_receipt.trust} & set(OWNER_TRUSTS)
            # An agent's checkpoint never touches what the owner trusts, on either side.
            if receipt.id != summary_receipt.id and not (actor.is_agent and owner_trusted):
                memory_link(
                    actor=actor,
                    from_id=receipt.id,
                    to_id=summary_receipt.id,
                    relation="derived_from",
                )
            memory_ids.append(receipt.id)
    return {"summary_id": summary_receipt.id, "memory_ids": memory_ids}
