"""Retrieval: hybrid recall, context packs, bootstrap and multi-step queries.

Everything here reads; the only write is the access count a background task records.
"""

from memories.retrieval.channels import available as available_channels
from memories.retrieval.channels import register_semantic_channel
from memories.retrieval.context import (
    MAX_TOKEN_BUDGET,
    MIN_TOKEN_BUDGET,
    PURPOSES,
    Bootstrap,
    ContextPack,
    bootstrap,
    context_pack,
)
from memories.retrieval.query import MultiQueryResult, multi_query
from memories.retrieval.recall import DEFAULT_LIMIT, MAX_LIMIT, RecallResult, recall

__all__ = [
    "DEFAULT_LIMIT",
    "MAX_LIMIT",
    "MAX_TOKEN_BUDGET",
    "MIN_TOKEN_BUDGET",
    "PURPOSES",
    "Bootstrap",
    "ContextPack",
    "MultiQueryResult",
    "RecallResult",
    "available_channels",
    "bootstrap",
    "context_pack",
    "multi_query",
    "recall",
    "register_semantic_channel",
]
