"""A token without `private:read` learns nothing of a private memory through a write.

Visibility is applied before any comparison with existing rows (DESIGN §4, remember): a
private holder of a key, or a private statement, is for such a writer not there. The write
answers exactly as it would on a free key, becomes a memory of its own, and the owner gets a
Review proposal over the two; the private memory never changes.
"""

from __future__ import annotations

import pytest

from memories.models import Memory, MemoryEvent, ProposalKind, ReviewProposal
from tests.api.helpers import ApiClient
from tests.mcp.helpers import error, ok
from tests.memories.helpers import remember

pytestmark = pytest.mark.django_db

PRIVATE_TEXT = "The family safe code is kept in the blue notebook."
KEY = "home-safe"


def _private(owner_actor) -> Memory:
    receipt = remember(
        owner_actor, PRIVATE_TEXT, kind="fact", key=KEY, value={"room": "study"},
        visibility="private", trust="locked",
    )  # fmt: skip
    return Memory.objects.get(pk=receipt.id)


def _state(memory: Memory) -> tuple:
    memory.refresh_from_db()
    events = MemoryEvent.objects.filter(memory_id=memory.pk).count()
    return (
        memory.content, memory.value, memory.version, memory.status, memory.trust,
        memory.supersedes_id, events,
    )  # fmt: skip


def _shape(receipt: dict) -> dict:
    """A receipt without its ids: what must be equal on a free key and a private one."""
    return {
        "version": receipt["version"], "trust": receipt["trust"], "status": receipt["status"],
        "action": receipt["evolution"]["action"], "supersedes": receipt["evolution"]["supersedes"],
        "duplicate_of": receipt["duplicate_of"], "similar": receipt["similar"],
        "contradictions": receipt["contradictions"],
    }  # fmt: skip


def _write(api: ApiClient, **body):
    return api.post("memories", {"kind": "fact", **body})


def test_merge_on_a_private_key_answers_as_on_a_free_key_and_merges_nothing(
    client, owner_actor, make_token
):
    private = _private(owner_actor)
    before = _state(private)
    api = ApiClient(client, make_token("claude-code")[1])

    free = _write(api, content="The garage code is on the fridge.", key="garage",
                  value={"where": "fridge"}, write_mode="merge")  # fmt: skip
    hidden = _write(api, content="The safe is in the study.", key=KEY,
                    value={"where": "study"}, write_mode="merge")  # fmt: skip

    assert (free.status_code, hidden.status_code) == (201, 201)
    assert _shape(hidden.json()) == _shape(free.json())
    assert hidden.json()["status"] == "active" and hidden.json()["id"] != str(private.pk)
    shown = api.get(f"memories/{hidden.json()['id']}").json()
    assert shown["value"] == {"where": "study"}, shown  # nothing of the private value
    assert PRIVATE_TEXT not in str(shown)
    assert _state(private) == before
    proposal = ReviewProposal.objects.get(owner=owner_actor.user)
    assert proposal.kind == ProposalKind.NEAR_DUPLICATE
    assert set(proposal.memory_ids) == {str(private.pk), hidden.json()["id"]}


def test_exact_text_of_a_private_memory_is_not_a_duplicate_for_a_writer_who_cannot_read_it(
    client, owner_actor, make_token
):
    private = _private(owner_actor)
    api = ApiClient(client, make_token("claude-code")[1])

    answer = _write(api, content=PRIVATE_TEXT)
    fresh = _write(api, content="A statement nobody wrote before.")

    assert answer.status_code == 201, answer.json()
    assert answer.json()["duplicate_of"] is None
    assert answer.json()["id"] != str(private.pk)
    assert _shape(answer.json()) == _shape(fresh.json())
    private.refresh_from_db()
    assert (private.version, private.status, private.visibility) == (1, "active", "private")
    proposal = ReviewProposal.objects.get(owner=owner_actor.user)
    assert set(proposal.memory_ids) == {str(private.pk), answer.json()["id"]}


def test_compare_and_set_on_a_private_key_reports_the_key_as_free(client, owner_actor, make_token):
    private = _private(owner_actor)
    api = ApiClient(client, make_token("claude-code")[1])

    wrong = _write(api, content="The safe moved.", key=KEY, expected_version=private.version)
    assert wrong.status_code == 409, wrong.json()
    assert wrong.json()["error"]["code"] == "VERSION_CONFLICT"
    assert wrong.json()["error"]["details"][0]["actual"] == 0

    right = _write(api, content="The safe moved.", key=KEY, expected_version=0)
    assert right.status_code == 201, right.json()
    assert right.json()["version"] == 1
    private.refresh_from_db()
    assert (private.content, private.version) == (PRIVATE_TEXT, 1)


def test_a_reader_of_private_memories_still_meets_the_private_holder(
    client, owner_actor, make_token
):
    private = _private(owner_actor)
    scopes = ["memories:read", "memories:write", "private:read"]
    api = ApiClient(client, make_token("claude-code", scopes=scopes)[1])

    same = _write(api, content=PRIVATE_TEXT)
    keyed = _write(api, content="The safe is elsewhere now.", key=KEY)

    assert same.json()["duplicate_of"] == str(private.pk)
    assert keyed.json()["status"] == "disputed"
    assert keyed.json()["contradictions"][0]["id"] == str(private.pk)


@pytest.mark.django_db(transaction=True)
def test_over_mcp_a_private_key_and_text_are_free_for_a_writer_who_cannot_read_them(
    owner_actor, mcp_as
):
    private = _private(owner_actor)
    mcp = mcp_as("claude-code")
    cas, merged, duplicate = mcp.calls([
        ("memory_remember", {"content": "The safe moved.", "kind": "fact", "key": KEY,
                             "expected_version": 1}),
        ("memory_remember", {"content": "The safe is in the study.", "kind": "fact", "key": KEY,
                             "value": {"where": "study"}, "write_mode": "merge"}),
        ("memory_remember", {"content": PRIVATE_TEXT, "kind": "fact"}),
    ])  # fmt: skip
    refused = error(cas)
    assert refused["code"] == "VERSION_CONFLICT"
    assert refused["details"][0]["actual"] == 0
    merged, duplicate = ok(merged), ok(duplicate)
    assert (merged["status"], merged["evolution"]["action"], merged["version"]) == (
        "active", "created", 1,
    )  # fmt: skip
    assert merged["contradictions"] == [] and merged["id"] != str(private.pk)
    assert duplicate["duplicate_of"] is None and duplicate["id"] != str(private.pk)
    shown = ok(mcp.call("memory_history", {"id": merged["id"]}))
    assert PRIVATE_TEXT not in str(shown) and "room" not in str(shown)
    private.refresh_from_db()
    assert (private.content, private.value, private.version) == (
        PRIVATE_TEXT, {"room": "study"}, 1,
    )  # fmt: skip
