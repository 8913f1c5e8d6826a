"""Undo: every reversible card action answers with an Undo button that posts the inverse
through the services; an undo of something that changed again refuses and changes nothing;
a hard delete has no undo."""

from __future__ import annotations

import re

import pytest

from foundation.actors import Actor
from memories.models import Memory, MemoryEvent
from memories.services import memory_confirm, memory_correct

from .conftest import DashboardClient, remember

pytestmark = pytest.mark.django_db


def _offer(html: str) -> str:
    """The event id the answer's Undo form carries."""
    found = re.search(r'class="undo-offer".*?name="event" value="(\d+)"', html, re.S)
    assert found, html
    return found.group(1)


def _act(browser, memory, action: str) -> str:
    response = browser.post(f"/m/{memory.pk}/{action}/", htmx=True)
    assert response.status_code == 200
    return _offer(response.content.decode())


def _undo(browser, memory, event: str, htmx=True, **data):
    return browser.post(f"/m/{memory.pk}/undo/", {"event": event, **data}, htmx=htmx)


def test_undo_of_a_confirm_brings_back_the_trust_it_had(browser, world):
    event = _act(browser, world.inferred, "confirm")
    assert Memory.objects.get(pk=world.inferred.pk).trust == "confirmed"
    response = _undo(browser, world.inferred, event)
    assert response.status_code == 200 and "trust-inferred" in response.content.decode()
    assert Memory.objects.get(pk=world.inferred.pk).trust == "inferred"
    last = MemoryEvent.objects.filter(memory_id=world.inferred.pk).order_by("-pk").first()
    assert last.event_type == "undone" and last.actor_agent == ""


def test_undo_of_a_lock_returns_to_the_trust_before_the_lock(browser, world):
    event = _act(browser, world.inferred, "lock")
    _undo(browser, world.inferred, event)
    assert Memory.objects.get(pk=world.inferred.pk).trust == "inferred"


def test_undo_of_an_unlock_locks_again(browser, world):
    event = _act(browser, world.locked, "unlock")
    assert Memory.objects.get(pk=world.locked.pk).trust == "confirmed"
    _undo(browser, world.locked, event)
    assert Memory.objects.get(pk=world.locked.pk).trust == "locked"


def test_undo_of_an_archive_restores_and_of_a_restore_archives(browser, world):
    event = _act(browser, world.editor, "archive")
    assert Memory.objects.get(pk=world.editor.pk).status == "archived"
    html = _undo(browser, world.editor, event).content.decode()
    assert "Undone." in html and Memory.objects.get(pk=world.editor.pk).status == "active"
    event = _act(browser, world.archived, "restore")
    _undo(browser, world.archived, event)
    assert Memory.objects.get(pk=world.archived.pk).status == "archived"


def test_undo_announces_the_counts_changed(browser, world):
    event = _act(browser, world.inferred, "confirm")
    response = _undo(browser, world.inferred, event)
    assert "counts-changed" in response.headers.get("HX-Trigger", "")


def test_undo_twice_is_refused_and_changes_nothing(browser, world):
    event = _act(browser, world.editor, "archive")
    _undo(browser, world.editor, event)
    before = MemoryEvent.objects.filter(memory_id=world.editor.pk).count()
    response = _undo(browser, world.editor, event)
    assert response.status_code == 409
    assert "changed after that action" in response.content.decode()
    assert Memory.objects.get(pk=world.editor.pk).status == "active"
    assert MemoryEvent.objects.filter(memory_id=world.editor.pk).count() == before


def test_undo_after_a_later_change_is_refused_and_keeps_that_change(browser, world, owner):
    event = _act(browser, world.inferred, "confirm")
    memory_confirm(actor=Actor.owner(owner), memory_id=world.inferred.pk)  # idempotent: no event
    browser.post(f"/m/{world.inferred.pk}/lock/", htmx=True)
    response = _undo(browser, world.inferred, event)
    assert response.status_code == 409 and "Nothing was changed." in response.content.decode()
    assert Memory.objects.get(pk=world.inferred.pk).trust == "locked"


