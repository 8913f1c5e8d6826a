"""What a new memory is to the memories already there, and what follows from it, in one place.

Every write path that adds a statement (remember, checkpoint atoms, approved candidates,
imports that merge) asks `assess` for the verdicts of the relation judge over the close
live memories its writer may read, then `settle` applies their consequences:

- against an owner-confirmed or locked memory, an agent's contradiction or supersession
  never displaces it: the new memory is written disputed and held (out of every agent's
  reads until the owner releases it), linked to the owner's memory, and raised in Review;
  the receipt names the memory that stands;
- between agent memories: a supersession with a change cue retires the old one (an event
  the owner can undo by restoring it); one without a cue is linked and proposed to the
  owner; a contradiction links the pair and raises it in Review, and recall annotates each
  side with what it conflicts with;
- a sure duplicate returns the existing memory and records the writer as corroborating it
  (a likely one is linked and written);
- a refinement is linked to what it refines; a related memory is linked as related.

A pair the owner already answered ("both are true") is never raised again (answered_pairs).
"""

from __future__ import annotations

from dataclasses import dataclass

from foundation.actors import Actor
from foundation.messages import rendered
from memories.embeddings.vectors import StatementVector
from memories.evolution import judge as relation_judge
from memories.evolution import model_judge, neighbours
from memories.models import (
    EventType,
    Memory,
    MemoryLink,
    ProposalKind,
    Relation,
    ReviewProposal,
    Status,
)
from memories.services import reasons
from memories.services.common import record_event, supersede

MAX_REPORTED = 5
LINK_FOR = {
    "refines": Relation.REFINES,
    "related": Relation.RELATED_TO,
    "contradicts": Relation.CONTRADICTS,
    "supersedes": Relation.SUPERSEDES,
    "duplicate": Relation.DUPLICATES,
}
# Relations where the new memory means the old one is no longer (all) true.
DISPLACING = ("contradicts", "supersedes")
# A verdict this sure may act on its own (retire an agent's memory, hold a write against the
# owner's); a weaker one is only linked and proposed.
ACTING_CONFIDENCE = 0.8
HOLDING_CONFIDENCE = 0.6


@dataclass
class Judged:
    memory: Memory
    verdict: relation_judge.Verdict
    action: str = "noted"

    @property
    def relation(self) -> str:
        return self.verdict.relation

    def as_dict(self) -> dict:
        return {"id": str(self.memory.pk), **self.verdict.as_dict(), "action": self.action}


def model_opinions(
    actor: Actor, *, content: str, scope_type: str, scope_key: str, vector: StatementVector | None
) -> dict:
    """The optional model judge's verdicts on the pairs the offline judge is unsure of,
    asked before the write's transaction opens (a slow endpoint must not hold the store's
    write lock): memory id → verdict. Empty when no model judge is configured."""
    if not model_judge.enabled():
        return {}
    budget, opinions = model_judge.new_budget(), {}
    for neighbour in neighbours.find(
        actor, content=content, scope_type=scope_type, scope_key=scope_key, vector=vector
    ):
        old = neighbour.memory.content
        offline = relation_judge.judge(
            content, old, cosine=neighbour.cosine,
            places=(scope_key, neighbour.memory.scope_key),
        )  # fmt: skip
        if model_judge.ambiguous(offline, neighbour.cosine) and budget.allows():
            opinions[neighbour.memory.pk] = model_judge.second_opinion(
                content, old, offline, budget
            )
    return opinions


def assess(
    actor: Actor, *, content: str, scope_type: str, scope_key: str,
    vector: StatementVector | None, exclude=(), episodic: bool = False, opinions=None,
) -> list[Judged]:  # fmt: skip
    """The verdicts on the close memories the writer may read, strongest first (the model
    judge's, from `opinions`, where it was asked). An episode (a checkpoint's summary, an
    event) says what happened: it may replace a statement ("Bumped PHP to 8.3" after "PHP
    version: 8.2"), never contradict one; a clash with what happened relates to it."""
    found, opinions = [], opinions or {}
    for neighbour in neighbours.find(
        actor, content=content, scope_type=scope_type, scope_key=scope_key, vector=vector,
        exclude=exclude,
    ):  # fmt: skip
        verdict = relation_judge.judge(
            content, neighbour.memory.content, cosine=neighbour.cosine,
            places=(scope_key, neighbour.memory.scope_key),
        )  # fmt: skip
        if neighbour.memory.pk in opinions:
            verdict = opinions[neighbour.memory.pk]
        if verdict is not None and episodic and verdict.relation == "contradicts":
            verdict = relation_judge.Verdict("related", verdict.confidence,
                                             (*verdict.signals, "an episode"))  # fmt: skip
        if verdict is not None:
            found.append(Judged(neighbour.memory, verdict))
    order = {"contradicts": 0, "supersedes": 1, "duplicate": 2, "refines": 3, "related": 4}
    found.sort(
        key=lambda item: (order[item.relation], -item.verdict.confidence, str(item.memory.pk))
    )
    return found


def answered_pairs(owner_id) -> set[frozenset]:
    """Pairs the owner answered "both are true" in Review: never raised again (a new write
    is a new memory, so only compaction meets an answered pair again)."""
    proposals = ReviewProposal.objects.filter(
        owner_id=owner_id, kind=ProposalKind.CONFLICT, detail__resolution="both_true"
    )
    return {frozenset(map(str, ids)) for ids in proposals.values_list("memory_ids", flat=True)}


