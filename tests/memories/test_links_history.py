"""Links between memories, history pagination, and what an agent may see."""

import pytest

from foundation.actors import Actor
from foundation.errors import ErrorCode
from memories.models import MemoryLink
from memories.selectors import memory_get, memory_history
from memories.services import memory_confirm, memory_correct, memory_link
from tests.memories.helpers import raises, remember

pytestmark = pytest.mark.django_db


def test_link_to_a_memory_and_to_a_uri_is_idempotent(agent_actor):
    a = remember(agent_actor, content="We use Celery for background jobs", kind="decision")
    b = remember(agent_actor, content="The API reference is generated from docstrings", kind="fact")
    link = memory_link(actor=agent_actor, from_id=b.id, to_id=a.id, relation="supports")
    again = memory_link(actor=agent_actor, from_id=b.id, to_id=a.id, relation="supports")
    assert link.pk == again.pk and link.created_by_agent == "claude-code"
    uri = memory_link(
        actor=agent_actor,
        from_id=a.id,
        uri="https://docs.celeryq.dev/en/stable/",
        relation="related_to",
    )
    assert uri.uri.startswith("https://") and MemoryLink.objects.count() == 2


@pytest.mark.parametrize(
    "fields",
    [
        {"relation": "loves", "uri": "https://example.com"},
        {"relation": "supersedes", "uri": "https://example.com"},
        {"relation": "related_to"},
        {"relation": "related_to", "uri": "not a uri"},
        {
            "relation": "related_to",
            "uri": "https://x",
            "to_id": "00000000-0000-0000-0000-000000000001",
        },
    ],
)
def test_bad_links_are_validation_errors(agent_actor, fields):
    a = remember(agent_actor)
    with raises(ErrorCode.VALIDATION_ERROR):
        memory_link(actor=agent_actor, from_id=a.id, **fields)
    assert MemoryLink.objects.count() == 0


def test_a_memory_cannot_link_to_itself(agent_actor):
    a = remember(agent_actor)
    with raises(ErrorCode.VALIDATION_ERROR):
        memory_link(actor=agent_actor, from_id=a.id, to_id=a.id, relation="related_to")


def test_a_uri_carrying_a_token_is_rejected(agent_actor):
    a = remember(agent_actor)
    with raises(ErrorCode.SECRET_REJECTED):
        memory_link(
            actor=agent_actor,
            from_id=a.id,
            relation="related_to",
            uri="https://api.example.com/?token=cont_pat_" + "Ab1" * 13 + "x",
        )


def test_history_covers_every_version_newest_first_and_pages(owner_actor, agent_actor):
    receipt = remember(agent_actor, content="Port 8000", kind="fact", key="port")
    for port in (8001, 8002, 8003):
        receipt = remember(agent_actor, content=f"Port {port}", kind="fact", key="port")
    memory_confirm(actor=owner_actor, memory_id=receipt.id)
    latest = memory_correct(actor=owner_actor, memory_id=receipt.id, content="Port 9000")
    page = memory_history(actor=agent_actor, memory_id=latest.pk, limit=3)
    seen = list(page.events)
    while page.next_cursor:
        page = memory_history(
            actor=agent_actor, memory_id=latest.pk, limit=3, cursor=page.next_cursor
        )
        seen.extend(page.events)
    ids = [event.id for event in seen]
    assert ids == sorted(ids, reverse=True) and len(set(ids)) == len(ids)
    types = [event.event_type for event in seen]
    assert types[0] == "corrected" and types.count("created") == 1 and types.count("replaced") == 3
    assert {event.version for event in seen} == {1, 2, 3, 4, 5}


def test_a_cursor_from_another_memorys_history_is_rejected(agent_actor):
    a = remember(agent_actor, content="Port 8000", kind="fact", key="port")
    a = remember(agent_actor, content="Port 8001", kind="fact", key="port")
    b = remember(agent_actor, content="Another memory")
    cursor = memory_history(actor=agent_actor, memory_id=a.id, limit=1).next_cursor
    assert cursor
    with raises(ErrorCode.VALIDATION_ERROR):
        memory_history(actor=agent_actor, memory_id=b.id, cursor=cursor)
    with raises(ErrorCode.VALIDATION_ERROR):
        memory_history(actor=agent_actor, memory_id=b.id, cursor="!!garbage")
    with raises(ErrorCode.VALIDATION_ERROR):
        memory_history(actor=agent_actor, memory_id=b.id, limit=0)


def test_agents_see_shared_memories_but_not_private_ones_or_other_agents_notes(
    owner_actor, agent_actor, other_agent_actor, make_token
):
    private = remember(
        owner_actor, content="My bank is Example Bank", kind="fact", visibility="private"
    )
    note = remember(other_agent_actor, content="Codex sandbox quirk", scope_type="agent")
    shared = remember(owner_actor, content="I prefer concise answers")
    assert str(memory_get(actor=agent_actor, memory_id=shared.id).pk) == shared.id
    for hidden in (private, note):
        with raises(ErrorCode.NOT_FOUND):
            memory_get(actor=agent_actor, memory_id=hidden.id)
    token, _ = make_token("assistant", scopes=["memories:read", "private:read"])
    assert str(memory_get(actor=Actor.agent(token), memory_id=private.id).pk) == private.id


def test_project_restricted_tokens_do_not_see_other_projects(owner_actor, make_token):
    other = remember(
        owner_actor,
        content="Uses Django",
        kind="fact",
        scope_type="project",
        scope_key="github:acme/api",
    )
    token, _ = make_token("cursor", allowed_projects=["github:acme/web"])
    with raises(ErrorCode.NOT_FOUND):
        memory_get(actor=Actor.agent(token), memory_id=other.id)


def test_reading_needs_the_read_scope(owner_actor, make_token):
    shared = remember(owner_actor)
    token, _ = make_token("writer", scopes=["memories:write"])
    with raises(ErrorCode.FORBIDDEN):
        memory_get(actor=Actor.agent(token), memory_id=shared.id)
