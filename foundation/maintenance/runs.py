"""Running a periodic job: one at a time, at most once per interval, every run recorded.

Two beats (or a beat restarted with an old schedule file) may send the same job twice,
and a retry may deliver it again. `job_run` makes that harmless: the job's lease admits
one worker at a time, and a job that succeeded less than half an interval ago is skipped
rather than repeated. Either way the attempt is recorded, so `/health`, `doctor` and the
dashboard can say what each job last did.
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.utils import timezone

from foundation.maintenance.locks import lease
from foundation.models import MaintenanceRun
from foundation.models import MaintenanceRunStatus as RunStatus

LEASE_MARGIN_SECONDS = 60  # the lease outlives the hard time limit, so only a dead worker loses it


@dataclass(frozen=True)
class PeriodicJob:
    name: str  # the Celery task name; also the lease name and MaintenanceRun.task
    interval_setting: str  # settings attribute holding the interval in seconds
    description: str

    @property
    def interval_seconds(self) -> float:
        return float(getattr(settings, self.interval_setting))


JOBS: dict[str, PeriodicJob] = {}


def register_job(job: PeriodicJob) -> PeriodicJob:
    """Make a periodic job known to the watchdog (`/health`, `doctor`)."""
    JOBS[job.name] = job
    return job


@dataclass(frozen=True)
class Deadline:
    """The time a run may still spend; work stops cleanly past it and says so."""

    at: float

    @classmethod
    def after(cls, seconds: float) -> Deadline:
        return cls(time.monotonic() + seconds)

    @property
    def passed(self) -> bool:
        return time.monotonic() >= self.at


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def _skip(job: PeriodicJob, reason: str) -> MaintenanceRun:
    now = timezone.now()
    return MaintenanceRun.objects.create(
        task=job.name, status=RunStatus.SKIPPED, started_at=now, finished_at=now,
        worker=worker_name(), result={"skipped": reason},
    )  # fmt: skip


def job_run(
    job: PeriodicJob, work: Callable[[Deadline], dict], *, force: bool = False
) -> MaintenanceRun:
    """Run `work` as one recorded run of `job`, unless another worker runs it right now or
    it succeeded less than half an interval ago (`force` skips only the second check).

    `work` gets a Deadline and returns what it did (JSON). If it raises, the run is
    recorded as failed and the exception propagates, so the task's retry policy applies.
    """
    ttl = settings.CELERY_TASK_TIME_LIMIT + LEASE_MARGIN_SECONDS
    with lease(job.name, ttl_seconds=ttl) as held:
        if not held:
            return _skip(job, "another worker is running this job")
        now = timezone.now()
        # Runs left `running` by a worker that died: only the lease holder can be running.
        MaintenanceRun.objects.filter(task=job.name, status=RunStatus.RUNNING).update(
            status=RunStatus.FAILED, finished_at=now, error="the worker stopped during the run"
        )
        if not force:
            recent = now - timedelta(seconds=job.interval_seconds / 2)
            last = last_success(job.name)
            if last is not None and last.started_at >= recent:
                return _skip(job, f"done at {last.started_at.isoformat()} (run {last.pk})")
        run = MaintenanceRun.objects.create(
            task=job.name, status=RunStatus.RUNNING, started_at=now, worker=worker_name()
        )
        try:
            result = work(Deadline.after(settings.CONTINUITY_MAINTENANCE_BUDGET_SECONDS))
        except BaseException as error:  # SoftTimeLimitExceeded included; recorded, then re-raised
            run.status = RunStatus.FAILED
            run.error = f"{type(error).__name__}: {error}"[:500]
            run.finished_at = timezone.now()
            run.result = getattr(error, "report", {})  # what was done before the failure
            run.save(update_fields=["status", "error", "finished_at", "result"])
            raise
        run.status = RunStatus.SUCCEEDED
        run.result = result
        run.finished_at = timezone.now()
        run.save(update_fields=["status", "result", "finished_at"])
        return run


def last_success(task: str) -> MaintenanceRun | None:
    return (
        MaintenanceRun.objects.filter(task=task, status=RunStatus.SUCCEEDED)
        .order_by("-started_at", "-id")
        .first()
    )
