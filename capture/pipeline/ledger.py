"""The ledger's database work: where a continued run resumes, which fingerprints are
already stored, and one insert that skips them.

fingerprint = sha256(source | thread | run | sequence within the run | role | redacted
text), unique per owner: a replayed or overlapping batch stores nothing twice.
"""

from __future__ import annotations

import hashlib
import json

from django.db import connection
from django.utils import timezone

from capture.adapters.base import Event
from capture.models import CaptureThread, ConversationEvent

_LOOKUP_CHUNK = 900  # fingerprints per IN (...) query


def fingerprint(*, source: str, thread: str, run: str, seq: int, role: str, text: str) -> str:
    """sha256(source | thread | run | sequence within the run | role | redacted text)."""
    raw = f"{source}|{thread}|{run}|{seq}|{role}|{text}"
    return hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()


def continuation_start(thread: CaptureThread, run: str, leading: list[Event]) -> int:
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


_ATTNAMES = [field.attname for field in ConversationEvent._meta.concrete_fields]


def new_row(**values) -> ConversationEvent:
    """An unsaved event, built the way rows loaded from the database are (positional
    values): the keyword path costs more than everything else a batch does."""
    values.setdefault("id", None)
    values.setdefault("created_at", timezone.now())
    return ConversationEvent(*[values[name] for name in _ATTNAMES])


def existing_fingerprints(owner_id, fingerprints: list[str]) -> set[str]:
    found: set[str] = set()
    for start in range(0, len(fingerprints), _LOOKUP_CHUNK):
        chunk = fingerprints[start : start + _LOOKUP_CHUNK]
        found.update(
            ConversationEvent.objects.filter(owner_id=owner_id, fingerprint__in=chunk).values_list(
                "fingerprint", flat=True
            )
        )
    return found


_INSERT_FIELDS = (
    "owner_id", "thread_id", "batch_id", "fingerprint", "run_id", "seq", "role", "item_type",
    "is_marker", "is_final", "text", "original_sha256", "redactions", "occurred_at", "created_at",
)  # fmt: skip
_ROWS_PER_STATEMENT = 500  # 15 parameters a row: well under SQLite's 32,766


def insert_ignoring_conflicts(rows: list[ConversationEvent]) -> list[ConversationEvent]:
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