def duplicate_of(
    judged: list[Judged], *, key: str | None, scope: tuple[str, str], visibility: str
) -> Judged | None:
    """The memory of the same scope a write repeats, when it says nothing that one does not
    (the same statement written for one project beside a global one is that project's own:
    it is linked as a duplicate instead)."""
    for item in judged:
        memory = item.memory
        if (
            item.relation == "duplicate"
            and item.verdict.confidence >= relation_judge.SURE_DUPLICATE
            and (memory.scope_type, memory.scope_key) == scope
            and memory.visibility == visibility  # a private note is never folded into a shared one
            and memory.key == key  # a keyed write wants its key: never folded into another
        ):
            return item
    return None


def standing_owner_memory(actor: Actor, judged: list[Judged]) -> Judged | None:
    """An owner-trusted memory the agent's write would contradict or replace."""
    if not actor.is_agent:
        return None
    for item in judged:
        if (
            item.relation in DISPLACING
            and item.memory.is_owner_trusted
            and item.verdict.confidence >= HOLDING_CONFIDENCE
            and (item.verdict.confidence >= ACTING_CONFIDENCE or _clauses_agree(item))
        ):
            return item
    return None


def corroborate(actor: Actor, item: Judged, idempotency_key: str = "") -> None:
    item.action = "returned"
    record_event(
        actor=actor, memory=item.memory, event_type=EventType.CORROBORATED,
        reason=rendered(reasons.SAME_AGAIN, writer=actor.label, signal=item.verdict.signals[0]),
        idempotency_key=idempotency_key, result={},
    )  # fmt: skip


def settle(actor: Actor, memory: Memory, judged: list[Judged], *, disputed_by: Judged | None = None) -> list[dict]:  # fmt: skip
    """Links, supersessions and Review proposals for a memory just written; the receipt's
    relations. A disputed write (against `disputed_by`, the owner's memory) only links."""
    for item in judged[:MAX_REPORTED]:
        other = item.memory
        if disputed_by is not None:
            item.action = "disputed" if item is disputed_by else "noted"
            if item is disputed_by:
                _link(actor, memory, other, LINK_FOR[item.relation])
                _propose(actor, memory, other, item)
            continue
        if (
            item.relation == "supersedes" and _may_retire(actor, other, memory) and _has_cue(item)
            and item.verdict.confidence >= ACTING_CONFIDENCE
        ):  # fmt: skip
            supersede(actor, other, successor=memory, reason=rendered(
                reasons.SUPERSEDED_BECAUSE, signals="; ".join(item.verdict.signals[-2:])))  # fmt: skip
            item.action = "superseded"
        elif item.relation in DISPLACING:
            _link(actor, memory, other, LINK_FOR[item.relation])
            _propose(actor, memory, other, item)
            item.action = "proposed"
        elif item.relation in ("refines", "related", "duplicate"):
            if actor.is_agent and other.is_owner_trusted:
                # The owner's memories gain links only from the owner, as memory_link
                # refuses them too; the receipt still names the relation.
                continue
            _link(actor, memory, other, LINK_FOR[item.relation])
            item.action = "linked"
    return [item.as_dict() for item in judged[:MAX_REPORTED]]


def _clauses_agree(item: Judged) -> bool:
    """The hand-written clause reading names the same relation (a weaker verdict holds an
    agent's write out of every read only with it)."""
    return f"rules: {item.relation}" in item.verdict.signals


def _has_cue(item: Judged) -> bool:
    return any(signal.startswith("change cue") for signal in item.verdict.signals)


def _may_retire(actor: Actor, other: Memory, successor: Memory) -> bool:
    """An agent may retire an active memory the owner has not trusted, and only with a
    successor that everyone who read it can read: a private note, or one of a project,
    never retires what other agents or other projects rely on (it is proposed instead)."""
    reaches = successor.scope_type == "global" or (
        (successor.scope_type, successor.scope_key) == (other.scope_type, other.scope_key)
    )
    shared = successor.visibility == other.visibility or other.visibility == "private"
    return (
        other.status == Status.ACTIVE
        and (actor.is_owner or not other.is_owner_trusted)
        and reaches
        and shared
    )


def _link(actor: Actor, new: Memory, old: Memory, relation: str) -> None:
    MemoryLink.objects.get_or_create(
        owner=actor.user, from_memory=new, to_memory=old, relation=relation,
        defaults={"created_by_agent": actor.agent_name},
    )  # fmt: skip


def _propose(actor: Actor, new: Memory, old: Memory, item: Judged) -> None:
    ReviewProposal.objects.propose(
        actor.user.pk, ProposalKind.CONFLICT, [new.pk, old.pk], item.verdict.confidence,
        {"relation": item.relation, "new": str(new.pk), "old": str(old.pk),
         "signals": list(item.verdict.signals), "writer": actor.label},
    )  # fmt: skip


IMPORT_JUDGED = 500  # imported memories judged at import time; compaction judges the rest


def raise_for_imported(owner, memories: list[Memory]) -> int:
    """A package merged into a store: each imported live statement is judged against the
    memories that were there before it, and what it contradicts or replaces is linked and
    raised in Review. Nothing changes status: the owner imported it and decides. Returns
    how many pairs were raised."""
    actor = Actor.owner(owner)
    imported = {memory.pk for memory in memories}
    raised = 0
    live = [m for m in memories if m.status == Status.ACTIVE and not m.held]
    for memory in live[:IMPORT_JUDGED]:
        for item in assess(
            actor, content=memory.content, scope_type=memory.scope_type,
            scope_key=memory.scope_key, vector=None, exclude=imported,
        ):  # fmt: skip
            if item.relation in DISPLACING:
                _link(actor, memory, item.memory, LINK_FOR[item.relation])
                _propose(actor, memory, item.memory, item)
                raised += 1
    return raised
