"""What every compaction step shares: a proposal is recorded once, by its key."""

from __future__ import annotations

from memories.models import ReviewProposal


def propose(owner_id, kind: str, memory_ids, score: float | None, detail: dict) -> bool:
    """Record a proposal once; a rerun (or a dismissed proposal) is left as it is."""
    ids = sorted(str(pk) for pk in memory_ids)
    _, created = ReviewProposal.objects.get_or_create(
        owner_id=owner_id,
        key=f"{kind}:{':'.join(ids)}"[:200],
        defaults={"kind": kind, "memory_ids": ids, "score": score, "detail": detail},
    )
    return created
