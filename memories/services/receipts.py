"""What `memory_remember` answers (its receipt), and what it leaves the owner in Review."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from foundation.actors import Actor
from memories import text
from memories.models import LIVE_STATUSES, Memory, ProposalKind, ReviewProposal
from memories.selectors import is_visible_to


@dataclass
class RememberReceipt:
    id: str
    version: int
    trust: str
    status: str
    evolution: dict
    duplicate_of: str | None = None
    similar: list[dict] = field(default_factory=list)
    contradictions: list[dict] = field(default_factory=list)
    quarantine: list[dict] = field(default_factory=list)
    # What the write is to the close memories already there (memories.services.relations):
    # [{id, relation, confidence, signals, action}]; `stands` names the owner's memory that
    # a disputed write contradicts. `similar` and `contradictions` are the same relations
    # in the shape receipts had before (kept for clients that read them).
    relations: list[dict] = field(default_factory=list)
    stands: str | None = None

    def as_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> RememberReceipt:
        return cls(**data)


def propose_review(actor: Actor, memory: Memory, hidden_holders: list[Memory]) -> None:
    """An agent wrote to a key held by, or the very statement of, a memory it may not read:
    its write became a memory of its own beside that one, and the owner decides in Review
    which one stands (accepting merges them). The agent is told nothing of it."""
    twins = Memory.objects.filter(
        owner=actor.user, fingerprint=memory.fingerprint, status__in=LIVE_STATUSES, held=False
    ).exclude(pk=memory.pk)
    hidden = {holder.pk: (holder, "key") for holder in hidden_holders}
    for twin in twins:
        if not is_visible_to(actor, twin):
            hidden.setdefault(twin.pk, (twin, "statement"))
    for other, what in hidden.values():
        ReviewProposal.objects.propose(
            actor.user.pk, ProposalKind.NEAR_DUPLICATE, [other.pk, memory.pk],
            round(text.assess(memory.content, other.content).similarity, 3),
            {"reason": f"an agent ({actor.agent_name}) wrote the {what} of a memory it cannot read"},
        )  # fmt: skip


def receipt(memory: Memory, *, action: str, duplicate_of: Memory | None = None,
             relations=(), stands: Memory | None = None, quarantine=()) -> RememberReceipt:  # fmt: skip
    relations = list(relations)
    return RememberReceipt(
        id=str(memory.pk),
        version=memory.version,
        trust=memory.trust,
        status=memory.status,
        evolution={
            "action": action,
            "version": memory.version,
            "supersedes": str(memory.supersedes_id) if memory.supersedes_id else None,
        },
        duplicate_of=str(duplicate_of.pk) if duplicate_of else None,
        similar=[
            {"id": item["id"], "similarity": item["confidence"], "relation": item["relation"]}
            for item in relations if item["relation"] in ("duplicate", "refines", "related")
        ],
        contradictions=[
            {"id": item["id"], "reason": "; ".join(item["signals"]), "similarity": item["confidence"],
             "relation": item["relation"]}
            for item in relations if item["relation"] in ("contradicts", "supersedes")
            and item["action"] != "superseded"
        ],
        quarantine=list(quarantine),
        relations=relations,
        stands=str(stands.pk) if stands else None,
    )  # fmt: skip
