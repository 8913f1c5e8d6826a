"""Undo in real Chromium: a single action's Undo and a bulk action's "Undo all" put the
memory back as it was, which the page itself shows (the card's classes, badges and
buttons, and the lists it belongs to after a reload).

A card is swapped whole, so each step waits for the card in the state it expects
(`#m-<id>.trust-…`) rather than reading the old one while htmx replaces it."""

from __future__ import annotations

import pytest

from foundation.actors import Actor
from memories.models import Memory
from tests.factories import MemoryFactory

from .conftest import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def notes(owner, make_token):
    agent = Actor.agent(make_token("claude-code")[0])
    texts = ["The web app deploys on Mondays.", "The web app logs to Loki."]
    return [
        MemoryFactory(actor=agent, content=text, kind="fact", trust="inferred") for text in texts
    ]


def card_in(page, memory, state: str):
    """The memory's card once it shows `state` (a class such as `trust-inferred`)."""
    found = page.locator(f"#m-{memory.pk}.{state}")
    found.wait_for()
    return found


def test_undo_of_a_confirm_on_review_brings_back_the_inferred_card(page, notes, shoot):
    note = notes[0]
    sign_in(page)
    page.goto("/review/")
    card = card_in(page, note, "trust-inferred")
    assert card.locator(".badge.trust").inner_text() == "inferred"
    card.get_by_role("button", name="Confirm", exact=True).click()
    card = card_in(page, note, "trust-confirmed")
    card.locator(".undo-offer", has_text="Confirmed.").wait_for()
    assert card.locator(".badge.trust").inner_text() == "confirmed"
    card.locator(".undo-offer").get_by_role("button", name="Undo").click()
    card = card_in(page, note, "trust-inferred")
    card.locator(".notice", has_text="Undone.").wait_for()
    assert card.locator(".undo-offer").count() == 0
    assert card.locator(".badge.trust").inner_text() == "inferred"
    assert card.get_by_role("button", name="Confirm", exact=True).is_visible()
    shoot(page, "70-undo-single")
    page.reload()  # still awaiting confirmation, as before the confirm
    section = page.locator("section", has=page.locator("#inferred-title"))
    assert section.locator(f"#m-{note.pk}.trust-inferred").count() == 1
    assert Memory.objects.get(pk=note.pk).trust == "inferred"


def test_undo_of_an_archive_puts_the_card_back_in_recent(page, notes):
    note = notes[1]
    sign_in(page)
    page.goto("/recent/")
    card_in(page, note, "status-active").get_by_role("button", name="Archive").click()
    card = card_in(page, note, "status-archived")
    card.locator(".undo-offer", has_text="Archived.").wait_for()
    assert card.get_by_role("button", name="Restore").is_visible()
    card.locator(".undo-offer").get_by_role("button", name="Undo").click()
    card = card_in(page, note, "status-active")
    card.locator(".notice", has_text="Undone.").wait_for()
    assert card.get_by_role("button", name="Archive").is_visible()
    page.goto("/archive/")
    assert page.locator(f"#m-{note.pk}").count() == 0
    page.goto("/recent/")
    assert page.locator(f"#m-{note.pk}.status-active").count() == 1


def test_undo_all_after_a_bulk_lock_on_search_shows_each_card_as_it_was(page, notes, shoot):
    sign_in(page)
    page.goto("/search/?q=web+app")
    boxes = page.locator("#results input[type=checkbox][name=ids]")
    assert boxes.count() == 2
    boxes.nth(0).check()
    boxes.nth(1).check()
    bar = page.locator("form.bulk").first
    bar.get_by_label("Action").select_option("lock")
    bar.get_by_role("button", name="Apply to selected").click()
    status = page.locator("#bulk-status-search")
    status.get_by_text("Locked: 2 done, 0 refused, 0 not found.").wait_for()
    page.wait_for_function(
        "document.querySelectorAll('#results article.trust-locked').length === 2"
    )
    status.get_by_role("button", name="Undo all").click()
    status.get_by_text("Undone: 2 done, 0 refused, 0 not found.").wait_for()
    # the list re-renders itself once the undo is done: both cards inferred again
    page.wait_for_function(
        "document.querySelectorAll('#results article.trust-inferred').length === 2"
    )
    for note in notes:
        card = card_in(page, note, "trust-inferred")
        assert card.locator(".badge.trust").inner_text() == "inferred"
        assert card.get_by_role("button", name="Confirm", exact=True).is_visible()
    shoot(page, "71-undo-bulk")
    page.reload()
    assert page.locator("#results article.trust-inferred").count() == 2
    trusts = Memory.objects.filter(pk__in=[n.pk for n in notes]).values_list("trust", flat=True)
    assert set(trusts) == {"inferred"}
