"""Which pairs of one owner's live memories are worth a look from the relation judge.

Comparing every memory with every other is O(n²); a pair worth judging almost always
shares a term that few other memories hold (a duplicate shares most of its terms, a
contradiction all but a negation or one value), or, across languages, has close vectors.
Pairs are only ever formed inside one scope, or between a scope and the global one: what
a write is judged against too (memories.evolution.neighbours).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from itertools import combinations, product
from uuid import UUID

import numpy as np
from django.db.models import Count

from memories.embeddings.models import MemoryVector
from memories.models import LIVE_STATUSES, Memory, ScopeType
from memories.text import analyze

# Per scope, the most recently updated memories only; terms held by more memories than
# this (in the scope, or the scope and the global one together) form no pairs.
MAX_MEMORIES_PER_SCOPE = 2000
COMMON_TERM_LIMIT = 200
# Vector pairs: each memory's closest few, and none under the cosine the write path
# ignores too (multilingual-e5-small puts unrelated engineering notes at 0.75-0.84).
VECTOR_NEIGHBOURS = 12
VECTOR_FLOOR = 0.84
GLOBAL = (ScopeType.GLOBAL, "")


@dataclass
class Store:
    """One owner's live memories but the held ones (held text is never compared)."""

    texts: dict[UUID, str] = field(default_factory=dict)
    created: dict[UUID, datetime] = field(default_factory=dict)
    scopes: dict[tuple[str, str], list[UUID]] = field(default_factory=dict)
    vectors: dict[UUID, np.ndarray] = field(default_factory=dict)

    def cosine(self, first: UUID, second: UUID) -> float | None:
        if first in self.vectors and second in self.vectors:
            return float(self.vectors[first] @ self.vectors[second])
        return None


def load(owner_id) -> Store:
    store = Store()
    rows = (
        Memory.objects.filter(owner_id=owner_id, status__in=LIVE_STATUSES, held=False)
        .order_by("-updated_at", "pk")
        .values_list("pk", "content", "scope_type", "scope_key", "created_at")
    )
    for pk, content, scope_type, scope_key, created_at in rows.iterator(chunk_size=2000):
        members = store.scopes.setdefault((scope_type, scope_key), [])
        if len(members) >= MAX_MEMORIES_PER_SCOPE:
            continue
        members.append(pk)
        store.texts[pk], store.created[pk] = content, created_at
    store.vectors = _vectors(owner_id, store.texts)
    return store


def _vectors(owner_id, memory_ids) -> dict[UUID, np.ndarray]:
    """Unit vectors of one model (the one most of these memories have), or none."""
    stored = MemoryVector.objects.filter(owner_id=owner_id)
    model = stored.values("model").annotate(count=Count("id")).order_by("-count", "model").first()
    if model is None:
        return {}
    found = {}
    rows = stored.filter(model=model["model"]).values_list("memory_id", "vector")
    for memory_id, raw in rows.iterator(chunk_size=2000):
        if memory_id in memory_ids:
            found[memory_id] = np.frombuffer(bytes(raw), dtype="<f4")
    dimensions = {values.shape for values in found.values()}
    return found if len(dimensions) == 1 else {}


def pairs(store: Store) -> list[tuple[UUID, UUID, bool]]:
    """(first, second, same_scope), sorted, each pair once."""
    terms = {pk: analyze(text).terms for pk, text in store.texts.items()}
    holders = {scope: _holders(members, terms) for scope, members in store.scopes.items()}
    found: dict[tuple[UUID, UUID], bool] = {}

    def add(candidates: Iterable[tuple[UUID, UUID]], same_scope: bool) -> None:
        for first, second in candidates:
            if first != second:
                found[_ordered(first, second)] = same_scope

    global_holders = holders.get(GLOBAL, {})
    for scope, held in holders.items():
        for ids in held.values():
            if 1 < len(ids) <= COMMON_TERM_LIMIT:
                add(combinations(ids, 2), True)
        if scope == GLOBAL:
            continue
        for term, ids in held.items():
            others = global_holders.get(term, ())
            if others and len(ids) + len(others) <= COMMON_TERM_LIMIT:
                add(product(ids, others), False)
    if store.vectors:
        members = store.scopes.get(GLOBAL, [])
        for scope, ids in store.scopes.items():
            add(_close(store, ids, ids), True)
            if scope != GLOBAL:
                add(_close(store, ids, members), False)
    return sorted(
        ((first, second, same) for (first, second), same in found.items()),
        key=lambda pair: (str(pair[0]), str(pair[1])),
    )


def _ordered(first: UUID, second: UUID) -> tuple[UUID, UUID]:
    return (first, second) if str(first) < str(second) else (second, first)


def _holders(members: list[UUID], terms: dict) -> dict[str, list[UUID]]:
    holders: dict[str, list[UUID]] = defaultdict(list)
    for pk in members:
        for term in terms[pk]:
            holders[term].append(pk)
    return holders


def _close(store: Store, rows: list[UUID], columns: list[UUID]) -> list[tuple[UUID, UUID]]:
    """Each row memory's nearest column memories at or over VECTOR_FLOOR."""
    rows = [pk for pk in rows if pk in store.vectors]
    columns = [pk for pk in columns if pk in store.vectors]
    if not rows or not columns:
        return []
    scores = (
        np.stack([store.vectors[pk] for pk in rows])
        @ np.stack([store.vectors[pk] for pk in columns]).T
    )
    found = []
    keep = min(VECTOR_NEIGHBOURS + 1, len(columns))  # +1: a memory is its own nearest
    for row, pk in enumerate(rows):
        nearest = np.argpartition(-scores[row], keep - 1)[:keep]
        found.extend(
            (pk, columns[column]) for column in nearest if scores[row, column] >= VECTOR_FLOOR
        )
    return found
