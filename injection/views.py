"""Dashboard page: what injection put into agents' prompts (linked from the Activity tab)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_GET

from foundation.htmx import answer, refuses_bad_input, requested_fragment
from foundation.paging import keyset_page, query_key
from injection.selectors import SUMMARY_DAYS, injection_summary, recent_receipts


@login_required
@require_GET
@refuses_bad_input
def injections(request: HttpRequest) -> HttpResponse:
    """Per agent and day: calls, token cost and the memories injected; then every receipt,
    newest first (an htmx "load more" asks for the next page only)."""
    query = query_key("dashboard", "injections", request.user.pk)
    receipts = recent_receipts(request.user)
    page = keyset_page(receipts, request.GET.get("cursor"), query=query, field="created_at")
    fragment = requested_fragment(request, "page")
    context = {"tab": "activity", "page": page, "days": SUMMARY_DAYS}
    if fragment is None:  # the summary is for the whole page only
        context["summary"] = injection_summary(request.user)
    return answer(request, "capture/injections.html", context, fragment=fragment)
