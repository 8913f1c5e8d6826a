"""The capture ledger: a posted batch of raw items → redacted canonical events, exactly once.

`batch_submit` (the API door's service) stores the raw batch and enqueues it when the
transaction commits. `batch_process` (the worker's) does everything else in ONE
transaction: it runs the batch through capture's pipeline (capture.pipeline: parse →
redact → ledger → extract → propose), then records the batch's counts and empties its raw
items. A worker killed anywhere inside leaves the batch as it was, so a retry stores each
event once and skips none.

Batch states: queued → processing (a worker took it; attempts counted) → done, or back to
processing on a retry, or failed after the last retry. A done or failed batch is never
processed again.
"""

from __future__ import annotations

import logging
from collections import Counter
from datetime import timedelta
from uuid import UUID

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_noop

from capture import pipeline
from capture.access import may_use_thread
from capture.models import BatchStatus, CaptureBatch, CaptureThread, Source
from capture.redaction import redact, redact_items
from foundation import queue
from foundation.actors import Actor
from foundation.errors import ErrorCode, ServiceError, forbidden, validation_error
from foundation.messages import known

logger = logging.getLogger(__name__)

MAX_ITEMS = 1000
MAX_BYTES = 2 * 1024 * 1024
MAX_THREAD_ID_CHARS = 300
MAX_RUN_ID_CHARS = 200
MAX_WORKSPACE_CHARS = 500
MAX_PROJECT_KEY_CHARS = 300

# The worker's task, named here so this module never imports capture.tasks (which imports it).
INGEST_TASK = "capture.ingest_batch"
CAPTURE_QUEUE = "capture"  # declared in settings.CELERY_TASK_QUEUES


# --- submit (the API door) -----------------------------------------------------------------


def _text_arg(value: str | None, name: str, limit: int, *, required: bool = False) -> str:
    value = (value or "").strip()
    if required and not value:
        raise validation_error(gettext_noop("%(name)s is required."), field=name, name=name)
    if len(value) > limit:
        raise validation_error(
            gettext_noop("%(name)s must be at most %(limit)s characters."),
            field=name,
            name=name,
            limit=limit,
        )
    return value


# Refusals kept on the token for its owner (accounts.refusals).
CAPTURE_RESTRICTED = known(
    gettext_noop(
        "This token is restricted to projects %(projects)s; send a project_key among them."
    )
)


def _check_project(actor: Actor, project_key: str) -> None:
    if actor.token.allowed_projects and not (project_key and actor.may_touch_project(project_key)):
        raise forbidden(CAPTURE_RESTRICTED, projects=", ".join(actor.token.allowed_projects))


def batch_submit(
    *, actor: Actor, source: str, thread_id: str, items: list, size_bytes: int,
    run_id: str = "", workspace: str = "", project_key: str = "", dry_run: bool = False,
) -> CaptureBatch:  # fmt: skip
    """Store a batch of raw items for the worker and enqueue it once stored. Over 1,000 items
    or 2 MB: PAYLOAD_TOO_LARGE and nothing stored."""
    actor.require_scope("capture:write")
    if size_bytes > MAX_BYTES:
        raise ServiceError(
            ErrorCode.PAYLOAD_TOO_LARGE,
            gettext_noop("The batch is %(size)s bytes; the limit is %(limit)s. Send it in parts."),
            [{"field": "items", "limit_bytes": MAX_BYTES, "size_bytes": size_bytes}],
            params={"size": f"{size_bytes:,}", "limit": f"{MAX_BYTES:,}"},
        )
    if not isinstance(items, list) or not items:
        raise validation_error(gettext_noop("items must be a non-empty list."), field="items")
    if len(items) > MAX_ITEMS:
        raise ServiceError(
            ErrorCode.PAYLOAD_TOO_LARGE,
            gettext_noop(
                "The batch has %(count)s items; the limit is %(limit)s. Send it in parts."
            ),
            [{"field": "items", "limit_items": MAX_ITEMS, "items": len(items)}],
            params={"count": f"{len(items):,}", "limit": f"{MAX_ITEMS:,}"},
        )
    if source not in Source.values:
        raise validation_error(
            gettext_noop("source must be one of %(choices)s."),
            field="source",
            choices=", ".join(Source.values),
        )
    thread_id = _text_arg(thread_id, "thread_id", MAX_THREAD_ID_CHARS, required=True)
    run_id = _text_arg(run_id, "run_id", MAX_RUN_ID_CHARS)
    workspace = _text_arg(workspace, "workspace", MAX_WORKSPACE_CHARS)
    project_key = _text_arg(project_key, "project_key", MAX_PROJECT_KEY_CHARS)
    if actor.is_agent:
        _check_project(actor, project_key)
    stored, redactions = redact_items(items)
    with transaction.atomic():
        thread = _thread_for(actor, source, thread_id, workspace=workspace, project_key=project_key)
        batch = CaptureBatch.objects.create(
            owner=actor.user, thread=thread, token=actor.token, agent_name=actor.agent_name,
            run_id=run_id, dry_run=dry_run, items=stored, item_count=len(items),
            size_bytes=size_bytes, redactions=dict(redactions),
        )  # fmt: skip
        transaction.on_commit(lambda: enqueue(batch.pk))
    return batch


