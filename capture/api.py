"""Agent API routes for capture (mounted by `continuity.api`; docs/capture.md).

    POST /api/v1/capture/batches                      raw items of one thread -> 202 {batch_id, status, thread}
    GET  /api/v1/capture/batches/{id}                 status, counts, redactions, last error
    GET  /api/v1/capture/threads/{source}/{thread_id} checkpoint, counters, last error

All need the token's `capture:write` scope. A batch over 1,000 items or 2 MB is refused
with 413 PAYLOAD_TOO_LARGE and nothing is stored.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from uuid import UUID

from django.http import HttpRequest
from ninja import Field, Router, Schema
from ninja.responses import Status as Reply
from pydantic import ConfigDict

from capture import status
from capture.models import BatchStatus, Source
from capture.services import ingest
from foundation.ninja_door import READ_ERRORS, WRITE_ERRORS, refuse_unknown_parameters

router = Router(tags=["capture"])


class BatchIn(Schema):
    model_config = ConfigDict(extra="forbid")

    source: Source = Field(..., description="The items' format; one adapter per source.")
    thread_id: str = Field(..., description="The source's session or thread id.")
    run_id: str | None = Field(
        None, description="The run that items before the batch's first prompt continue."
    )
    workspace: str | None = Field(None, description="The working directory the agent ran in.")
    project_key: str | None = Field(None, description="e.g. github:owner/repo.")
    items: list[Any] = Field(
        ..., description=f"Raw items (transcript lines, turns, text), at most {ingest.MAX_ITEMS:,}."
    )
    dry_run: bool = Field(False, description="Parse, redact and count; store nothing as processed.")


class Checkpoint(Schema):
    run_id: str
    seq: int


class ThreadOut(Schema):
    source: Source
    thread_id: str
    agent_name: str
    workspace: str
    project_key: str
    checkpoint: Checkpoint
    item_count: int
    event_count: int
    duplicate_count: int
    pending_batches: int
    last_error: str
    last_batch_at: datetime | None


class BatchAccepted(Schema):
    batch_id: UUID
    status: BatchStatus
    thread: ThreadOut


class BatchOut(Schema):
    batch_id: UUID
    status: BatchStatus
    dry_run: bool
    source: Source
    thread_id: str
    run_id: str
    item_count: int
    size_bytes: int
    counts: dict[str, Any]
    redactions: dict[str, int]
    attempts: int
    last_error: str
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None


@router.post(
    "/capture/batches",
    response={202: BatchAccepted, **WRITE_ERRORS},
    summary="Send a batch of conversation items",
)
def batch_post(request: HttpRequest, payload: BatchIn):
    """Store raw items of one thread for the worker; 202 with the batch id to poll. Items are
    redacted before anything is kept beyond the queue, and a resent item is stored once."""
    batch = ingest.batch_submit(
        actor=request.actor,
        size_bytes=len(request.body),
        **payload.model_dump(exclude_none=True),
    )
    batch.refresh_from_db(fields=["status"])  # an eager or fast worker may be done already
    return Reply(202, {
        "batch_id": batch.pk, "status": batch.status, "thread": status.thread_data(batch.thread),
    })  # fmt: skip


@router.get(
    "/capture/batches/{id}",
    response={200: BatchOut, **READ_ERRORS},
    summary="A batch's status",
)
def batch_get(request: HttpRequest, id: UUID):
    """Status (queued, processing, done, failed), counts (events stored, duplicates, markers,
    skipped items and why, candidates), per-rule redaction counts and the last error."""
    refuse_unknown_parameters(request, ())
    return status.batch_status(actor=request.actor, batch_id=id)


@router.get(
    "/capture/threads/{source}/{thread_id}",
    response={200: ThreadOut, **READ_ERRORS},
    summary="A thread's checkpoint and counters",
)
def thread_get(request: HttpRequest, source: Source, thread_id: str):
    """How far a thread has been ingested (the last run and sequence stored), its counters
    and the last error."""
    refuse_unknown_parameters(request, ())
    return status.thread_status(actor=request.actor, source=source, thread_id=thread_id)
