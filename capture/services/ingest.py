"""The capture ledger: a posted batch of raw items → redacted canonical events, exactly once.

`batch_submit` (the API door's service) stores the raw batch and enqueues it when the
transaction commits. `batch_process` (the worker's) does everything else in ONE
transaction: parse with the source's adapter, redact, fingerprint, insert the events that
are new, advance the thread's checkpoint and counters, hand the new events to extraction,
record the batch's counts and empty its raw items. A worker killed anywhere inside leaves
the batch as it was, so a retry stores each event once and skips none.

Batch states: queued → processing (a worker took it; attempts counted) → done, or back to
processing on a retry, or failed after the last retry. A done or failed batch is never
processed again.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections import Counter
from datetime import timedelta
from uuid import UUID

from django.db import IntegrityError, connection, transaction
from django.db.models import Q
from django.utils import timezone

from capture import adapters, extraction
from capture.adapters.base import Event
from capture.models import BatchStatus, CaptureBatch, CaptureThread, ConversationEvent, Source
from capture.redaction import redact
from foundation.actors import Actor
from foundation.errors import ErrorCode, ServiceError, forbidden, validation_error

logger = logging.getLogger(__name__)

MAX_ITEMS = 1000
MAX_BYTES = 2 * 1024 * 1024
MAX_THREAD_ID_CHARS = 300
MAX_RUN_ID_CHARS = 200
MAX_WORKSPACE_CHARS = 500
MAX_PROJECT_KEY_CHARS = 300
_LOOKUP_CHUNK = 900  # fingerprints per IN (...) query


def fingerprint(*, source: str, thread: str, run: str, seq: int, role: str, text: str) -> str:
    """sha256(source | thread | run | sequence within the run | role | redacted text)."""
    raw = f"{source}|{thread}|{run}|{seq}|{role}|{text}"
    return hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()


# --- submit (the API door) -----------------------------------------------------------------


def _text_arg(value: str | None, name: str, limit: int, *, required: bool = False) -> str:
    value = (value or "").strip()
    if required and not value:
        raise validation_error(f"{name} is required.", field=name)
    if len(value) > limit:
        raise validation_error(f"{name} must be at most {limit} characters.", field=name)
    return value


def _check_project(actor: Actor, project_key: str) -> None:
    if actor.token.allowed_projects and not (project_key and actor.may_touch_project(project_key)):
        raise forbidden(
            "This token is restricted to projects "
            f"{', '.join(actor.token.allowed_projects)}; send a project_key among them."
        )


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
            f"The batch is {size_bytes:,} bytes; the limit is {MAX_BYTES:,}. Send it in parts.",
            [{"field": "items", "limit_bytes": MAX_BYTES, "size_bytes": size_bytes}],
        )
    if not isinstance(items, list) or not items:
        raise validation_error("items must be a non-empty list.", field="items")
    if len(items) > MAX_ITEMS:
        raise ServiceError(
            ErrorCode.PAYLOAD_TOO_LARGE,
            f"The batch has {len(items):,} items; the limit is {MAX_ITEMS:,}. Send it in parts.",
            [{"field": "items", "limit_items": MAX_ITEMS, "items": len(items)}],
        )
    if source not in Source.values:
        raise validation_error(f"source must be one of {', '.join(Source.values)}.", field="source")
    thread_id = _text_arg(thread_id, "thread_id", MAX_THREAD_ID_CHARS, required=True)
    run_id = _text_arg(run_id, "run_id", MAX_RUN_ID_CHARS)
    workspace = _text_arg(workspace, "workspace", MAX_WORKSPACE_CHARS)
    project_key = _text_arg(project_key, "project_key", MAX_PROJECT_KEY_CHARS)
    if actor.is_agent:
        _check_project(actor, project_key)
    with transaction.atomic():
        thread = _thread_for(actor, source, thread_id, workspace=workspace, project_key=project_key)
        batch = CaptureBatch.objects.create(
            owner=actor.user, thread=thread, token=actor.token, agent_name=actor.agent_name,
            run_id=run_id, dry_run=dry_run, items=items, item_count=len(items), size_bytes=size_bytes,
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
    if actor.is_agent and thread.project_key and not actor.may_touch_project(thread.project_key):
        raise forbidden("This thread belongs to a project this token may not touch.")
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
    from capture.tasks import CAPTURE_QUEUE, ingest_batch

    try:
        ingest_batch.apply_async(args=[str(batch_id)], queue=CAPTURE_QUEUE)
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


def _continuation_start(thread: CaptureThread, run: str, leading: list[Event]) -> int:
    """Where events that continue an earlier batch's run go: after what is stored of that
    run, unless they repeat its tail (a resent batch), in which case they line up with it."""
    stored = list(
        ConversationEvent.objects.filter(thread=thread, run_id=run)
        .order_by("seq")
        .values_list("seq", "role", "original_sha256")
    )
    if not stored:
        return 0
    keys = [(role, digest) for _, role, digest in stored]
    wanted = [(event.role, event.identity) for event in leading]
    for offset in range(len(keys)):
        overlap = min(len(wanted), len(keys) - offset)
        if keys[offset : offset + overlap] == wanted[:overlap]:
            return stored[offset][0]
    return stored[-1][0] + 1


def _canonical(
    batch: CaptureBatch, thread: CaptureThread
) -> tuple[list[ConversationEvent], Counter, Counter]:
    """The batch's events, redacted and fingerprinted (unsaved, duplicates within the batch
    dropped), the redaction counts and the skipped-item reasons."""
    parsed = adapters.parse(thread.source, batch.items or [])
    redactions: Counter = Counter()
    per_event: dict[int, dict] = {}
    for index, event in enumerate(parsed.events):
        if event.is_marker:
            continue  # markers keep no text; their identity is already a hash
        found = redact(event.text)
        event.text, event.identity = found.text, found.original_sha256
        if found.counts:
            per_event[index] = found.counts
            redactions.update(found.counts)
    leading = [event for event in parsed.events if event.run_id is None]
    if leading:
        run = batch.run_id or thread.checkpoint_run
        start = _continuation_start(thread, run, leading)
        for event in leading:
            event.run_id, event.seq = run, event.seq + start
    rows: dict[str, ConversationEvent] = {}
    for index, event in enumerate(parsed.events):
        digest = fingerprint(
            source=thread.source, thread=thread.external_id, run=event.run_id, seq=event.seq,
            role=event.role, text=event.text,
        )  # fmt: skip
        if digest not in rows:
            rows[digest] = _row(
                owner_id=batch.owner_id, thread_id=thread.pk, batch_id=batch.pk, fingerprint=digest,
                run_id=event.run_id, seq=event.seq, role=event.role, item_type=event.item_type,
                is_marker=event.is_marker, is_final=event.is_final, text=event.text,
                original_sha256=event.identity, occurred_at=event.occurred_at,
                redactions=per_event.get(index, {}),
            )  # fmt: skip
            rows[digest].thread = thread  # extraction reads the thread's project key from it
    return list(rows.values()), redactions, parsed.skipped


_ATTNAMES = [field.attname for field in ConversationEvent._meta.concrete_fields]


def _row(**values) -> ConversationEvent:
    """An unsaved event, built the way rows loaded from the database are (positional
    values): the keyword path costs more than everything else a batch does."""
    values.setdefault("id", None)
    values.setdefault("created_at", timezone.now())
    return ConversationEvent(*[values[name] for name in _ATTNAMES])


def _existing(owner_id, fingerprints: list[str]) -> set[str]:
    found: set[str] = set()
    for start in range(0, len(fingerprints), _LOOKUP_CHUNK):
        chunk = fingerprints[start : start + _LOOKUP_CHUNK]
        found.update(
            ConversationEvent.objects.filter(owner_id=owner_id, fingerprint__in=chunk).values_list(
                "fingerprint", flat=True
            )
        )
    return found


def batch_process(*, batch_id) -> CaptureBatch | None:
    """Process one batch; idempotent (a done or failed batch is returned untouched, a batch
    that no longer exists gives None). Raises on failure with nothing written."""
    with transaction.atomic():
        batch = CaptureBatch.objects.select_for_update().filter(pk=batch_id).first()
        if batch is None or batch.status in (BatchStatus.DONE, BatchStatus.FAILED):
            return batch
        thread = CaptureThread.objects.select_for_update().get(pk=batch.thread_id)
        events, redactions, skipped = _canonical(batch, thread)
        counts = {
            "items": batch.item_count,
            "skipped": sum(skipped.values()),
            "skipped_reasons": dict(skipped),
        }
        if batch.dry_run:
            existing = _existing(batch.owner_id, [event.fingerprint for event in events])
            new = [event for event in events if event.fingerprint not in existing]
            counts.update(
                events=len(new), duplicates=len(events) - len(new), markers=sum(e.is_marker for e in new),
                candidates=len(extraction.find_proposals(new)),
            )  # fmt: skip
        else:
            counts.update(_store(batch, thread, events))
        batch.status, batch.finished_at, batch.last_error = BatchStatus.DONE, timezone.now(), ""
        batch.items, batch.counts, batch.redactions = None, counts, dict(redactions)
        batch.save(
            update_fields=["status", "finished_at", "last_error", "items", "counts", "redactions"]
        )
    return batch


_INSERT_FIELDS = (
    "owner_id", "thread_id", "batch_id", "fingerprint", "run_id", "seq", "role", "item_type",
    "is_marker", "is_final", "text", "original_sha256", "redactions", "occurred_at", "created_at",
)  # fmt: skip
_ROWS_PER_STATEMENT = 500  # 15 parameters a row: well under SQLite's 32,766


def _insert_ignoring_conflicts(rows: list[ConversationEvent]) -> list[ConversationEvent]:
    """INSERT ... ON CONFLICT DO NOTHING RETURNING: a row whose (owner, fingerprint) is
    already stored is skipped by the database, and the ids returned name exactly the rows
    this call inserted; those come back with their ids set. (bulk_create cannot say which
    rows it skipped, and compiled its SQL slower than the database ran it.)"""
    meta = ConversationEvent._meta
    fields = [meta.get_field(name) for name in _INSERT_FIELDS]
    columns = ", ".join(connection.ops.quote_name(field.column) for field in fields)
    head = f"INSERT INTO {connection.ops.quote_name(meta.db_table)} ({columns}) "
    tail = " ON CONFLICT DO NOTHING RETURNING id, fingerprint"
    by_fingerprint = {row.fingerprint: row for row in rows}
    inserted = []
    for start in range(0, len(rows), _ROWS_PER_STATEMENT):
        chunk = rows[start : start + _ROWS_PER_STATEMENT]
        if connection.vendor == "postgresql":
            # One array per column: a short statement however many rows it carries (the
            # driver parses a statement of thousands of placeholders slower than it runs).
            arrays = ", ".join(f"%b::{field.db_type(connection)}[]" for field in fields)
            sql = f"{head}SELECT * FROM unnest({arrays}){tail}"
            params = [
                [json.dumps(row.redactions, ensure_ascii=False) for row in chunk]
                if field.name == "redactions"
                else [getattr(row, field.attname) for row in chunk]  # the driver adapts these
                for field in fields
            ]
        else:
            values = [[field.get_db_prep_save(getattr(row, field.attname), connection) for row in chunk]
                      for field in fields]  # fmt: skip
            one_row = f"({', '.join(['%s'] * len(fields))})"
            sql = f"{head}VALUES {', '.join([one_row] * len(chunk))}{tail}"
            params = [column[index] for index in range(len(chunk)) for column in values]
        returned = _execute_returning(sql, params)
        for pk, digest in returned:
            row = by_fingerprint[digest]
            row.pk, row._state.adding, row._state.db = pk, False, connection.alias
            inserted.append(row)
    return inserted


def _execute_returning(sql: str, params: list) -> list[tuple]:
    if connection.vendor == "postgresql":
        import psycopg

        # Server-side binding: arrays of thousands of values go as parameters instead of
        # being quoted into the statement text (Django's cursors bind client-side).
        connection.ensure_connection()
        with psycopg.Cursor(connection.connection) as cursor:
            cursor.execute(sql, params)
            return cursor.fetchall()
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def _store(batch: CaptureBatch, thread: CaptureThread, events: list) -> dict:
    """Insert the events (one already stored is ignored by the unique constraint), move the
    checkpoint, count, and propose candidates from exactly the rows inserted."""
    inserted = _insert_ignoring_conflicts(events)
    now = timezone.now()
    if inserted:
        thread.checkpoint_run, thread.checkpoint_seq = events[-1].run_id, events[-1].seq
    thread.item_count += batch.item_count
    thread.event_count += len(inserted)
    thread.duplicate_count += len(events) - len(inserted)
    thread.last_batch_at = thread.updated_at = now
    thread.last_error = ""
    thread.agent_name = thread.agent_name or batch.agent_name
    thread.save(update_fields=[
        "checkpoint_run", "checkpoint_seq", "item_count", "event_count", "duplicate_count",
        "last_batch_at", "updated_at", "last_error", "agent_name",
    ])  # fmt: skip
    candidates = (
        extraction.propose_candidates(thread, inserted, agent_name=batch.agent_name)
        if inserted
        else 0
    )
    return {
        "events": len(inserted),
        "duplicates": len(events) - len(inserted),
        "markers": sum(event.is_marker for event in inserted),
        "candidates": candidates,
    }
