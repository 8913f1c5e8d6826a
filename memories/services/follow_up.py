"""What a memory's new or changed text sets in motion, in one place.

Saving a row does nothing but save it; every writer (remember, correct, compaction's merges
and roll-ups, proposals, package import and the importers) calls `memories_follow_up` for
the memories whose text it wrote. After the transaction commits, their words join the
search dictionary and their embedding is queued on the `embeddings` worker; a rolled back
write leaves nothing behind.
"""

from __future__ import annotations

from collections.abc import Iterable

from memories.embeddings.vectors import embed_soon
from memories.models import Memory
from memories.retrieval.index import note_words


def memories_follow_up(memories: Iterable[Memory]) -> None:
    """Index the words and queue the embedding of these saved memories, on commit.
    Cheap when repeated: an unchanged text is not embedded again."""
    memories = [memory for memory in memories if memory.pk is not None]
    if not memories:
        return
    note_words(memories)
    embed_soon([memory.pk for memory in memories])