def test_undo_of_a_corrected_memory_is_refused(browser, world, owner):
    event = _act(browser, world.inferred, "confirm")
    memory_correct(actor=Actor.owner(owner), memory_id=world.inferred.pk, content="Helm now.")
    response = _undo(browser, world.inferred, event)
    assert response.status_code == 409
    assert Memory.objects.get(pk=world.inferred.pk).status == "superseded"


def test_undo_of_a_confirm_that_settled_a_dispute_is_refused(browser, world):
    event = _act(browser, world.disputed, "confirm")
    response = _undo(browser, world.disputed, event)
    assert response.status_code == 409 and "settled a dispute" in response.content.decode()
    assert Memory.objects.get(pk=world.disputed.pk).trust == "confirmed"
    assert Memory.objects.get(pk=world.editor.pk).status == "superseded"


def test_an_agents_event_cannot_be_undone_from_the_dashboard(browser, world):
    created = MemoryEvent.objects.filter(memory_id=world.inferred.pk).order_by("-pk").first()
    response = _undo(browser, world.inferred, str(created.pk))
    assert response.status_code == 409 and "your own changes" in response.content.decode()
    assert Memory.objects.filter(pk=world.inferred.pk, status="active").exists()


def test_a_bad_or_foreign_event_id_is_refused_without_a_500(browser, world):
    assert _undo(browser, world.inferred, "not-a-number").status_code == 400
    other = MemoryEvent.objects.filter(memory_id=world.editor.pk).first()
    assert _undo(browser, world.inferred, str(other.pk)).status_code == 404
    assert Memory.objects.get(pk=world.inferred.pk).trust == "inferred"


def test_another_owners_memory_cannot_be_undone(world, other_owner):
    stranger = DashboardClient(other_owner)
    event = MemoryEvent.objects.filter(memory_id=world.archived.pk).order_by("-pk").first()
    assert _undo(stranger, world.archived, str(event.pk)).status_code == 404
    assert Memory.objects.get(pk=world.archived.pk).status == "archived"


def test_an_action_that_changed_nothing_offers_no_undo(browser, world):
    html = browser.post(f"/m/{world.locked.pk}/lock/", htmx=True).content.decode()
    assert "undo-offer" not in html


def test_a_hard_delete_offers_no_undo(browser, world):
    response = browser.post(f"/m/{world.editor.pk}/delete/", {"confirm": "yes"}, htmx=True)
    assert "undo-offer" not in response.content.decode()
    assert "/undo/" not in response.content.decode()


def test_without_javascript_the_page_it_returns_to_offers_the_undo_once(browser, world):
    response = browser.post(f"/m/{world.editor.pk}/archive/", {"next": "/recent/"})
    assert response.status_code == 302 and response["Location"] == "/recent/"
    html = browser.get("/recent/").content.decode()
    event = _offer(html)
    assert f'action="/m/{world.editor.pk}/undo/"' in html and "Archived." in html
    assert "undo-offer" not in browser.get("/recent/").content.decode()  # once
    response = _undo(browser, world.editor, event, htmx=False, next="/recent/")
    assert response.status_code == 302 and response["Location"] == "/recent/"
    assert Memory.objects.get(pk=world.editor.pk).status == "active"


def test_without_javascript_a_refused_undo_says_why_on_the_page(browser, world):
    note = remember(Actor.owner(world.editor.owner), "Tea, not coffee, after four.")
    response = browser.post(f"/m/{note.pk}/archive/", {"next": "/archive/"})
    event = _offer(browser.get("/archive/").content.decode())
    browser.post(f"/m/{note.pk}/restore/", {"next": "/archive/"})
    response = _undo(browser, note, event, htmx=False, next="/archive/")
    assert response.status_code == 302
    assert "changed after that action" in browser.get("/archive/").content.decode()
    assert Memory.objects.get(pk=note.pk).status == "active"
