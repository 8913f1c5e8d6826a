"""The Overview's charts as SVG geometry computed on the server (no chart library, nothing
to download): the template only places the shapes.

A shape names its colour by a class (`tone-…`), never by a colour value: the stylesheet
takes each from the theme's `--chart-…` variables, so the charts follow light and dark
like the rest of the page (tests/dashboard/test_theme_contrast.py checks them)."""

from __future__ import annotations

from datetime import date

BAR_WIDTH = 320
ROW = 22
MAX_AGENTS = 6
COLUMN_HEIGHT, COLUMN_WIDTH = 160, 56
# Colour-blind safe hues (after Okabe–Ito), in a fixed order so an agent keeps its colour;
# the last is for the agents past MAX_AGENTS.
SERIES = [f"tone-{n}" for n in range(1, 8)]
TRUST_TONES = {trust: f"tone-{trust}" for trust in ("inferred", "observed", "confirmed", "locked")}


def bars(counts: dict[str, int], order, tones=None, *, link=lambda name: "") -> dict:
    """Horizontal bars, one row per value in `order`, scaled to the largest; each row's
    `href` (from `link`) opens the list it counts."""
    top = max(counts.values(), default=0) or 1
    rows = []
    for index, name in enumerate(order):
        value = counts.get(name, 0)
        rows.append({
            "name": name, "value": value, "y": index * ROW, "text_y": index * ROW + 15,
            "width": round(BAR_WIDTH * value / top, 1),
            "tone": (tones or {}).get(name, SERIES[0]), "href": link(name),
        })  # fmt: skip
    return {"rows": rows, "height": len(order) * ROW, "total": sum(counts.values())}


def stacked_columns(
    days: list[date], cells: dict[tuple[date, str], int], *, link=lambda agent: ""
) -> dict:
    """Stacked columns: one per day, one colour per agent (the busiest MAX_AGENTS by name,
    the rest as 'others'; the owner as 'you'); a segment's `href` opens that agent's list."""
    per_agent: dict[str, int] = {}
    for (_, agent), n in cells.items():
        per_agent[agent] = per_agent.get(agent, 0) + n
    agents = sorted(per_agent, key=lambda name: (-per_agent[name], name))
    shown, others = agents[:MAX_AGENTS], set(agents[MAX_AGENTS:])
    legend = [{"name": name, "tone": SERIES[i % len(SERIES)]} for i, name in enumerate(shown)]
    if others:
        legend.append({"name": "…", "tone": SERIES[-1]})
    tone = {item["name"]: item["tone"] for item in legend}
    totals = {day: sum(n for (d, _), n in cells.items() if d == day) for day in days}
    top = max(totals.values(), default=0) or 1
    height, column = COLUMN_HEIGHT, COLUMN_WIDTH
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
                             "tone": tone.get(agent, SERIES[-1]), "href": link(agent)})  # fmt: skip
        columns.append({"day": day, "bar_x": index * column + 6, "mid_x": index * column + column // 2,
                        "total": totals[day], "segments": segments})  # fmt: skip
    return {"columns": columns, "legend": legend, "height": height, "width": len(days) * column,
            "top": top, "total": sum(totals.values())}  # fmt: skip
