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

from continuity.errors import ErrorCode, ServiceError
from continuity.maintenance.history import recent_runs
from continuity.maintenance.retention import retention_window_set, retention_windows
from memories.views.common import owner_actor, raise_404_if_missing, tab_counts

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
    return render(request, "dashboard/settings.html", {**_context(request), "counts": tab_counts(request.user)})


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
        context = _context(request, error=error, error_rule=rule if error else "", draft=raw, saved=saved)
        return render(request, "dashboard/settings.html#retention", context)
    if error:
        context = _context(request, error=error, error_rule=rule, draft=raw, counts=tab_counts(request.user))
        return render(request, "dashboard/settings.html", context, status=status)
    messages.success(request, _("Retention window saved."))
    return redirect("dashboard:settings")
