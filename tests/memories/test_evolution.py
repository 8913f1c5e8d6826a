"""Memory evolution: what a write is to what is there, and the owner always on top.

The reported cases, end to end through memory_remember and recall: an agent's contradiction
or replacement of an owner-confirmed or locked memory is disputed and held (the owner's
memory stands, untouched, and Review shows the pair); between agent memories a change cue
retires the old one, a contradiction is linked, raised and annotated in recall; a rewording
returns the memory it repeats; nothing is related across projects or to what the writer may
not read.
"""

from __future__ import annotations

import pytest

from foundation.actors import Actor
from memories.models import Memory, MemoryEvent, MemoryLink, ReviewProposal
from memories.retrieval.recall import recall
from tests.memories.helpers import remember

pytestmark = pytest.mark.django_db

SHOP = {"scope_type": "project", "scope_key": "github:acme/shop"}

OWNER_CASES = [
    ("Use pnpm for JavaScript projects.", "confirmed",
     "Do not use pnpm for JavaScript projects; npm is enough.", "contradicts"),
    ("Never push directly to main", "locked",
     "Always push directly to main for small fixes.", "contradicts"),
    ("缓存层优先使用 Redis，不要用本地内存缓存。", "confirmed",
     "缓存层不要使用 Redis，用本地内存缓存。", "contradicts"),
    ("Money amounts are stored as integer minor units (cents).", "confirmed",
     "Money amounts are not stored as integer minor units; use Decimal.", "contradicts"),
    ("Use pnpm for JavaScript projects.", "locked",
     "We no longer use pnpm for JavaScript projects; switched to npm.", "supersedes"),
]  # fmt: skip


def state(memory_id) -> tuple:
    memory = Memory.objects.get(pk=memory_id)
    return memory.status, memory.held, memory.version, memory.trust, memory.content


@pytest.mark.parametrize(("owner_text", "trust", "agent_text", "relation"), OWNER_CASES)
def test_an_agent_never_displaces_what_the_owner_confirmed_or_locked(
    owner_actor, agent_actor, other_agent_actor, owner_text, trust, agent_text, relation
):
    owners = remember(owner_actor, content=owner_text, kind="preference", trust=trust)
    before = state(owners.id)

    receipt = remember(agent_actor, content=agent_text, kind="preference", **SHOP)

    assert receipt.evolution["action"] == "disputed" and receipt.status == "disputed"
    assert receipt.stands == owners.id
    disputed = [item for item in receipt.relations if item["action"] == "disputed"]
    assert [(item["id"], item["relation"]) for item in disputed] == [(owners.id, relation)]
    assert disputed[0]["signals"]
    assert state(owners.id) == before  # untouched: status, version, trust, text
    assert Memory.objects.get(pk=receipt.id).held
    assert MemoryLink.objects.filter(from_memory_id=receipt.id, to_memory_id=owners.id).exists()
    proposal = ReviewProposal.objects.get(kind="conflict")
    assert sorted(proposal.memory_ids) == sorted([owners.id, receipt.id])
    assert proposal.detail["relation"] == relation and proposal.detail["old"] == owners.id
    # No agent reads the disputed write: the owner's memory answers alone.
    found = recall(actor=other_agent_actor, query=agent_text, project_key=SHOP["scope_key"])
    ids = [item.id for item in found.memories]
    assert receipt.id not in ids and owners.id in ids


def test_a_change_cue_retires_an_agent_memory_and_recall_ranks_the_successor_first(
    agent_actor, other_agent_actor
):
    old = remember(agent_actor, content="Unit tests run with Jest.", kind="decision", **SHOP)
    new = remember(
        other_agent_actor, content="Unit tests now run with Vitest instead of Jest.",
        kind="decision", **SHOP,
    )  # fmt: skip
    (relation,) = [item for item in new.relations if item["id"] == old.id]
    assert (relation["relation"], relation["action"]) == ("supersedes", "superseded")
    assert Memory.objects.get(pk=old.id).status == "superseded"
    assert MemoryEvent.objects.filter(memory_id=old.id, event_type="superseded").exists()
    found = recall(actor=agent_actor, query="unit tests Jest", project_key=SHOP["scope_key"])
    ids = [item.id for item in found.memories]
    assert ids.index(new.id) < ids.index(old.id)


