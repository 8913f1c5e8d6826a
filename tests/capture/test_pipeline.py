"""Capture's pipeline: named steps run in order by one runner, a clean early stop, and a
service layer that hands batches to the worker by task name, never by importing tasks."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import grimp
import pytest

from capture import pipeline
from capture.models import BatchStatus, Candidate, ConversationEvent
from capture.pipeline import STEPS, Step, StopPipeline, run_steps
from capture.pipeline.steps import Extract, Propose
from capture.services import ingest
from tests.capture.helpers import items_of

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def step_log(monkeypatch):
    """The names of the steps that ran, in order (each step still does its real work)."""
    log = []
    for step in STEPS:
        real = type(step).run

        def logged(self, run, real=real):
            log.append(self.name)
            return real(self, run)

        monkeypatch.setattr(type(step), "run", logged)
    return log


def test_the_steps_are_parse_redact_ledger_extract_propose():
    assert [step.name for step in STEPS] == ["parse", "redact", "ledger", "extract", "propose"]
    assert all(isinstance(step, Step) for step in STEPS)


@pytest.mark.django_db
def test_a_batch_runs_every_step_in_order_and_stores_events_and_candidates(
    submit, agent_actor, step_log
):
    batch = submit(agent_actor, items_of("claude_code"))

    assert step_log == ["parse", "redact", "ledger", "extract", "propose"]
    assert batch.status == BatchStatus.DONE
    assert ConversationEvent.objects.count() == batch.counts["events"] == 9
    assert Candidate.objects.count() >= 1 and batch.counts["candidates"] >= 1


@pytest.mark.django_db
def test_a_resent_batch_stops_cleanly_at_the_ledger_and_extracts_nothing(
    submit, agent_actor, step_log
):
    submit(agent_actor, items_of("claude_code"))
    step_log.clear()

    again = submit(agent_actor, items_of("claude_code"))

    assert step_log == ["parse", "redact", "ledger"]
    assert again.status == BatchStatus.DONE
    assert again.counts["events"] == 0 and again.counts["duplicates"] == 9
    assert again.counts["candidates"] == 0
    assert ConversationEvent.objects.count() == 9


@pytest.mark.django_db
def test_the_runner_records_why_a_step_stopped_the_run(submit, agent_actor, monkeypatch):
    monkeypatch.setattr(ingest, "enqueue", lambda batch_id: None)  # the test runs the steps
    batch = submit(agent_actor, items_of("claude_code"))
    batch.thread.refresh_from_db()
    ran = []

    class Halt(Step):
        name = "halt"

        def run(self, run):
            raise StopPipeline("enough")

    class Never(Step):
        name = "never"

        def run(self, run):
            ran.append(self.name)

    run = run_steps(
        [*STEPS[:2], Halt(), Never()], pipeline.BatchRun(batch=batch, thread=batch.thread)
    )

    assert run.stopped == "halt: enough"
    assert ran == [] and len(run.events) == 9  # parsed and redacted, nothing after the stop
    assert ConversationEvent.objects.count() == 0


def test_steps_with_nothing_to_do_say_so():
    empty = pipeline.BatchRun(batch=None, thread=None)

    assert not Extract().able_to_run(empty) and not Propose().able_to_run(empty)


def test_capture_services_never_import_capture_tasks():
    graph = grimp.build_graph("capture", "foundation", cache_dir=None)
    services = {"capture.services", *graph.find_descendants("capture.services")}

    chains = {
        module: graph.find_shortest_chain(importer=module, imported="capture.tasks")
        for module in sorted(
            services | {"capture.pipeline", *graph.find_descendants("capture.pipeline")}
        )
    }

    assert {module: chain for module, chain in chains.items() if chain} == {}


def test_a_fresh_process_enqueues_a_task_by_name_before_any_tasks_module_is_imported(tmp_path):
    """A web process has imported no tasks module when its first batch is enqueued."""
    script = (
        "import django; django.setup()\n"
        "from celery import current_app\n"
        "assert 'continuity.heartbeat' not in current_app.tasks\n"
        "from foundation.queue import enqueue\n"
        "print(type(enqueue('continuity.heartbeat')).__name__)\n"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "tests.settings"}
    env["CONTINUITY_DATA_DIR"] = str(tmp_path)
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip

    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == "EagerResult"


def test_enqueueing_an_unknown_task_name_is_a_key_error():
    from foundation.queue import enqueue

    with pytest.raises(KeyError):
        enqueue("capture.no_such_task")


@pytest.mark.django_db
def test_a_submitted_batch_reaches_the_worker_by_task_name(
    submit, agent_actor, monkeypatch, django_capture_on_commit_callbacks
):
    from foundation import queue

    sent = []
    real = queue.enqueue
    monkeypatch.setattr(
        queue,
        "enqueue",
        lambda name, *args, **kw: sent.append((name, args, kw)) or real(name, *args, **kw),
    )

    batch = submit(agent_actor, items_of("memorycenter"), source="memorycenter")

    assert sent == [("capture.ingest_batch", (str(batch.pk),), {"queue": "capture"})]
    assert batch.status == BatchStatus.DONE
