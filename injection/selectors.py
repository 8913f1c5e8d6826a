"""Reads over injection receipts for the owner's dashboard: per agent and day, and per memory.

Every read is owner-scoped and bounded: the daily summary covers a fixed window of days and
walks the receipts' (owner, created_at) index; per-memory counts are one grouped query for a
whole page of cards, over the (memory, created_at) index.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta

from django.db.models import Count, Q, Sum
from django.db.models.functions import TruncDate
from django.utils import timezone

from injection.models import InjectedMemory, InjectionReceipt
from memories.models import Memory

SUMMARY_DAYS = 14
MEMORIES_PER_ROW = 5
MAX_MEMORY_ROWS = 1000  # (day, agent, memory) groups read to name the most injected


@dataclass
class DayAgent:
    day: date
    agent: str
    injections: int
    empty: int  # calls that injected nothing (no match, or over the time budget)
    tokens: int
    distinct_memories: int = 0
    memories: list[tuple[Memory, int]] = field(default_factory=list)  # the most injected first


def injection_counts(memory_ids) -> dict:
    """{memory id: times injected} for a page of memories, in one grouped query."""
    ids = list(memory_ids)
    if not ids:
        return {}
    rows = (
        InjectedMemory.objects.filter(memory_id__in=ids).values("memory_id").annotate(n=Count("id"))
    )
    return {row["memory_id"]: row["n"] for row in rows.order_by()}


def injection_summary(owner, *, days: int = SUMMARY_DAYS) -> list[DayAgent]:
    """Per day (newest first) and agent: calls, empty calls, token cost, distinct memories
    injected and the most injected of them."""
    since = timezone.now() - timedelta(days=days)
    receipts = InjectionReceipt.objects.filter(owner=owner, created_at__gte=since)
    grouped = (
        receipts.annotate(day=TruncDate("created_at"))
        .values("day", "agent_name")
        .annotate(
            n=Count("id"),
            empty=Count("id", filter=Q(token_estimate=0)),
            tokens=Sum("token_estimate"),
        )
        .order_by("-day", "agent_name")
    )
    rows = {
        (row["day"], row["agent_name"]): DayAgent(
            row["day"], row["agent_name"], row["n"], row["empty"], row["tokens"] or 0
        )
        for row in grouped
    }
    injected = InjectedMemory.objects.filter(
        receipt__owner=owner, receipt__created_at__gte=since
    ).annotate(day=TruncDate("receipt__created_at"))
    distinct = injected.values("day", "receipt__agent_name").annotate(
        n=Count("memory_id", distinct=True)
    )
    for row in distinct.order_by():
        if (key := (row["day"], row["receipt__agent_name"])) in rows:
            rows[key].distinct_memories = row["n"]
    per_memory = (
        injected.values("day", "receipt__agent_name", "memory_id")
        .annotate(n=Count("id"))
        .order_by("-day", "receipt__agent_name", "-n", "memory_id")[:MAX_MEMORY_ROWS]
    )
    per_memory = list(per_memory)
    memories = Memory.objects.filter(owner=owner).in_bulk({row["memory_id"] for row in per_memory})
    for row in per_memory:
        summary = rows.get((row["day"], row["receipt__agent_name"]))
        if (
            summary is not None
            and len(summary.memories) < MEMORIES_PER_ROW
            and row["memory_id"] in memories
        ):
            summary.memories.append((memories[row["memory_id"]], row["n"]))
    return list(rows.values())


def recent_receipts(owner):
    """The owner's receipts, for a keyset page (newest first)."""
    return InjectionReceipt.objects.filter(owner=owner)
