"""What every dashboard view of every app shares: the owner actor, keyset pages, redirects."""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass
from datetime import datetime

from django.db.models import Q, QuerySet
from django.http import Http404, HttpRequest
from django.shortcuts import redirect
from django.utils.http import url_has_allowed_host_and_scheme

from foundation.actors import Actor
from foundation.errors import ErrorCode, ServiceError

PAGE_SIZE = 25


def owner_actor(request: HttpRequest) -> Actor:
    return Actor.owner(request.user)


def raise_404_if_missing(error: ServiceError) -> None:
    """Another owner's memory, or none at all: the same 404 either way."""
    if error.code == ErrorCode.NOT_FOUND:
        raise Http404(error.message) from error


@dataclass
class Page:
    items: list
    next_cursor: str | None
    cursor: str | None


def _encode(value: str, pk) -> str:
    raw = json.dumps([value, str(pk)]).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _decode(cursor: str) -> tuple[str, str] | None:
    try:
        value, pk = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
        return str(value), str(pk)
    except (binascii.Error, ValueError, TypeError, UnicodeDecodeError):
        return None


def _after(queryset: QuerySet, field: str, decoded) -> QuerySet:
    value, pk = decoded
    if field == "pk":
        return queryset.filter(pk__lt=pk)
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return queryset
    return queryset.filter(Q(**{f"{field}__lt": moment}) | Q(**{field: moment, "pk__lt": pk}))


def keyset_page(
    queryset: QuerySet | list[QuerySet],
    cursor: str | None,
    *,
    field: str = "updated_at",
    size: int = PAGE_SIZE,
) -> Page:
    """Newest first by (`field`, pk), resuming strictly after `cursor`: each page costs
    the same however deep it is, because it seeks in an index instead of counting rows.
    A list of querysets (one per status, say) is paged as their union: each is read in
    its own index order and the pages are merged, which SQLite cannot do for an IN list.
    A cursor that does not parse starts from the top."""
    parts = queryset if isinstance(queryset, list) else [queryset]
    decoded = _decode(cursor) if cursor else None
    rows = []
    for part in parts:
        part = part.order_by(f"-{field}", "-pk")
        if decoded:
            part = _after(part, field, decoded)
        rows += part[: size + 1]
    if len(parts) > 1:
        rows.sort(key=lambda row: (getattr(row, field), str(row.pk)), reverse=True)
        rows = rows[: size + 1]
    next_cursor = None
    if len(rows) > size:
        last = rows[size - 1]
        key = last.pk if field == "pk" else getattr(last, field).isoformat()
        next_cursor = _encode(str(key), last.pk)
    return Page(items=rows[:size], next_cursor=next_cursor, cursor=cursor if decoded else None)


def safe_next(request: HttpRequest) -> str:
    """The `next` field if it is a path on this site, else empty (never a javascript: URL)."""
    target = request.POST.get("next") or request.GET.get("next") or ""
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return ""


def back(request: HttpRequest, default: str = "dashboard:core"):
    """Where a plain form post returns to: its `next` field if it is one of ours."""
    return redirect(safe_next(request) or default)
