"""Nearest neighbours over an owner's vectors: NumPy over a matrix cached per process.

The matrix is split into blocks by (scope type, scope key, visibility), so a recall scores
only the blocks its caller may read (global + project + task + own agent notes), never the
rest; recall still confirms every candidate with the same scoped query as the lexical
channels, so a stale block can only lose a candidate, never show one it should not.

Freshness: each owner's vectors carry increasing ids (rows are replaced, never updated),
so one indexed MAX(id) tells whether anything changed; new rows are then read
incrementally. Why not sqlite-vec or pgvector: see docs/semantic.md.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

import numpy as np
from memories.embeddings.models import MemoryVector

BlockKey = tuple[str, str, str]  # scope_type, scope_key, visibility


@dataclass
class Block:
    dimension: int
    ids: list = field(default_factory=list)  # memory ids by row; None for a replaced row
    matrix: np.ndarray | None = None
    size: int = 0

    def append(self, memory_id, vector: np.ndarray) -> int:
        if self.matrix is None or self.size == self.matrix.shape[0]:
            grown = np.zeros((max(64, 2 * self.size), self.dimension), dtype=np.float32)
            if self.matrix is not None:
                grown[: self.size] = self.matrix[: self.size]
            self.matrix = grown
        self.matrix[self.size] = vector
        self.ids.append(memory_id)
        self.size += 1
        return self.size - 1

    def forget(self, row: int) -> None:
        self.matrix[row] = 0.0
        self.ids[row] = None


@dataclass
class OwnerIndex:
    model: str
    last_id: int = 0
    blocks: dict[BlockKey, Block] = field(default_factory=dict)
    where: dict = field(default_factory=dict)  # memory id → (block key, row)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, rows) -> None:
        for vector_id, memory_id, raw, scope_type, scope_key, visibility in rows:
            vector = np.frombuffer(bytes(raw), dtype="<f4")
            if memory_id in self.where:
                old_key, old_row = self.where.pop(memory_id)
                self.blocks[old_key].forget(old_row)
            key = (scope_type, scope_key, visibility)
            block = self.blocks.setdefault(key, Block(dimension=vector.shape[0]))
            if vector.shape[0] == block.dimension:
                self.where[memory_id] = (key, block.append(memory_id, vector))
            self.last_id = max(self.last_id, vector_id)

    def nearest(self, queries: np.ndarray, keys: list[BlockKey], limit: int) -> list[tuple]:
        """(memory id, best cosine over the queries), best first, from the given blocks."""
        found: list[tuple] = []
        for key in keys:
            block = self.blocks.get(key)
            if block is None or block.size == 0 or block.dimension != queries.shape[1]:
                continue
            scores = (block.matrix[: block.size] @ queries.T).max(axis=1)
            take = min(limit, block.size)
            top = np.argpartition(-scores, take - 1)[:take]
            found.extend((block.ids[row], float(scores[row])) for row in top if block.ids[row] is not None)
        found.sort(key=lambda pair: (-pair[1], str(pair[0])))
        return found[:limit]


_indexes: dict[tuple[int, str], OwnerIndex] = {}
_indexes_lock = threading.Lock()


def owner_index(owner_id: int, model: str) -> OwnerIndex:
    """The owner's index for this model, brought up to date (one indexed MAX(id) when
    nothing changed; the new rows only when something did)."""
    with _indexes_lock:
        index = _indexes.setdefault((owner_id, model), OwnerIndex(model=model))
    vectors = MemoryVector.objects.filter(owner_id=owner_id, model=model)
    newest_id, newest_memory = vectors.order_by("-id").values_list("id", "memory_id").first() or (0, None)
    if newest_id < index.last_id or (
        newest_id == index.last_id and index.where and newest_memory not in index.where
    ):
        # Rows were deleted or rolled back (a memory or owner removed, a restore): start over.
        with _indexes_lock:
            index = _indexes[(owner_id, model)] = OwnerIndex(model=model)
    newest = newest_id
    if newest > index.last_id:
        with index.lock:
            if newest > index.last_id:
                index.add(
                    vectors.filter(id__gt=index.last_id)
                    .order_by("id")
                    .values_list("id", "memory_id", "vector", "memory__scope_type",
                                 "memory__scope_key", "memory__visibility")  # fmt: skip
                    .iterator(5000)
                )
    return index


def forget_all() -> None:
    """Drop every cached matrix (tests, and after restoring a database)."""
    with _indexes_lock:
        _indexes.clear()
