"""The rows view: one line per memory (text first, then trust, scope, agent, visibility,
updated time); the owner's choice between cards and rows is saved on the server, per owner,
and the toggle works with htmx and as a plain form, on every memory list (the tabs,
Projects, Search and Review's memory sections)."""

from __future__ import annotations

import pytest

from dashboard.models import DashboardPreference

from .conftest import DashboardClient, imported, remember

pytestmark = pytest.mark.django_db


def _rows(html: str) -> list[str]:
    return html.split('<article class="row ')[1:]


def test_lists_show_cards_until_the_owner_picks_rows(browser, world):
    html = browser.get("/recent/").content.decode()
    assert '<article class="card ' in html and not _rows(html)
    assert 'value="cards" aria-pressed="true"' in html


def test_picking_rows_without_javascript_saves_it_and_redirects_back(browser, world, owner):
    response = browser.post("/view/", {"view": "rows", "next": "/recent/"})
    assert response.status_code == 302 and response["Location"] == "/recent/"
    assert DashboardPreference.objects.get(owner=owner).memory_view == "rows"
    html = browser.get("/recent/").content.decode()
    assert _rows(html) and '<article class="card ' not in html
    assert 'value="rows" aria-pressed="true"' in html


def test_picking_rows_over_htmx_answers_with_a_location_swapped_into_main(browser, world):
    response = browser.post("/view/", {"view": "rows", "next": "/archive/"}, htmx=True)
    assert response.status_code == 200
    location = response.headers["HX-Location"]
    assert '"path": "/archive/"' in location and '"target": "#main"' in location
    assert _rows(browser.hx_get("/archive/").content.decode())


def test_a_row_puts_the_text_first_then_trust_scope_agent_visibility_and_time(browser, world):
    browser.post("/view/", {"view": "rows", "next": "/"})
    html = browser.get("/projects/?project=github:ada/api")
    row = _rows(html.content.decode())[0]
    order = [
        row.index("The api service deploys with Kubernetes."),
        row.index("</span>inferred"), row.index("github:ada/api"), row.index("claude-code"),
        row.index(">shared<"), row.index("<time"),
    ]  # fmt: skip
    assert order == sorted(order)
    assert f'hx-get="/m/{world.inferred.pk}/"' in row  # opens the full card in place


def test_the_choice_is_per_owner(browser, world, other_owner):
    browser.post("/view/", {"view": "rows", "next": "/"})
    stranger = DashboardClient(other_owner)
    imported(other_owner, 2)
    html = stranger.get("/recent/").content.decode()
    assert '<article class="card ' in html and not _rows(html)


def test_the_next_page_of_rows_is_rows_too(browser, owner):
    imported(owner, 30)
    browser.post("/view/", {"view": "rows", "next": "/recent/"})
    page = browser.get("/recent/").content.decode()
    cursor = page.split("cursor=", 1)[1].split("&", 1)[0].split('"', 1)[0]
    more = browser.hx_get(f"/recent/?cursor={cursor}&fragment=page").content.decode()
    assert _rows(more) and '<article class="card ' not in more


def test_rows_keep_the_bulk_checkboxes(browser, world):
    browser.post("/view/", {"view": "rows", "next": "/"})
    row = _rows(browser.get("/").content.decode())[0]
    assert 'type="checkbox" name="ids"' in row and 'form="bulk-core"' in row


def test_an_unknown_view_is_refused_and_changes_nothing(browser, world, owner):
    response = browser.post("/view/", {"view": "tiles", "next": "/"}, htmx=True)
    assert response.status_code == 400 and "cards or rows" in response.content.decode()
    response = browser.post("/view/", {"view": "tiles", "next": "/"})
    assert response.status_code == 302
    assert not DashboardPreference.objects.filter(owner=owner).exists()


def test_signed_out_the_toggle_asks_to_sign_in(anonymous):
    response = anonymous.post("/view/", {"view": "rows"})
    assert response.status_code == 302 and "/signin/" in response["Location"]


