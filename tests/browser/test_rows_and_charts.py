"""The rows view on Search and Review, and the Overview's charts in the dark theme, in real
Chromium."""

from __future__ import annotations

import pytest

from foundation.actors import Actor
from tests.factories import MemoryFactory

from .conftest import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ROWS = "document.querySelectorAll('#results article.row').length"
CARDS = "document.querySelectorAll('#results article.card').length"
PRESSED = "document.querySelector('.view-toggle button[value=rows]').getAttribute('aria-pressed')"


@pytest.fixture
def store(owner, make_token):
    me = Actor.owner(owner)
    cursor = Actor.agent(make_token("cursor")[0])
    MemoryFactory(actor=me, content="The preferred editor is Helix.")
    MemoryFactory(actor=cursor, content="Cursor's editor settings sync nightly.", trust="inferred")
    MemoryFactory(
        actor=cursor, content="The infra repo pins Terraform.", kind="fact",
        scope_type="project", scope_key="github:ada/infra", trust="inferred",
    )  # fmt: skip


def test_rows_on_search_follow_the_live_search_and_are_remembered(page, store, shoot):
    sign_in(page)
    page.goto("/search/")
    page.wait_for_function(f"{CARDS} === 3")
    page.get_by_label("Search memories").press_sequentially("editor", delay=30)
    page.wait_for_function(f"{CARDS} === 2")
    page.get_by_role("button", name="Rows").click()
    page.wait_for_function(f"{PRESSED} === 'true' && {ROWS} === 2 && {CARDS} === 0")
    assert "q=editor" in page.url  # the toggle kept the search the address shows
    assert page.locator("#results article.row .row-content mark").first.inner_text() == "editor"
    assert page.locator("#results article.row input[type=checkbox][name=ids]").count() == 2
    shoot(page, "90-search-rows")
    page.get_by_label("Search memories").fill("")
    page.get_by_label("Search memories").press_sequentially("Terraform", delay=30)
    page.wait_for_function(f"{ROWS} === 1")  # new results are rows too
    row = page.locator("#results article.row").first
    row.locator(".row-content").click()  # the full card opens in its place
    page.wait_for_function(f"{CARDS} === 1 && {ROWS} === 0")
    assert page.locator("#results article.card").get_by_role("button", name="Confirm").is_visible()
    page.goto("/search/?q=editor")  # remembered on the server
    page.wait_for_function(f"{ROWS} === 2")


def test_reviews_memory_sections_show_rows_once_picked(page, store, shoot):
    sign_in(page)
    page.goto("/review/")
    section = page.locator("section", has=page.locator("#inferred-title"))
    assert section.locator("article.card").count() == 2
    page.get_by_role("button", name="Rows").click()
    page.wait_for_function(
        f"{PRESSED} === 'true' && document.querySelectorAll('#main section article.row').length === 2"
    )
    assert section.locator("article.card").count() == 0
    assert page.url.endswith("/review/")
    shoot(page, "92-review-rows")


def test_the_overview_charts_take_the_dark_themes_colours(chromium, live_server, store, shoot):
    context = chromium.new_context(
        base_url=live_server.url, color_scheme="dark", viewport={"width": 1280, "height": 900}
    )
    try:
        page = context.new_page()
        sign_in(page)
        page.goto("/overview/")
        painted = page.evaluate(
            """() => {
              const style = (selector, property) =>
                getComputedStyle(document.querySelector(selector))[property];
              return {
                text: style('.chart svg text', 'fill'),
                bar: style('.chart svg rect.bar.tone-1', 'fill'),
                inferred: style('.chart svg rect.bar.tone-inferred', 'fill'),
                segment: style('.chart svg rect.segment', 'fill'),
                swatch: style('.legend .swatch', 'backgroundColor'),
                card: style('.chart', 'backgroundColor'),
              };
            }"""
        )
        shoot(page, "91-overview-dark")
    finally:
        context.close()
    assert painted["card"] == "rgb(26, 32, 41)"  # the dark card
    assert painted["text"] == "rgb(230, 233, 237)"  # --ink of the dark set, not #1b1f24
    assert painted["bar"] == "rgb(86, 180, 233)"  # --chart-1 of the dark set
    assert painted["inferred"] == "rgb(240, 195, 109)"
    assert painted["segment"] == painted["swatch"] != "rgba(0, 0, 0, 0)"
