"""Overview charts: server-rendered SVG of the owner's own memories and writes."""

from __future__ import annotations

import pytest

from foundation.actors import Actor

from .conftest import DashboardClient, remember

pytestmark = pytest.mark.django_db


def test_overview_draws_kinds_trust_and_writes_per_agent(browser, world):
    html = browser.get("/overview/").content.decode()
    assert html.count("<svg") == 3 and 'role="img"' in html
    assert "<title>preference: 4</title>" in html  # locked, confirmed, disputed, archived
    assert "<title>fact: 1</title>" in html
    assert (
        "<title>locked: 1</title>" in html and "<title>inferred: 2</title>" in html
    )  # the dispute and the project note
    assert "claude-code: 2</title>" in html  # the dispute and the inferred note, today
    assert "Memories by kind (5 in all)" in html


def test_overview_counts_only_the_owners_memories(world, other_owner):
    remember(Actor.owner(other_owner), "Grace keeps notes in org-mode.")
    html = DashboardClient(other_owner).get("/overview/").content.decode()
    assert "Memories by kind (1 in all)" in html and "claude-code" not in html


def test_an_empty_store_draws_empty_charts(browser):
    html = browser.get("/overview/").content.decode()
    assert "No writes in this period." in html