def test_a_contradiction_between_agents_is_linked_raised_and_annotated_in_recall(
    agent_actor, other_agent_actor
):
    first = remember(agent_actor, content="Always squash-merge pull requests.", **SHOP)
    second = remember(other_agent_actor, content="Never squash-merge pull requests.", **SHOP)
    (relation,) = second.relations
    assert (relation["id"], relation["relation"], relation["action"]) == (
        first.id, "contradicts", "proposed",
    )  # fmt: skip
    assert Memory.objects.get(pk=first.id).status == "active"  # neither wins on its own
    assert ReviewProposal.objects.filter(kind="conflict").count() == 1
    found = recall(actor=agent_actor, query="squash-merge pull requests",
                          project_key=SHOP["scope_key"])  # fmt: skip
    annotations = {item.id: item.as_dict()["conflicts_with"] for item in found.memories}
    assert annotations[first.id] == [second.id] and annotations[second.id] == [first.id]


def test_a_rewording_returns_the_memory_and_records_the_writer_as_corroborating(
    agent_actor, other_agent_actor
):
    first = remember(agent_actor, content="Use pnpm for JavaScript projects.", **SHOP)
    again = remember(other_agent_actor, content="Use pnpm for all JavaScript projects.", **SHOP)
    assert again.id == first.id and again.evolution["action"] == "duplicate"
    assert again.relations[0]["action"] == "returned"
    event = MemoryEvent.objects.get(memory_id=first.id, event_type="corroborated")
    assert event.actor_agent == "codex"
    assert Memory.objects.count() == 1


def test_nothing_is_related_across_projects_or_to_what_the_writer_cannot_read(
    owner_actor, agent_actor
):
    elsewhere = remember(owner_actor, content="Use pnpm for JavaScript projects.",
                         scope_type="project", scope_key="github:acme/other", trust="confirmed")  # fmt: skip
    private = remember(owner_actor, content="Use pnpm for JavaScript projects in the shop.",
                       visibility="private", trust="confirmed", **SHOP)  # fmt: skip
    receipt = remember(
        agent_actor, content="Do not use pnpm for JavaScript projects in the shop.", **SHOP
    )
    named = {item["id"] for item in receipt.relations}
    assert elsewhere.id not in named and private.id not in named
    assert receipt.evolution["action"] == "created" and receipt.stands is None
    assert not ReviewProposal.objects.filter(kind="conflict").exists()


def test_the_owner_replacing_their_own_memory_with_a_cue_retires_it(owner_actor):
    old = remember(owner_actor, content="Deploys happen on Tuesdays.", kind="decision")
    new = remember(owner_actor, content="Deploys now happen on Thursdays.", kind="decision")
    (relation,) = new.relations
    assert (relation["id"], relation["action"]) == (old.id, "superseded")
    assert Memory.objects.get(pk=old.id).status == "superseded"


@pytest.mark.parametrize(
    ("where", "visibility"),
    [(SHOP, "private"), ({"scope_type": "project", "scope_key": "github:acme/shop"}, "shared")],
)
def test_a_successor_other_readers_cannot_see_proposes_instead_of_retiring(
    agent_actor, make_token, where, visibility
):
    """A private note, or a project's note against a global one, never retires what other
    agents or other projects read: it is proposed, and the old memory's history never
    names a successor its readers may not see."""
    old_scope = SHOP if visibility == "private" else {"scope_type": "global", "scope_key": ""}
    old = remember(agent_actor, content="Unit tests run with Jest.", kind="decision", **old_scope)
    writer = Actor.agent(make_token("codex", scopes=["memories:read", "memories:write",
                                                     "private:read"])[0])  # fmt: skip
    new = remember(
        writer, content="Unit tests now run with Vitest instead of Jest.",
        kind="decision", visibility=visibility, **where,
    )  # fmt: skip
    (relation,) = [item for item in new.relations if item["id"] == old.id]
    assert (relation["relation"], relation["action"]) == ("supersedes", "proposed")
    assert Memory.objects.get(pk=old.id).status == "active"
    assert ReviewProposal.objects.filter(kind="conflict").count() == 1
    reasons = MemoryEvent.objects.filter(memory_id=old.id).values_list("reason", flat=True)
    assert not any(str(new.id) in (reason or "") for reason in reasons)


def test_a_retired_memory_s_history_does_not_name_its_successor(agent_actor, other_agent_actor):
    old = remember(agent_actor, content="Unit tests run with Jest.", kind="decision", **SHOP)
    new = remember(
        other_agent_actor, content="Unit tests now run with Vitest instead of Jest.",
        kind="decision", **SHOP,
    )  # fmt: skip
    (event,) = MemoryEvent.objects.filter(memory_id=old.id, event_type="superseded")
    assert (
        event.reason.startswith("superseded by a newer memory") and str(new.id) not in event.reason
    )
