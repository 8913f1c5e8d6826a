"""Cards beside the one that answered, in real Chromium: settling a dispute on Review
redraws the memory it contradicted in place (cards and rows), and a card left stale by a
change made elsewhere refuses its action in place, drawn again as the memory stands."""

from __future__ import annotations

import pytest

from dashboard.preferences import memory_view_set
from foundation.actors import Actor
from memories.models import Memory
from memories.services import memory_lock
from tests.factories import MemoryFactory

from .conftest import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def dispute(owner, make_token):
    agent = Actor.agent(make_token("claude-code")[0])
    mine = MemoryFactory(actor=Actor.owner(owner), content="The preferred editor is Helix.",
                         key="editor")  # fmt: skip
    theirs = MemoryFactory(actor=agent, content="The preferred editor is VS Code.", key="editor")
    return mine, theirs


@pytest.mark.parametrize("view", ["cards", "rows"])
def test_settling_a_dispute_redraws_the_contradicted_memory_beside_it(
    page, owner, dispute, view, shoot
):
    mine, theirs = dispute
    memory_view_set(actor=Actor.owner(owner), view=view)
    sign_in(page)
    page.goto("/review/")
    beside = page.locator(f".versus #m-{mine.pk}.status-active")
    beside.wait_for()
    if view == "rows":  # a row opens its card in place first
        page.locator(f"#m-{theirs.pk} .row-content").click()
    page.locator(f"article.card#m-{theirs.pk}").get_by_role("button", name="Confirm").click()
    page.locator(f"#m-{theirs.pk}.trust-confirmed .undo-offer").wait_for()
    # the memory it contradicted is superseded now, and its card (or row) says so itself
    redrawn = page.locator(f".versus #m-{mine.pk}.status-superseded")
    redrawn.wait_for()
    assert redrawn.evaluate("e => e.classList.contains('row')") == (view == "rows")
    if view == "cards":
        assert redrawn.get_by_role("button", name="Restore").is_visible()
        assert redrawn.get_by_role("button", name="Archive").count() == 0
    shoot(page, f"93-dispute-settled-{view}")
    assert Memory.objects.get(pk=mine.pk).status == "superseded"


def test_a_card_changed_elsewhere_refuses_in_place_and_shows_the_memory_now(page, owner):
    note = MemoryFactory(actor=Actor.owner(owner), content="Releases go out on Tuesdays.")
    sign_in(page)
    page.goto("/recent/")
    card = page.locator(f"#m-{note.pk}.trust-confirmed")
    card.wait_for()
    memory_lock(actor=Actor.owner(owner), memory_id=note.pk)  # another tab, say
    card.get_by_role("button", name="Archive").click()
    refused = page.locator(f"#m-{note.pk}.trust-locked")
    refused.wait_for()
    alert = refused.get_by_role("alert")
    assert "changed since the page showed it: it is now locked and active" in alert.inner_text()
    assert page.locator("h1", has_text="Recent").count() == 1  # the page, not a new one
    assert Memory.objects.get(pk=note.pk).status == "active"
    refused.get_by_role("button", name="Archive").click()  # the redrawn card acts
    page.locator(f"#m-{note.pk}.status-archived .undo-offer").wait_for()
