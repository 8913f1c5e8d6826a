"""Retrieval: hybrid recall, context packs, bootstrap and multi-step queries.

Everything here reads; the only write is the access count a background task records.
"""

from memories.retrieval.channels import available as available_channels
from memories.retrieval.channels import register_semantic_channel
from memories.retrieval.recall import DEFAULT_LIMIT, MAX_LIMIT, RecallResult, recall

__all__ = [
    "DEFAULT_LIMIT",
    "MAX_LIMIT",
    "RecallResult",
    "available_channels",
    "recall",
    "register_semantic_channel",
]
