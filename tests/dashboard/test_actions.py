"""Card actions: htmx answers with the card and announces `counts-changed`, after which the
tab bar re-fetches the counts; a plain form post redirects back. Every rule (trust,
secrets, size, versions) is the services'."""

from __future__ import annotations

import uuid

import pytest

from foundation.actors import Actor
from memories.models import Memory, MemoryEvent
from memories.services import memory_correct
from tests.htmx import counts_after

from .conftest import DashboardClient, remember

pytestmark = pytest.mark.django_db


def test_confirm_over_htmx_swaps_the_card_and_announces_the_counts_changed(browser, world):
    response = browser.post(f"/m/{world.inferred.pk}/confirm/", htmx=True)
    html = response.content.decode()
    assert response.status_code == 200 and "<html" not in html
    assert html.startswith("\n<article") or "<article" in html.split("<span")[0]
    assert f'id="m-{world.inferred.pk}"' in html and "trust-confirmed" in html
    assert "count-" not in html  # the counts are the tab bar's to re-fetch
    assert counts_after(browser, response)["review"] == 1
    assert Memory.objects.get(pk=world.inferred.pk).trust == "confirmed"


def test_confirm_without_javascript_redirects_back_to_the_page(browser, world):
    response = browser.post(f"/m/{world.inferred.pk}/confirm/", {"next": "/review/"})
    assert response.status_code == 302 and response["Location"] == "/review/"
    assert Memory.objects.get(pk=world.inferred.pk).trust == "confirmed"


def test_a_next_pointing_off_site_is_ignored(browser, world):
    response = browser.post(f"/m/{world.inferred.pk}/confirm/", {"next": "https://evil.example/"})
    assert response["Location"] == "/"


def test_confirming_a_disputed_memory_sides_with_it(browser, world):
    browser.post(f"/m/{world.disputed.pk}/confirm/", htmx=True)
    assert Memory.objects.get(pk=world.disputed.pk).status == "active"
    assert Memory.objects.get(pk=world.editor.pk).status == "superseded"


def test_lock_then_unlock(browser, world):
    html = browser.post(f"/m/{world.editor.pk}/lock/", htmx=True).content.decode()
    assert "trust-locked" in html and f"/m/{world.editor.pk}/unlock/" in html
    html = browser.post(f"/m/{world.editor.pk}/unlock/", htmx=True).content.decode()
    assert "trust-confirmed" in html
    events = MemoryEvent.objects.filter(memory_id=world.editor.pk).values_list(
        "event_type", flat=True
    )
    assert {"locked", "unlocked"} <= set(events)


def test_archive_then_restore(browser, world):
    response = browser.post(f"/m/{world.editor.pk}/archive/", htmx=True)
    assert "status-archived" in response.content.decode()
    assert counts_after(browser, response)["archive"] == 2
    html = browser.post(f"/m/{world.editor.pk}/restore/", htmx=True).content.decode()
    assert "status-active" in html
    assert Memory.objects.get(pk=world.editor.pk).status == "active"


def test_a_refused_restore_shows_the_services_message_in_the_card(browser, world, owner):
    remember(Actor.owner(owner), "Old habit: tabs for indentation.")  # a live twin now exists
    html = browser.post(f"/m/{world.archived.pk}/restore/", htmx=True).content.decode()
    assert "already says the same thing" in html
    assert Memory.objects.get(pk=world.archived.pk).status == "archived"


def test_a_refused_restore_without_javascript_comes_back_as_a_message(browser, world, owner):
    remember(Actor.owner(owner), "Old habit: tabs for indentation.")
    response = browser.post(f"/m/{world.archived.pk}/restore/", {"next": "/archive/"}, follow=True)
    assert b"already says the same thing" in response.content


def test_an_unknown_action_is_404(browser, world):
    assert browser.post(f"/m/{world.editor.pk}/explode/").status_code == 404


