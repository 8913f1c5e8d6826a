"""Project-wide Celery tasks (app-specific work lives in each app's tasks.py).

Maintenance tasks share one policy (MAINTENANCE_TASK): late acks (a worker that dies
mid-run leaves the message to be redelivered), automatic retries with exponential backoff
on database connection errors only, and the soft/hard time limits of the settings. Their
work is idempotent, and `job_run` makes duplicates from a second beat or a retry harmless.
"""

from __future__ import annotations

from celery import shared_task
from django.core.cache import cache
from django.db import InterfaceError, OperationalError
from django.utils import timezone
from django.utils.translation import gettext_noop

from foundation.maintenance import retention
from foundation.maintenance.runs import PeriodicJob, job_run, register_job

HEARTBEAT_CACHE_KEY = "continuity:worker-heartbeat"

MAINTENANCE_TASK = {
    "ignore_result": True,
    "acks_late": True,
    # A locked or restarting database is worth retrying; a bug is not.
    "autoretry_for": (OperationalError, InterfaceError),
    "retry_backoff": 5,
    "retry_backoff_max": 300,
    "retry_jitter": True,
    "max_retries": 5,
}

RETENTION_JOB = register_job(
    PeriodicJob(
        name="continuity.retention_cleanup",
        interval_setting="CONTINUITY_RETENTION_INTERVAL_SECONDS",
        description=gettext_noop("Remove what the retention windows say has expired."),
    )
)


@shared_task(name="continuity.heartbeat", ignore_result=True)
def heartbeat() -> str:
    """Record that a worker just ran a task sent by beat; `/health` reports the time.

    Idempotent and stateless: it only overwrites one cache key, so retries, duplicates
    from a second beat, or a missed run are all harmless.
    """
    now = timezone.now().isoformat()
    # No expiry: a stale heartbeat is the information ("the worker stopped at ...").
    cache.set(HEARTBEAT_CACHE_KEY, now, timeout=None)
    return now


@shared_task(name=RETENTION_JOB.name, **MAINTENANCE_TASK)
def retention_cleanup(force: bool = False) -> dict:
    """Purge expired rows of every retention rule in bounded batches; recorded as a
    MaintenanceRun. Idempotent; skipped when another worker runs it or it ran less than
    half an interval ago (unless `force`)."""
    run = job_run(
        RETENTION_JOB, lambda deadline: retention.retention_cleanup(deadline=deadline), force=force
    )
    return {"run": run.pk, "status": run.status, "result": run.result}
