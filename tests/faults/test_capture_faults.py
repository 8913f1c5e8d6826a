"""Capture under faults, with real servers that the tests stop, start and kill:

- the broker (Redis) is down when an agent posts a batch: the batch is accepted and kept,
  and processed once the broker is back (the periodic sweep sends it again);
- a worker is killed (SIGKILL) in the middle of a batch: a new worker finishes the work and
  the ledger holds every event exactly once, with the thread's checkpoint at the end.

Team profile only: the lite profile's broker is a folder that cannot be away.
"""

from __future__ import annotations

import os
import signal
import time

import httpx
import pytest

from tests.faults.servers import team_stack, wait_for

pytestmark = [pytest.mark.postgres, pytest.mark.slow]

SWEEP = {
    "CONTINUITY_CAPTURE_SWEEP_INTERVAL_SECONDS": "2",
    "CONTINUITY_CAPTURE_REQUEUE_AFTER_SECONDS": "3",
}


@pytest.fixture
def stack(tmp_path):
    with team_stack(tmp_path, "capture:write,memories:read", SWEEP) as (app, _, redis, token):
        yield (
            app,
            redis,
            httpx.Client(
                base_url=app.url, headers={"Authorization": f"Bearer {token}"}, timeout=30
            ),
        )


def items(count: int, label: str) -> list[dict]:
    """A conversation of `count` generic items: prompts and final replies, some with a cue."""
    result = []
    for index in range(count):
        role = "user" if index % 2 == 0 else "assistant"
        text = (f"From now on run the {label} linter before step {index}." if index % 10 == 0
                else f"{label} step {index}: 部署前先跑迁移 and check the logs")  # fmt: skip
        result.append({"role": role, "text": text, "final": role == "assistant"})
    return result


def post(client: httpx.Client, thread: str, count: int, label: str) -> str:
    response = client.post("/api/v1/capture/batches", json={"source": "generic", "thread_id": thread,
                                                            "items": items(count, label)})  # fmt: skip
    assert response.status_code == 202, response.text
    return response.json()["batch_id"]


def status(client: httpx.Client, batch_id: str) -> dict:
    return client.get(f"/api/v1/capture/batches/{batch_id}").json()


def thread_of(client: httpx.Client, thread: str) -> dict:
    return client.get(f"/api/v1/capture/threads/generic/{thread}").json()


def test_a_batch_posted_while_the_broker_is_down_is_kept_and_processed_when_it_returns(stack):
    app, redis, client = stack
    app.start_worker(beat=True)

    redis.stop()
    started = time.monotonic()
    batch_id = post(client, "outage", 40, "outage")
    accepted_in = time.monotonic() - started
    assert status(client, batch_id)["status"] == "queued"

    redis.start()

    done = wait_for(lambda: (body := status(client, batch_id))["status"] == "done" and body, "batch processed",
                    timeout=120)  # fmt: skip
    assert done["counts"]["events"] == 40
    thread = thread_of(client, "outage")
    assert thread["event_count"] == 40 and thread["last_error"] == ""
    assert accepted_in < 20  # the agent's hook is not held up by the outage beyond its timeouts


def test_a_worker_killed_mid_batch_leaves_no_duplicate_and_no_gap(stack):
    app, _, client = stack
    worker, _ = app.start_worker()
    batches = [post(client, "killed", 1000, f"part{part}") for part in range(4)]

    wait_for(lambda: any(status(client, batch)["status"] == "processing" for batch in batches),
             "a batch in processing", timeout=120)  # fmt: skip
    os.killpg(worker.pid, signal.SIGKILL)
    worker.wait(timeout=20)
    unfinished = [batch for batch in batches if status(client, batch)["status"] != "done"]
    assert unfinished, "every batch finished before the kill: nothing was interrupted"

    app.start_worker(beat=True)  # the sweep sends the interrupted batch again

    for batch in batches:
        wait_for(
            lambda batch=batch: status(client, batch)["status"] == "done",
            f"batch {batch} done",
            timeout=180,
        )
    thread = thread_of(client, "killed")
    assert thread["event_count"] == 4000
    assert thread["duplicate_count"] == 0
    assert sum(status(client, batch)["counts"]["events"] for batch in batches) == 4000
