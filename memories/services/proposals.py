"""The owner's answers to what compaction proposes in Review (memories/compaction.py).

A near-duplicate proposal is accepted by merging: the owner picks the memory to keep
(by default the most trusted), each other one is superseded by it through
`memory_supersede`, linked `duplicates`, and the kept one records a `merged` event.
A stale proposal is accepted either as "still true" (the memory is confirmed, or its
`verified_at` refreshed when it already was) or by archiving it. A conflict (two memories
the relation judge read as contradicting, or one replacing the other without a change cue;
`memories.services.relations`) is accepted with one of three answers:

- keep_old ("keep mine"): the old memory stands, the new one is archived (a held one stays
  held); the link between them is kept, so the history says why.
- take_new: the new memory is confirmed (released if held: the owner chose it) and the old
  one is superseded by it.
- both_true: both stand; the contradicts/supersedes link between them is replaced by a
  `related_to` link made by the owner, which the judge reads as "never raise this pair
  again"; a held new memory is released (confirmed), since the owner said it is true.

Each is `accepted` with its `resolution` in the detail: even "keep mine" changes a memory
(the new one is archived), and `dismissed` stays what it means for every kind: nothing
changed. A conflict whose memories are no longer both live is refused (CONFLICT) and left
pending, since the owner's answer was about two memories that are not there any more.
Nothing is deleted.

Dismissing keeps the proposal row as `dismissed`: compaction finds proposals by their
key (kind + sorted memory ids), so the same pair or the same stale memory is never
proposed again.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_noop

from foundation.actors import Actor
from foundation.errors import ErrorCode, ServiceError, not_found, validation_error
from foundation.messages import rendered
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
from memories.services import reasons
from memories.services.common import memory_for_write, record_event, save_changes
from memories.services.lifecycle import memory_archive, memory_confirm, memory_supersede
from memories.services.links import memory_link

RESOLUTIONS = ("verify", "archive")
CONFLICT_RESOLUTIONS = ("keep_old", "take_new", "both_true")


def proposal_get(*, actor: Actor, proposal_id) -> ReviewProposal:
    """The actor's own proposal, or NOT_FOUND (another owner's id looks the same as none)."""
    actor.require_owner(gettext_noop("answer review proposals"))
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
            gettext_noop("This proposal is already %(status)s; reload Review."),
            [{"id": proposal.pk, "status": proposal.status}],
            params={"status": proposal.status},
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
                gettext_noop("keep must be one of this proposal's live memories."), field="keep"
            )
    merged = []
    moved_key = None
    for memory in live:
        if memory.pk == survivor.pk:
            continue
        memory_supersede(
            actor=actor, memory_id=memory.pk, superseded_by=survivor.pk,
            reason=rendered(reasons.NEAR_DUPLICATE, id=survivor.pk),
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
        patch={"merged": merged}, reason=gettext_noop("near-duplicates merged in Review"),
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
        reason=gettext_noop("still true, checked in Review"),
    )


def _refuse_bad_answer(proposal: ReviewProposal, keep, resolution) -> None:
    if proposal.kind == ProposalKind.STALE and resolution not in RESOLUTIONS:
        raise validation_error(
            gettext_noop("resolution must be verify (still true) or archive."), field="resolution"
        )
    if proposal.kind == ProposalKind.CONFLICT:
        if resolution not in CONFLICT_RESOLUTIONS:
            raise validation_error(
                gettext_noop(
                    "resolution must be keep_old (keep the old memory), take_new (the new one "
                    "replaces it) or both_true (both stand)."
                ),
                field="resolution",
            )
        if keep not in (None, ""):
            raise validation_error(
                gettext_noop("A conflict is answered with resolution; leave keep out."),
                field="keep",
            )
    if proposal.kind == ProposalKind.NEAR_DUPLICATE and resolution not in (None, ""):
        raise validation_error(
            gettext_noop("A near-duplicate is accepted by merging; leave resolution out."),
            field="resolution",
        )


def _conflict_pair(actor: Actor, proposal: ReviewProposal) -> tuple[Memory, Memory]:
    """(new, old) of a conflict, locked; CONFLICT when either was deleted or left the live
    set since the judge raised them (the answer would be about memories no longer there)."""
    ids = [str(proposal.detail.get(side) or "") for side in ("new", "old")]
    try:
        rows = Memory.objects.select_for_update().filter(owner=actor.user, pk__in=ids)
        found = {str(memory.pk): memory for memory in rows}
    except (ValueError, DjangoValidationError):
        found = {}
    changed = [pk for pk in ids if pk not in found or found[pk].status not in LIVE_STATUSES]
    if changed:
        raise ServiceError(
            ErrorCode.CONFLICT,
            gettext_noop(
                "One of these memories was deleted, archived or replaced since this conflict was "
                "raised; nothing was changed. Dismiss the conflict, or reload Review."
            ),
            [{"id": proposal.pk, "changed": changed}],
        )
    return found[ids[0]], found[ids[1]]


def _both_true(actor: Actor, new: Memory, old: Memory) -> None:
    if new.key is not None and (new.scope_type, new.scope_key, new.key) == (
        old.scope_type, old.scope_key, old.key,
    ):  # fmt: skip
        raise ServiceError(
            ErrorCode.CONFLICT,
            gettext_noop(
                "Both memories hold the key '%(key)s', and a key has one live statement: "
                "keep the old one or take the new one."
            ),
            [{"id": str(new.pk)}, {"id": str(old.pk)}],
            params={"key": new.key},
        )
    MemoryLink.objects.filter(
        Q(from_memory=new, to_memory=old) | Q(from_memory=old, to_memory=new),
        owner=actor.user, relation__in=(Relation.CONTRADICTS, Relation.SUPERSEDES),
    ).delete()  # fmt: skip
    # Made by the owner (no agent): relations' judge never raises this pair again.
    link = memory_link(actor=actor, from_id=new.pk, to_id=old.pk, relation=Relation.RELATED_TO)
    if link.created_by_agent:
        link.created_by_agent = ""
        link.save(update_fields=["created_by_agent"])
    if new.held or new.status == Status.DISPUTED:
        memory_confirm(actor=actor, memory_id=new.pk)


def _answer_conflict(actor: Actor, proposal: ReviewProposal, resolution: str) -> ReviewProposal:
    new, old = _conflict_pair(actor, proposal)
    if resolution == "keep_old":
        memory_archive(
            actor=actor, memory_id=new.pk,
            reason=rendered(reasons.KEPT_OTHER, id=old.pk),
        )  # fmt: skip
    elif resolution == "take_new":
        # Confirming releases a held memory (and lets it take over its key, if it has one).
        memory_confirm(actor=actor, memory_id=new.pk)
        memory_supersede(
            actor=actor, memory_id=old.pk, superseded_by=new.pk,
            reason=rendered(reasons.TOOK_OTHER, id=new.pk),
        )  # fmt: skip
    else:
        _both_true(actor, new, old)
    return _answered(proposal, ProposalStatus.ACCEPTED, resolution=resolution)


@transaction.atomic
def proposal_accept(
    *, actor: Actor, proposal_id, keep=None, resolution: str | None = None
) -> ReviewProposal:
    """Owner-only. near_duplicate: merge into `keep` (a memory id of the proposal; default
    the most trusted). stale: `resolution` "verify" (still true) or "archive". conflict:
    `resolution` "keep_old", "take_new" or "both_true" (see the module docstring).

    A near-duplicate or stale proposal whose memories are no longer live (fewer than two
    for a merge, none for a stale one) becomes `obsolete` and nothing else changes; a
    conflict whose memories changed is a CONFLICT and stays pending. Answering a proposal
    that was already answered is a CONFLICT. Everything happens in one transaction."""
    proposal = _lock(actor, proposal_id)
    _refuse_answered(proposal)
    _refuse_bad_answer(proposal, keep, resolution)
    if proposal.kind == ProposalKind.CONFLICT:
        return _answer_conflict(actor, proposal, resolution)
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
            reason=gettext_noop("not checked for a long time; archived in Review"),
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
