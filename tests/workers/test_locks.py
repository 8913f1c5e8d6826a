"""Leases and recorded periodic runs (foundation.maintenance.locks / runs)."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.db import connections
from django.utils import timezone

from foundation.maintenance.locks import lease, lease_acquire, lease_release
from foundation.maintenance.runs import PeriodicJob, job_run
from foundation.models import MaintenanceLock, MaintenanceRun

pytestmark = pytest.mark.django_db

JOB = PeriodicJob("test.job", "CONTINUITY_RETENTION_INTERVAL_SECONDS", "a test job")


def test_a_held_lease_cannot_be_taken_by_another_holder():
    first = lease_acquire(name="job", ttl_seconds=60)

    assert first is not None
    assert lease_acquire(name="job", ttl_seconds=60) is None


def test_an_expired_lease_is_taken_over_and_the_old_holder_cannot_release_it():
    old = lease_acquire(name="job", ttl_seconds=60)
    MaintenanceLock.objects.filter(name="job").update(
        expires_at=timezone.now() - timedelta(seconds=1)
    )

    new = lease_acquire(name="job", ttl_seconds=60)

    assert new is not None and new != old
    assert lease_release(name="job", holder=old) is False
    assert MaintenanceLock.objects.get(name="job").holder == new


def test_the_lease_context_releases_on_exit_even_after_an_error():
    with pytest.raises(RuntimeError):
        with lease("job", ttl_seconds=60) as held:
            assert held
            raise RuntimeError("boom")

    assert not MaintenanceLock.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_concurrent_acquirers_get_exactly_one_lease():
    barrier = threading.Barrier(6)
    won = []

    def contend():
        try:
            barrier.wait()
            won.append(lease_acquire(name="race", ttl_seconds=60))
        finally:
            connections.close_all()

    threads = [threading.Thread(target=contend) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert len([holder for holder in won if holder]) == 1


def test_a_run_is_recorded_with_what_it_did():
    run = job_run(JOB, lambda deadline: {"removed": 3})

    assert run.status == "succeeded"
    assert run.result == {"removed": 3}
    assert run.finished_at >= run.started_at
    assert not MaintenanceLock.objects.exists()


def test_a_job_done_recently_is_skipped_unless_forced():
    calls = []
    job_run(JOB, lambda deadline: calls.append(1) or {})

    skipped = job_run(JOB, lambda deadline: calls.append(1) or {})
    forced = job_run(JOB, lambda deadline: calls.append(1) or {}, force=True)

    assert skipped.status == "skipped"
    assert "done at" in skipped.result["skipped"]
    assert forced.status == "succeeded"
    assert len(calls) == 2


def test_a_job_whose_lease_is_held_elsewhere_is_skipped_and_does_no_work():
    lease_acquire(name=JOB.name, ttl_seconds=60)

    run = job_run(JOB, lambda deadline: pytest.fail("must not run"))

    assert run.status == "skipped"
    assert run.result == {"skipped": "another worker is running this job"}


def test_a_failing_run_is_recorded_as_failed_and_the_error_propagates():
    with pytest.raises(ValueError):
        job_run(JOB, lambda deadline: (_ for _ in ()).throw(ValueError("bad row")))

    run = MaintenanceRun.objects.get()
    assert run.status == "failed"
    assert run.error == "ValueError: bad row"
    assert not MaintenanceLock.objects.exists()


def test_a_run_left_running_by_a_dead_worker_is_closed_as_failed_by_the_next_run():
    orphan = MaintenanceRun.objects.create(task=JOB.name, status="running")

    job_run(JOB, lambda deadline: {})

    orphan.refresh_from_db()
    assert orphan.status == "failed"
    assert "worker stopped" in orphan.error


def test_a_run_stopped_by_the_soft_time_limit_is_recorded_as_failed():
    from celery.exceptions import SoftTimeLimitExceeded

    def slow(deadline):
        raise SoftTimeLimitExceeded()

    with pytest.raises(SoftTimeLimitExceeded):
        job_run(JOB, slow)

    run = MaintenanceRun.objects.get()
    assert run.status == "failed" and run.error.startswith("SoftTimeLimitExceeded")
    assert not MaintenanceLock.objects.exists()


def test_maintenance_tasks_ack_late_retry_on_database_errors_with_backoff_and_have_time_limits(
    settings,
):
    from django.db import OperationalError

    from foundation.tasks import retention_cleanup
    from memories.tasks import compaction

    for task in (retention_cleanup, compaction):
        assert task.acks_late is True
        assert OperationalError in task.autoretry_for
        assert task.retry_backoff and task.max_retries == 5
    assert 0 < settings.CELERY_TASK_SOFT_TIME_LIMIT < settings.CELERY_TASK_TIME_LIMIT
    schedule = settings.CELERY_BEAT_SCHEDULE
    assert schedule["retention-cleanup"]["task"] == "continuity.retention_cleanup"
    assert schedule["compaction"]["task"] == "memories.compaction"


def test_a_database_error_makes_the_task_retry(monkeypatch):
    from django.db import OperationalError

    from foundation import tasks

    attempts = []

    def locked(*args, **kwargs):
        attempts.append(1)
        raise OperationalError("database is locked")

    monkeypatch.setattr(tasks.retention, "retention_cleanup", locked)
    monkeypatch.setattr(tasks.retention_cleanup, "max_retries", 2)
    monkeypatch.setattr(tasks.retention_cleanup, "retry_backoff", False)

    result = tasks.retention_cleanup.apply(kwargs={"force": True}, throw=False)

    assert isinstance(result.result, OperationalError)
    assert len(attempts) == 3  # the first try and two retries
    assert MaintenanceRun.objects.filter(status="failed").count() == 3
