"""The ledger: each event stored once, no gap, checkpoint and counters moved together."""

from __future__ import annotations

import pytest

from capture import extraction
from capture.models import BatchStatus, CaptureBatch, CaptureThread, ConversationEvent
from capture.services import ingest
from capture.services import proposals as candidate_rules
from capture.services.ingest import batch_process
from tests.capture.helpers import items_of

pytestmark = pytest.mark.django_db


def stored(thread_id="s-1"):
    return list(
        ConversationEvent.objects.filter(thread__external_id=thread_id)
        .order_by("run_id", "seq")
        .values_list("run_id", "seq", "role", "text")
    )


def test_a_batch_is_stored_redacted_and_counted(submit, agent_actor):
    batch = submit(agent_actor, items_of("claude_code"))

    assert batch.status == BatchStatus.DONE and batch.items is None
    assert batch.counts["events"] == 9 and batch.counts["markers"] == 3
    assert batch.counts["skipped"] == 9 and batch.counts["skipped_reasons"]["sidechain"] == 1
    assert batch.redactions == {"card_number": 1, "password_assignment": 1}
    prompt = ConversationEvent.objects.get(run_id="u-7", seq=0)
    assert "4539" not in prompt.text and "Zq8!vR2#kL9" not in prompt.text
    assert prompt.redactions == {"card_number": 1, "password_assignment": 1}
    assert len(prompt.original_sha256) == 64 and prompt.original_sha256 not in prompt.text
    thread = CaptureThread.objects.get()
    assert (thread.checkpoint_run, thread.checkpoint_seq) == ("u-7", 1)
    assert (thread.item_count, thread.event_count, thread.duplicate_count) == (18, 9, 0)
    assert thread.agent_name == "claude-code"


def test_replaying_the_same_batch_stores_nothing_twice(submit, agent_actor):
    submit(agent_actor, items_of("claude_code"))
    before = stored()
    again = submit(agent_actor, items_of("claude_code"))

    assert stored() == before
    assert again.counts["events"] == 0 and again.counts["duplicates"] == 9
    thread = CaptureThread.objects.get()
    assert (thread.event_count, thread.duplicate_count) == (9, 9)
    assert (thread.checkpoint_run, thread.checkpoint_seq) == ("u-7", 1)


def test_overlapping_batches_store_the_union_once(submit, agent_actor):
    items = items_of("codex")
    submit(agent_actor, items[:12], source="codex")  # ends with the first run
    second = submit(agent_actor, items[4:], source="codex")  # resends that run, adds the next
    whole = stored()

    ConversationEvent.objects.all().delete()
    CaptureThread.objects.all().delete()
    submit(agent_actor, items, source="codex")
    assert whole == stored()
    assert second.counts["duplicates"] == 6 and second.counts["events"] == 3


def test_a_batch_resent_from_the_middle_of_a_run_lines_up_with_what_is_stored(submit, agent_actor):
    items = [{"role": "user", "text": "Start the migration", "run_id": "r"}] + [
        {"role": "assistant", "text": f"step {n}"} for n in range(5)
    ]
    submit(agent_actor, items, source="generic")
    resent = submit(agent_actor, [{"role": "assistant", "text": f"step {n}"} for n in range(3, 7)],
                    source="generic")  # fmt: skip

    assert resent.counts == {**resent.counts, "events": 2, "duplicates": 2}
    assert [seq for _, seq, _, _ in stored()] == list(range(8))
    assert CaptureThread.objects.get().checkpoint_seq == 7


def test_a_source_that_trims_old_lines_keeps_the_fingerprints_of_the_rest(submit, agent_actor):
    items = items_of("claude_code")
    submit(agent_actor, items, thread_id="full")
    submit(agent_actor, items[13:], thread_id="trimmed")  # from the second prompt on

    def tail(thread_id):
        return [row[:3] for row in stored(thread_id) if row[0] == "u-7"]

    assert tail("full") == tail("trimmed") == [("u-7", 0, "user"), ("u-7", 1, "assistant")]
    full = dict(
        ConversationEvent.objects.filter(thread__external_id="full").values_list("seq", "text")
    )
    assert full[0].startswith("请记住")


