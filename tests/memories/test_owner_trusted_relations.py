"""What the owner confirmed or locked is immutable to agents on both sides of every relation."""

from __future__ import annotations

import pytest

from foundation.errors import ErrorCode
from memories.models import Memory, MemoryEvent, MemoryLink
from memories.services import memory_checkpoint, memory_forget, memory_link
from tests.api.helpers import ApiClient
from tests.mcp.helpers import error, ok
from tests.memories.helpers import raises, remember

pytestmark = pytest.mark.django_db

OWNER_TEXT = "Releases ship on Tuesdays after the freeze."


def _trusted(owner_actor, trust: str) -> Memory:
    return Memory.objects.get(pk=remember(owner_actor, OWNER_TEXT, kind="decision", trust=trust).id)


def _untouched(memory: Memory):
    """A snapshot of everything an agent must not change: compare before and after."""
    memory.refresh_from_db()
    return (
        memory.content, memory.version, memory.status, memory.trust, memory.supersedes_id,
        list(MemoryEvent.objects.filter(memory_id=memory.pk).values_list("id", flat=True)),
        sorted(MemoryLink.objects.filter(to_memory=memory).values_list("id", flat=True)),
        sorted(MemoryLink.objects.filter(from_memory=memory).values_list("id", flat=True)),
    )  # fmt: skip


@pytest.mark.parametrize("trust", ["confirmed", "locked"])
def test_agent_cannot_name_an_owner_trusted_memory_as_the_successor_of_its_own(
    owner_actor, agent_actor, trust
):
    trusted = _trusted(owner_actor, trust)
    mine = remember(agent_actor, "Releases ship whenever the tests pass.", kind="decision")
    before = _untouched(trusted)

    with raises(ErrorCode.FORBIDDEN):
        memory_forget(actor=agent_actor, memory_id=mine.id, superseded_by=trusted.pk)

    assert _untouched(trusted) == before
    assert Memory.objects.get(pk=mine.id).status == "active"


@pytest.mark.parametrize("trust", ["confirmed", "locked"])
def test_agent_cannot_link_from_or_to_an_owner_trusted_memory(owner_actor, agent_actor, trust):
    trusted = _trusted(owner_actor, trust)
    mine = remember(agent_actor, "The freeze starts on Mondays.", kind="fact")
    before = _untouched(trusted)

    with raises(ErrorCode.FORBIDDEN):
        memory_link(actor=agent_actor, from_id=mine.id, to_id=trusted.pk, relation="supports")
    with raises(ErrorCode.FORBIDDEN):
        memory_link(actor=agent_actor, from_id=trusted.pk, to_id=mine.id, relation="related_to")
    with raises(ErrorCode.FORBIDDEN):
        memory_link(actor=agent_actor, from_id=trusted.pk, uri="https://example.test/x",
                    relation="related_to")  # fmt: skip

    assert _untouched(trusted) == before


@pytest.mark.parametrize("trust", ["confirmed", "locked"])
def test_an_agent_s_refinement_of_an_owner_trusted_memory_is_named_but_not_linked(
    owner_actor, agent_actor, trust
):
    trusted = _trusted(owner_actor, trust)
    before = _untouched(trusted)

    receipt = remember(agent_actor, f"{OWNER_TEXT[:-1]}; tag each release with its date.",
                       kind="decision")  # fmt: skip

    named = {item["id"]: item for item in receipt.relations}
    assert named[str(trusted.pk)]["relation"] == "refines"
    assert named[str(trusted.pk)]["action"] == "noted"
    assert _untouched(trusted) == before
    assert not MemoryLink.objects.filter(from_memory_id=receipt.id).exists()


def test_the_owner_still_links_and_supersedes_their_own_memories(owner_actor, agent_actor):
    trusted = _trusted(owner_actor, "locked")
    mine = remember(agent_actor, "The freeze starts on Mondays.", kind="fact")
    memory_link(actor=owner_actor, from_id=mine.id, to_id=trusted.pk, relation="supports")
    memory_forget(actor=owner_actor, memory_id=mine.id, superseded_by=trusted.pk)
    assert Memory.objects.get(pk=mine.id).status == "superseded"


def test_an_agents_checkpoint_leaves_an_owner_trusted_duplicate_as_it_was(owner_actor, agent_actor):
    trusted = _trusted(owner_actor, "locked")
    before = _untouched(trusted)

    result = memory_checkpoint(
        actor=agent_actor, summary="Worked on the login form.",
        memories=[{"content": OWNER_TEXT, "kind": "decision"}],
    )  # fmt: skip

    assert result["memory_ids"] == [str(trusted.pk)]
    assert _untouched(trusted) == before


def test_over_http_forget_with_a_locked_successor_is_refused_and_changes_nothing(
    client, owner_actor, make_token
):
    trusted = _trusted(owner_actor, "locked")
    api = ApiClient(client, make_token("claude-code")[1])
    mine = api.post("memories", {"content": "Ship on Fridays.", "kind": "decision"}).json()
    before = _untouched(trusted)

    answer = api.post(f"memories/{mine['id']}/forget", {"superseded_by": str(trusted.pk)})

    assert answer.status_code == 403, answer.json()
    assert answer.json()["error"]["code"] == "FORBIDDEN"
    assert _untouched(trusted) == before


@pytest.mark.django_db(transaction=True)
def test_over_mcp_forget_and_link_cannot_touch_a_confirmed_memory(owner_actor, mcp_as):
    trusted = _trusted(owner_actor, "confirmed")
    mcp = mcp_as("claude-code")
    mine = ok(mcp.call("memory_remember", {"content": "Ship on Fridays.", "kind": "decision"}))
    before = _untouched(trusted)

    forget, link = mcp.calls([
        ("memory_forget", {"id": mine["id"], "superseded_by": str(trusted.pk)}),
        ("memory_link", {"from_id": mine["id"], "to_id": str(trusted.pk), "relation": "supports"}),
    ])  # fmt: skip

    assert error(forget)["code"] == "FORBIDDEN"
    assert error(link)["code"] == "FORBIDDEN"
    assert _untouched(trusted) == before
