"""The in-process vector index: a replaced vector leaves one live row behind, and the
index notices rows that went away."""

from __future__ import annotations

import uuid

import numpy as np
import pytest

from memories.embeddings.index import forget_all, owner_index
from memories.embeddings.models import MemoryVector
from memories.services import memory_remember

pytestmark = pytest.mark.django_db
MODEL = "test/axes-8"
GLOBAL = [("global", "", "shared")]


def axis(number: int) -> np.ndarray:
    vector = np.zeros(8, dtype="<f4")
    vector[number] = 1.0
    return vector


def store(memory_id, owner, vector) -> None:
    MemoryVector.objects.filter(memory_id=memory_id, model=MODEL).delete()
    MemoryVector.objects.create(memory_id=memory_id, owner=owner, model=MODEL, dimension=8,
                                vector=vector.tobytes(), content_hash="test")  # fmt: skip


@pytest.fixture
def two_memories(owner, owner_actor):
    forget_all()
    made = [
        uuid.UUID(
            memory_remember(actor=owner_actor, content=content, kind="fact", scope_type="global").id
        )
        for content in ("Deploys go out on Tuesdays.", "日志保留三十天。")
    ]
    MemoryVector.objects.filter(memory_id__in=made).delete()  # the real model's, if any
    for number, memory_id in enumerate(made):
        store(memory_id, owner, axis(number))
    yield made
    forget_all()


def test_a_replaced_vector_leaves_one_live_row_for_its_memory(owner, two_memories):
    deploys, logs = two_memories
    index = owner_index(owner.pk, MODEL)
    assert [pk for pk, _ in index.nearest(axis(0)[None], GLOBAL, 5)][:1] == [deploys]

    store(deploys, owner, axis(2))  # re-embedded: the old row is deleted, a new one added
    index = owner_index(owner.pk, MODEL)
    found = dict(index.nearest(axis(2)[None], GLOBAL, 5))
    assert list(found).count(deploys) == 1 and found[deploys] == pytest.approx(1.0, abs=0.01)
    # Its old direction finds nothing of it any more; the other memory is untouched.
    assert dict(index.nearest(axis(0)[None], GLOBAL, 5)).get(deploys, 0.0) == pytest.approx(
        0.0, abs=0.01
    )
    assert dict(index.nearest(axis(1)[None], GLOBAL, 5))[logs] == pytest.approx(1.0, abs=0.01)
    assert sum(block.size for block in index.blocks.values()) == 3  # two live rows, one blanked


def test_the_index_starts_over_when_its_newest_row_went_away(owner, two_memories):
    deploys, logs = two_memories
    owner_index(owner.pk, MODEL)
    MemoryVector.objects.filter(memory_id=logs).delete()
    index = owner_index(owner.pk, MODEL)
    assert [pk for pk, _ in index.nearest(axis(1)[None], GLOBAL, 5)] == [deploys]


def test_rows_another_request_appends_while_a_search_scores_wait_for_the_next_search(
    owner, two_memories
):
    deploys, logs = two_memories
    index = owner_index(owner.pk, MODEL)
    block = index.blocks[GLOBAL[0]]
    score_rows = block.score_rows

    appended = []

    def scored_while_another_request_appends(*args):
        score_rows(*args)
        while len(appended) < 5:
            appended.append(uuid.uuid4())
            block.append(appended[-1], axis(3))

    block.score_rows = scored_while_another_request_appends
    found = index.nearest(axis(0)[None], GLOBAL, 5)
    assert [pk for pk, _ in found] == [deploys, logs]  # the rows counted when it began
    del block.score_rows
    assert {pk for pk, _ in index.nearest(axis(3)[None], GLOBAL, 10)} == {deploys, logs, *appended}
