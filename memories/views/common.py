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

from capture.selectors import pending_count
from continuity.actors import Actor
from continuity.errors import ErrorCode, ServiceError
from continuity.models import PersonalAccessToken
from handoff.selectors import handoffs_for_owner
from memories.models import LIVE_STATUSES, OWNER_TRUSTS, Memory, ScopeType, Status, Trust
from memories.views.cache import per_generation

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


def keyset_page(queryset: QuerySet | list[QuerySet], cursor: str | None, *, field: str = "updated_at", size: int = PAGE_SIZE) -> Page:
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


# --- what each tab lists (owner-scoped, index-backed) --------------------------------------


# Each list is one or more querysets with equality filters only, so that each walks one
# owner-leading index (an IN list or an OR makes SQLite read every match and sort).


def core_memories(user) -> QuerySet[Memory]:
    # scope_key="" is implied by global (a constraint) but lets the scope index serve it.
    return Memory.objects.filter(
        owner=user, status=Status.ACTIVE, scope_type=ScopeType.GLOBAL, scope_key="",
        trust__in=OWNER_TRUSTS,
    )  # fmt: skip


def project_memories(user) -> list[QuerySet[Memory]]:
    return [
        Memory.objects.filter(owner=user, status=status, scope_type=ScopeType.PROJECT)
        for status in LIVE_STATUSES
    ]


def recent_memories(user) -> list[QuerySet[Memory]]:
    return [Memory.objects.filter(owner=user, status=status) for status in LIVE_STATUSES]


def disputed_memories(user) -> QuerySet[Memory]:
    return Memory.objects.filter(owner=user, status=Status.DISPUTED)


def inferred_memories(user) -> QuerySet[Memory]:
    return Memory.objects.filter(owner=user, status=Status.ACTIVE, trust=Trust.INFERRED)


def archive_memories(user) -> list[QuerySet[Memory]]:
    return [Memory.objects.filter(owner=user, status=status) for status in (Status.ARCHIVED, Status.SUPERSEDED)]


def usable_tokens(user) -> QuerySet[PersonalAccessToken]:
    return PersonalAccessToken.objects.filter(owner=user, revoked_at__isnull=True, expires_at__gt=timezone.now())


def tab_counts(user) -> dict[str, int]:
    """The numbers on the tabs; re-sent out of band after every action."""
    return {
        **per_generation(user, "memory-counts", lambda: {
            "core": core_memories(user).count(),
            "projects": sum(part.count() for part in project_memories(user)),
            "review": disputed_memories(user).count() + inferred_memories(user).count(),
            "archive": sum(part.count() for part in archive_memories(user)),
        }),  # fmt: skip
        "tokens": usable_tokens(user).count(),
        "handoffs": handoffs_for_owner(owner=user, state="active").count(),
        "inbox": pending_count(user),
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
