"""Writing vectors: what a memory's vector is made from, embedding on write, back-fill and
progress.

A remembered statement is embedded in its request, before the write's transaction opens:
the relation judge compares it with its nearest neighbours, and the vector is stored with
the memory in the same transaction, so the worker has nothing left to do for it. (The
poisoning classifier reads the same encoding: the embedder keeps recent ones.) Every
other change (corrections, imports, approved candidates) enqueues a task on commit, and
a model that is off or failing leaves the write to the lexical judge and the worker.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import transaction

from foundation.queue import enqueue
from memories.embeddings.embedders import Embedder, active_embedder
from memories.embeddings.models import MemoryVector
from memories.models import SEARCHABLE_STATUSES, Memory

if TYPE_CHECKING:
    import numpy as np

log = logging.getLogger(__name__)
DEFAULT_BATCH = 32
# The tasks of memories.tasks, by name: this module is what they call.
EMBED_TASK = "memories.embed_memories"
BACKFILL_TASK = "memories.backfill_embeddings"
# Hints often hold the statement in the other language and the words a search would use,
# which is what lets a Chinese question find an English memory; the model reads ~512 tokens.
MAX_TEXT_CHARS = 2000


def passage_text(memory: Memory) -> str:
    parts = [memory.content, *(memory.retrieval_hints or []), *(memory.tags or [])]
    return "\n".join(part for part in parts if part)[:MAX_TEXT_CHARS]


def content_hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def statement_text(content: str, retrieval_hints, tags) -> str:
    """passage_text of a memory not written yet."""
    parts = [content, *(retrieval_hints or []), *(tags or [])]
    return "\n".join(part for part in parts if part)[:MAX_TEXT_CHARS]


@dataclass(frozen=True)
class StatementVector:
    model: str
    values: np.ndarray  # unit length, float32
    text: str  # exactly what was embedded


def statement_vector(text: str) -> StatementVector | None:
    """The vector of a statement about to be written, or None when semantic recall is off
    or the model fails (the write goes on without it)."""
    if settings.CONTINUITY_EMBEDDER in ("", "none"):
        return None
    try:
        embedder = active_embedder()
        if embedder is None:
            return None
        import numpy as np  # only once a model is there to use it

        values = np.asarray(embedder.embed_passages([text])[0], dtype=np.float32)
    except Exception:  # a failing model must not fail a write
        log.warning("could not embed a statement on write", exc_info=True)
        return None
    return StatementVector(embedder.name, values, text)


def store_statement_vector(memory: Memory, vector: StatementVector | None) -> None:
    """Keep the vector computed for this write with its memory (same transaction)."""
    if vector is None or passage_text(memory) != vector.text:
        return
    import numpy as np

    MemoryVector.objects.filter(memory_id=memory.pk).delete()
    MemoryVector.objects.create(
        memory_id=memory.pk, owner_id=memory.owner_id, model=vector.model,
        dimension=vector.values.shape[0], vector=np.asarray(vector.values, dtype="<f4").tobytes(),
        content_hash=content_hash(vector.text),
    )  # fmt: skip


def embed_memories(*, memory_ids: Iterable, embedder: Embedder | None = None) -> int:
    """Embed the given memories with the active model, skipping those whose stored vector
    already matches their text and model. Idempotent; ids of deleted memories are ignored.
    Returns how many vectors were written."""
    embedder = embedder or active_embedder()
    if embedder is None:
        return 0
    memories = list(Memory.objects.filter(pk__in=list(memory_ids)).order_by("pk"))
    if not memories:
        return 0
    texts = {memory.pk: passage_text(memory) for memory in memories}
    current = set(
        MemoryVector.objects.filter(memory_id__in=list(texts), model=embedder.name).values_list(
            "memory_id", "content_hash"
        )
    )
    todo = [
        memory for memory in memories if (memory.pk, content_hash(texts[memory.pk])) not in current
    ]
    if not todo:
        return 0
    # The model runs outside any transaction: it is the slow part, and SQLite has one writer.
    vectors = embedder.embed_passages([texts[memory.pk] for memory in todo])
    import numpy as np

    rows = [
        MemoryVector(
            memory_id=memory.pk,
            owner_id=memory.owner_id,
            model=embedder.name,
            dimension=vector.shape[0],
            vector=np.asarray(vector, dtype="<f4").tobytes(),
            content_hash=content_hash(texts[memory.pk]),
        )  # fmt: skip
        for memory, vector in zip(todo, vectors)
    ]
    with transaction.atomic():
        # Replace, never update: a new row id is what tells cached indexes to refresh.
        MemoryVector.objects.filter(memory_id__in=[memory.pk for memory in todo]).delete()
        MemoryVector.objects.bulk_create(rows)
    return len(rows)


def embed_soon(memory_ids: Iterable) -> None:
    """Queue embedding of these memories after the current transaction commits, a batch per
    task (a no-op when semantic recall is off). Queueing failures are logged: the back-fill
    catches up."""
    if settings.CONTINUITY_EMBEDDER in ("", "none"):
        return
    ids = [str(memory_id) for memory_id in memory_ids]

    def send():
        for start in range(0, len(ids), DEFAULT_BATCH):
            batch = ids[start : start + DEFAULT_BATCH]
            try:
                enqueue(EMBED_TASK, batch, retry=False)
            except Exception:  # a write must never fail because the broker is away
                log.warning("could not queue embedding of memories %s", batch, exc_info=True)

    if ids:
        transaction.on_commit(send)


def backfill_soon(owner) -> bool:
    """Queue a back-fill of this owner's memories on the `embeddings` queue; False when
    semantic recall is off or the broker cannot be reached (the caller says so)."""
    if settings.CONTINUITY_EMBEDDER in ("", "none"):
        return False
    try:
        enqueue(BACKFILL_TASK, owner.pk, retry=False)
    except Exception:  # noqa: BLE001 - reported to the owner, who can try again
        log.warning("could not queue a back-fill for owner %s", owner.pk, exc_info=True)
        return False
    return True


@dataclass(frozen=True)
class EmbeddingStatus:
    model: str | None
    total: int  # searchable memories
    embedded: int  # with a vector of the active model for their current text
    stale: int  # with a vector, but of another model or of older text
    missing: int  # with no vector at all
    problem: str | None = None

    def as_dict(self) -> dict:
        return {"model": self.model, "total": self.total, "embedded": self.embedded,
                "stale": self.stale, "missing": self.missing, "problem": self.problem}  # fmt: skip


def embedding_status(owner=None) -> EmbeddingStatus:
    """Back-fill progress for one owner (or everyone). Reads every searchable memory's text
    to compare hashes, so it is for dashboards and commands, not for recall."""
    from memories.embeddings.embedders import EmbedderUnavailable

    try:
        embedder = active_embedder()
    except EmbedderUnavailable as error:
        embedder, problem = None, str(error)
    else:
        problem = None if embedder else "semantic recall is turned off"
    memories = Memory.objects.filter(status__in=SEARCHABLE_STATUSES)
    if owner is not None:
        memories = memories.filter(owner=owner)
    hashes = {}
    if embedder is not None:
        vectors = MemoryVector.objects.filter(model=embedder.name)
        if owner is not None:
            vectors = vectors.filter(owner=owner)
        hashes = dict(vectors.values_list("memory_id", "content_hash"))
    with_any = set(
        (MemoryVector.objects.filter(owner=owner) if owner else MemoryVector.objects.all())
        .values_list("memory_id", flat=True)
        .distinct()
    )
    total = embedded = stale = 0
    for memory in memories.only("id", "content", "retrieval_hints", "tags").iterator(2000):
        total += 1
        if hashes.get(memory.pk) == content_hash(passage_text(memory)):
            embedded += 1
        elif memory.pk in with_any:
            stale += 1
    return EmbeddingStatus(
        model=embedder.name if embedder else None, total=total, embedded=embedded,
        stale=stale, missing=total - embedded - stale, problem=problem,
    )  # fmt: skip


def backfill(
    *, owner=None, batch: int = DEFAULT_BATCH, progress: Callable[[int, int], None] | None = None
) -> int:
    """Embed every searchable memory lacking a current vector of the active model, in
    batches; `progress(done, total)` after each. Idempotent and resumable. Returns the
    number of vectors written."""
    embedder = active_embedder()
    if embedder is None:
        return 0
    memories = Memory.objects.filter(status__in=SEARCHABLE_STATUSES)
    if owner is not None:
        memories = memories.filter(owner=owner)
    current = dict(
        MemoryVector.objects.filter(model=embedder.name, memory__in=memories).values_list(
            "memory_id", "content_hash"
        )
    )
    todo = [
        memory.pk
        for memory in memories.only("id", "content", "retrieval_hints", "tags")
        .order_by("pk")
        .iterator(2000)
        if current.get(memory.pk) != content_hash(passage_text(memory))
    ]
    written = 0
    for start in range(0, len(todo), batch):
        written += embed_memories(memory_ids=todo[start : start + batch], embedder=embedder)
        if progress:
            progress(min(start + batch, len(todo)), len(todo))
    return written
