"""Reads of the capture ledger: a batch's status and a thread's checkpoint and counters.

Only the caller's owner's rows; a token restricted to projects sees only threads of those
projects (others read as not found, like any row it may not see).
"""

from __future__ import annotations

from capture.access import may_use_thread
from capture.models import BatchStatus, CaptureBatch, CaptureThread
from foundation.actors import Actor
from foundation.errors import not_found


def thread_data(thread: CaptureThread) -> dict:
    pending = thread.batches.filter(status__in=(BatchStatus.QUEUED, BatchStatus.PROCESSING)).count()
    return {
        "source": thread.source,
        "thread_id": thread.external_id,
        "agent_name": thread.agent_name,
        "workspace": thread.workspace,
        "project_key": thread.project_key,
        "checkpoint": {"run_id": thread.checkpoint_run, "seq": thread.checkpoint_seq},
        "item_count": thread.item_count,
        "event_count": thread.event_count,
        "duplicate_count": thread.duplicate_count,
        "pending_batches": pending,
        "last_error": thread.last_error,
        "last_batch_at": thread.last_batch_at,
    }


def batch_data(batch: CaptureBatch) -> dict:
    return {
        "batch_id": batch.pk,
        "status": batch.status,
        "dry_run": batch.dry_run,
        "source": batch.thread.source,
        "thread_id": batch.thread.external_id,
        "run_id": batch.run_id,
        "item_count": batch.item_count,
        "size_bytes": batch.size_bytes,
        "counts": batch.counts,
        "redactions": batch.redactions,
        "attempts": batch.attempts,
        "last_error": batch.last_error,
        "created_at": batch.created_at,
        "started_at": batch.started_at,
        "finished_at": batch.finished_at,
    }


def batch_status(*, actor: Actor, batch_id) -> dict:
    actor.require_scope("capture:write")
    batch = (
        CaptureBatch.objects.select_related("thread").filter(pk=batch_id, owner=actor.user).first()
    )
    if batch is None or not may_use_thread(actor, batch.thread):
        raise not_found("capture batch")
    return batch_data(batch)


def thread_status(*, actor: Actor, source: str, thread_id: str) -> dict:
    actor.require_scope("capture:write")
    thread = CaptureThread.objects.filter(
        owner=actor.user, source=source, external_id=thread_id
    ).first()
    if thread is None or not may_use_thread(actor, thread):
        raise not_found("capture thread")
    return thread_data(thread)
