"""The owner's memory endpoints: each action works over HTTP and is recorded in history."""

from __future__ import annotations

import pytest

from memories.models import Memory, MemoryEvent, MemoryLink
from tests.memories.helpers import remember
from tests.owner_api.conftest import db_state, error_of, event_types

pytestmark = pytest.mark.django_db


@pytest.fixture
def agent_memory(agent_actor):
    """A memory an agent wrote: inferred, the owner's to judge."""
    return remember(agent_actor, content="The api service deploys with Kubernetes.", kind="fact")


def test_the_owner_remembers_and_gets_a_receipt(api, owner):
    response = api.post(
        "/memories/",
        {
            "content": "Use uv to manage Python environments.",
            "kind": "preference",
            "tags": ["Python"],
        },
    )
    assert response.status_code == 201
    receipt = response.json()
    assert receipt["trust"] == "confirmed" and receipt["version"] == 1
    assert receipt["evolution"]["action"] == "created"
    memory = Memory.objects.get(pk=receipt["id"])
    assert memory.owner == owner and memory.origin == "user" and memory.tags == ["python"]
    assert event_types(memory.pk) == ["created"]


def test_remembering_the_same_statement_again_returns_the_first_and_writes_nothing(api):
    body = {"content": "Use uv to manage Python environments.", "kind": "preference"}
    first = api.post("/memories/", body).json()
    before = db_state()
    again = api.post("/memories/", body)
    assert again.status_code == 200
    assert again.json()["duplicate_of"] == first["id"]
    assert db_state() == before


def test_a_keyed_write_with_a_stale_expected_version_is_a_version_conflict(api):
    body = {"content": "Editor: vim", "kind": "preference", "key": "editor", "expected_version": 0}
    assert api.post("/memories/", body).status_code == 201
    before = db_state()
    stale = api.post("/memories/", {**body, "content": "Editor: helix"})
    error = error_of(stale, 409, "VERSION_CONFLICT")
    assert error["details"][0]["actual"] == 1
    assert db_state() == before


def test_an_idempotency_key_replays_the_receipt_and_refuses_a_different_request(api):
    body = {
        "content": "Deploy on Fridays is forbidden.",
        "kind": "constraint",
        "idempotency_key": "k-1",
    }
    first = api.post("/memories/", body).json()
    assert api.post("/memories/", body).json() == first
    before = db_state()
    error_of(
        api.post("/memories/", {**body, "content": "Something else."}), 409, "IDEMPOTENCY_CONFLICT"
    )
    assert db_state() == before


def test_retrieve_shows_the_memory_its_links_and_its_version_chain(api, owner_actor, agent_memory):
    other = remember(owner_actor, content="Kubernetes runs on three nodes.", kind="fact")
    api.post(f"/memories/{agent_memory.id}/link/", {"to_id": other.id, "relation": "related_to"})
    corrected = api.post(
        f"/memories/{agent_memory.id}/correct/", {"content": "The api service deploys with Nomad."}
    ).json()

    old = api.get(f"/memories/{agent_memory.id}/").json()
    assert old["status"] == "superseded" and old["superseded_by"] == [corrected["id"]]
    assert {(link["relation"], link["to_id"]) for link in old["links"]} >= {
        ("related_to", other.id)
    }

    new = api.get(f"/memories/{corrected['id']}/").json()
    assert new["version_chain"] == [corrected["id"], agent_memory.id]
    assert new["supersedes"] == agent_memory.id and new["version"] == 2
    supersedes = [link for link in new["links"] if link["relation"] == "supersedes"]
    assert [(link["from_id"], link["to_id"]) for link in supersedes] == [
        (corrected["id"], agent_memory.id)
    ]
    assert new["links_truncated"] is False


def test_confirm_raises_an_agents_memory_to_confirmed(api, agent_memory):
    response = api.post(f"/memories/{agent_memory.id}/confirm/")
    assert response.status_code == 200
    assert response.json()["trust"] == "confirmed" and response.json()["verified_at"]
    assert event_types(agent_memory.id) == ["created", "confirmed"]


def test_lock_then_unlock(api, agent_memory):
    assert api.post(f"/memories/{agent_memory.id}/lock/").json()["trust"] == "locked"
    assert api.post(f"/memories/{agent_memory.id}/unlock/").json()["trust"] == "confirmed"
    assert event_types(agent_memory.id) == ["created", "locked", "unlocked"]


def test_correct_makes_a_new_confirmed_version_that_supersedes_the_old(api, agent_memory):
    response = api.post(
        f"/memories/{agent_memory.id}/correct/",
        {
            "content": "The api service deploys with Nomad.",
            "tags": ["deploy"],
            "reason": "migrated",
        },
    )
    assert response.status_code == 200
    new = response.json()
    assert new["id"] != agent_memory.id
    assert (new["trust"], new["status"], new["version"], new["tags"]) == (
        "confirmed",
        "active",
        2,
        ["deploy"],
    )
    assert Memory.objects.get(pk=agent_memory.id).status == "superseded"
    assert event_types(agent_memory.id) == ["created", "superseded"]
    assert event_types(new["id"]) == ["corrected"]
    assert MemoryEvent.objects.get(memory_id=new["id"]).reason == "migrated"


def test_archive_with_a_reason_then_restore(api, agent_memory):
    archived = api.post(
        f"/memories/{agent_memory.id}/archive/", {"reason": "no longer true"}
    ).json()
    assert archived["status"] == "archived"
    event = MemoryEvent.objects.filter(memory_id=agent_memory.id).latest("id")
    assert (event.event_type, event.reason) == ("archived", "no longer true")
    assert api.post(f"/memories/{agent_memory.id}/restore/").json()["status"] == "active"
    assert event_types(agent_memory.id) == ["created", "archived", "restored"]


