"""Steps 2 and 3: pairs of one owner's live memories read by the relation judge writes use
(memories.evolution.judge), so compaction never reads a pair otherwise than a write would.

- `duplicate`, in one scope, and not read the other way round as contradicting or
  replacing it → a `near_duplicate` proposal. Never merged automatically, and a pair the
  judge reads as `contradicts` or `supersedes` is never proposed for merging.
- `contradicts` or `supersedes` → a `conflict` proposal, raised exactly as a write raises
  one (memories.services.relations): the same key, ids and detail, so a pair raised when
  it was written, or answered or dismissed since, is never raised again, and memories
  written before the judge existed reach Review as a write would have brought them there.
  Nothing is linked, retired or held: that is the owner's answer to give.

Left alone: pairs already linked `contradicts` or `supersedes`, memories the owner said may
stand beside any other ("both are true"), held memories, other owners' memories, and pairs
across two scopes neither of which is the global one (memories.compaction.candidates).
"""

from __future__ import annotations

from django.contrib.auth import get_user_model

from foundation.actors import Actor
from foundation.maintenance.runs import Deadline
from memories.compaction import candidates
from memories.compaction.common import propose
from memories.evolution.judge import Verdict, judge
from memories.models import (
    LIVE_STATUSES,
    Memory,
    MemoryLink,
    ProposalKind,
    Relation,
    ReviewProposal,
    proposal_key,
)
from memories.services.relations import DISPLACING, Judged, _propose, answered_pairs


def review_pairs(
    *, deadline: Deadline, near_duplicates: bool = True, conflicts: bool = True
) -> dict:
    """Judge every candidate pair once and propose what it is. Idempotent (proposals are
    found by key); stops between pairs when the deadline passes."""
    report = {
        "near_duplicates": {"pairs_compared": 0, "proposed": 0},
        "conflicts": {"pairs_compared": 0, "proposed": 0},
    }
    owners = Memory.objects.filter(status__in=LIVE_STATUSES, held=False).values("owner_id")
    for owner in get_user_model().objects.filter(pk__in=owners).order_by("pk"):
        if deadline.passed:
            break
        _review_owner(owner, deadline, report, near_duplicates, conflicts)
    return report


def propose_near_duplicates(*, deadline: Deadline) -> dict:
    return review_pairs(deadline=deadline, conflicts=False)["near_duplicates"]


def propose_conflicts(*, deadline: Deadline) -> dict:
    return review_pairs(deadline=deadline, near_duplicates=False)["conflicts"]


def conflict_key(first, second) -> str:
    """The key a conflict between these two is recorded by."""
    return proposal_key(ProposalKind.CONFLICT, [first, second])


def _review_owner(
    owner, deadline: Deadline, report: dict, near_duplicates: bool, conflicts: bool
) -> None:
    store = candidates.load(owner.pk)
    linked = {
        frozenset(pair)
        for pair in MemoryLink.objects.filter(
            owner_id=owner.pk, relation__in=[Relation.CONTRADICTS, Relation.SUPERSEDES],
            to_memory__isnull=False,
        ).values_list("from_memory_id", "to_memory_id")
    }  # fmt: skip
    raised = set(
        ReviewProposal.objects.filter(owner_id=owner.pk, kind=ProposalKind.CONFLICT).values_list(
            "key", flat=True
        )
    )
    answered = answered_pairs(owner.pk)
    near, conflict = report["near_duplicates"], report["conflicts"]
    scope_of = {pk: scope for scope, members in store.scopes.items() for pk in members}
    for first, second, same_scope in candidates.pairs(store):
        if deadline.passed:
            return
        # A pair known to disagree (linked, or raised in any state) is never a duplicate.
        contested = frozenset((first, second)) in linked or conflict_key(first, second) in raised
        want_near = near_duplicates and same_scope and not contested
        want_conflict = (
            conflicts and not contested and frozenset((str(first), str(second))) not in answered
        )
        if not (want_near or want_conflict):
            continue
        near["pairs_compared"] += want_near
        conflict["pairs_compared"] += want_conflict
        new, old = _newer_first(store, first, second)
        verdict = _verdict(store, new, old, places=(scope_of[new][1], scope_of[old][1]))
        if verdict is None:
            continue
        if verdict.relation == "duplicate" and want_near:
            scope_type, scope_key = scope_of[new]
            near["proposed"] += propose(
                owner.pk, ProposalKind.NEAR_DUPLICATE, [new, old], verdict.confidence,
                {"scope": [scope_type, scope_key], "signals": list(verdict.signals)},
            )  # fmt: skip
        elif verdict.relation in DISPLACING and want_conflict:
            conflict["proposed"] += _raise(owner, new, old, verdict)
            raised.add(conflict_key(new, old))


def _newer_first(store: candidates.Store, first, second) -> tuple:
    """The judge reads what a later statement is to an earlier one."""
    if (store.created[first], str(first)) >= (store.created[second], str(second)):
        return first, second
    return second, first


def _verdict(store: candidates.Store, new, old, places: tuple[str, ...] = ()) -> Verdict | None:
    cosine = store.cosine(new, old)
    verdict = judge(store.texts[new], store.texts[old], cosine=cosine, places=places)
    if verdict is None or verdict.relation != "duplicate":
        return verdict
    # The judge reads a change cue, or a claim's own negation, in the newer text: the
    # older one may carry them ("now X instead of Y" before a plain "use Y"). A pair that
    # disagrees read either way is no duplicate.
    reverse = judge(store.texts[old], store.texts[new], cosine=cosine, places=places)
    if reverse is not None and reverse.relation in DISPLACING:
        return Verdict(
            "contradicts", reverse.confidence, (*reverse.signals, "read from the older one")
        )
    return verdict


def _raise(owner, new, old, verdict: Verdict) -> int:
    memories = {
        memory.pk: memory
        for memory in Memory.objects.select_related("created_by_token").filter(
            owner=owner, pk__in=[new, old], status__in=LIVE_STATUSES, held=False
        )
    }
    if len(memories) < 2:  # changed since the run read it: the next run sees it as it is
        return 0
    if ReviewProposal.objects.filter(owner=owner, key=conflict_key(new, old)).exists():
        return 0  # raised by a write meanwhile
    newer = memories[new]
    # The detail names who wrote the newer memory, as a write names its writer.
    writer = Actor(user=owner, token=newer.created_by_token)
    _propose(writer, newer, memories[old], Judged(memories[old], verdict))
    return 1