def test_search_shows_the_toggle_and_rows_once_the_owner_picked_rows(browser, world):
    html = browser.get("/search/?q=editor").content.decode()
    assert 'class="view-toggle"' in html and '<article class="card ' in html
    browser.post("/view/", {"view": "rows", "next": "/search/?q=editor"})
    html = browser.get("/search/?q=editor").content.decode()
    rows = _rows(html)
    assert len(rows) == 2 and '<article class="card ' not in html
    assert "<mark>editor</mark>" in rows[0] and 'form="bulk-search"' in rows[0]
    assert 'value="rows" aria-pressed="true"' in html


def test_the_live_results_and_the_next_page_of_search_are_rows_too(browser, owner):
    imported(owner, 30, text="Imported observation number {n}.")
    browser.post("/view/", {"view": "rows", "next": "/search/"})
    live = browser.get(
        "/search/?q=observation", headers={"HX-Request": "true", "HX-Target": "results"}
    )
    live = live.content.decode()
    assert "<html" not in live and _rows(live) and '<article class="card ' not in live
    cursor = live.split("cursor=", 1)[1].split("&", 1)[0].split('"', 1)[0]
    more = browser.hx_get(f"/search/?q=observation&cursor={cursor}&fragment=page")
    assert _rows(more.content.decode()) and '<article class="card ' not in more.content.decode()


def test_a_row_is_one_line_even_when_the_memory_has_several(browser, owner):
    imported(owner, 1, text="First line of the note.\nSecond line of the note.")
    browser.post("/view/", {"view": "rows", "next": "/search/"})
    row = _rows(browser.get("/search/?q=line").content.decode())[0]
    anchor = row.split('class="row-content"', 1)[1].split("</a>", 1)[0]
    assert "<br>" not in anchor and "<mark>line</mark> of the note. Second" in anchor


def test_reviews_memory_sections_follow_the_owners_view(browser, world):
    html = browser.get("/review/").content.decode()
    assert 'class="view-toggle"' in html and not _rows(html)
    browser.post("/view/", {"view": "rows", "next": "/review/"})
    html = browser.get("/review/").content.decode()
    rows = "".join(_rows(html))
    assert "The api service deploys with Kubernetes." in rows  # awaiting confirmation
    assert "The preferred editor is VS Code." in rows  # disputed
    assert "The preferred editor is Helix." in rows  # what it contradicts
    assert 'form="bulk-review-inferred"' in rows and 'form="bulk-review-disputed"' in rows
    assert '<article class="card ' not in html


def test_a_reviews_section_next_page_is_rows_too(browser, owner, agent_actor):
    for n in range(20):
        remember(agent_actor, f"Inferred habit number {n}.", kind="fact", trust="inferred")
    browser.post("/view/", {"view": "rows", "next": "/review/"})
    page = browser.get("/review/").content.decode()
    cursor = page.split("section=inferred&cursor=", 1)[1].split('"', 1)[0].split("&", 1)[0]
    more = browser.hx_get(f"/review/?section=inferred&cursor={cursor}&fragment=inferred-page")
    html = more.content.decode()
    assert _rows(html) and '<article class="card ' not in html and "<html" not in html


def test_the_toggle_over_htmx_returns_to_the_address_the_page_shows_now(browser, world):
    # Live search pushed ?q=editor to the address after the toggle's `next` was rendered.
    response = browser.post(
        "/view/", {"view": "rows", "next": "/search/"}, htmx=True,
        headers={"HX-Current-URL": "http://testserver/search/?q=editor"},
    )  # fmt: skip
    assert '"path": "/search/?q=editor"' in response.headers["HX-Location"]


def test_the_toggle_never_sends_htmx_to_another_site(browser, world):
    response = browser.post(
        "/view/", {"view": "rows", "next": "/search/"}, htmx=True,
        headers={"HX-Current-URL": "https://evil.example/search/"},
    )  # fmt: skip
    assert '"path": "/search/"' in response.headers["HX-Location"]
