"""The Settings page: retention windows per rule, the owner's capture strip markers, and
what recent background runs did.

Windows apply to the whole instance, so only its owner changes them; the service
(`retention_window_set`, the same one the owner API calls) enforces that, and everyone
else sees the page read-only. Strip markers are each owner's own.
"""

from __future__ import annotations

import re

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from capture.markers import MAX_MARKER_CHARS, MAX_OWNER_MARKERS, configured_pairs
from capture.selectors import strip_markers_for_owner
from capture.services.strip_markers import strip_marker_add, strip_marker_delete
from foundation.errors import ErrorCode, ServiceError
from foundation.htmx import answer
from foundation.maintenance.history import recent_runs
from foundation.maintenance.retention import retention_window_set, retention_windows
from foundation.views import owner_actor, raise_404_if_missing
from memories.embeddings.vectors import backfill_soon, embedding_status

RUNS_SHOWN = 20


def _settings(
    request: HttpRequest, *, status: int = 200, fragment: str = "retention", **extra
) -> HttpResponse:
    """The page, or for htmx one of its panels (retention, markers)."""
    context = {
        "tab": "settings", "rules": retention_windows(), "can_edit": request.user.is_superuser,
        "runs": recent_runs(limit=RUNS_SHOWN), "instance_markers": configured_pairs(),
        "markers": strip_markers_for_owner(actor=owner_actor(request)),
        "max_marker_chars": MAX_MARKER_CHARS, "max_markers": MAX_OWNER_MARKERS, **extra,
    }  # fmt: skip
    return answer(request, "dashboard/settings.html", context, fragment=fragment, status=status)


def _window(request: HttpRequest) -> int | None:
    """The posted window: a whole number, or None with `reset` (the environment's default)."""
    raw = request.POST.get("value", "").strip()
    if "reset" in request.POST:
        return None
    if not re.fullmatch(r"[+-]?\d{1,9}", raw):
        raise ServiceError(ErrorCode.VALIDATION_ERROR, _("The window must be a whole number."))
    return int(raw)


@login_required
@require_GET
def settings_page(request: HttpRequest) -> HttpResponse:
    return _settings(request)


@login_required
@require_POST
def retention_window(request: HttpRequest, rule: str) -> HttpResponse:
    """Set a rule's window (`value`, a whole number in the rule's unit) or, with
    `reset`, go back to the environment's default."""
    try:
        saved = retention_window_set(actor=owner_actor(request), rule=rule, value=_window(request))
    except ServiceError as error:
        raise_404_if_missing(error)
        draft = request.POST.get("value", "").strip()
        return _settings(
            request, status=error.http_status, error=error.localized, error_rule=rule, draft=draft
        )
    if request.htmx:
        return _settings(request, saved=saved)
    messages.success(request, _("Retention window saved."))
    return redirect("dashboard:settings")


@login_required
@require_POST
def strip_marker_create(request: HttpRequest) -> HttpResponse:
    """Add a `start` … `end` pair to the owner's strip markers."""
    start, end = request.POST.get("start", ""), request.POST.get("end", "")
    try:
        strip_marker_add(actor=owner_actor(request), start=start, end=end)
    except ServiceError as error:
        return _settings(
            request, status=error.http_status, fragment="markers", marker_error=error.localized,
            marker_draft={"start": start, "end": end},
        )  # fmt: skip
    if request.htmx:
        return _settings(request, fragment="markers", marker_saved=True)
    messages.success(request, _("Strip marker saved."))
    return redirect("dashboard:settings")


@login_required
@require_POST
def strip_marker_remove(request: HttpRequest, marker_id: int) -> HttpResponse:
    try:
        strip_marker_delete(actor=owner_actor(request), marker_id=marker_id)
    except ServiceError as error:
        raise_404_if_missing(error)
        raise
    if request.htmx:
        return _settings(request, fragment="markers")
    messages.success(request, _("Strip marker removed."))
    return redirect("dashboard:settings")


def _semantic(request: HttpRequest, *, note: str = "", polling: bool) -> HttpResponse:
    status = embedding_status(request.user)
    context = {
        "status": status, "left": status.stale + status.missing, "note": note, "polling": polling
    }  # fmt: skip
    return answer(request, "dashboard/_semantic.html", context)


@login_required
@require_GET
def semantic_status(request: HttpRequest) -> HttpResponse:
    """The owner's embedding progress, loaded after the page (it reads every memory's
    text to compare hashes) and, after a back-fill was asked for (`poll`), polled by htmx
    while work is left."""
    return _semantic(request, polling=request.GET.get("poll") == "1")


@login_required
@require_POST
def semantic_backfill(request: HttpRequest) -> HttpResponse:
    """Queue a back-fill of the signed-in owner's memories."""
    queued = backfill_soon(request.user)
    note = (
        _("Back-fill queued: the worker embeds your memories in the background.")
        if queued
        else _(
            "The back-fill could not be queued: semantic recall is off or the worker's broker is unreachable."
        )
    )
    if request.htmx:
        return _semantic(request, note=note, polling=queued)
    (messages.info if queued else messages.error)(request, note)
    return redirect("dashboard:settings")
