"""Answering a conflict the relation judge raised: keep the old memory, take the new one, or
say both are true. Conflicts come from real writes (an agent contradicting the owner, or
two agents contradicting each other), answered through the service."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from foundation.actors import Actor
from foundation.errors import ErrorCode
from foundation.maintenance.runs import Deadline
from memories.compaction import compaction
from memories.models import Memory, MemoryEvent, MemoryLink, ReviewProposal
from memories.services import memory_archive, memory_delete, relations
from memories.services.proposals import proposal_accept, proposal_dismiss
from tests.memories.helpers import raises, remember

pytestmark = pytest.mark.django_db

OWNER_TEXT = "Always use tabs for indentation in the Go services"
AGENT_TEXT = "Never use tabs for indentation in the Go services"


def _conflict(owner_actor, writer, old_text=OWNER_TEXT, new_text=AGENT_TEXT, **old_fields):
    old = remember(owner_actor if old_fields.pop("owners", True) else writer, content=old_text,
                   **old_fields)  # fmt: skip
    new = remember(writer, content=new_text)
    proposal = ReviewProposal.objects.get(kind="conflict")
    assert proposal.detail["new"] == new.id and proposal.detail["old"] == old.id
    return SimpleNamespace(
        proposal=proposal, old=Memory.objects.get(pk=old.id), new=Memory.objects.get(pk=new.id)
    )


@pytest.fixture
def disputed(owner_actor, agent_actor):
    """An agent contradicting what the owner confirmed: the new memory is held."""
    conflict = _conflict(owner_actor, agent_actor, trust="confirmed")
    assert conflict.new.held and conflict.new.status == "disputed"
    return conflict


def _links(a: Memory, b: Memory) -> set[tuple[str, str]]:
    pair = MemoryLink.objects.filter(from_memory__in=[a, b], to_memory__in=[a, b])
    return set(pair.values_list("relation", "created_by_agent"))


def test_keep_old_archives_the_new_memory_keeps_it_held_and_keeps_the_link(owner_actor, disputed):
    answered = proposal_accept(
        actor=owner_actor, proposal_id=disputed.proposal.pk, resolution="keep_old"
    )
    assert answered.status == "accepted" and answered.detail["resolution"] == "keep_old"
    new, old = Memory.objects.get(pk=disputed.new.pk), Memory.objects.get(pk=disputed.old.pk)
    assert (new.status, new.held) == ("archived", True)
    assert (old.status, old.trust) == ("active", "confirmed")
    event = MemoryEvent.objects.get(memory_id=new.pk, event_type="archived")
    assert str(old.pk) in event.reason and "kept" in event.reason
    assert _links(new, old) == {("contradicts", "claude-code")}


def test_take_new_releases_the_new_memory_and_supersedes_the_old(owner_actor, disputed):
    proposal_accept(actor=owner_actor, proposal_id=disputed.proposal.pk, resolution="take_new")
    new, old = Memory.objects.get(pk=disputed.new.pk), Memory.objects.get(pk=disputed.old.pk)
    assert (new.status, new.held, new.trust) == ("active", False, "confirmed")
    assert old.status == "superseded" and new.supersedes_id == old.pk
    assert ("supersedes", "") in _links(new, old)
    assert "took" in MemoryEvent.objects.get(memory_id=old.pk, event_type="superseded").reason
    assert MemoryEvent.objects.filter(memory_id=new.pk, event_type="confirmed").exists()


def test_take_new_between_agents_confirms_the_new_one(owner_actor, agent_actor, other_agent_actor):
    conflict = _conflict(owner_actor, other_agent_actor, owners=False)
    assert not conflict.new.held  # between agents nothing is held, only raised
    proposal_accept(actor=owner_actor, proposal_id=conflict.proposal.pk, resolution="take_new")
    new = Memory.objects.get(pk=conflict.new.pk)
    assert (new.status, new.trust) == ("active", "confirmed")
    assert Memory.objects.get(pk=conflict.old.pk).status == "superseded"


def test_both_true_keeps_both_and_the_owners_link_stops_the_pair_being_raised_again(
    owner_actor, agent_actor, disputed
):
    proposal_accept(actor=owner_actor, proposal_id=disputed.proposal.pk, resolution="both_true")
    new, old = Memory.objects.get(pk=disputed.new.pk), Memory.objects.get(pk=disputed.old.pk)
    assert (new.status, new.held, new.trust) == ("active", False, "confirmed")
    assert old.status == "active"
    assert _links(new, old) == {("related_to", "")}
    # The pair is remembered as answered: compaction never raises it again.
    assert frozenset({str(new.pk), str(old.pk)}) in relations.answered_pairs(owner_actor.user.pk)
    report = compaction(deadline=Deadline.after(3600))
    assert report["conflicts"]["proposed"] == 0
    assert ReviewProposal.objects.filter(kind="conflict", status="pending").count() == 0


def test_chinese_conflicts_are_answered_like_any_other(owner_actor, agent_actor):
    conflict = _conflict(
        owner_actor, agent_actor, "我们使用 Redis 做缓存", "我们不使用 Redis 做缓存",
        kind="decision", trust="confirmed",
    )  # fmt: skip
    proposal_accept(actor=owner_actor, proposal_id=conflict.proposal.pk, resolution="take_new")
    assert Memory.objects.get(pk=conflict.new.pk).content == "我们不使用 Redis 做缓存"
    assert Memory.objects.get(pk=conflict.old.pk).status == "superseded"


@pytest.mark.parametrize("resolution", [None, "", "verify", "keep_both", 3])
def test_a_conflict_needs_one_of_its_three_answers(owner_actor, disputed, resolution):
    with raises(ErrorCode.VALIDATION_ERROR) as raised:
        proposal_accept(actor=owner_actor, proposal_id=disputed.proposal.pk, resolution=resolution)
    assert raised.value.details[0]["field"] == "resolution"
    assert ReviewProposal.objects.get(pk=disputed.proposal.pk).status == "pending"


def test_a_conflict_takes_no_keep(owner_actor, disputed):
    with raises(ErrorCode.VALIDATION_ERROR):
        proposal_accept(actor=owner_actor, proposal_id=disputed.proposal.pk,
                        keep=str(disputed.old.pk), resolution="keep_old")  # fmt: skip
    assert Memory.objects.get(pk=disputed.new.pk).status == "disputed"


@pytest.mark.parametrize("change", ["delete_new", "archive_old"])
def test_a_conflict_whose_memories_changed_is_refused_and_nothing_changes(
    owner_actor, disputed, change
):
    if change == "delete_new":
        memory_delete(actor=owner_actor, memory_id=disputed.new.pk)
    else:
        memory_archive(actor=owner_actor, memory_id=disputed.old.pk)
    links, events = MemoryLink.objects.count(), MemoryEvent.objects.count()
    for resolution in ("keep_old", "take_new", "both_true"):
        with raises(ErrorCode.CONFLICT) as raised:
            proposal_accept(
                actor=owner_actor, proposal_id=disputed.proposal.pk, resolution=resolution
            )
        assert "nothing was changed" in raised.value.message
    assert (MemoryLink.objects.count(), MemoryEvent.objects.count()) == (links, events)
    assert ReviewProposal.objects.get(pk=disputed.proposal.pk).status == "pending"
    assert proposal_dismiss(actor=owner_actor, proposal_id=disputed.proposal.pk).status == (
        "dismissed"
    )


def test_another_owners_conflict_is_not_found(other_owner, disputed):
    with raises(ErrorCode.NOT_FOUND):
        proposal_accept(actor=Actor.owner(other_owner), proposal_id=disputed.proposal.pk,
                        resolution="keep_old")  # fmt: skip
    assert Memory.objects.get(pk=disputed.new.pk).status == "disputed"


def test_an_agent_cannot_answer_a_conflict(agent_actor, disputed):
    with raises(ErrorCode.FORBIDDEN):
        proposal_accept(actor=agent_actor, proposal_id=disputed.proposal.pk, resolution="take_new")


def test_answering_a_conflict_twice_is_a_conflict(owner_actor, disputed):
    proposal_accept(actor=owner_actor, proposal_id=disputed.proposal.pk, resolution="keep_old")
    with raises(ErrorCode.CONFLICT):
        proposal_accept(actor=owner_actor, proposal_id=disputed.proposal.pk, resolution="take_new")
    assert Memory.objects.get(pk=disputed.old.pk).status == "active"
