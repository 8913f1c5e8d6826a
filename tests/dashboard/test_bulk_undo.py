"""Undo after a bulk action: the outcome offers "Undo all", which takes each item back
through the same undo service; an item that changed since is refused and left alone. A
bulk delete offers none."""

from __future__ import annotations

import re

import pytest

from memories.models import Memory

from .conftest import remember

pytestmark = pytest.mark.django_db


@pytest.fixture
def inferred(agent_actor):
    texts = ["The web app deploys on Mondays.", "The web app logs to Loki.",
             "The web app is written in Elm."]  # fmt: skip
    return [remember(agent_actor, text, kind="fact", trust="inferred") for text in texts]


def _act(client, action, memories, htmx=True, **fields):
    data = {"list": "recent", "action": action, "scope": "selected",
            "ids": [str(m.pk) for m in memories], **fields}  # fmt: skip
    return client.post("/bulk/", data, htmx=htmx)


def _pairs(html: str) -> list[str]:
    return re.findall(r'name="undo" value="([^"]+)"', html)


def _undo(client, pairs, htmx=True, **fields):
    return client.post("/bulk/undo/", {"list": "recent", "undo": pairs, **fields}, htmx=htmx)


def test_undo_all_after_a_bulk_confirm_brings_back_each_trust(browser, inferred):
    html = _act(browser, "confirm", inferred).content.decode()
    pairs = _pairs(html)
    assert len(pairs) == 3 and "Undo all" in html
    response = _undo(browser, pairs)
    assert response.status_code == 200 and "Undone: 3 done, 0 refused" in response.content.decode()
    assert "bulk-done-recent" in response.headers["HX-Trigger"]
    assert set(
        Memory.objects.filter(pk__in=[m.pk for m in inferred]).values_list("trust", flat=True)
    ) == {"inferred"}


def test_undo_all_after_a_bulk_archive_restores_them(browser, inferred):
    pairs = _pairs(_act(browser, "archive", inferred).content.decode())
    _undo(browser, pairs)
    assert not Memory.objects.filter(pk__in=[m.pk for m in inferred], status="archived").exists()


def test_an_item_changed_since_is_refused_and_the_rest_undone(browser, inferred):
    pairs = _pairs(_act(browser, "archive", inferred).content.decode())
    browser.post(f"/m/{inferred[0].pk}/restore/", htmx=True)
    browser.post(f"/m/{inferred[0].pk}/lock/", htmx=True)
    html = _undo(browser, pairs).content.decode()
    assert "Undone: 2 done, 1 refused" in html and "The web app deploys on Mondays." in html
    first = Memory.objects.get(pk=inferred[0].pk)
    assert first.status == "active" and first.trust == "locked"
    assert Memory.objects.get(pk=inferred[1].pk).status == "active"


def test_a_bulk_delete_offers_no_undo(browser, inferred):
    html = _act(browser, "delete", inferred, confirm="yes").content.decode()
    assert "Deleted: 3 done" in html and "Undo" not in html


def test_without_javascript_the_page_offers_undo_all_once(browser, inferred):
    response = _act(browser, "lock", inferred, htmx=False, next="/recent/")
    assert response.status_code == 302
    page = browser.get("/recent/").content.decode()
    pairs = _pairs(page)
    assert len(pairs) == 3 and 'action="/bulk/undo/"' in page
    assert not _pairs(browser.get("/recent/").content.decode())
    response = _undo(browser, pairs, htmx=False, next="/recent/")
    assert response.status_code == 302 and response["Location"] == "/recent/"
    assert not Memory.objects.filter(pk__in=[m.pk for m in inferred], trust="locked").exists()


def test_bad_undo_input_is_refused_without_a_500(browser, inferred):
    assert _undo(browser, []).status_code == 400
    response = _undo(browser, [f"{inferred[0].pk}:nope", "not-a-uuid:3"])
    html = response.content.decode()
    assert response.status_code == 200 and "0 done, 1 refused, 1 not found" in html
    response = browser.post("/bulk/undo/", {"list": "review-proposals", "undo": ["1:1"]}, htmx=True)
    assert response.status_code == 400
    assert Memory.objects.filter(pk=inferred[0].pk, trust="inferred").exists()
