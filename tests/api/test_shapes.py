"""One wire shape per noun (memories.shapes, handoff.shapes), the audience an argument: what
an agent is shown over the agent API is the agent shape, and the agent API's schemas
declare exactly its fields, so a field cannot be added to one door and not the other."""

from __future__ import annotations

import pytest

from continuity.api import api as agent_api
from handoff.services import handoff_create
from handoff.shapes import capsule_shape
from memories.models import Memory, MemoryEvent, MemoryLink
from memories.retrieval import recall
from memories.services import memory_confirm, memory_link, memory_remember
from memories.shapes import (
    OWNER_ONLY_MEMORY_FIELDS,
    event_shape,
    link_shape,
    memory_shape,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def used_memory(owner_actor, agent_actor):
    """A memory the owner confirmed and an agent recalled: every owner-only field is set."""
    receipt = memory_remember(
        actor=agent_actor, content="The API is deployed with Kamal.", kind="fact"
    )
    memory_confirm(actor=owner_actor, memory_id=receipt.id)
    recall(actor=agent_actor, query="how is the API deployed")
    memory = Memory.objects.get(pk=receipt.id)
    assert memory.access_count and memory.last_accessed_at and memory.verified_at
    return memory


def test_the_agent_api_never_shows_an_agent_the_owner_only_fields(api, used_memory):
    response = api.get(f"memories/{used_memory.pk}")

    assert response.status_code == 200
    assert not set(OWNER_ONLY_MEMORY_FIELDS) & set(response.json())
    history = api.get(f"memories/{used_memory.pk}/history").json()
    assert "actor_agent" not in history["events"][0]


def test_the_owner_sees_the_owner_only_fields(client, owner, used_memory):
    client.force_login(owner)

    body = client.get(f"/api/owner/memories/{used_memory.pk}/").json()

    assert set(OWNER_ONLY_MEMORY_FIELDS) <= set(body)
    assert body["access_count"] == used_memory.access_count and body["verified_at"]


def test_a_memory_link_has_a_null_uri_and_a_uri_link_a_null_target(api):
    one = api.post("memories", {"content": "Docs live in docs/.", "kind": "fact"}).json()
    two = api.post("memories", {"content": "The README links docs/.", "kind": "fact"}).json()

    to_memory = api.post(
        f"memories/{two['id']}/links", {"to_id": one["id"], "relation": "supports"}
    )
    to_uri = api.post(
        f"memories/{two['id']}/links", {"uri": "https://example.org/d", "relation": "derived_from"}
    )

    assert to_memory.json()["uri"] is None and to_memory.json()["to_id"] == one["id"]
    assert to_uri.json()["to_id"] is None and to_uri.json()["uri"] == "https://example.org/d"


def test_an_owner_written_row_shows_null_for_the_absent_agent(owner_actor):
    memory = Memory.objects.get(
        pk=memory_remember(actor=owner_actor, content="Tabs in Makefiles.", kind="fact").id
    )
    other = memory_remember(actor=owner_actor, content="Spaces in Python.", kind="fact")
    link = memory_link(actor=owner_actor, from_id=memory.pk, to_id=other.id, relation="related_to")
    event = MemoryEvent.objects.filter(memory=memory).first()

    assert link_shape(link, "agent")["created_by_agent"] is None
    assert event_shape(event, "agent")["actor"] == "owner"
    assert event_shape(event, "agent")["reason"] is None
    assert memory_shape(memory, "agent")["confidence_basis"] is None


def _properties(schema_name: str) -> set[str]:
    schemas = agent_api.get_openapi_schema()["components"]["schemas"]
    return set(schemas[schema_name]["properties"])


def test_the_agent_api_schemas_declare_exactly_the_agent_shapes(owner_actor, agent_actor):
    receipt = memory_remember(actor=agent_actor, content="Releases on Tuesdays.", kind="decision")
    link = memory_link(
        actor=agent_actor, from_id=receipt.id, uri="https://example.org/r", relation="derived_from"
    )
    memory = Memory.objects.get(pk=receipt.id)
    capsule = handoff_create(actor=owner_actor, task_id="T-1", summary="Half written.")

    assert _properties("MemoryOut") == set(memory_shape(memory, "agent"))
    assert _properties("EventOut") == set(event_shape(memory.events.first(), "agent"))
    assert _properties("LinkOut") == set(link_shape(MemoryLink.objects.get(pk=link.pk), "agent"))
    assert _properties("HandoffOut") == set(capsule_shape(capsule, "agent"))


def test_an_unknown_audience_is_refused(owner_actor):
    memory = Memory.objects.get(
        pk=memory_remember(actor=owner_actor, content="Tabs in Makefiles.", kind="fact").id
    )

    with pytest.raises(ValueError, match="unknown audience"):
        memory_shape(memory, "public")