def _thread_for(actor: Actor, source: str, external_id: str, *, workspace: str, project_key: str):
    lookup = {"owner": actor.user, "source": source, "external_id": external_id}
    thread = CaptureThread.objects.filter(**lookup).first()
    if thread is None:
        try:
            with transaction.atomic():  # a savepoint: a concurrent first batch may win
                return CaptureThread.objects.create(
                    **lookup,
                    agent_name=actor.agent_name,
                    workspace=workspace,
                    project_key=project_key,
                )
        except IntegrityError:
            thread = CaptureThread.objects.get(**lookup)
    if not may_use_thread(actor, thread):
        raise forbidden(
            gettext_noop(
                "This thread belongs to another agent or to a project this token may not touch."
            )
        )
    changed = {
        name: value
        for name, value in (("workspace", workspace), ("project_key", project_key))
        if value and getattr(thread, name) != value
    }
    if changed:
        CaptureThread.objects.filter(pk=thread.pk).update(**changed, updated_at=timezone.now())
        for name, value in changed.items():
            setattr(thread, name, value)
    return thread


def enqueue(batch_id: UUID) -> None:
    """Send the batch to the capture queue. A broker that is down loses nothing: the batch
    stays queued in the database and the periodic sweep sends it again."""
    try:
        queue.enqueue(INGEST_TASK, str(batch_id), queue=CAPTURE_QUEUE)
    except Exception:  # any broker failure; the sweep is the recovery path
        logger.warning(
            "could not enqueue capture batch %s; the sweep will retry", batch_id, exc_info=True
        )


def batches_requeue(*, older_than_seconds: float, limit: int = 500) -> dict:
    """Send again batches still queued (or left processing by a dead worker) after this
    long. Idempotent: processing a batch twice stores nothing twice."""
    cutoff = timezone.now() - timedelta(seconds=older_than_seconds)
    stale = CaptureBatch.objects.filter(
        Q(status=BatchStatus.QUEUED, created_at__lt=cutoff)
        | Q(status=BatchStatus.PROCESSING, started_at__lt=cutoff)
    ).order_by("created_at")
    ids = list(stale.values_list("pk", flat=True)[:limit])
    for batch_id in ids:
        enqueue(batch_id)
    return {"requeued": len(ids)}


# --- process (the worker) ------------------------------------------------------------------


def batch_start(*, batch_id) -> bool:
    """Mark a batch as taken by a worker (committed on its own, so attempts survive a crash).
    False when there is nothing to do: the batch is gone, done or failed."""
    now = timezone.now()
    with transaction.atomic():
        batch = CaptureBatch.objects.select_for_update().filter(pk=batch_id).first()
        if batch is None or batch.status in (BatchStatus.DONE, BatchStatus.FAILED):
            return False
        batch.status = BatchStatus.PROCESSING
        batch.attempts += 1
        batch.started_at = now
        batch.save(update_fields=["status", "attempts", "started_at"])
    return True


def batch_fail(*, batch_id, error: BaseException, final: bool) -> None:
    """Record why an attempt failed (the message redacted: errors may quote their input).
    On the last attempt the batch is failed for good and its thread shows the error."""
    message = redact(f"{type(error).__name__}: {error}"[:500]).text
    now = timezone.now()
    with transaction.atomic():
        batch = CaptureBatch.objects.select_for_update().filter(pk=batch_id).first()
        if batch is None or batch.status == BatchStatus.DONE:
            return
        batch.last_error = message
        fields = ["last_error"]
        if final:
            batch.status, batch.finished_at = BatchStatus.FAILED, now
            fields += ["status", "finished_at"]
            CaptureThread.objects.filter(pk=batch.thread_id).update(
                last_error=message, updated_at=now
            )
        batch.save(update_fields=fields)


def batch_process(*, batch_id) -> CaptureBatch | None:
    """Process one batch through the pipeline (capture.pipeline); idempotent (a done or
    failed batch is returned untouched, a batch that no longer exists gives None). Raises on
    failure with nothing written."""
    with transaction.atomic():
        batch = CaptureBatch.objects.select_for_update().filter(pk=batch_id).first()
        if batch is None or batch.status in (BatchStatus.DONE, BatchStatus.FAILED):
            return batch
        thread = CaptureThread.objects.select_for_update().get(pk=batch.thread_id)
        run = pipeline.run_batch(batch, thread)
        batch.status, batch.finished_at, batch.last_error = BatchStatus.DONE, timezone.now(), ""
        # Redacted at submission already (the counts kept then), and by the pipeline's step.
        redactions = Counter(batch.redactions or {}) + run.redactions
        batch.items, batch.counts, batch.redactions = None, run.counts(), dict(redactions)
        batch.save(
            update_fields=["status", "finished_at", "last_error", "items", "counts", "redactions"]
        )
    return batch
