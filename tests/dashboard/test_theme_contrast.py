"""Both colour themes keep WCAG AA contrast, and every colour the stylesheet paints with
comes from its variables (so a theme cannot miss one). The Overview's charts too: their
text, bars and columns take the theme's colours (`--chart-…`) by class, never a colour of
their own, so dark mode keeps them readable."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dashboard.charts import SERIES, TRUST_TONES

ROOT = Path(__file__).resolve().parents[2]
CSS = (ROOT / "static" / "dashboard" / "dashboard.css").read_text()
COLOUR = re.compile(
    r"#[0-9a-fA-F]{3,8}\b|\b(?:rgb|rgba|hsl|hsla)\(|(?<![-\w])(?:white|black)(?![-\w])"
)

# (text, background) pairs the stylesheet puts together.
TEXT_PAIRS = [
    ("ink", "bg"), ("ink", "card"), ("ink", "faded"), ("ink", "chip"), ("ink", "current"),
    ("ink", "ok-bg"), ("ink", "error-bg"), ("ink", "secret-bg"),
    ("muted", "bg"), ("muted", "card"), ("muted", "faded"),
    ("accent", "bg"), ("accent", "card"), ("accent", "current"),
    ("danger", "bg"), ("danger", "card"), ("danger", "error-bg"),
    ("ok", "bg"), ("ok", "card"), ("warn", "bg"), ("warn", "card"),
    ("on-accent", "accent"), ("on-danger", "danger"),
    ("top-ink", "top-bg"), ("top-muted", "top-bg"),
    ("locked-ink", "locked-bg"), ("confirmed-ink", "confirmed-bg"),
    ("inferred-ink", "inferred-bg"), ("observed-ink", "observed-bg"), ("alert-ink", "alert-bg"),
    ("ink", "mark-bg"), ("private-ink", "private-bg"),
]  # fmt: skip
# Non-text contrast (WCAG 1.4.11): the focus ring and field borders against their ground.
EDGE_PAIRS = [("focus", "bg"), ("focus", "card"), ("focus", "top-bg"), ("field-edge", "card")]
# The charts' shapes (WCAG 1.4.11: 3:1 for graphics) sit on the card: every tone they use.
CHART_TONES = [*SERIES, *TRUST_TONES.values()]


def variables(block: str) -> dict[str, str]:
    return dict(re.findall(r"--([a-z0-9-]+):\s*(#[0-9a-fA-F]{3,6})\s*;", block))


def blocks() -> dict[str, dict[str, str]]:
    light = re.search(r":root \{(.*?)\}", CSS, re.S).group(1)
    system_dark = re.search(r':root:not\(\[data-theme="light"\]\) \{(.*?)\}', CSS, re.S).group(1)
    dark = re.search(r':root\[data-theme="dark"\] \{(.*?)\}', CSS, re.S).group(1)
    return {
        "light": variables(light),
        "system-dark": variables(system_dark),
        "dark": variables(dark),
    }


def luminance(colour: str) -> float:
    hex_ = colour.lstrip("#")
    if len(hex_) == 3:
        hex_ = "".join(c * 2 for c in hex_)
    channels = [int(hex_[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: str, b: str) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


@pytest.mark.parametrize("theme", ["light", "system-dark", "dark"])
def test_text_keeps_aa_contrast(theme):
    colours = blocks()[theme]
    weak = {
        (text, ground): round(contrast(colours[text], colours[ground]), 2)
        for text, ground in TEXT_PAIRS
        if contrast(colours[text], colours[ground]) < 4.5
    }
    assert not weak


@pytest.mark.parametrize("theme", ["light", "system-dark", "dark"])
def test_focus_ring_and_field_edges_keep_three_to_one(theme):
    colours = blocks()[theme]
    assert all(contrast(colours[a], colours[b]) >= 3 for a, b in EDGE_PAIRS)


def test_both_dark_sets_are_the_same_and_cover_every_variable():
    themes = blocks()
    assert themes["dark"] == themes["system-dark"]
    assert set(themes["dark"]) == set(themes["light"])


def test_no_colour_is_written_outside_the_variables():
    # Drop comments and every `--name: value;` declaration; what is left must name no colour.
    rules = re.sub(r"/\*.*?\*/", "", CSS, flags=re.S)
    rules = re.sub(r"--[a-z0-9-]+:\s*[^;]+;", "", rules)
    assert COLOUR.findall(rules) == []


def tone_variable(tone: str) -> str:
    """The theme variable a chart tone class takes its colour from."""
    found = re.search(rf"\.{re.escape(tone)} \{{ --tone: var\(--([a-z0-9-]+)\); \}}", CSS)
    assert found, f"no colour for .{tone}"
    return found.group(1)


@pytest.mark.parametrize("theme", ["light", "system-dark", "dark"])
def test_every_chart_tone_stands_out_from_the_card_in_each_theme(theme):
    colours = blocks()[theme]
    weak = {
        tone: round(contrast(colours[tone_variable(tone)], colours["card"]), 2)
        for tone in CHART_TONES
        if contrast(colours[tone_variable(tone)], colours["card"]) < 3
    }
    assert not weak


def test_the_charts_write_no_colour_of_their_own():
    for path in (
        "templates/dashboard/overview.html",
        "dashboard/charts.py",
        "dashboard/overview.py",
    ):
        assert COLOUR.findall((ROOT / path).read_text()) == [], path
    for rule in (
        r"\.chart svg text \{ fill: var\(--ink\)",
        r"\.chart svg rect\.bar \{ fill: var\(--tone\)",
        r"\.chart svg rect\.segment \{ fill: var\(--tone\)",
        r"\.swatch \{ background: var\(--tone\)",
    ):
        assert re.search(rule, CSS), rule  # fmt: skip