@pytest.mark.parametrize("action", ["confirm", "lock", "unlock", "archive", "restore"])
def test_acting_on_another_owners_memory_is_404_and_changes_nothing(world, other_owner, action):
    grace = DashboardClient(other_owner)
    before = Memory.objects.get(pk=world.inferred.pk)
    assert grace.post(f"/m/{world.inferred.pk}/{action}/", htmx=True).status_code == 404
    after = Memory.objects.get(pk=world.inferred.pk)
    assert (after.trust, after.status) == (before.trust, before.status)


@pytest.mark.parametrize("path", ["/m/{}/", "/m/{}/correct/", "/m/{}/delete/", "/m/{}/history/"])
def test_reading_another_owners_memory_is_404(world, other_owner, path):
    assert DashboardClient(other_owner).get(path.format(world.inferred.pk)).status_code == 404


def test_an_unknown_memory_id_is_404(browser):
    assert browser.post(f"/m/{uuid.uuid4()}/confirm/").status_code == 404


def test_a_post_without_the_csrf_token_is_refused(world, owner):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(owner)
    assert client.post(f"/m/{world.inferred.pk}/confirm/").status_code == 403
    assert Memory.objects.get(pk=world.inferred.pk).trust == "inferred"


def test_a_get_cannot_change_anything(browser, world):
    assert browser.get(f"/m/{world.inferred.pk}/confirm/").status_code == 405


# --- correct -----------------------------------------------------------------------------


def test_correct_opens_inline_with_the_rendered_version(browser, world):
    html = browser.hx_get(f"/m/{world.editor.pk}/correct/").content.decode()
    assert "<textarea" in html and 'name="version" value="1"' in html and "<html" not in html


def test_correct_without_javascript_is_a_page_of_its_own(browser, world):
    html = browser.get(f"/m/{world.editor.pk}/correct/").content.decode()
    assert "<html" in html and "<textarea" in html


def test_correct_creates_a_new_version_and_swaps_it_in(browser, world):
    response = browser.post(
        f"/m/{world.editor.pk}/correct/",
        {"content": "The preferred editor is Zed.", "version": "1"},
        htmx=True,
    )
    html = response.content.decode()
    assert "The preferred editor is Zed." in html and "v2" in html
    new = Memory.objects.get(owner=world.editor.owner, content="The preferred editor is Zed.")
    assert new.supersedes_id == world.editor.pk and new.version == 2
    assert Memory.objects.get(pk=world.editor.pk).status == "superseded"


def test_correct_without_javascript_redirects_back(browser, world):
    response = browser.post(
        f"/m/{world.editor.pk}/correct/",
        {"content": "The preferred editor is Zed.", "version": "1", "next": "/"},
    )
    assert response.status_code == 302 and response["Location"] == "/"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("   ", "content"),
        ("x" * 4001, "4000"),
        ("The deploy password = hunter2hunter2", "secret"),
    ],
)
def test_bad_corrections_show_the_error_next_to_the_field_and_change_nothing(
    browser, world, content, message
):
    before = (Memory.objects.count(), MemoryEvent.objects.count())
    response = browser.post(
        f"/m/{world.editor.pk}/correct/", {"content": content, "version": "1"}, htmx=True
    )
    html = response.content.decode()
    # The real status: the base template's htmx config swaps 4xx answers into the card.
    assert response.status_code in (400, 413, 422) and "<html" not in html
    assert 'class="error field"' in html and message.lower() in html.lower()
    assert 'aria-invalid="true"' in html
    assert (Memory.objects.count(), MemoryEvent.objects.count()) == before
    plain = browser.post(f"/m/{world.editor.pk}/correct/", {"content": content, "version": "1"})
    assert plain.status_code in (400, 413, 422) and b'class="error field"' in plain.content


def test_a_stale_version_is_a_conflict_not_an_overwrite(browser, world, owner):
    # Someone else corrects the memory after this form was rendered at version 1.
    memory_correct(
        actor=Actor.owner(owner), memory_id=world.editor.pk, content="The preferred editor is Vim."
    )
    response = browser.post(
        f"/m/{world.editor.pk}/correct/",
        {"content": "The preferred editor is Zed.", "version": "1"},
    )
    assert response.status_code == 409
    assert b"changed since you opened it" in response.content
    assert not Memory.objects.filter(content="The preferred editor is Zed.").exists()
    htmx = browser.post(
        f"/m/{world.editor.pk}/correct/",
        {"content": "The preferred editor is Zed.", "version": "1"},
        htmx=True,
    )
    assert b"changed since you opened it" in htmx.content


