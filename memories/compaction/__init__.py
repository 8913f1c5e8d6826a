"""Compaction: keep the store tidy without ever deciding for the owner.

What a run does, each step idempotent and bounded:

1. Exact duplicates (`duplicates`). The fingerprint constraint keeps two live memories of
   one owner from saying the same thing *as fingerprinted when written*. When
   normalization improves (a new rule in memories.text.normalize), older rows keep their
   old fingerprints, so live statements that are now equal can coexist, and later writes
   no longer find them as duplicates. Compaction recomputes every live fingerprint: rows
   whose statement is now equal in the same scope are merged (the most trusted one
   survives, the others are superseded by it and linked `duplicates`; nothing is
   deleted); a lone stale fingerprint is simply refreshed. Owner-trusted rows are only
   ever merged into a row at least as trusted.
2. Near-duplicates and 3. conflicts (`pairs`): candidate pairs of one owner's live
   memories (`candidates`: same scope, or a scope and the global one) are read by the
   relation judge writes use. A duplicate in one scope becomes a `near_duplicate`
   proposal, never merged automatically; a contradiction or an unlinked supersession
   becomes a `conflict` proposal exactly as a write would have raised it, which brings
   memories written before the judge existed to Review too.
4. Live memories not verified (or created) for CONTINUITY_STALE_AFTER_DAYS become `stale`
   proposals (`review`). Locked memories are the owner's deliberate statements and are
   not flagged.
5. Pending proposals that no longer apply become `obsolete` (`review`).
6. Weekly rollup (`rollup`): active episodic memories of a project older than
   CONTINUITY_ROLLUP_AFTER_DAYS become one summary memory per project, ISO week and
   visibility (their statements as key facts, linked `derived_from`); the originals are
   archived, never deleted. Owner-trusted memories are left alone. Memories arriving
   late for a week already rolled up produce a new version of that week's summary.
7. The full-text index (`index`): SQLite FTS5 'optimize' (merges segments, drops deleted
   terms); PostgreSQL: the GIN indexes' pending lists merged into their trees, and
   ANALYZE, which refreshes the planner statistics recall reads term frequencies from.
"""

from __future__ import annotations

from datetime import datetime

from django.utils import timezone

from foundation.maintenance.runs import Deadline
from memories.compaction.candidates import COMMON_TERM_LIMIT, MAX_MEMORIES_PER_SCOPE
from memories.compaction.duplicates import merge_exact_duplicates
from memories.compaction.index import optimize_index
from memories.compaction.pairs import propose_conflicts, propose_near_duplicates, review_pairs
from memories.compaction.review import (
    MAX_STALE_PER_RUN,
    propose_stale,
    retire_obsolete_proposals,
)
from memories.compaction.rollup import ROLLUP_AGENT, roll_up_episodes

__all__ = [
    "COMMON_TERM_LIMIT",
    "MAX_MEMORIES_PER_SCOPE",
    "MAX_STALE_PER_RUN",
    "ROLLUP_AGENT",
    "compaction",
    "merge_exact_duplicates",
    "optimize_index",
    "propose_conflicts",
    "propose_near_duplicates",
    "propose_stale",
    "retire_obsolete_proposals",
    "review_pairs",
    "roll_up_episodes",
]


def compaction(*, deadline: Deadline, now: datetime | None = None) -> dict:
    now = now or timezone.now()
    report = {"exact_duplicates": merge_exact_duplicates(deadline=deadline)}
    report.update(review_pairs(deadline=deadline))  # near_duplicates, conflicts
    report["stale"] = propose_stale(now=now)
    report["obsolete"] = retire_obsolete_proposals(now=now)
    report["rollup"] = roll_up_episodes(now=now, deadline=deadline)
    report["index"] = optimize_index()
    report["complete"] = not deadline.passed
    return report
