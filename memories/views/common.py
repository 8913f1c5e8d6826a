"""What every dashboard view shares: the owner actor, keyset pages, tab counts, redirects."""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass
from datetime import datetime

from django.db.models import Q, QuerySet
from django.http import Http404, HttpRequest
from django.shortcuts import redirect
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme

from continuity.actors import Actor
from continuity.errors import ErrorCode, ServiceError
from continuity.models import PersonalAccessToken
from memories.models import LIVE_STATUSES, OWNER_TRUSTS, Memory, ScopeType, Status, Trust

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


def keyset_page(queryset: QuerySet, cursor: str | None, *, field: str = "updated_at", size: int = PAGE_SIZE) -> Page:
    """Newest first by (`field`, pk), resuming strictly after `cursor`: each page costs
    the same however deep it is, because it seeks in the index instead of counting rows.
    A cursor that does not parse starts from the top."""
    queryset = queryset.order_by(f"-{field}", "-pk")
    decoded = _decode(cursor) if cursor else None
    if decoded:
        value, pk = decoded
        if field != "pk":
            try:
                value = datetime.fromisoformat(value)
            except ValueError:
                value = None
        if value is not None:
            if field == "pk":
                queryset = queryset.filter(pk__lt=pk)
            else:
                queryset = queryset.filter(Q(**{f"{field}__lt": value}) | Q(**{field: value, "pk__lt": pk}))
    rows = list(queryset[: size + 1])
    next_cursor = None
    if len(rows) > size:
        last = rows[size - 1]
        key = last.pk if field == "pk" else getattr(last, field).isoformat()
        next_cursor = _encode(str(key), last.pk)
    return Page(items=rows[:size], next_cursor=next_cursor, cursor=cursor if decoded else None)


# --- what each tab lists (owner-scoped, index-backed) --------------------------------------


def core_memories(user) -> QuerySet[Memory]:
    return Memory.objects.filter(
        owner=user, scope_type=ScopeType.GLOBAL, trust__in=OWNER_TRUSTS, status=Status.ACTIVE
    )


def project_memories(user) -> QuerySet[Memory]:
    return Memory.objects.filter(owner=user, scope_type=ScopeType.PROJECT, status__in=LIVE_STATUSES)


def review_memories(user) -> QuerySet[Memory]:
    return Memory.objects.filter(owner=user).filter(
        Q(status=Status.DISPUTED) | Q(status=Status.ACTIVE, trust=Trust.INFERRED)
    )


def archive_memories(user) -> QuerySet[Memory]:
    return Memory.objects.filter(owner=user, status__in=(Status.ARCHIVED, Status.SUPERSEDED))


def usable_tokens(user) -> QuerySet[PersonalAccessToken]:
    return PersonalAccessToken.objects.filter(owner=user, revoked_at__isnull=True, expires_at__gt=timezone.now())


def tab_counts(user) -> dict[str, int]:
    """The numbers on the tabs; re-sent out of band after every action."""
    return {
        "core": core_memories(user).count(),
        "projects": project_memories(user).count(),
        "review": review_memories(user).count(),
        "archive": archive_memories(user).count(),
        "tokens": usable_tokens(user).count(),
    }


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
