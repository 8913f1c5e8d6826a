"""Semantic recall on the Settings page: the owner's embedding progress, and a back-fill
started from the dashboard (Celery runs eagerly in the tests, so it completes at once)."""

from __future__ import annotations

import pytest

from foundation.actors import Actor
from memories.embeddings.models import MemoryVector

from .conftest import DashboardClient, remember

pytestmark = pytest.mark.django_db


@pytest.fixture
def store(owner, other_owner):
    me = Actor.owner(owner)
    remember(me, "Use uv to manage Python environments")
    remember(me, "缓存的过期时间默认是五分钟")
    remember(Actor.owner(other_owner), "Someone else's memory")
    MemoryVector.objects.all().delete()  # as after a model change, or before a back-fill


def test_the_settings_page_loads_the_progress_after_itself(browser, store):
    html = browser.get("/settings/").content.decode()
    assert 'id="semantic-panel"' in html and 'hx-get="/settings/semantic/"' in html


def test_progress_counts_only_the_owners_memories(browser, store):
    html = browser.hx_get("/settings/semantic/").content.decode()
    assert "0 of 2 memories embedded" in html
    assert "Embed the 2 memories left" in html
    assert "every 5s" not in html  # no polling until a back-fill was asked for


def test_a_back_fill_from_the_dashboard_embeds_what_is_left(browser, store, owner):
    response = browser.post("/settings/semantic/backfill/", htmx=True)

    html = response.content.decode()
    assert "Back-fill queued" in html
    assert "2 of 2 memories embedded" in html and "Every memory has a current vector." in html
    assert MemoryVector.objects.filter(owner=owner).count() == 2
    assert MemoryVector.objects.exclude(owner=owner).count() == 0


def test_without_javascript_the_back_fill_redirects_to_the_page_with_a_message(browser, store):
    response = browser.post("/settings/semantic/backfill/")
    assert response.status_code == 302 and response["Location"] == "/settings/"
    page = browser.get("/settings/").content.decode()
    assert "Back-fill queued" in page


def test_with_semantic_recall_off_the_page_says_so_and_nothing_is_queued(browser, store, settings):
    settings.CONTINUITY_EMBEDDER = "none"
    html = browser.hx_get("/settings/semantic/").content.decode()
    assert "lexical channels only" in html
    response = browser.post("/settings/semantic/backfill/", htmx=True)
    assert "could not be queued" in response.content.decode()
    assert MemoryVector.objects.count() == 0


def test_the_back_fill_needs_a_signed_in_owner(store):
    assert DashboardClient().post("/settings/semantic/backfill/").status_code == 302  # to sign-in
    assert MemoryVector.objects.count() == 0
