"""The Overview tab: headline totals, memories by kind and trust, writes per day per agent,
each linked to the list it counts (`dashboard.overview`)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from django.views.decorators.http import require_GET

from dashboard.overview import overview as overview_context
from foundation.htmx import answer


@login_required
@require_GET
def overview(request: HttpRequest) -> HttpResponse:
    context = overview_context(request.user, timezone.localdate())
    return answer(request, "dashboard/overview.html", {"tab": "overview", **context})
