"""Overview charts: server-rendered SVG of the owner's own memories and writes."""

from __future__ import annotations

import re

import pytest

from foundation.actors import Actor

from .conftest import DashboardClient, remember

pytestmark = pytest.mark.django_db


def test_overview_draws_kinds_trust_and_writes_per_agent(browser, world):
    html = browser.get("/overview/").content.decode()
    assert html.count("<svg") == 3 and html.count('role="group"') == 3
    assert "<title>preference: 4</title>" in html  # locked, confirmed, disputed, archived
    assert "<title>fact: 1</title>" in html
    assert (
        "<title>locked: 1</title>" in html and "<title>inferred: 2</title>" in html
    )  # the dispute and the project note
    assert "claude-code: 2</title>" in html  # the dispute and the inferred note, today
    assert "Memories by kind (5 in all)" in html


def test_the_charts_paint_with_the_themes_tones_not_colours_of_their_own(browser, world):
    html = browser.get("/overview/").content.decode()
    charts = html.split('<div class="charts">', 1)[1]
    assert re.findall(r'(?:fill|stroke)="#|style="background', charts) == []
    assert 'class="bar tone-1"' in charts and 'class="bar tone-locked"' in charts
    assert 'class="segment tone-1"' in charts and '<span class="swatch tone-1">' in charts


def test_overview_counts_only_the_owners_memories(world, other_owner):
    remember(Actor.owner(other_owner), "Grace keeps notes in org-mode.")
    html = DashboardClient(other_owner).get("/overview/").content.decode()
    assert "Memories by kind (1 in all)" in html and "claude-code" not in html


def test_an_empty_store_draws_empty_charts(browser):
    html = browser.get("/overview/").content.decode()
    assert "No writes in this period." in html


def bar_links(html: str) -> dict[str, str]:
    """Each chart link's accessible name → where it goes."""
    found = re.findall(r'<a href="([^"]+)" aria-label="([^"]+)">', html)
    return {name: href.replace("&amp;", "&") for href, name in found}


def matching(browser, href: str) -> int:
    html = browser.get(href).content.decode()
    found = re.search(r"(\d+) memor(?:y matches|ies match)\.", html)
    assert found, f"no result count at {href}"
    return int(found.group(1))


def test_every_kind_and_trust_bar_opens_search_filtered_to_what_it_counts(browser, world):
    links = bar_links(browser.get("/overview/").content.decode())
    assert links["fact: 1"] == "/search/?kind=fact"
    assert links["inferred: 2"] == "/search/?trust=inferred"
    for name in ("preference: 4", "fact: 1", "decision: 0", "locked: 1", "inferred: 2"):
        assert matching(browser, links[name]) == int(name.split(": ")[1]), name


def test_a_write_segment_opens_that_agents_activity(browser, world):
    links = bar_links(browser.get("/overview/").content.decode())
    agent = next(href for name, href in links.items() if "claude-code: 2" in name)
    you = next(href for name, href in links.items() if "you:" in name)
    assert agent == "/activity/?agent=claude-code" and you == "/activity/?agent=owner"


def test_the_headline_totals_link_to_the_lists_they_count(browser, world):
    html = browser.get("/overview/").content.decode()
    headline = html.split('<ul class="headline"', 1)[1].split("</ul>", 1)[0]
    items = re.findall(r'<a href="([^"]+)"><strong>(\d+)</strong> ([^<]+)</a>', headline)
    by_label = {label: (href.replace("&amp;", "&"), int(n)) for href, n, label in items}
    assert by_label["memories in all"] == ("/search/", 5)
    assert by_label["confirmed or locked"][1] == 3 and by_label["written by you"][1] == 3
    for label in ("memories in all", "confirmed or locked", "inferred, to confirm",
                  "written by you"):  # fmt: skip
        href, n = by_label[label]
        assert matching(browser, href) == n, label
    assert "<strong>2</strong> written by agents" in headline
