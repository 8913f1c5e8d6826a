"""Memories, their append-only history, the links between them (DESIGN §3), and the
proposals compaction puts to the owner.

Rules that must hold for every row are database constraints; the services check the same
rules first so that callers get a friendly error instead of an IntegrityError.
"""

from memories.models.choices import (
    LIVE_STATUSES,
    MAX_CONTENT_CHARS,
    OWNER_TRUSTS,
    SEARCH_FIELDS,
    SEARCH_SOURCE_FIELDS,
    SEARCHABLE_STATUSES,
    TRUST_RANK,
    ConfidenceBasis,
    EventType,
    Kind,
    MemoryType,
    Origin,
    Relation,
    ScopeType,
    Status,
    Trust,
    Visibility,
    choice_check,
)
from memories.models.memory import IdempotencyRecord, Memory, MemoryEvent, MemoryLink
from memories.models.proposals import ProposalKind, ProposalStatus, ReviewProposal, proposal_key

__all__ = [
    "ConfidenceBasis",
    "EventType",
    "IdempotencyRecord",
    "Kind",
    "LIVE_STATUSES",
    "MAX_CONTENT_CHARS",
    "Memory",
    "MemoryEvent",
    "MemoryLink",
    "MemoryType",
    "OWNER_TRUSTS",
    "Origin",
    "ProposalKind",
    "ProposalStatus",
    "Relation",
    "ReviewProposal",
    "proposal_key",
    "SEARCHABLE_STATUSES",
    "SEARCH_FIELDS",
    "SEARCH_SOURCE_FIELDS",
    "ScopeType",
    "Status",
    "TRUST_RANK",
    "Trust",
    "Visibility",
    "choice_check",
]