def test_a_crash_mid_batch_then_a_retry_leaves_no_duplicate_and_no_gap(
    submit, agent_actor, monkeypatch
):
    real = extraction.extract
    calls = []

    def crash_once(events, *, project_key):
        calls.append(len(events))
        if len(calls) == 1:
            raise RuntimeError("worker killed")
        return real(events, project_key=project_key)

    monkeypatch.setattr(extraction, "extract", crash_once)
    monkeypatch.setattr(ingest, "enqueue", lambda batch_id: None)  # the test drives the worker
    batch = submit(agent_actor, items_of("claude_code"))

    assert ingest.batch_start(batch_id=batch.pk)
    with pytest.raises(RuntimeError):
        batch_process(batch_id=batch.pk)
    batch.refresh_from_db()
    assert batch.status == BatchStatus.PROCESSING and batch.items is not None
    assert ConversationEvent.objects.count() == 0
    assert CaptureThread.objects.get().checkpoint_seq == -1

    assert ingest.batch_start(batch_id=batch.pk)
    batch_process(batch_id=batch.pk)
    batch.refresh_from_db()
    assert batch.status == BatchStatus.DONE and batch.attempts == 2
    assert calls == [9, 9]
    assert [seq for run, seq, _, _ in stored() if run == "u-1"] == list(range(7))
    assert ConversationEvent.objects.count() == 9
    assert not ingest.batch_start(batch_id=batch.pk)  # done: a redelivery is a no-op


def test_the_task_retries_a_failed_attempt_and_records_it(submit, agent_actor, monkeypatch):
    real = extraction.extract
    calls = []

    def crash_once(events, *, project_key):
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("database went away")
        return real(events, project_key=project_key)

    monkeypatch.setattr(extraction, "extract", crash_once)
    batch = submit(agent_actor, items_of("memorycenter"), source="memorycenter")

    assert batch.status == BatchStatus.DONE and batch.attempts == 2 and batch.last_error == ""
    assert ConversationEvent.objects.count() == 4


def test_a_batch_failing_every_attempt_is_failed_and_its_thread_shows_why(
    submit, agent_actor, monkeypatch
):
    def always(events, *, project_key):
        raise RuntimeError("password=Zq8!vR2#kL9 broke extraction")

    monkeypatch.setattr(extraction, "extract", always)
    batch = submit(agent_actor, items_of("memorycenter"), source="memorycenter")

    assert batch.status == BatchStatus.FAILED and batch.attempts == 6
    assert "RuntimeError" in batch.last_error and "Zq8!vR2#kL9" not in batch.last_error
    assert CaptureThread.objects.get().last_error == batch.last_error
    assert ConversationEvent.objects.count() == 0


def test_a_dry_run_counts_what_would_be_stored_and_stores_nothing(submit, agent_actor, monkeypatch):
    seen = []
    monkeypatch.setattr(
        extraction, "extract", lambda events, project_key: seen.extend(events) or ["p1", "p2"]
    )
    batch = submit(agent_actor, items_of("claude_code"), dry_run=True)

    assert batch.status == BatchStatus.DONE and batch.items is None
    assert batch.counts["events"] == 9 and batch.counts["candidates"] == 2
    assert batch.redactions == {"card_number": 1, "password_assignment": 1}
    assert len(seen) == 9 and all(event.pk is None for event in seen)
    assert ConversationEvent.objects.count() == 0
    thread = CaptureThread.objects.get()
    assert (thread.checkpoint_run, thread.checkpoint_seq, thread.event_count) == ("", -1, 0)


def test_new_events_are_handed_to_extraction_in_the_same_transaction(
    submit, agent_actor, monkeypatch
):
    handed, proposed = [], []

    def record(events, *, project_key):
        handed.append([e.pk is not None for e in events])
        return ["a proposal"]

    def store(*, thread, proposals, agent_name):
        proposed.append((thread.external_id, agent_name, proposals))
        return 1

    monkeypatch.setattr(extraction, "extract", record)
    monkeypatch.setattr(candidate_rules, "candidates_propose", store)
    batch = submit(agent_actor, items_of("text"), source="text")
    submit(agent_actor, items_of("text"), source="text")  # nothing new: extraction not called

    assert handed == [[True] * 6]
    assert proposed == [("s-1", "claude-code", ["a proposal"])]
    assert batch.counts["candidates"] == 1


def test_the_sweep_sends_again_batches_a_broker_lost(submit, agent_actor, monkeypatch, settings):
    monkeypatch.setattr(ingest, "enqueue", lambda batch_id: None)  # the broker is down
    batch = submit(agent_actor, items_of("memorycenter"), source="memorycenter")
    assert batch.status == BatchStatus.QUEUED
    monkeypatch.undo()

    assert ingest.batches_requeue(older_than_seconds=60) == {"requeued": 0}  # still young
    CaptureBatch.objects.filter(pk=batch.pk).update(created_at=batch.created_at.replace(year=2025))
    from capture.tasks import sweep_batches

    sweep_batches(force=True)
    batch.refresh_from_db()
    assert batch.status == BatchStatus.DONE and ConversationEvent.objects.count() == 4
