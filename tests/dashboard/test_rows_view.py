"""The rows view: one line per memory (text first, then trust, scope, agent, visibility,
updated time); the owner's choice between cards and rows is saved on the server, per owner,
and the toggle works with htmx and as a plain form."""

from __future__ import annotations

import pytest

from dashboard.models import DashboardPreference

from .conftest import DashboardClient, imported

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
