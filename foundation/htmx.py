"""The one way a dashboard view answers (django-htmx + Django's template partials).

A view renders the whole page, or, when htmx asked, only `page.html#fragment`. Errors keep
their real status codes: the base template configures htmx's `responseHandling` to swap
4xx answers too, so a refused form or cursor shows its message in place. After a change
the answer carries `HX-Trigger: counts-changed`; the tab bar listens for that event and
re-fetches its numbers from the one counts endpoint (`dashboard:counts`), so no view
renders the counts itself.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django_htmx.http import trigger_client_event

from foundation.errors import ErrorCode, ServiceError

COUNTS_CHANGED = "counts-changed"
REFUSED_TEMPLATE = "refused.html"


def requested_fragment(request: HttpRequest, *allowed: str) -> str | None:
    """The fragment an htmx request named with `?fragment=` (a next page, say), if allowed."""
    name = request.GET.get("fragment", "")
    return name if request.htmx and name in allowed else None


def announce_counts_changed(response: HttpResponse) -> HttpResponse:
    """Tell the page that the tab counts changed: the tab bar re-fetches them."""
    return trigger_client_event(response, COUNTS_CHANGED)


def answer(
    request: HttpRequest,
    template: str,
    context: dict,
    *,
    fragment: str | None = None,
    status: int = 200,
    counts_changed: bool = False,
) -> HttpResponse:
    """`template` as a page, or only its partial `fragment` for an htmx request."""
    name = f"{template}#{fragment}" if fragment and request.htmx else template
    response = render(request, name, context, status=status)
    return announce_counts_changed(response) if counts_changed else response


def refused(request: HttpRequest, error: ServiceError) -> HttpResponse:
    """A refused request (a bad cursor or filter): the message with the error's status,
    as a page of its own or, for htmx, in place of what was asked for."""
    context = {"error": error, "tab": ""}
    return answer(request, REFUSED_TEMPLATE, context, fragment="message", status=error.http_status)


def refuses_bad_input[V: Callable[..., HttpResponse]](view: V) -> V:
    """A ServiceError the view leaves alone is answered by `refused` (a missing row by a
    404): never a silent fallback, never a 500."""

    @wraps(view)
    def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        try:
            return view(request, *args, **kwargs)
        except ServiceError as error:
            if error.code == ErrorCode.NOT_FOUND:
                raise Http404(error.message) from error
            return refused(request, error)

    return wrapped  # type: ignore[return-value]
