"""Extraction: signals in captured conversation → pending candidate memories.

The ingestion task calls `propose_candidates` inside the transaction that stores a batch's
events, so a retried batch never proposes twice; a dry run calls `find_proposals`, which
reads nothing from and writes nothing to the database.
"""

from __future__ import annotations


def find_proposals(events) -> list:
    """The candidates these events would yield (pure; no database)."""
    return []


def propose_candidates(thread, events, *, agent_name: str) -> int:
    """Store pending candidates for these freshly stored events; the number created or merged."""
    return 0