def test_restoring_when_a_live_memory_holds_the_key_is_a_conflict(api):
    first = api.post(
        "/memories/", {"content": "Editor: vim", "kind": "preference", "key": "editor"}
    ).json()
    api.post(f"/memories/{first['id']}/archive/")
    api.post("/memories/", {"content": "Editor: helix", "kind": "preference", "key": "editor"})
    before = db_state()
    error_of(api.post(f"/memories/{first['id']}/restore/"), 409, "CONFLICT")
    assert db_state() == before


def test_link_to_a_memory_and_to_a_uri_is_recorded_once(api, owner_actor, agent_memory):
    other = remember(
        owner_actor, content="Ask the platform team before adding a cluster.", kind="decision"
    )
    to_memory = api.post(
        f"/memories/{agent_memory.id}/link/", {"to_id": other.id, "relation": "contradicts"}
    )
    assert to_memory.status_code == 200
    assert to_memory.json()["to_id"] == other.id and to_memory.json()["relation"] == "contradicts"
    api.post(f"/memories/{agent_memory.id}/link/", {"to_id": other.id, "relation": "contradicts"})
    to_uri = api.post(
        f"/memories/{agent_memory.id}/link/",
        {"uri": "https://github.com/acme/api/pull/7", "relation": "supports"},
    ).json()
    assert to_uri["uri"] == "https://github.com/acme/api/pull/7" and to_uri["to_id"] is None
    assert MemoryLink.objects.filter(from_memory_id=agent_memory.id).count() == 2
    assert event_types(agent_memory.id) == ["created", "linked", "linked"]


def test_delete_with_confirmation_removes_the_memory_and_scrubs_its_history(api, agent_memory):
    response = api.post(f"/memories/{agent_memory.id}/delete/", {"confirm": True})
    assert response.status_code == 200
    assert response.json() == {"id": agent_memory.id, "deleted": True}
    assert not Memory.objects.filter(pk=agent_memory.id).exists()
    events = MemoryEvent.objects.filter(memory_id=agent_memory.id).order_by("id")
    assert [e.event_type for e in events] == ["created", "deleted"]
    assert all(e.patch == {} and "Kubernetes" not in str(e.result) for e in events)
    error_of(api.get(f"/memories/{agent_memory.id}/"), 404, "NOT_FOUND")


def test_delete_by_the_http_method_takes_the_confirmation_in_the_query_or_the_body(
    api, owner_actor
):
    one = remember(owner_actor, content="Old fact one.", kind="fact")
    two = remember(owner_actor, content="Old fact two.", kind="fact")
    assert api.delete(f"/memories/{one.id}/?confirm=true").status_code == 200
    assert api.delete(f"/memories/{two.id}/", {"confirm": True}).status_code == 200
    assert not Memory.objects.filter(pk__in=[one.id, two.id]).exists()


@pytest.mark.parametrize(
    "call",
    [
        lambda api, pk: api.post(f"/memories/{pk}/delete/"),
        lambda api, pk: api.post(f"/memories/{pk}/delete/", {"confirm": False}),
        lambda api, pk: api.post(f"/memories/{pk}/delete/", {"confirm": "yes"}),
        lambda api, pk: api.post(f"/memories/{pk}/delete/", {"confirm": 1}),
        lambda api, pk: api.delete(f"/memories/{pk}/"),
        lambda api, pk: api.delete(f"/memories/{pk}/?confirm=yes"),
        lambda api, pk: api.delete(f"/memories/{pk}/?confirm=false"),
    ],
    ids=["no-body", "false", "yes-string", "one", "delete-no-confirm", "query-yes", "query-false"],
)
def test_delete_without_an_explicit_true_confirmation_is_refused(api, agent_memory, call):
    before = db_state()
    error = error_of(call(api, agent_memory.id), 400, "VALIDATION_ERROR")
    assert error["details"][0]["field"] == "confirm"
    assert db_state() == before


def test_history_pages_newest_first(api, agent_memory):
    for action in ("lock", "unlock", "confirm"):  # confirming a confirmed memory records nothing
        api.post(f"/memories/{agent_memory.id}/{action}/")
    api.post(f"/memories/{agent_memory.id}/archive/")
    first = api.get(f"/memories/{agent_memory.id}/history/", {"limit": 2}).json()
    assert [e["event_type"] for e in first["events"]] == ["archived", "unlocked"]
    second = api.get(
        f"/memories/{agent_memory.id}/history/", {"limit": 2, "cursor": first["next_cursor"]}
    ).json()
    assert [e["event_type"] for e in second["events"]] == ["locked", "created"]
    assert second["next_cursor"] is None
    assert first["events"][0]["actor"] == "owner"
    assert second["events"][-1]["actor"] == "agent:claude-code"


def test_the_owner_sees_agent_memories_including_private_ones(api, owner_actor, agent_memory):
    private = remember(
        owner_actor, content="My salary band is private.", kind="fact", visibility="private"
    )
    ids = {m["id"] for m in api.get("/memories/").json()["results"]}
    assert {agent_memory.id, private.id} <= ids


def test_another_owner_sees_none_of_these_memories(other_api, agent_memory):
    assert other_api.get("/memories/").json()["results"] == []
    error_of(other_api.get(f"/memories/{agent_memory.id}/"), 404, "NOT_FOUND")
