"""Capture's Celery tasks: ingest a posted batch, and sweep up batches a broker lost.

`ingest_batch` is sent to the `capture` queue (CAPTURE_QUEUE) and runs with late acks, so
a worker that dies mid-batch leaves the message to be redelivered; the ledger's single
transaction makes that redelivery, a retry or a duplicate send store nothing twice.
"""

from __future__ import annotations

from celery import shared_task
from django.conf import settings
from django.db.models import Max, Min
from django.utils.translation import gettext_noop

from capture.models import BatchStatus, CaptureBatch
from capture.services import ingest
from foundation.maintenance.runs import PeriodicJob, job_run, register_job
from foundation.maintenance.watchdog import WorkProbe, register_probe
from foundation.tasks import MAINTENANCE_TASK

INGEST_MAX_RETRIES = 5
CAPTURE_QUEUE = ingest.CAPTURE_QUEUE

SWEEP_JOB = register_job(
    PeriodicJob(
        name="capture.sweep_batches",
        interval_setting="CONTINUITY_CAPTURE_SWEEP_INTERVAL_SECONDS",
        description=gettext_noop(
            "Send again capture batches that waited too long (a broker outage)."
        ),
    )
)


@shared_task(
    name=ingest.INGEST_TASK,
    bind=True,
    ignore_result=True,
    acks_late=True,
    max_retries=INGEST_MAX_RETRIES,
    soft_time_limit=settings.CONTINUITY_CAPTURE_TASK_SOFT_TIME_LIMIT,
    time_limit=settings.CONTINUITY_CAPTURE_TASK_SOFT_TIME_LIMIT + 30,
)
def ingest_batch(self, batch_id: str) -> dict:
    """Process one capture batch. Idempotent: a done, failed or deleted batch is a no-op.
    A failed attempt is recorded on the batch and retried with exponential backoff; after
    the last retry the batch is failed and its thread shows the error."""
    if not ingest.batch_start(batch_id=batch_id):
        return {"batch": batch_id, "status": "nothing to do"}
    try:
        batch = ingest.batch_process(batch_id=batch_id)
    except Exception as error:  # whatever broke, the transaction rolled back; record and retry
        final = self.request.retries >= self.max_retries
        ingest.batch_fail(batch_id=batch_id, error=error, final=final)
        if final:
            raise
        raise self.retry(exc=error, countdown=min(5 * 2**self.request.retries, 300)) from error
    return {"batch": batch_id, "status": batch.status if batch else "gone"}


@shared_task(name=SWEEP_JOB.name, **MAINTENANCE_TASK)
def sweep_batches(force: bool = False) -> dict:
    """Re-enqueue batches queued (or processing) for longer than
    CONTINUITY_CAPTURE_REQUEUE_AFTER_SECONDS; recorded as a MaintenanceRun."""
    run = job_run(
        SWEEP_JOB,
        lambda deadline: ingest.batches_requeue(
            older_than_seconds=settings.CONTINUITY_CAPTURE_REQUEUE_AFTER_SECONDS
        ),
        force=force,
    )
    return {"run": run.pk, "status": run.status, "result": run.result}


_PENDING = (BatchStatus.QUEUED, BatchStatus.PROCESSING)


def _pending() -> int:
    return CaptureBatch.objects.filter(status__in=_PENDING).count()


def _last_progress():
    """The later of the last batch finished and the oldest batch waiting: a queue that just
    filled up after a quiet week is not a stall, one waiting ten minutes unprocessed is."""
    finished = CaptureBatch.objects.filter(
        status__in=(BatchStatus.DONE, BatchStatus.FAILED)
    ).aggregate(at=Max("finished_at"))["at"]
    waiting = CaptureBatch.objects.filter(status__in=_PENDING).aggregate(at=Min("created_at"))["at"]
    moments = [moment for moment in (finished, waiting) if moment is not None]
    return max(moments) if moments else None


INGESTION_PROBE = register_probe(
    WorkProbe(name="capture ingestion", pending=_pending, last_progress=_last_progress)
)
