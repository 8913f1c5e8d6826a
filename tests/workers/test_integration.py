"""Real Celery workers as subprocesses, on the embedded filesystem broker (lite: SQLite)
and on Redis (team: PostgreSQL). Work is enqueued through the broker and its effect is
observed in the database, polled with a bound — never slept for.

The team tests need PostgreSQL and Redis: WORKERS_TEST_DATABASE_URL / WORKERS_TEST_REDIS_URL,
else DATABASE_URL / REDIS_URL when the suite itself runs in the team profile; skipped
otherwise. Each test gets its own data directory, its own PostgreSQL database (created and
dropped here) and a flushed Redis database, so workers never see another test's tasks.
"""

from __future__ import annotations

import pytest

from tests.workers.instance import RETENTION, WORK_TIMEOUT, wait_until

pytestmark = pytest.mark.slow


def test_a_worker_runs_the_enqueued_cleanup_and_records_what_it_removed(instance):
    instance.harness("seed", "300")
    instance.start_worker("w1")

    instance.harness("enqueue", RETENTION, "1")

    runs = wait_until(lambda: [r for r in instance.runs(RETENTION) if r["status"] == "succeeded"],
                      "a successful cleanup run", WORK_TIMEOUT, instance)  # fmt: skip
    assert runs[0]["result"]["rules"]["idempotency_records"]["removed"] == 300
    assert instance.query("SELECT count(*) FROM memories_idempotencyrecord") == [(0,)]


def test_two_workers_given_the_same_periodic_job_at_once_do_it_once(instance):
    instance.harness("seed", "5000")
    instance.start_worker("w1")
    instance.start_worker("w2")

    # As if two beats (two deployments' schedulers, or a restarted one) sent it together.
    instance.harness("enqueue", RETENTION, "4")

    def finished():
        # The three skips are recorded at once; the one run doing the work is "running"
        # until it has removed everything.
        runs = instance.runs(RETENTION)
        return len(runs) >= 4 and all(run["status"] != "running" for run in runs) and runs

    runs = wait_until(finished, "four finished attempts", WORK_TIMEOUT, instance)
    succeeded = [run for run in runs if run["status"] == "succeeded"]
    assert len(succeeded) == 1, runs
    assert [run["status"] for run in runs].count("skipped") == 3
    assert succeeded[0]["result"]["rules"]["idempotency_records"]["removed"] == 5000
    assert instance.query("SELECT count(*) FROM memories_idempotencyrecord") == [(0,)]


def test_beat_schedules_retention_and_compaction_on_the_configured_intervals(instance):
    instance.harness("seed", "50")
    schedule = str(instance.tmp_path / "beat-schedule")
    instance.start_worker(
        "w1", "--beat", "--schedule", schedule,
        CONTINUITY_RETENTION_INTERVAL_SECONDS="2", CONTINUITY_COMPACTION_INTERVAL_SECONDS="2",
        CONTINUITY_HEARTBEAT_SECONDS="1",
    )  # fmt: skip

    for task in (RETENTION, "memories.compaction"):
        wait_until(lambda task=task: any(r["status"] == "succeeded" for r in instance.runs(task)),
                   f"a scheduled {task} run", WORK_TIMEOUT, instance)  # fmt: skip
    assert instance.query("SELECT count(*) FROM memories_idempotencyrecord") == [(0,)]
