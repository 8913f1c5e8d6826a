"""Undo as plain form posts (JavaScript off) on every list that offers it, Search and Review
included: the page the action returns to offers the undo once, and the undo returns to
that same page, the memory back as it was."""

from __future__ import annotations

import re
from urllib.parse import quote

import pytest

from memories.models import Memory

pytestmark = pytest.mark.django_db

SEARCH = "/search/?q=editor&status=active"


def _single_offer(html: str) -> tuple[str, str, str]:
    """The Undo form a page offers: its action, event and next."""
    found = re.search(
        r'class="undo-offer".*?action="([^"]+)".*?name="event" value="(\d+)">'
        r'<input type="hidden" name="next" value="([^"]*)"',
        html, re.S,
    )  # fmt: skip
    assert found, html
    return found.group(1), found.group(2), found.group(3).replace("&amp;", "&")


def _bulk_offer(html: str) -> tuple[str, list[str], str]:
    found = re.search(r'class="undo-offer".*?name="list" value="([^"]+)"(.*?)</form>', html, re.S)
    assert found, html
    pairs = re.findall(r'name="undo" value="([^"]+)"', found.group(2))
    back = re.search(r'name="next" value="([^"]*)"', found.group(2)).group(1)
    return found.group(1), pairs, back.replace("&amp;", "&")


def test_an_archive_on_search_offers_its_undo_there_and_the_undo_returns_to_it(browser, world):
    response = browser.post(f"/m/{world.editor.pk}/archive/", {"next": SEARCH})
    assert response.status_code == 302 and response["Location"] == SEARCH
    page = browser.get(SEARCH).content.decode()
    action, event, back = _single_offer(page)
    assert action == f"/m/{world.editor.pk}/undo/" and back == SEARCH and "Archived." in page
    assert "undo-offer" not in browser.get(SEARCH).content.decode()  # once
    response = browser.post(action, {"event": event, "next": back})
    assert response.status_code == 302 and response["Location"] == SEARCH
    assert Memory.objects.get(pk=world.editor.pk).status == "active"
    assert "Undone." in browser.get(SEARCH).content.decode()


def test_a_confirm_on_review_is_undone_back_on_review(browser, world):
    response = browser.post(f"/m/{world.inferred.pk}/confirm/", {"next": "/review/"})
    assert response["Location"] == "/review/"
    action, event, back = _single_offer(browser.get("/review/").content.decode())
    response = browser.post(action, {"event": event, "next": back})
    assert response.status_code == 302 and response["Location"] == "/review/"
    assert Memory.objects.get(pk=world.inferred.pk).trust == "inferred"
    html = browser.get("/review/").content.decode()
    assert "Undone." in html and "The api service deploys with Kubernetes." in html


def test_a_bulk_archive_on_search_is_undone_back_on_search(browser, world):
    here = "/search/?status=active"
    ids = [str(world.editor.pk), str(world.inferred.pk)]
    data = {"list": "search", "action": "archive", "scope": "selected", "ids": ids, "next": here}
    assert browser.post("/bulk/", data)["Location"] == here
    assert Memory.objects.filter(pk__in=ids, status="archived").count() == 2
    name, pairs, back = _bulk_offer(browser.get(here).content.decode())
    assert name == "search" and len(pairs) == 2 and back == here
    response = browser.post("/bulk/undo/", {"list": name, "undo": pairs, "next": back})
    assert response.status_code == 302 and response["Location"] == here
    assert Memory.objects.filter(pk__in=ids, status="active").count() == 2
    assert "Undone: 2 done" in browser.get(here).content.decode()


def test_a_bulk_confirm_on_review_is_undone_back_on_review(browser, world):
    data = {
        "list": "review-inferred", "action": "confirm", "scope": "page",
        "page_ids": [str(world.inferred.pk)], "next": "/review/",
    }  # fmt: skip
    assert browser.post("/bulk/", data)["Location"] == "/review/"
    name, pairs, back = _bulk_offer(browser.get("/review/").content.decode())
    assert name == "review-inferred" and back == "/review/"
    response = browser.post("/bulk/undo/", {"list": name, "undo": pairs, "next": back})
    assert response["Location"] == "/review/"
    assert Memory.objects.get(pk=world.inferred.pk).trust == "inferred"


def test_from_a_row_the_card_page_acts_and_returns_to_search_with_the_undo(browser, world):
    browser.post("/view/", {"view": "rows", "next": SEARCH})
    row_link = f"/m/{world.editor.pk}/?next={quote(SEARCH)}"
    assert row_link.replace("&", "&amp;") in browser.get(SEARCH).content.decode()
    card_page = browser.get(row_link).content.decode()
    assert f'name="next" value="{SEARCH.replace("&", "&amp;")}"' in card_page
    response = browser.post(f"/m/{world.editor.pk}/archive/", {"next": SEARCH})
    assert response["Location"] == SEARCH
    action, event, back = _single_offer(browser.get(SEARCH).content.decode())
    assert browser.post(action, {"event": event, "next": back})["Location"] == SEARCH
    assert Memory.objects.get(pk=world.editor.pk).status == "active"


def test_an_undo_never_returns_to_another_site(browser, world):
    browser.post(f"/m/{world.editor.pk}/archive/", {"next": "/recent/"})
    action, event, _ = _single_offer(browser.get("/recent/").content.decode())
    response = browser.post(action, {"event": event, "next": "https://evil.example/"})
    assert response.status_code == 302 and response["Location"] == "/"
