"""The Overview tab: memories by kind and trust, writes per day per agent, as SVG drawn on
the server (no chart library, nothing to download). Geometry is computed here; the
template only places the shapes."""

from __future__ import annotations

from datetime import datetime, time, timedelta

from django.contrib.auth.decorators import login_required
from django.db.models import Count
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_GET

from dashboard.cache import per_generation
from memories.models import EventType, Kind, Memory, MemoryEvent, Trust

DAYS = 14
MAX_AGENTS = 6
BAR_WIDTH = 320
ROW = 22
# Colour-blind safe (Okabe–Ito), in a fixed order so an agent keeps its colour.
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#555555"]
TRUST_COLOURS = {
    "inferred": "#B26B00",
    "observed": "#0B57D0",
    "confirmed": "#146C2E",
    "locked": "#12263F",
}
WRITE_EVENTS = (EventType.CREATED, EventType.REPLACED, EventType.MERGED, EventType.CORRECTED)


def bars(counts: dict[str, int], order, colours=None) -> dict:
    """Horizontal bars, one row per value in `order`, scaled to the largest."""
    top = max(counts.values(), default=0) or 1
    rows = []
    for index, name in enumerate(order):
        value = counts.get(name, 0)
        rows.append({
            "name": name, "value": value, "y": index * ROW, "text_y": index * ROW + 15,
            "width": round(BAR_WIDTH * value / top, 1),
            "colour": (colours or {}).get(name, PALETTE[0]),
        })  # fmt: skip
    return {"rows": rows, "height": len(order) * ROW, "total": sum(counts.values())}


def writes_per_day(user, today) -> dict:
    """Stacked columns: one per day of the last DAYS days, one colour per agent (the
    busiest MAX_AGENTS by name, the rest as 'others'; the owner as 'you')."""
    since = today - timedelta(days=DAYS - 1)
    days = [since + timedelta(days=offset) for offset in range(DAYS)]
    per_agent: dict[str, int] = {}
    cells: dict[tuple, int] = {}
    # One grouped count per day over a created_at range: the owner-recent index bounds each
    # read, and no per-row date function runs (SQLite's is Python, called for every row).
    for day in days:
        start = timezone.make_aware(datetime.combine(day, time.min))
        counts = (
            MemoryEvent.objects.filter(
                owner=user, created_at__gte=start, created_at__lt=start + timedelta(days=1),
                event_type__in=WRITE_EVENTS,
            )
            .values_list("actor_agent")
            .annotate(n=Count("*"))
            .order_by()
        )  # fmt: skip
        for agent, n in counts:
            per_agent[agent] = per_agent.get(agent, 0) + n
            cells[(day, agent)] = n
    agents = sorted(per_agent, key=lambda name: (-per_agent[name], name))
    shown, others = agents[:MAX_AGENTS], set(agents[MAX_AGENTS:])
    legend = [{"name": name, "colour": PALETTE[i % len(PALETTE)]} for i, name in enumerate(shown)]
    if others:
        legend.append({"name": "…", "colour": PALETTE[-1]})
    colour = {item["name"]: item["colour"] for item in legend}
    totals = {day: sum(n for (d, _), n in cells.items() if d == day) for day in days}
    top = max(totals.values(), default=0) or 1
    height, column = 160, 56
    columns = []
    for index, day in enumerate(days):
        y = height
        segments = []
        for agent in [*shown, *sorted(others)]:
            n = cells.get((day, agent), 0)
            if not n:
                continue
            h = round(height * n / top, 1)
            y -= h
            segments.append({"agent": agent, "n": n, "y": round(y, 1), "h": h,
                             "colour": colour.get(agent, PALETTE[-1])})  # fmt: skip
        columns.append({"day": day, "bar_x": index * column + 6, "mid_x": index * column + column // 2,
                        "total": totals[day], "segments": segments})  # fmt: skip
    return {"columns": columns, "legend": legend, "height": height, "width": DAYS * column,
            "top": top, "total": sum(totals.values())}  # fmt: skip


@login_required
@require_GET
def overview(request: HttpRequest) -> HttpResponse:
    user, today = request.user, timezone.localdate()
    mine = Memory.objects.filter(owner=user)
    # COUNT(*) grouped by an indexed column: the (owner, kind | trust, status) indexes answer
    # alone, without reading a row. Still tens of ms at 100k, so reused until the next write.
    by_kind, by_trust, writes = per_generation(user, f"overview:{today.isoformat()}", lambda: (
        dict(mine.values_list("kind").annotate(n=Count("*")).order_by()),
        dict(mine.values_list("trust").annotate(n=Count("*")).order_by()),
        writes_per_day(user, today),
    ))  # fmt: skip
    context = {
        "tab": "overview",
        "kinds": bars(by_kind, Kind.values),
        "trusts": bars(by_trust, Trust.values, TRUST_COLOURS),
        "writes": writes,
        "days": DAYS,
        "bar_width": BAR_WIDTH,
    }
    return render(request, "dashboard/overview.html", context)
