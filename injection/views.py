"""Dashboard page: what injection put into agents' prompts (linked from the Activity tab)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from foundation.views import keyset_page
from injection.selectors import SUMMARY_DAYS, injection_summary, recent_receipts


@login_required
@require_GET
def injections(request: HttpRequest) -> HttpResponse:
    """Per agent and day: calls, token cost and the memories injected; then every receipt,
    newest first (an htmx "load more" asks for the next page only)."""
    page = keyset_page(recent_receipts(request.user), request.GET.get("cursor"), field="created_at")
    context = {"tab": "activity", "page": page}
    if request.htmx and request.GET.get("fragment") == "page":
        return render(request, "capture/injections.html#page", context)
    context |= {
        "summary": injection_summary(request.user),
        "days": SUMMARY_DAYS,
    }
    return render(request, "capture/injections.html", context)
