"""Nearest neighbours over an owner's vectors: NumPy over a matrix cached per process.

The matrix is split into blocks by (scope type, scope key, visibility), so a recall scores
only the blocks its caller may read (global + project + task + own agent notes), never the
rest; recall still confirms every candidate with the same scoped query as the lexical
channels, so a stale block can only lose a candidate, never show one it should not.

Rows are kept as int8 with one scale per row (a quarter of float32's memory: 38 MB for
100,000 vectors of 384 dimensions; cosine off by at most ~0.002, far below what separates
neighbours) and scored a slab at a time: each slab is widened to float32 in a small buffer
and multiplied by BLAS, which costs about what one float32 product over the whole block
did (memory bandwidth is the limit either way).

Freshness: each owner's vectors carry increasing ids (rows are replaced, never updated),
so one indexed MAX(id) tells whether anything changed; new rows are then read
incrementally. Why not sqlite-vec or pgvector: see docs/semantic.md.
"""

from __future__ import annotations

import os
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np
from django.db.models import Count

from memories.embeddings.models import MemoryVector

BlockKey = tuple[str, str, str]  # scope_type, scope_key, visibility
SLAB_ROWS = 2048  # rows widened to float32 at a time: 3 MB, cache-sized


def quantized(vector: np.ndarray) -> tuple[np.ndarray, float]:
    """int8 codes and the scale that restores them (vector ≈ codes * scale)."""
    peak = float(np.abs(vector).max())
    scale = peak / 127 if peak > 0 else 1.0
    return np.round(vector / scale).astype(np.int8), scale


