"""Listing memories: every filter, and keyset pages that neither repeat nor skip a row."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from foundation.actors import Actor
from memories.models import Memory
from memories.services import memory_archive
from tests.factories import statement
from tests.memories.helpers import remember
from tests.owner_api.conftest import error_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def store(owner_actor, agent_actor, other_agent_actor, other_owner):
    """A small, varied store, named by what sets each memory apart."""
    made = {
        "owner_fact": remember(owner_actor, content="The API listens on port 8080.", kind="fact"),
        "agent_pref": remember(agent_actor, content="Prefer pnpm over npm.", kind="preference"),
        "codex_lesson": remember(
            other_agent_actor,
            content="Flaky tests hide race conditions.",
            kind="lesson",
            trust="observed",
        ),
        "project_decision": remember(
            owner_actor,
            content="We decided to use PostgreSQL 16.",
            kind="decision",
            scope_type="project",
            scope_key="github:acme/api",
        ),  # fmt: skip
        "private": remember(
            owner_actor, content="My manager is Grace.", kind="entity", visibility="private"
        ),
        "chinese": remember(
            owner_actor, content="以后用中文写提交说明。", kind="preference", trust="locked"
        ),
        "archived": remember(owner_actor, content="Old CI ran on Jenkins.", kind="fact"),
    }
    memory_archive(actor=owner_actor, memory_id=made["archived"].id)
    remember(Actor.owner(other_owner), content="Grace's own note about port 8080.", kind="fact")
    return {name: receipt.id for name, receipt in made.items()}


def ids_of(api, **params) -> set[str]:
    response = api.get("/memories/", {**params, "limit": 100})
    assert response.status_code == 200, response.content
    return {memory["id"] for memory in response.json()["results"]}


def test_without_filters_the_owner_sees_all_their_memories_and_no_one_elses(api, store):
    assert ids_of(api) == set(store.values())


@pytest.mark.parametrize(
    "params,expected",
    [
        ({"kind": "fact"}, {"owner_fact", "archived"}),
        ({"kind": "fact,lesson"}, {"owner_fact", "archived", "codex_lesson"}),
        ({"trust": "inferred"}, {"agent_pref"}),
        ({"trust": "observed"}, {"codex_lesson"}),
        ({"trust": "locked"}, {"chinese"}),
        ({"status": "archived"}, {"archived"}),
        ({"status": "active", "kind": "fact"}, {"owner_fact"}),
        ({"scope_type": "project"}, {"project_decision"}),
        ({"scope_key": "github:acme/api"}, {"project_decision"}),
        ({"project": "github:acme/api"}, {"project_decision"}),
        ({"project": "github:acme/web"}, set()),
        ({"source_agent": "codex"}, {"codex_lesson"}),
        ({"source_agent": "claude-code"}, {"agent_pref"}),
        ({"source_agent": "CODEX"}, {"codex_lesson"}),
        ({"visibility": "private"}, {"private"}),
        ({"q": "PORT 8080"}, {"owner_fact"}),
        ({"q": "中文"}, {"chinese"}),
        ({"q": "nothing like this"}, set()),
    ],
)
def test_each_filter_narrows_the_list(api, store, params, expected):
    assert ids_of(api, **params) == {store[name] for name in expected}


def test_repeated_filter_values_mean_any_of_them(api, store):
    response = api.django.get("/api/owner/memories/", {"kind": ["fact", "lesson"]})
    assert {m["id"] for m in response.json()["results"]} == {
        store["owner_fact"],
        store["archived"],
        store["codex_lesson"],
    }


def test_the_list_is_newest_change_first(api, owner_actor, store):
    api.post(f"/memories/{store['agent_pref']}/confirm/")
    results = api.get("/memories/").json()["results"]
    assert results[0]["id"] == store["agent_pref"]
    stamps = [m["updated_at"] for m in results]
    assert stamps == sorted(stamps, reverse=True)


def test_pages_cover_every_memory_once_even_when_timestamps_tie(api, owner_actor):
    ids = [remember(owner_actor, content=statement(i), kind="fact").id for i in range(23)]
    # Ties on updated_at are where a naive cursor repeats or skips rows.
    moment = timezone.now() - timedelta(minutes=5)
    Memory.objects.filter(pk__in=ids[5:17]).update(updated_at=moment)
    seen, cursor, pages = [], None, 0
    while True:
        params = {"limit": 4, **({"cursor": cursor} if cursor else {})}
        body = api.get("/memories/", params).json()
        seen += [m["id"] for m in body["results"]]
        pages += 1
        cursor = body["next_cursor"]
        if cursor is None:
            assert body["next"] is None
            break
        assert (
            body["next"].startswith("http://testserver/api/owner/memories/")
            and "cursor=" in body["next"]
        )
    assert pages == 6
    assert len(seen) == len(set(seen)) == 23 and set(seen) == set(ids)
    rows = Memory.objects.in_bulk(seen)
    keys = [(-rows[pk].updated_at.timestamp(), str(pk)) for pk in rows]
    assert [str(pk) for pk in seen] == [pk for _, pk in sorted(keys)]


def test_pages_keep_their_filters(api, owner_actor, store):
    for i in range(5):
        remember(owner_actor, content=statement(i), kind="lesson")
    first = api.get("/memories/", {"kind": "lesson", "limit": 3}).json()
    rest = api.get(
        "/memories/", {"kind": "lesson", "limit": 3, "cursor": first["next_cursor"]}
    ).json()
    lessons = [m for page in (first, rest) for m in page["results"]]
    assert len(lessons) == 6 and {m["kind"] for m in lessons} == {"lesson"}
    assert rest["next_cursor"] is None


def test_a_cursor_cannot_be_reused_with_other_filters(api, owner_actor):
    for i in range(3):
        remember(owner_actor, content=statement(i), kind="lesson")
    cursor = api.get("/memories/", {"kind": "lesson", "limit": 1}).json()["next_cursor"]
    error = error_of(
        api.get("/memories/", {"kind": "fact", "cursor": cursor}), 400, "VALIDATION_ERROR"
    )
    assert error["details"][0]["field"] == "cursor"


def test_the_default_page_is_fifty_and_the_largest_a_hundred(api, owner_actor):
    for i in range(101):
        remember(owner_actor, content=statement(i), kind="fact")
    assert len(api.get("/memories/").json()["results"]) == 50
    assert len(api.get("/memories/", {"limit": 100}).json()["results"]) == 100
    error_of(api.get("/memories/", {"limit": 101}), 400, "VALIDATION_ERROR")


def test_another_owners_list_is_their_own(other_api, store):
    results = other_api.get("/memories/").json()["results"]
    assert [m["content"] for m in results] == ["Grace's own note about port 8080."]
