"""A real Celery worker process consumes the capture queue: a batch posted through the agent
API is processed by it (lite: the embedded broker and SQLite; team: Redis and PostgreSQL)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.workers.instance import ROOT, WORK_TIMEOUT, wait_until

pytestmark = pytest.mark.slow


def post(instance, source: str, thread_id: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "tests.capture.worker_harness", "post", source, thread_id],
        cwd=ROOT, env=instance.env, check=True, timeout=120, capture_output=True, text=True,
    )  # fmt: skip
    return done.stdout


def test_a_worker_started_without_queue_options_processes_a_posted_batch(instance):
    instance.start_worker("w1")  # as serve starts it: no -Q, so every declared queue

    answer = post(instance, "claude_code", "sess-1")
    assert answer.startswith("202 "), answer

    def processed():
        rows = instance.query("SELECT status, counts FROM capture_capturebatch")
        return rows if rows and rows[0][0] == "done" else None

    rows = wait_until(processed, "the batch processed", WORK_TIMEOUT, instance)
    assert '"events": 9' in str(rows[0][1]) or "'events': 9" in str(rows[0][1])
    assert instance.query("SELECT count(*) FROM capture_conversationevent") == [(9,)]
    assert instance.query("SELECT checkpoint_run, checkpoint_seq FROM capture_capturethread") == [
        ("u-7", 1)
    ]

    post(instance, "claude_code", "sess-1")  # the same transcript again: nothing new
    wait_until(lambda: instance.query("SELECT count(*) FROM capture_capturebatch WHERE status = 'done'") == [(2,)],
               "the second batch processed", WORK_TIMEOUT, instance)  # fmt: skip
    assert instance.query("SELECT count(*) FROM capture_conversationevent") == [(9,)]


def test_a_worker_dedicated_to_the_capture_queue_processes_batches(instance):
    instance.start_worker("capture-only", "-Q", "capture")

    assert post(instance, "codex", "rollout-1").startswith("202 ")

    wait_until(lambda: instance.query("SELECT count(*) FROM capture_conversationevent") == [(9,)],
               "the codex events stored", WORK_TIMEOUT, instance)  # fmt: skip


def test_serve_starts_its_worker_on_the_capture_queue_too():
    from continuity.management.commands.serve import worker_command

    command = worker_command()
    assert {"celery", "capture"} <= set(command[command.index("--queues") + 1].split(","))
