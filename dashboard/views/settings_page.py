"""The Settings page: retention windows per rule, and what recent background runs did.

Windows apply to the whole instance, so only its owner changes them; the service
(`retention_window_set`, the same one the owner API calls) enforces that, and everyone
else sees the page read-only.
"""

from __future__ import annotations

import re

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from foundation.errors import ErrorCode, ServiceError
from foundation.maintenance.history import recent_runs
from foundation.maintenance.retention import retention_window_set, retention_windows
from foundation.views import owner_actor, raise_404_if_missing
from memories.embeddings.vectors import backfill_soon, embedding_status

RUNS_SHOWN = 20


def _context(request: HttpRequest, **extra) -> dict:
    return {
        "tab": "settings",
        "rules": retention_windows(),
        "can_edit": request.user.is_superuser,
        "runs": recent_runs(limit=RUNS_SHOWN),
        **extra,
    }


@login_required
@require_GET
def settings_page(request: HttpRequest) -> HttpResponse:
    return render(request, "dashboard/settings.html", _context(request))


@login_required
@require_POST
def retention_window(request: HttpRequest, rule: str) -> HttpResponse:
    """Set a rule's window (`value`, a whole number in the rule's unit) or, with
    `reset`, go back to the environment's default."""
    raw = request.POST.get("value", "").strip()
    error, status = "", 200
    try:
        if "reset" in request.POST:
            value = None
        elif not re.fullmatch(r"[+-]?\d{1,9}", raw):
            raise ServiceError(ErrorCode.VALIDATION_ERROR, _("The window must be a whole number."))
        else:
            value = int(raw)
        saved = retention_window_set(actor=owner_actor(request), rule=rule, value=value)
    except ServiceError as exc:
        raise_404_if_missing(exc)
        error = exc.message
        status = 403 if exc.code == ErrorCode.FORBIDDEN else 400
        saved = None
    if request.htmx:
        # htmx swaps only 2xx answers by default: the error goes into the panel with a 200.
        context = _context(
            request, error=error, error_rule=rule if error else "", draft=raw, saved=saved
        )
        return render(request, "dashboard/settings.html#retention", context)
    if error:
        context = _context(request, error=error, error_rule=rule, draft=raw)
        return render(request, "dashboard/settings.html", context, status=status)
    messages.success(request, _("Retention window saved."))
    return redirect("dashboard:settings")


@login_required
@require_GET
def semantic_status(request: HttpRequest) -> HttpResponse:
    """The owner's embedding progress, loaded after the page (it reads every memory's
    text to compare hashes) and, after a back-fill was asked for (`poll`), polled by htmx
    while work is left."""
    status = embedding_status(request.user)
    context = {
        "status": status,
        "left": status.stale + status.missing,
        "polling": request.GET.get("poll") == "1",
    }
    return render(request, "dashboard/_semantic.html", context)


@login_required
@require_POST
def semantic_backfill(request: HttpRequest) -> HttpResponse:
    """Queue a back-fill of the signed-in owner's memories."""
    if backfill_soon(request.user):
        note, status = (
            _("Back-fill queued: the worker embeds your memories in the background."),
            202,
        )
    else:
        note, status = (
            _(
                "The back-fill could not be queued: semantic recall is off or the worker's broker is unreachable."
            ),
            503,
        )
    if request.htmx:
        current = embedding_status(request.user)
        context = {
            "status": current,
            "left": current.stale + current.missing,
            "note": note,
            "polling": status == 202,
        }
        return render(request, "dashboard/_semantic.html", context, status=200)
    if status == 202:
        messages.info(request, note)
    else:
        messages.error(request, note)
    return redirect("dashboard:settings")
