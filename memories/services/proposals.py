"""The owner's answers to what compaction proposes in Review (memories/compaction.py).

A near-duplicate proposal is accepted by merging: the owner picks the memory to keep
(by default the most trusted), each other one is superseded by it through
`memory_supersede`, linked `duplicates`, and the kept one records a `merged` event.
A stale proposal is accepted either as "still true" (the memory is confirmed, or its
`verified_at` refreshed when it already was) or by archiving it. Nothing is deleted.

Dismissing keeps the proposal row as `dismissed`: compaction finds proposals by their
key (kind + sorted memory ids), so the same pair or the same stale memory is never
proposed again.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from foundation.actors import Actor
from foundation.errors import ErrorCode, ServiceError, not_found, validation_error
from memories.models import (
    LIVE_STATUSES,
    OWNER_TRUSTS,
    TRUST_RANK,
    EventType,
    Memory,
    MemoryLink,
    ProposalKind,
    ProposalStatus,
    Relation,
    ReviewProposal,
    Status,
)  # fmt: skip
from memories.services.common import memory_for_write, record_event, save_changes
from memories.services.lifecycle import memory_archive, memory_confirm, memory_supersede

RESOLUTIONS = ("verify", "archive")


def proposal_get(*, actor: Actor, proposal_id) -> ReviewProposal:
    """The actor's own proposal, or NOT_FOUND (another owner's id looks the same as none)."""
    actor.require_owner("answer review proposals")
    try:
        pk = int(proposal_id)
    except (TypeError, ValueError):
        raise not_found("proposal") from None
    proposal = ReviewProposal.objects.filter(owner=actor.user, pk=pk).first()
    if proposal is None:
        raise not_found("proposal")
    return proposal


def _lock(actor: Actor, proposal_id) -> ReviewProposal:
    proposal = proposal_get(actor=actor, proposal_id=proposal_id)
    return ReviewProposal.objects.select_for_update().get(pk=proposal.pk)


def _answered(proposal: ReviewProposal, status: str, **detail) -> ReviewProposal:
    proposal.status = status
    proposal.updated_at = timezone.now()
    proposal.detail = {**proposal.detail, **detail}
    proposal.save(update_fields=["status", "updated_at", "detail"])
    return proposal


def _refuse_answered(proposal: ReviewProposal) -> None:
    if proposal.status != ProposalStatus.PENDING:
        raise ServiceError(
            ErrorCode.CONFLICT,
            f"This proposal is already {proposal.status}; reload Review.",
            [{"id": proposal.pk, "status": proposal.status}],
        )


def _live(actor: Actor, proposal: ReviewProposal) -> list[Memory]:
    return list(
        Memory.objects.filter(
            owner=actor.user, pk__in=proposal.memory_ids, status__in=LIVE_STATUSES
        )
    )


def _survivor_rank(memory: Memory):
    # The most trusted, then the most recently verified, then the oldest (as compaction does).
    verified = memory.verified_at.timestamp() if memory.verified_at else 0.0
    return (-TRUST_RANK[memory.trust], -verified, memory.created_at, str(memory.pk))


def _merge(actor: Actor, proposal: ReviewProposal, live: list[Memory], keep) -> ReviewProposal:
    if keep in (None, ""):
        survivor = sorted(live, key=_survivor_rank)[0]
    else:
        survivor = next((m for m in live if str(m.pk) == str(keep)), None)
        if survivor is None:
            raise validation_error(
                "keep must be one of this proposal's live memories.", field="keep"
            )
    merged = []
    moved_key = None
    for memory in live:
        if memory.pk == survivor.pk:
            continue
        memory_supersede(
            actor=actor, memory_id=memory.pk, superseded_by=survivor.pk,
            reason=f"near-duplicate of {survivor.pk}, merged in Review",
        )  # fmt: skip
        MemoryLink.objects.get_or_create(
            owner=actor.user, from_memory=memory, to_memory=survivor,
            relation=Relation.DUPLICATES, defaults={"created_by_agent": ""},
        )  # fmt: skip
        moved_key = moved_key or memory.key
        merged.append(str(memory.pk))
    survivor = memory_for_write(actor=actor, memory_id=survivor.pk)
    if survivor.key is None and moved_key is not None:
        # The merged memory's key now answers with the kept statement.
        survivor.key = moved_key
        save_changes(survivor, "key")
    record_event(
        actor=actor, memory=survivor, event_type=EventType.MERGED,
        patch={"merged": merged}, reason="near-duplicates merged in Review",
    )  # fmt: skip
    return _answered(proposal, ProposalStatus.ACCEPTED, kept=str(survivor.pk), merged=merged)


def _verify(actor: Actor, memory: Memory) -> None:
    """The owner says the memory still holds: confirmed from now on (a locked one stays
    locked), with `verified_at` now, so it is not stale again for another window."""
    if memory.trust not in OWNER_TRUSTS or memory.status != Status.ACTIVE:
        memory_confirm(actor=actor, memory_id=memory.pk)
        return
    memory = memory_for_write(actor=actor, memory_id=memory.pk)
    memory.verified_at = timezone.now()
    save_changes(memory, "verified_at")
    record_event(
        actor=actor,
        memory=memory,
        event_type=EventType.CONFIRMED,
        reason="still true, checked in Review",
    )


@transaction.atomic
def proposal_accept(
    *, actor: Actor, proposal_id, keep=None, resolution: str | None = None
) -> ReviewProposal:
    """Owner-only. near_duplicate: merge into `keep` (a memory id of the proposal; default
    the most trusted). stale: `resolution` "verify" (still true) or "archive".

    A proposal whose memories are no longer live (fewer than two for a merge, none for a
    stale one) becomes `obsolete` and nothing else changes. Answering a proposal that was
    already answered is a CONFLICT. Everything happens in one transaction."""
    proposal = _lock(actor, proposal_id)
    _refuse_answered(proposal)
    if proposal.kind == ProposalKind.STALE and resolution not in RESOLUTIONS:
        raise validation_error(
            "resolution must be verify (still true) or archive.", field="resolution"
        )
    if proposal.kind == ProposalKind.NEAR_DUPLICATE and resolution not in (None, ""):
        raise validation_error(
            "A near-duplicate is accepted by merging; leave resolution out.", field="resolution"
        )
    live = _live(actor, proposal)
    if len(live) < (2 if proposal.kind == ProposalKind.NEAR_DUPLICATE else 1):
        return _answered(proposal, ProposalStatus.OBSOLETE)
    if proposal.kind == ProposalKind.NEAR_DUPLICATE:
        return _merge(actor, proposal, live, keep)
    memory = live[0]
    if resolution == "verify":
        _verify(actor, memory)
        # Compaction finds proposals by key; a new key lets it flag the memory again once
        # another full window passes unverified (a dismissed one keeps its key: never again).
        proposal.key = f"{proposal.key}@{timezone.now():%Y%m%dT%H%M%S%f}"[:200]
        proposal.save(update_fields=["key"])
    else:
        memory_archive(
            actor=actor,
            memory_id=memory.pk,
            reason="not checked for a long time; archived in Review",
        )
    return _answered(proposal, ProposalStatus.ACCEPTED, resolution=resolution)


@transaction.atomic
def proposal_dismiss(*, actor: Actor, proposal_id) -> ReviewProposal:
    """Owner-only: leave the memories as they are and never propose this again.
    Idempotent on a dismissed proposal; CONFLICT on one accepted or obsolete."""
    proposal = _lock(actor, proposal_id)
    if proposal.status == ProposalStatus.DISMISSED:
        return proposal
    _refuse_answered(proposal)
    return _answered(proposal, ProposalStatus.DISMISSED)


def proposal_data(proposal: ReviewProposal) -> dict:
    """A proposal as the owner API shows it."""
    return {
        "id": proposal.pk,
        "kind": proposal.kind,
        "status": proposal.status,
        "memory_ids": list(proposal.memory_ids),
        "score": proposal.score,
        "detail": proposal.detail,
        "created_at": proposal.created_at.isoformat(),
        "updated_at": proposal.updated_at.isoformat(),
    }
