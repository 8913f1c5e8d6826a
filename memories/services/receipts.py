"""What `memory_remember` answers (its receipt), and what it leaves the owner in Review."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from foundation.actors import Actor
from memories.models import Memory, ProposalKind, ReviewProposal


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

    def as_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> RememberReceipt:
        return cls(**data)


def propose_review(actor: Actor, memory: Memory, hidden: list[Memory]) -> None:
    """An agent wrote to a key held by a memory it may not read: its write became a memory
    of its own beside that one, and the owner decides in Review which one stands (accepting
    merges them). The agent is told nothing of it."""
    for holder in hidden:
        ids = sorted([str(holder.pk), str(memory.pk)])
        ReviewProposal.objects.get_or_create(
            owner=actor.user,
            key=f"{ProposalKind.NEAR_DUPLICATE}:{':'.join(ids)}"[:200],
            defaults={
                "kind": ProposalKind.NEAR_DUPLICATE, "memory_ids": ids, "score": None,
                "detail": {"reason": f"an agent ({actor.agent_name}) wrote to the key "
                           f"'{memory.key}' of a memory it cannot read"},
            },
        )  # fmt: skip


def receipt(memory: Memory, *, action: str, duplicate_of: Memory | None = None,
             similar=(), contradictions=(), quarantine=()) -> RememberReceipt:  # fmt: skip
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
        similar=list(similar),
        contradictions=list(contradictions),
        quarantine=list(quarantine),
    )