@dataclass
class Block:
    dimension: int
    # Memory ids by row as the two halves of the UUID (16 bytes a row, where UUID objects
    # in a list and a dict to find them again cost ~240); both 0 for a replaced row.
    high: np.ndarray | None = None
    low: np.ndarray | None = None
    codes: np.ndarray | None = None  # int8 rows
    scales: np.ndarray | None = None  # float32 per row; 0 for a replaced row
    size: int = 0

    def reserve(self, rows: int) -> None:
        """Room for `rows` more (exactly, when an index is first loaded: no doubling slack)."""
        capacity = 0 if self.codes is None else self.codes.shape[0]
        if self.size + rows <= capacity:
            return
        grown = {
            "high": np.zeros(self.size + rows, dtype=np.uint64),
            "low": np.zeros(self.size + rows, dtype=np.uint64),
            "codes": np.zeros((self.size + rows, self.dimension), dtype=np.int8),
            "scales": np.zeros(self.size + rows, dtype=np.float32),
        }
        if self.codes is not None:
            for name, array in grown.items():
                array[: self.size] = getattr(self, name)[: self.size]
        self.high, self.low, self.codes, self.scales = grown.values()

    def append(self, memory_id: uuid.UUID, vector: np.ndarray) -> None:
        if self.codes is None or self.size == self.codes.shape[0]:
            self.reserve(max(64, self.size // 4))
        self.codes[self.size], self.scales[self.size] = quantized(vector)
        self.high[self.size], self.low[self.size] = divmod(memory_id.int, 1 << 64)
        self.size += 1

    def forget(self, memory_ids: list[uuid.UUID]) -> None:
        """Blank the rows of these memories (their new vectors are about to be added)."""
        if not self.size or not memory_ids:
            return
        halves = {divmod(memory_id.int, 1 << 64) for memory_id in memory_ids}
        lows = np.array([low for _, low in halves], dtype=np.uint64)
        rows = [row for row in np.flatnonzero(np.isin(self.low[: self.size], lows)).tolist()
                if (int(self.high[row]), int(self.low[row])) in halves]  # fmt: skip
        self.codes[rows], self.scales[rows], self.high[rows], self.low[rows] = 0, 0.0, 0, 0

    def memory_id(self, row: int) -> uuid.UUID | None:
        return (
            uuid.UUID(int=(int(self.high[row]) << 64) | int(self.low[row]))
            if self.scales[row]
            else None
        )

    def score_rows(self, queries: np.ndarray, start: int, stop: int, out: np.ndarray) -> None:
        """Rows start..stop's best cosine over the queries into `out` (unit-length float32
        queries), a slab at a time."""
        slab = np.empty((min(SLAB_ROWS, stop - start), self.dimension), dtype=np.float32)
        for begin in range(start, stop, SLAB_ROWS):
            end = min(begin + SLAB_ROWS, stop)
            widened = slab[: end - begin]
            np.copyto(widened, self.codes[begin:end], casting="unsafe")
            (widened @ queries.T).max(axis=1, out=out[begin - start : end - start])
            out[begin - start : end - start] *= self.scales[begin:end]


@dataclass
class OwnerIndex:
    model: str
    last_id: int = 0
    last_memory: uuid.UUID | None = None  # the memory of the row last_id
    blocks: dict[BlockKey, Block] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def reserve(self, counts: dict[BlockKey, tuple[int, int]]) -> None:
        """Size blocks for rows about to be added: {block key: (rows, dimension)}."""
        for key, (rows, dimension) in counts.items():
            self.blocks.setdefault(key, Block(dimension=dimension)).reserve(rows)

    def add(self, rows, replacing: bool) -> None:
        """Add rows (vector id, memory id, raw vector, scope type, scope key, visibility)
        in id order. `replacing`: some memories may have rows already, to be blanked first
        (never on a first load, where every memory has one row at most)."""
        batch: list = []
        for row in rows:
            batch.append(row)
            if len(batch) == 2000:
                self._add(batch, replacing)
                batch = []
        self._add(batch, replacing)

    def _add(self, rows: list, replacing: bool) -> None:
        if replacing:
            for block in self.blocks.values():
                block.forget([memory_id for _, memory_id, *_ in rows])
        for vector_id, memory_id, raw, scope_type, scope_key, visibility in rows:
            vector = np.frombuffer(bytes(raw), dtype="<f4")
            key = (scope_type, scope_key, visibility)
            block = self.blocks.setdefault(key, Block(dimension=vector.shape[0]))
            if vector.shape[0] == block.dimension:
                block.append(memory_id, vector)
            self.last_id, self.last_memory = vector_id, memory_id

    def nearest(self, queries: np.ndarray, keys: list[BlockKey], limit: int) -> list[tuple]:
        """(memory id, best cosine over the queries), best first, from the given blocks.
        The rows are shared out over the cores (NumPy and BLAS release the GIL)."""
        queries = np.ascontiguousarray(queries, dtype=np.float32)
        blocks = [
            block
            for block in (self.blocks.get(key) for key in keys)
            if block is not None and block.size and block.dimension == queries.shape[1]
        ]
        # Each block's rows as they are now: another request may append to a block while
        # this one scores it, and only the rows counted here have scores.
        sizes = [block.size for block in blocks]
        scores = [np.empty(size, dtype=np.float32) for size in sizes]
        # Equal shares of rows; a share may span blocks.
        shares: list[list] = [[] for _ in range(_SCORERS)]
        total = sum(sizes)
        quota, taken, share = -(-total // _SCORERS) if total else 1, 0, 0
        for block, size, out in zip(blocks, sizes, scores):
            start = 0
            while start < size:
                stop = min(size, start + quota - taken)
                shares[share].append((block, start, stop, out[start:stop]))
                taken += stop - start
                start = stop
                if taken == quota:
                    share, taken = share + 1, 0
        work = [part for part in shares if part]

        def score(part):
            for block, start, stop, out in part:
                block.score_rows(queries, start, stop, out)

        futures = [_scorers.submit(score, part) for part in work[1:]]  # the rest here
        if work:
            score(work[0])
        for future in futures:
            future.result()

        found: list[tuple] = []
        for block, block_scores in zip(blocks, scores):
            take = min(limit, len(block_scores))
            top = np.argpartition(-block_scores, take - 1)[:take]
            found.extend(
                (memory_id, float(block_scores[row]))
                for row in top
                if (memory_id := block.memory_id(row))
            )
        found.sort(key=lambda pair: (-pair[1], str(pair[0])))
        return found[:limit]


_SCORERS = max(1, min(4, os.cpu_count() or 1))
_scorers = ThreadPoolExecutor(max_workers=max(1, _SCORERS - 1), thread_name_prefix="vector-scoring")
_indexes: dict[tuple[int, str], OwnerIndex] = {}
_indexes_lock = threading.Lock()


def owner_index(owner_id: int, model: str) -> OwnerIndex:
    """The owner's index for this model, brought up to date (one indexed MAX(id) when
    nothing changed; the new rows only when something did)."""
    with _indexes_lock:
        index = _indexes.setdefault((owner_id, model), OwnerIndex(model=model))
    vectors = MemoryVector.objects.filter(owner_id=owner_id, model=model)
    newest_id, newest_memory = vectors.order_by("-id").values_list("id", "memory_id").first() or (
        0,
        None,
    )
    if newest_id < index.last_id or (
        newest_id == index.last_id and newest_memory != index.last_memory
    ):
        # Rows were deleted or rolled back (a memory or owner removed, a restore): start over.
        with _indexes_lock:
            index = _indexes[(owner_id, model)] = OwnerIndex(model=model)
    newest = newest_id
    if newest > index.last_id:
        with index.lock:
            if newest > index.last_id:
                fresh = vectors.filter(id__gt=index.last_id)
                if index.last_id == 0:  # a first load: size every block exactly up front
                    index.reserve({
                        (row["memory__scope_type"], row["memory__scope_key"], row["memory__visibility"]):
                            (row["rows"], row["dimension"])
                        for row in fresh.order_by().values(
                            "memory__scope_type", "memory__scope_key", "memory__visibility", "dimension"
                        ).annotate(rows=Count("id"))
                    })  # fmt: skip
                index.add(
                    fresh.order_by("id")
                    .values_list(
                        "id",
                        "memory_id",
                        "vector",
                        "memory__scope_type",
                        "memory__scope_key",
                        "memory__visibility",
                    )  # fmt: skip
                    .iterator(2000),
                    replacing=index.last_id > 0,
                )
    return index


def forget_all() -> None:
    """Drop every cached matrix (tests, and after restoring a database)."""
    with _indexes_lock:
        _indexes.clear()
