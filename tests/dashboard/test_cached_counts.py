"""Tab counts and Overview totals are reused between requests, and never outlive a write."""

from __future__ import annotations

import pytest

from dashboard.cache import per_generation, write_generation
from foundation.actors import Actor
from memories.services import memory_delete

from .conftest import remember

pytestmark = pytest.mark.django_db


def review_count(response) -> str:
    return response.content.decode().split('id="count-review">')[1].split("<")[0]


def test_an_agent_write_shows_in_the_counts_on_the_next_page(browser, world, agent_actor):
    assert review_count(browser.get("/")) == "2"
    remember(agent_actor, "The api service uses Redis 7.", kind="fact", trust="inferred")
    assert review_count(browser.get("/")) == "3"


def test_a_delete_shows_in_the_counts_and_the_overview_at_once(browser, world, owner):
    assert "Memories by kind (5 in all)" in browser.get("/overview/").content.decode()
    assert review_count(browser.get("/")) == "2"
    memory_delete(actor=Actor.owner(owner), memory_id=world.inferred.pk)
    assert review_count(browser.get("/")) == "1"
    assert "Memories by kind (4 in all)" in browser.get("/overview/").content.decode()


def test_the_value_is_reused_until_the_generation_changes(owner, world, agent_actor):
    calls = []

    def compute():
        calls.append(1)
        return len(calls)

    assert per_generation(owner, "probe", compute) == 1
    assert per_generation(owner, "probe", compute) == 1
    before = write_generation(owner)
    remember(agent_actor, "Deploys go out on Tuesdays.")
    assert write_generation(owner) != before
    assert per_generation(owner, "probe", compute) == 2


def test_an_owner_without_history_is_never_cached(other_owner):
    assert write_generation(other_owner) is None
    values = iter([1, 2])
    assert per_generation(other_owner, "probe", lambda: next(values)) == 1
    assert per_generation(other_owner, "probe", lambda: next(values)) == 2
