"""What every dashboard view of every app shares: the owner actor, 404s, redirects.
(Keyset pages are `foundation.paging`'s; htmx answers `foundation.htmx`'s.)"""

from __future__ import annotations

from django.http import Http404, HttpRequest
from django.shortcuts import redirect
from django.utils.http import url_has_allowed_host_and_scheme

from foundation.actors import Actor
from foundation.errors import ErrorCode, ServiceError


def owner_actor(request: HttpRequest) -> Actor:
    return Actor.owner(request.user)


def raise_404_if_missing(error: ServiceError) -> None:
    """Another owner's memory, or none at all: the same 404 either way."""
    if error.code == ErrorCode.NOT_FOUND:
        raise Http404(error.message) from error


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
