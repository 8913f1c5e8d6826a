"""The Overview tab: memories by kind and trust, writes per day per agent (see
`dashboard.charts` for the drawing, `dashboard.selectors.overview_totals` for the counts)."""

from __future__ import annotations

from datetime import timedelta

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from django.views.decorators.http import require_GET

from dashboard.charts import BAR_WIDTH, TRUST_COLOURS, bars, stacked_columns
from dashboard.selectors import overview_totals
from foundation.htmx import answer
from memories.models import Kind, Trust

DAYS = 14


@login_required
@require_GET
def overview(request: HttpRequest) -> HttpResponse:
    today = timezone.localdate()
    days = [today - timedelta(days=DAYS - 1 - offset) for offset in range(DAYS)]
    by_kind, by_trust, writes = overview_totals(request.user, days)
    context = {
        "tab": "overview",
        "kinds": bars(by_kind, Kind.values),
        "trusts": bars(by_trust, Trust.values, TRUST_COLOURS),
        "writes": stacked_columns(days, writes),
        "days": DAYS,
        "bar_width": BAR_WIDTH,
    }
    return answer(request, "dashboard/overview.html", context)
