"""What every compaction step shares: a proposal is recorded once, by its key."""

from __future__ import annotations

from memories.models import ReviewProposal


def propose(owner_id, kind: str, memory_ids, score: float | None, detail: dict) -> bool:
    """Record a proposal once; a rerun (or a dismissed proposal) is left as it is."""
    return ReviewProposal.objects.propose(owner_id, kind, memory_ids, score, detail)[1]
