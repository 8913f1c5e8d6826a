"""Activity names what each event is about in words: a short excerpt of the memory, linked
to its card (a deleted one says so), and a reason that names memories by excerpt; a refused
action, on a card or in bulk, never prints a raw UUID either."""

from __future__ import annotations

import re

import pytest

from foundation.actors import Actor
from memories.models import MemoryEvent
from memories.services import memory_archive, memory_delete

from .conftest import remember

pytestmark = pytest.mark.django_db

RAW_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def _visible_text(html: str) -> str:
    """The page without its tags and attributes (links may carry ids; words may not)."""
    return re.sub(r"<[^>]+>", " ", html)


def _tbody(html: str) -> str:
    return html.split('<tbody id="results">', 1)[1].split("</tbody>", 1)[0]


def test_each_event_links_to_its_memory_by_excerpt(browser, world):
    html = _tbody(browser.get("/activity/").content.decode())
    assert f'<a href="/m/{world.inferred.pk}/">The api service deploys with Kubernetes.</a>' in html
    assert str(world.inferred.pk)[:8] not in _visible_text(html)


def test_a_long_memory_is_shortened_in_activity(browser, owner):
    remember(Actor.owner(owner), "Long statement " + "word " * 40)
    html = _tbody(browser.get("/activity/").content.decode())
    assert "Long statement word" in html and "…</a>" in html


def test_an_event_of_a_deleted_memory_says_deleted_without_its_id(browser, world, owner):
    memory_delete(actor=Actor.owner(owner), memory_id=world.archived.pk)
    html = _tbody(browser.get("/activity/?event_type=deleted").content.decode())
    assert "a deleted memory" in html
    assert not RAW_UUID.search(html) and str(world.archived.pk)[:8] not in html


def test_a_reason_naming_a_memory_shows_its_excerpt_not_its_id(browser, world):
    # the agent's disputed write: "contradicts confirmed memory <id>"
    event = MemoryEvent.objects.filter(memory_id=world.disputed.pk).exclude(reason="").first()
    assert event is not None and str(world.editor.pk) in event.reason
    html = _tbody(browser.get("/activity/?agent=claude-code").content.decode())
    assert f'<a href="/m/{world.editor.pk}/">“The preferred editor is Helix.”</a>' in html
    assert not RAW_UUID.search(_visible_text(html))


def test_activity_over_htmx_pages_show_excerpts_too(browser, world):
    html = browser.hx_get("/activity/", {"event_type": "archived"}).content.decode()
    assert "Old habit: tabs for indentation." in html


def test_a_refused_restore_on_a_card_names_the_holder_in_words(browser, owner):
    me = Actor.owner(owner)
    old = remember(me, "The editor is Helix.", key="editor")
    memory_archive(actor=me, memory_id=old.pk)
    holder = remember(me, "The editor is Zed.", key="editor")
    response = browser.post(f"/m/{old.pk}/restore/", htmx=True)
    assert response.status_code == 409
    text = _visible_text(response.content.decode())
    assert "“The editor is Zed.”" in text and str(holder.pk) not in text


def test_a_refused_bulk_restore_names_the_holder_in_words(browser, owner):
    me = Actor.owner(owner)
    old = remember(me, "The shell is fish.", key="shell")
    memory_archive(actor=me, memory_id=old.pk)
    holder = remember(me, "The shell is zsh.", key="shell")
    data = {"list": "archive", "action": "restore", "scope": "selected", "ids": [str(old.pk)]}
    html = browser.post("/bulk/", data, htmx=True).content.decode()
    assert "refused" in html and "“The shell is zsh.”" in html
    assert str(holder.pk) not in _visible_text(html)
    response = browser.post("/bulk/", {**data, "next": "/archive/"})
    page = browser.get(response["Location"]).content.decode()
    assert "“The shell is zsh.”" in page and str(holder.pk) not in _visible_text(page)