def test_a_version_that_does_not_match_the_row_is_a_conflict(browser, world):
    response = browser.post(
        f"/m/{world.editor.pk}/correct/", {"content": "Zed it is.", "version": "7"}
    )
    assert response.status_code == 409


# --- delete and history ------------------------------------------------------------------


def test_delete_asks_first_and_a_post_without_confirmation_deletes_nothing(browser, world):
    html = browser.hx_get(f"/m/{world.editor.pk}/delete/").content.decode()
    assert "Yes, delete permanently" in html
    browser.post(f"/m/{world.editor.pk}/delete/", htmx=True)
    assert Memory.objects.filter(pk=world.editor.pk).exists()


def test_confirmed_delete_removes_the_memory_and_updates_counts(browser, world):
    response = browser.post(f"/m/{world.editor.pk}/delete/", {"confirm": "yes"}, htmx=True)
    assert "Deleted." in response.content.decode()
    assert counts_after(browser, response)["core"] == 1
    assert not Memory.objects.filter(pk=world.editor.pk).exists()
    assert MemoryEvent.objects.filter(memory_id=world.editor.pk, event_type="deleted").exists()


def test_delete_without_javascript_has_a_confirmation_page_then_redirects(browser, world):
    page = browser.get(f"/m/{world.editor.pk}/delete/", {"next": "/"})
    assert b"Yes, delete permanently" in page.content and b"<html" in page.content
    response = browser.post(f"/m/{world.editor.pk}/delete/", {"confirm": "yes", "next": "/"})
    assert response.status_code == 302 and response["Location"] == "/"
    assert not Memory.objects.filter(pk=world.editor.pk).exists()


def test_history_opens_inline(browser, world):
    browser.post(f"/m/{world.editor.pk}/lock/", htmx=True)
    html = browser.hx_get(f"/m/{world.editor.pk}/history/").content.decode()
    assert "<html" not in html and "locked" in html and "created" in html


def test_history_without_javascript_is_a_page(browser, world):
    html = browser.get(f"/m/{world.editor.pk}/history/").content.decode()
    assert "<html" in html and 'class="timeline"' in html


def test_long_histories_page_to_older_events(browser, world, monkeypatch):
    from dashboard.views import memory_actions as actions

    monkeypatch.setattr(actions, "HISTORY_LIMIT", 1)
    browser.post(f"/m/{world.editor.pk}/lock/", htmx=True)
    newest = browser.hx_get(f"/m/{world.editor.pk}/history/").content.decode()
    assert "locked" in newest and "Older events" in newest
    cursor = newest.split("?cursor=")[1].split('"')[0]
    older = browser.hx_get(f"/m/{world.editor.pk}/history/", {"cursor": cursor}).content.decode()
    assert "created" in older and "locked" not in older


def test_a_history_cursor_that_is_not_this_memorys_is_refused(browser, world, monkeypatch):
    from dashboard.views import memory_actions as actions

    monkeypatch.setattr(actions, "HISTORY_LIMIT", 1)
    browser.post(f"/m/{world.editor.pk}/lock/", htmx=True)
    browser.post(f"/m/{world.locked.pk}/unlock/", htmx=True)
    newest = browser.hx_get(f"/m/{world.locked.pk}/history/").content.decode()
    foreign = newest.split("?cursor=")[1].split('"')[0]
    for cursor in ("junk", foreign, foreign[:-3] + "abc"):
        response = browser.hx_get(f"/m/{world.editor.pk}/history/", {"cursor": cursor})
        html = response.content.decode()
        assert response.status_code == 400 and "<html" not in html
        assert 'data-code="VALIDATION_ERROR"' in html and "cursor" in html
    page = browser.get(f"/m/{world.editor.pk}/history/", {"cursor": "junk"})
    assert page.status_code == 400 and b"<html" in page.content
