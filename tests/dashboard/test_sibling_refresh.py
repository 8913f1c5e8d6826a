"""An in-place action that changes other memories too (a dispute settled, a conflict
answered) names them in `HX-Trigger` (`memory-changed-<id>`), and every card and row
listens for its own memory's event and draws itself again, so the sibling beside the card
that answered never keeps buttons for a state that is gone."""

from __future__ import annotations

import json
import re

import pytest

from foundation.actors import Actor
from memories.models import Memory, ReviewProposal

from .conftest import remember

pytestmark = pytest.mark.django_db


def _announced(response) -> set[str]:
    events = json.loads(response.headers.get("HX-Trigger", "{}"))
    return {name.removeprefix("memory-changed-") for name in events if name.startswith("memory-")}


def _article(html: str, memory) -> str:
    found = re.search(rf'<article [^>]*id="m-{memory.pk}"[^>]*>', html)
    assert found, html
    return found.group(0)


def test_settling_a_dispute_names_the_memory_it_superseded(browser, world):
    response = browser.post(f"/m/{world.disputed.pk}/confirm/", htmx=True)
    assert response.status_code == 200
    assert _announced(response) == {str(world.editor.pk)}  # not the card that answered
    assert Memory.objects.get(pk=world.editor.pk).status == "superseded"


def test_an_action_that_touches_only_its_memory_names_none(browser, world):
    response = browser.post(f"/m/{world.inferred.pk}/confirm/", htmx=True)
    assert _announced(response) == set()
    assert "counts-changed" in response.headers["HX-Trigger"]


def test_every_card_and_row_listens_for_its_own_memory(browser, world):
    card = _article(browser.get("/review/").content.decode(), world.editor)
    assert f'hx-trigger="memory-changed-{world.editor.pk} from:body"' in card
    assert f'hx-get="/m/{world.editor.pk}/"' in card and 'hx-target="this"' in card
    browser.post("/view/", {"view": "rows", "next": "/review/"})
    row = _article(browser.get("/review/").content.decode(), world.editor)
    assert 'class="row ' in row and f'hx-get="/m/{world.editor.pk}/?as=row"' in row
    assert f'hx-trigger="memory-changed-{world.editor.pk} from:body"' in row


def test_a_row_draws_itself_again_as_a_row(browser, world):
    response = browser.hx_get(f"/m/{world.editor.pk}/", {"as": "row", "bulk_form": "bulk-search"})
    html = response.content.decode()
    assert response.status_code == 200 and html.lstrip().startswith('<article class="row ')
    assert 'form="bulk-search"' in html and "<html" not in html
    page = browser.get(f"/m/{world.editor.pk}/?as=row").content.decode()
    assert "<html" in page and '<article class="card ' in page  # without htmx: the card page


def test_answering_a_conflict_names_the_memories_it_changed(browser, owner, agent_actor):
    old = remember(Actor.owner(owner), "Always use tabs for indentation in the Go services",
                   trust="confirmed")  # fmt: skip
    new = remember(agent_actor, "Never use tabs for indentation in the Go services")
    proposal = ReviewProposal.objects.get(kind="conflict", detail__new=str(new.pk))
    response = browser.post(
        f"/review/proposals/{proposal.pk}/accept/", {"resolution": "take_new"}, htmx=True
    )
    assert response.status_code == 200
    assert str(old.pk) in _announced(response)
    assert Memory.objects.get(pk=old.pk).status == "superseded"
