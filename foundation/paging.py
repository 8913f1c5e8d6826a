"""The one cursor codec every paged list uses, and the dashboard's keyset pages.

A cursor is opaque to the caller: the position of the last row seen, signed with the
site's secret (django.core.signing) and bound to a digest of the query it came from (the
list it pages and every filter that shapes it). So a cursor cannot be forged or edited,
and one issued for one query is refused on another instead of quietly paging the wrong
list. Every door answers a tampered, foreign or malformed cursor the same way: a
VALIDATION_ERROR on the `cursor` field (400); none restarts from the top.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.core import signing
from django.db.models import Q, QuerySet
from django.utils.translation import gettext_noop

from foundation.errors import validation_error

SALT = "continuity.paging.cursor"
# Far above any cursor we issue (a few hundred characters): longer input is not ours.
MAX_CURSOR_CHARS = 2000
PAGE_SIZE = 25

INVALID = gettext_noop("cursor is not valid.")
FOREIGN = gettext_noop("cursor belongs to another query (other filters, caller or list).")


def query_key(*parts: Any) -> str:
    """A short digest naming one query: the list it pages and the filters that shape it."""
    raw = json.dumps(parts, default=str, sort_keys=True, ensure_ascii=True)
    return hashlib.sha256(raw.encode()).hexdigest()[:24]


def _signer() -> signing.Signer:
    # "." never occurs in URL-safe base64, so a cursor needs no escaping in a query string.
    return signing.Signer(salt=SALT, sep=".")


def cursor_encode(position: Any, *, query: str) -> str:
    """A signed cursor for `position` (any JSON value), valid only for `query`."""
    return _signer().sign_object({"p": position, "q": query})


def cursor_decode(cursor: Any, *, query: str) -> Any:
    """The position a cursor carries, if this site signed it for this very query;
    otherwise a VALIDATION_ERROR on `cursor`."""
    if not isinstance(cursor, str) or not cursor or len(cursor) > MAX_CURSOR_CHARS:
        raise validation_error(INVALID, field="cursor")
    try:
        data = _signer().unsign_object(cursor)
        position, bound_to = data["p"], data["q"]
    except (signing.BadSignature, KeyError, TypeError, ValueError):
        raise validation_error(INVALID, field="cursor") from None
    if bound_to != query:
        raise validation_error(FOREIGN, field="cursor")
    return position


def moment_of(value: Any) -> datetime:
    """A timezone-aware moment from a position (cursors are signed, but stay defensive)."""
    try:
        moment = datetime.fromisoformat(value)
    except (TypeError, ValueError):
        raise validation_error(INVALID, field="cursor") from None
    if moment.tzinfo is None:
        raise validation_error(INVALID, field="cursor")
    return moment


# --- the dashboard's keyset pages -----------------------------------------------------------


@dataclass
class Page:
    items: list
    next_cursor: str | None
    cursor: str | None


def _after(queryset: QuerySet, field: str, position) -> QuerySet:
    try:
        value, pk = position
        pk = queryset.model._meta.pk.to_python(pk)
    except Exception:  # noqa: BLE001 - any malformed position is the same refusal
        raise validation_error(INVALID, field="cursor") from None
    if field == "pk":
        return queryset.filter(pk__lt=pk)
    moment = moment_of(value)
    return queryset.filter(Q(**{f"{field}__lt": moment}) | Q(**{field: moment, "pk__lt": pk}))


def keyset_page(
    queryset: QuerySet | list[QuerySet],
    cursor: str | None,
    *,
    query: str,
    field: str = "updated_at",
    size: int = PAGE_SIZE,
) -> Page:
    """Newest first by (`field`, pk), resuming strictly after `cursor`: each page costs
    the same however deep it is, because it seeks in an index instead of counting rows.
    A list of querysets (one per status, say) is paged as their union: each is read in
    its own index order and the pages are merged, which SQLite cannot do for an IN list.
    `query` (see `query_key`) names the list and its filters; a cursor issued for another
    is refused like a forged one."""
    parts = queryset if isinstance(queryset, list) else [queryset]
    position = cursor_decode(cursor, query=query) if cursor else None
    rows = []
    for part in parts:
        part = part.order_by(f"-{field}", "-pk")
        if position is not None:
            part = _after(part, field, position)
        rows += part[: size + 1]
    if len(parts) > 1:
        rows.sort(key=lambda row: (getattr(row, field), str(row.pk)), reverse=True)
        rows = rows[: size + 1]
    next_cursor = None
    if len(rows) > size:
        last = rows[size - 1]
        value = str(last.pk) if field == "pk" else getattr(last, field).isoformat()
        next_cursor = cursor_encode([value, str(last.pk)], query=query)
    return Page(items=rows[:size], next_cursor=next_cursor, cursor=cursor or None)
