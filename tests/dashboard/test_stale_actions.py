"""A card whose memory changed after the page was drawn (a dispute settled beside it, the
same memory acted on in another card or tab) cannot act on the state it shows: its forms
carry that state, the action is refused with 409 and a clear message in place of the card,
which is drawn again as the memory stands, and nothing changes."""

from __future__ import annotations

import re

import pytest

from foundation.actors import Actor
from foundation.errors import ErrorCode, ServiceError
from memories.models import Memory
from memories.services.undo import memory_act

pytestmark = pytest.mark.django_db


def _state_on(html: str, memory, action: str) -> str:
    """The state the card's `action` form carries on a page."""
    found = re.search(
        rf'action="/m/{memory.pk}/{action}/".*?name="state" value="([^"]+)"', html, re.S
    )
    assert found, html
    return found.group(1)


def test_every_action_form_carries_the_state_its_card_shows(browser, world):
    html = browser.get("/review/").content.decode()
    state = _state_on(html, world.editor, "archive")
    assert state == f"{world.editor.version}.active.confirmed"
    assert _state_on(html, world.disputed, "confirm") == world.disputed.shown_state


def test_the_contradicted_card_cannot_act_once_the_dispute_is_settled(browser, world):
    page = browser.get("/review/").content.decode()
    stale = _state_on(page, world.editor, "archive")
    settled = browser.post(
        f"/m/{world.disputed.pk}/confirm/",
        {"state": _state_on(page, world.disputed, "confirm")}, htmx=True,
    )  # fmt: skip
    assert settled.status_code == 200
    assert Memory.objects.get(pk=world.editor.pk).status == "superseded"
    response = browser.post(f"/m/{world.editor.pk}/archive/", {"state": stale}, htmx=True)
    html = response.content.decode()
    assert response.status_code == 409 and "<html" not in html
    assert html.lstrip().startswith('<article class="card trust-confirmed status-superseded"')
    assert "changed since the page showed it: it is now confirmed and superseded" in html
    assert 'role="alert"' in html and f'action="/m/{world.editor.pk}/restore/"' in html
    assert Memory.objects.get(pk=world.editor.pk).status == "superseded"  # not archived


def test_the_same_memory_acted_on_elsewhere_leaves_this_card_unable_to_act(browser, world):
    page = browser.get("/search/?q=Kubernetes").content.decode()
    stale = _state_on(page, world.inferred, "confirm")
    browser.post(f"/m/{world.inferred.pk}/lock/", {"state": stale}, htmx=True)  # another card
    response = browser.post(f"/m/{world.inferred.pk}/confirm/", {"state": stale}, htmx=True)
    assert response.status_code == 409
    assert Memory.objects.get(pk=world.inferred.pk).trust == "locked"
    fresh = _state_on(response.content.decode(), world.inferred, "archive")
    response = browser.post(f"/m/{world.inferred.pk}/archive/", {"state": fresh}, htmx=True)
    assert response.status_code == 200
    assert Memory.objects.get(pk=world.inferred.pk).status == "archived"


def test_without_javascript_a_stale_form_is_refused_with_a_message_on_the_page(browser, world):
    stale = _state_on(browser.get("/review/").content.decode(), world.editor, "archive")
    browser.post(f"/m/{world.disputed.pk}/confirm/", {"next": "/review/"})
    response = browser.post(
        f"/m/{world.editor.pk}/archive/", {"state": stale, "next": "/search/?q=editor"}
    )
    assert response.status_code == 302 and response["Location"] == "/search/?q=editor"
    html = browser.get("/search/?q=editor").content.decode()
    assert "changed since the page showed it" in html
    assert Memory.objects.get(pk=world.editor.pk).status == "superseded"


def test_the_service_compares_the_state_and_leaves_the_memory_as_it_is(owner, world):
    me = Actor.owner(owner)
    with pytest.raises(ServiceError) as refused:
        memory_act(actor=me, memory_id=world.inferred.pk, action="archive",
                   expected_state="1.active.confirmed")  # fmt: skip
    assert refused.value.code == ErrorCode.CONFLICT
    assert Memory.objects.get(pk=world.inferred.pk).status == "active"
    memory, event = memory_act(
        actor=me, memory_id=world.inferred.pk, action="archive",
        expected_state=world.inferred.shown_state,
    )  # fmt: skip
    assert memory.status == "archived" and event is not None


def test_an_action_without_a_state_still_acts_as_before(browser, world):
    response = browser.post(f"/m/{world.inferred.pk}/confirm/", htmx=True)
    assert response.status_code == 200
    assert Memory.objects.get(pk=world.inferred.pk).trust == "confirmed"


def test_the_refusal_reads_in_chinese(browser, world):
    stale = _state_on(browser.get("/review/").content.decode(), world.editor, "archive")
    browser.post(f"/m/{world.disputed.pk}/confirm/", htmx=True)
    response = browser.post(
        f"/m/{world.editor.pk}/archive/", {"state": stale}, htmx=True,
        headers={"Accept-Language": "zh-hans"},
    )  # fmt: skip
    html = response.content.decode()
    assert response.status_code == 409
    assert "页面显示之后这条记忆已有更改：现为 已确认、已被取代。" in html
