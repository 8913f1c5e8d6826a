"""What the dashboard answers when an address leads nowhere, and to the favicon every
browser asks for (an expired session: test_expired_session.py)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


def test_an_unknown_address_gets_a_styled_page_with_the_way_back(browser):
    response = browser.get("/no/such/page/")
    html = response.content.decode()
    assert response.status_code == 404
    assert "<html" in html and "dashboard.css" in html and 'href="/"' in html
    assert "Nothing here" in html


def test_an_unknown_address_is_translated(browser):
    response = browser.get("/no/such/page/", headers={"Accept-Language": "zh-hans"})
    html = response.content.decode()
    assert response.status_code == 404 and 'lang="zh-hans"' in html and "这里什么都没有" in html


def test_an_htmx_request_for_something_gone_gets_one_line_not_a_page(browser, world):
    world.editor.delete()
    response = browser.post(f"/m/{world.editor.pk}/confirm/", htmx=True)
    html = response.content.decode()
    assert response.status_code == 404
    assert "<html" not in html and 'role="alert"' in html


def test_the_apis_keep_their_own_error_envelope(browser):
    for path in ("/api/v1/nope", "/api/owner/nope/"):
        response = browser.get(path)
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "NOT_FOUND"


def test_the_favicon_is_named_by_every_page_and_served(browser):
    page = browser.get("/").content.decode()
    assert 'rel="icon"' in page and "favicon.svg" in page
    response = browser.get("/favicon.ico")
    assert response.status_code == 301 and response["Location"].endswith("dashboard/favicon.svg")
