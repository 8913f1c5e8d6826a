"""The one htmx answer (foundation.htmx): a page without the HX-Request header, a fragment
with it; errors keep their real status codes (htmx is configured once, in the base
template, to swap them); and one `counts-changed` event, after which the tab bar re-fetches
the counts from the one counts endpoint instead of each view sending them."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from foundation.actors import Actor
from memories.services import memory_remember
from tests.htmx import announces_counts_changed, tab_counts

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]


def test_a_list_page_is_a_page_without_htmx_and_its_next_page_fragment_with_it(browser, world):
    plain = browser.get("/", {"fragment": "page"})
    assert (
        plain.status_code == 200 and b"<html" in plain.content and b'class="tabs"' in plain.content
    )
    fragment = browser.hx_get("/", {"fragment": "page"})
    assert fragment.status_code == 200 and b"<html" not in fragment.content
    assert b'<article class="card' in fragment.content


def test_a_refusal_is_a_page_without_htmx_and_a_message_with_it(browser, world):
    plain = browser.get("/recent/", {"cursor": "bad"})
    assert (
        plain.status_code == 400 and b"<html" in plain.content and b'class="tabs"' in plain.content
    )
    fragment = browser.hx_get("/recent/", {"cursor": "bad"})
    assert fragment.status_code == 400 and b"<html" not in fragment.content
    assert b'role="alert"' in fragment.content and b"cursor is not valid" in fragment.content


def test_an_action_announces_counts_changed_only_to_htmx(browser, world):
    with_htmx = browser.post(f"/m/{world.inferred.pk}/archive/", htmx=True)
    assert with_htmx.status_code == 200 and announces_counts_changed(with_htmx)
    assert json.loads(with_htmx["HX-Trigger"]) == {"counts-changed": {}}
    plain = browser.post(f"/m/{world.editor.pk}/archive/", {"next": "/archive/"})
    assert plain.status_code == 302 and "HX-Trigger" not in plain.headers


def test_a_refused_action_keeps_its_real_status_for_htmx(browser, world, owner):
    memory_remember(
        actor=Actor.owner(owner), content="Old habit: tabs for indentation.", kind="preference"
    )
    refused = browser.post(f"/m/{world.archived.pk}/restore/", htmx=True)
    assert refused.status_code == 409 and b"<html" not in refused.content
    assert (
        b'role="alert"' in refused.content
        and f'id="m-{world.archived.pk}"'.encode() in refused.content
    )


def test_the_counts_endpoint_sends_every_tab_count_out_of_band(browser, world):
    assert tab_counts(browser) == {
        "core": 2, "projects": 1, "review": 2, "archive": 1, "tokens": 1, "handoffs": 0, "inbox": 0,
    }  # fmt: skip
    browser.post(f"/m/{world.inferred.pk}/confirm/", htmx=True)
    assert tab_counts(browser)["review"] == 1


def test_the_counts_endpoint_is_for_the_signed_in_owner_only(anonymous, world):
    response = anonymous.get("/counts/", headers={"HX-Request": "true"})
    # htmx is told to send the browser to sign in (tests/dashboard/test_error_pages.py)
    assert response.status_code == 200 and response.content == b""
    assert response["HX-Redirect"].startswith("/signin/")


def test_the_tab_bar_refetches_its_counts_on_the_event(browser, world):
    html = browser.get("/").content.decode()
    nav = html.split('<nav class="tabs"', 1)[1].split(">", 1)[0]
    assert 'hx-get="/counts/"' in nav and 'hx-trigger="counts-changed from:body"' in nav
    assert 'hx-swap="none"' in nav  # the answer's spans swap in by id, out of band


def test_htmx_is_configured_once_to_swap_error_answers(browser, world):
    html = browser.get("/").content.decode()
    configs = re.findall(r'<meta name="htmx-config" content=\'([^\']+)\'>', html)
    assert len(configs) == 1
    rules = json.loads(configs[0])["responseHandling"]
    four = next(rule for rule in rules if re.fullmatch(rule["code"], "409"))
    assert four["swap"] is True
    assert next(rule for rule in rules if re.fullmatch(rule["code"], "200"))["swap"] is True


def test_only_the_counts_endpoint_renders_the_counts():
    sources = [
        path
        for package in ("dashboard", "capture", "handoff", "injection", "accounts", "foundation")
        for path in (ROOT / package).rglob("*.py")
        if "_counts.html" in path.read_text(encoding="utf-8")
    ]
    assert [str(path.relative_to(ROOT)) for path in sources] == ["dashboard/views/counts.py"]
