"""The close live memories a new statement is judged against: only what its writer may read.

Three ways in, merged: the full-text index on the statement's own terms (what it shares
words with, however old), the most recently changed memories of its scope (a store being
written right now), and the nearest vectors (what says the same in other words or the
other language). Scopes: the write's own and the global one, never another project, task
or agent's notes, and always through memories_visible_to, so a memory the writer may not
read is never compared, named or counted (DESIGN §4, visibility first).
"""

from __future__ import annotations

from dataclasses import dataclass
from uuid import UUID

from foundation.actors import Actor
from memories.embeddings.models import MemoryVector
from memories.models import LIVE_STATUSES, Memory, ScopeType, Visibility
from memories.retrieval import index
from memories.retrieval.analysis import scope_token
from memories.retrieval.concepts import query_units
from memories.selectors import memories_visible_to

LEXICAL_NEIGHBOURS = 24
RECENT_NEIGHBOURS = 40
VECTOR_NEIGHBOURS = 12
# Vectors under this cosine are not worth a look (multilingual-e5-small puts unrelated
# engineering notes at 0.75-0.84).
VECTOR_FLOOR = 0.84
FIELDS = ("id", "content", "trust", "status", "key", "scope_type", "scope_key", "source_agent",
          "visibility", "origin", "supersedes_id")  # fmt: skip


@dataclass
class Neighbour:
    memory: Memory
    cosine: float | None = None


def scopes(scope_type: str, scope_key: str) -> list[tuple[str, str]]:
    found = [(scope_type, scope_key)]
    if scope_type != ScopeType.GLOBAL:
        found.append((ScopeType.GLOBAL, ""))
    return found


def find(
    actor: Actor, *, content: str, scope_type: str, scope_key: str, vector=None, exclude=()
) -> list[Neighbour]:
    in_scope = scopes(scope_type, scope_key)
    visibilities = [Visibility.SHARED, Visibility.PRIVATE] if actor.can_read_private else [Visibility.SHARED]  # fmt: skip
    readable = [(one_type, one_key, visibility) for one_type, one_key in in_scope for visibility in visibilities]  # fmt: skip
    ids: dict[UUID, None] = {}
    ids.update(dict.fromkeys(_lexical(actor, content, readable)))
    cosines: dict[UUID, float] = {}
    if vector is not None:
        # NumPy and the vector index only when the write came with a vector: a process
        # that never embeds (an agent's stdio server before its first write) never loads them.
        import numpy as np

        from memories.embeddings.index import owner_index

        nearest = owner_index(actor.user.pk, vector.model).nearest(
            np.asarray([vector.values]), readable, VECTOR_NEIGHBOURS
        )
        for memory_id, cosine in nearest:
            if cosine >= VECTOR_FLOOR:
                ids.setdefault(memory_id)
                cosines[memory_id] = cosine
    visible = memories_visible_to(actor).filter(status__in=LIVE_STATUSES)
    rows: dict[UUID, Memory] = {}
    for one_type, one_key in in_scope:
        recent = visible.filter(scope_type=one_type, scope_key=one_key).order_by("-updated_at")
        rows.update((row.pk, row) for row in recent.only(*FIELDS)[:RECENT_NEIGHBOURS])
    missing = [memory_id for memory_id in ids if memory_id not in rows]
    if missing:
        for row in visible.filter(pk__in=missing).only(*FIELDS):
            if (row.scope_type, row.scope_key) in in_scope:
                rows[row.pk] = row
    for memory_id in exclude:
        rows.pop(memory_id, None)
    if vector is not None:
        cosines.update(_cosines(vector, [pk for pk in rows if pk not in cosines]))
    return [Neighbour(row, cosines.get(pk)) for pk, row in rows.items()]


def _lexical(actor: Actor, content: str, readable) -> list[UUID]:
    units = tuple(query_units(content))
    if not units:
        return []
    terms = sorted({term for unit in units for alternative in unit for term in alternative})
    known = index.vocabulary(terms)
    return index.search(
        column="body", units=units, frequencies=known.frequencies, limit=LEXICAL_NEIGHBOURS,
        completions=known.completions,
        readable=index.Readable(
            actor.user.pk, tuple(readable), (),
            tuple(scope_token(actor.user.pk, *triple) for triple in readable), (),
        ),
    )  # fmt: skip


def _cosines(vector, memory_ids) -> dict[UUID, float]:
    if not memory_ids:
        return {}
    import numpy as np

    stored = MemoryVector.objects.filter(memory_id__in=memory_ids, model=vector.model)
    found = {}
    for memory_id, raw in stored.values_list("memory_id", "vector"):
        values = np.frombuffer(raw, dtype="<f4")
        if values.shape == vector.values.shape:
            found[memory_id] = float(values @ vector.values)
    return found
