"""An expired session in real Chromium: an htmx action (or a plain form post, JavaScript
off) lands on the sign-in page as a page of its own, never pasted into the card, and
signing in brings the owner back to the page they were on, with nothing done meanwhile."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
from django.contrib.sessions.models import Session

from foundation.actors import Actor
from memories.models import Memory
from tests.factories import MemoryFactory

from .conftest import PASSWORD, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PAGE = "/search/?q=editor"


@pytest.fixture
def note(owner):
    return MemoryFactory(actor=Actor.owner(owner), content="The preferred editor is Helix.")


def expire(page, how: str) -> None:
    if how == "session cookie cleared":
        page.context.clear_cookies(name="sessionid")
    elif how == "every cookie cleared":  # the CSRF cookie goes too
        page.context.clear_cookies()
    else:  # the session ended on the server
        Session.objects.all().delete()


def sign_in_here(page) -> None:
    page.get_by_label("Username").fill("ada")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()


def landed_on_sign_in(page) -> str:
    """The `next` the sign-in page was reached with."""
    page.wait_for_url("**/signin/?*")
    page.get_by_role("heading", name="Sign in").wait_for()
    return parse_qs(urlsplit(page.url).query)["next"][0]


@pytest.mark.parametrize(
    "how", ["session cookie cleared", "every cookie cleared", "session ended on the server"]
)
def test_an_htmx_action_after_expiry_signs_in_and_returns_to_the_page(page, note, how, shoot):
    sign_in(page)
    page.goto(PAGE)
    card = page.locator(f"#m-{note.pk}.status-active")
    card.wait_for()
    expire(page, how)
    card.get_by_role("button", name="Archive").click()
    assert landed_on_sign_in(page) == PAGE
    assert page.locator("article.card").count() == 0  # the page, not a card holding it
    shoot(page, "80-expired-sign-in")
    sign_in_here(page)
    page.wait_for_url(f"**{PAGE}")
    page.locator(f"#m-{note.pk}.status-active").wait_for()
    assert page.get_by_label("Search memories").input_value() == "editor"
    assert Memory.objects.get(pk=note.pk).status == "active"  # the archive was not done


def test_a_live_search_after_expiry_signs_in_and_returns_to_the_search(page, note):
    sign_in(page)
    page.goto("/search/")
    expire(page, "session cookie cleared")
    page.get_by_label("Search memories").press_sequentially("Helix", delay=30)
    assert landed_on_sign_in(page) == "/search/"  # the address before the query was pushed
    sign_in_here(page)
    page.wait_for_url("**/search/*")
    assert page.locator("h1", has_text="Search").count() == 1


def test_without_javascript_a_post_after_expiry_signs_in_and_returns(chromium, live_server, note):
    context = chromium.new_context(base_url=live_server.url, java_script_enabled=False)
    try:
        page = context.new_page()
        sign_in(page)
        page.goto(PAGE)
        expire(page, "session cookie cleared")
        page.locator(f"#m-{note.pk}").get_by_role("button", name="Archive").click()
        assert landed_on_sign_in(page) == PAGE
        sign_in_here(page)
        page.wait_for_url(f"**{PAGE}")
        assert page.locator(f"#m-{note.pk}.status-active").count() == 1
        assert Memory.objects.get(pk=note.pk).status == "active"
    finally:
        context.close()
