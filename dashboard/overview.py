"""What the Overview shows: headline totals and the charts' rows, each a link to the list
it counts (Search with that filter, or Activity for an agent's writes), so a number is
never a dead end. Counts come from `dashboard.selectors.overview_totals`."""

from __future__ import annotations

from datetime import date, timedelta
from urllib.parse import urlencode

from django.urls import reverse
from django.utils.translation import gettext as _

from dashboard.charts import BAR_WIDTH, TRUST_TONES, bars, stacked_columns
from dashboard.selectors import overview_totals
from memories.models import Kind, Trust

DAYS = 14


def search_url(**filters) -> str:
    """Search narrowed by `filters` (a list value repeats its name, as the form sends it)."""
    query = urlencode(filters, doseq=True)
    return f"{reverse('dashboard:search')}?{query}" if query else reverse("dashboard:search")


def activity_url(agent: str) -> str:
    """Activity for one agent's events ('owner' for the owner's own, as Activity names it)."""
    return f"{reverse('dashboard:activity')}?{urlencode({'agent': agent or 'owner'})}"


def overview(user, today: date) -> dict:
    days = [today - timedelta(days=DAYS - 1 - offset) for offset in range(DAYS)]
    by_kind, by_trust, by_agent, writes = overview_totals(user, days)
    columns = stacked_columns(days, writes, link=activity_url)
    trusted = by_trust.get(Trust.CONFIRMED, 0) + by_trust.get(Trust.LOCKED, 0)
    headline = [
        (sum(by_kind.values()), _("memories in all"), search_url()),
        (trusted, _("confirmed or locked"), search_url(trust=[Trust.CONFIRMED, Trust.LOCKED])),
        (by_trust.get(Trust.INFERRED, 0), _("inferred, to confirm"), search_url(trust="inferred")),
        (by_agent.get("", 0), _("written by you"), search_url(mine="1")),
        (sum(n for agent, n in by_agent.items() if agent), _("written by agents"), ""),
        (
            columns["total"],
            _("writes in the last %(days)s days") % {"days": DAYS},
            reverse("dashboard:activity"),
        ),
    ]
    return {
        "headline": [{"value": v, "label": label, "href": href} for v, label, href in headline],
        "kinds": bars(by_kind, Kind.values, link=lambda kind: search_url(kind=kind)),
        "trusts": bars(by_trust, Trust.values, TRUST_TONES, link=lambda t: search_url(trust=t)),
        "writes": columns,
        "days": DAYS,
        "bar_width": BAR_WIDTH,
    }
