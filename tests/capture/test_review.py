"""The owner's review at the service: approve (private by default, shared on request, edited
first, replacing a memory), reject (remembered), bulk (all or nothing), never-remember."""

from __future__ import annotations

import pytest

from capture.models import Candidate, NeverRememberPattern, RejectedFingerprint
from capture.services.review import (
    candidate_approve,
    candidate_reject,
    candidates_bulk,
    never_remember_add,
    never_remember_delete,
    rejection_forgive,
)
from foundation.errors import ErrorCode
from memories.models import Memory, MemoryLink
from tests.memories.helpers import raises, remember

from .inbox_helpers import pending, propose

pytestmark = pytest.mark.django_db


@pytest.fixture
def candidate(owner):
    propose(owner, "Remember that the staging database listens on port 5433.", agent="codex")
    return pending(owner)[0]


def test_approving_creates_a_private_confirmed_capture_memory_linked_to_its_evidence(
    owner_actor, candidate
):
    decided = candidate_approve(actor=owner_actor, candidate_id=candidate.pk)
    memory = Memory.objects.get(pk=decided.memory_id)
    assert (memory.content, memory.kind, memory.trust, memory.visibility, memory.origin) == (
        "The staging database listens on port 5433", "fact", "confirmed", "private", "capture",
    )  # fmt: skip
    assert (memory.confidence, memory.confidence_basis) == (
        candidate.confidence,
        "source_supported",
    )
    links = MemoryLink.objects.filter(from_memory=memory, relation="derived_from")
    event = candidate.evidence[0]
    assert [link.uri for link in links] == [
        f"continuity:capture/thread/{event['thread_id']}/event/{event['event_id']}"
    ]
    stored = Candidate.objects.get(pk=candidate.pk)
    assert (stored.status, stored.approved_visibility, stored.decided_at is not None) == (
        "approved",
        "private",
        True,
    )


def test_approving_as_shared_makes_the_memory_visible_to_agents(owner_actor, candidate):
    decided = candidate_approve(actor=owner_actor, candidate_id=candidate.pk, visibility="shared")
    assert Memory.objects.get(pk=decided.memory_id).visibility == "shared"


def test_the_owner_may_edit_content_kind_and_scope_before_approving(owner_actor, candidate):
    decided = candidate_approve(
        actor=owner_actor, candidate_id=candidate.pk, content="预发布数据库端口是 5433。", kind="constraint",
        scope_type="project", scope_key="github:ada/api",
    )  # fmt: skip
    memory = Memory.objects.get(pk=decided.memory_id)
    assert (memory.content, memory.kind, memory.scope_type, memory.scope_key) == (
        "预发布数据库端口是 5433。", "constraint", "project", "github:ada/api",
    )  # fmt: skip


@pytest.mark.parametrize(
    ("edit", "code"),
    [
        ({"content": "   "}, ErrorCode.VALIDATION_ERROR),
        ({"content": "x" * 4001}, ErrorCode.VALIDATION_ERROR),
        ({"content": "password = hunter2hunter2"}, ErrorCode.SECRET_REJECTED),
        ({"scope_type": "project"}, ErrorCode.VALIDATION_ERROR),
        ({"visibility": "public"}, ErrorCode.VALIDATION_ERROR),
    ],
)
def test_a_bad_edit_is_refused_and_the_candidate_stays_pending(owner_actor, candidate, edit, code):
    with raises(code):
        candidate_approve(actor=owner_actor, candidate_id=candidate.pk, **edit)
    assert Candidate.objects.get(pk=candidate.pk).status == "pending"
    assert Memory.objects.count() == 0


def test_approving_replacing_supersedes_the_named_memory_with_the_new_one(owner_actor, owner):
    old = remember(owner_actor, "Never use tabs in Go files", kind="constraint").id
    propose(owner, "Always use tabs in Go files.")
    (candidate,) = pending(owner)
    decided = candidate_approve(actor=owner_actor, candidate_id=candidate.pk, replace=True)
    new = Memory.objects.get(pk=decided.memory_id)
    assert str(new.supersedes_id) == str(old) and new.status == "active"
    assert new.version == 2  # the next version of the memory it replaces
    assert Memory.objects.get(pk=old).status == "superseded"
    assert MemoryLink.objects.filter(
        from_memory=new, to_memory_id=old, relation="supersedes"
    ).exists()


def test_approving_without_replace_leaves_the_close_memory_alone(owner_actor, owner):
    old = remember(owner_actor, "Never use tabs in Go files", kind="constraint").id
    propose(owner, "Always use tabs in Go files.")
    candidate_approve(actor=owner_actor, candidate_id=pending(owner)[0].pk)
    assert Memory.objects.get(pk=old).status == "active"


def test_replacing_a_memory_that_is_no_longer_live_is_a_conflict_and_changes_nothing(
    owner_actor, owner
):
    from memories.services import memory_archive

    old = remember(owner_actor, "Never use tabs in Go files", kind="constraint").id
    propose(owner, "Always use tabs in Go files.")
    (candidate,) = pending(owner)
    memory_archive(actor=owner_actor, memory_id=old)
    with raises(ErrorCode.CONFLICT):
        candidate_approve(actor=owner_actor, candidate_id=candidate.pk, replace=True)
    assert (
        Candidate.objects.get(pk=candidate.pk).status == "pending" and Memory.objects.count() == 1
    )


def test_replace_true_needs_a_memory_named_by_the_candidate(owner_actor, candidate):
    with raises(ErrorCode.VALIDATION_ERROR):
        candidate_approve(actor=owner_actor, candidate_id=candidate.pk, replace=True)


def test_rejecting_remembers_the_fingerprint_and_forgiving_lets_it_come_back(
    owner_actor, owner, candidate
):
    candidate_reject(actor=owner_actor, candidate_id=candidate.pk)
    rejection = RejectedFingerprint.objects.get(owner=owner)
    assert rejection.fingerprint == candidate.fingerprint and rejection.content == candidate.content
    assert (
        propose(owner, "Remember that the staging database listens on port 5433.", external_id="x")[
            0
        ]
        == 0
    )
    rejection_forgive(actor=owner_actor, rejection_id=rejection.pk)
    assert (
        propose(owner, "Remember that the staging database listens on port 5433.", external_id="y")[
            0
        ]
        == 1
    )


def test_a_decided_candidate_cannot_be_decided_again(owner_actor, candidate):
    candidate_approve(actor=owner_actor, candidate_id=candidate.pk)
    with raises(ErrorCode.CONFLICT):
        candidate_reject(actor=owner_actor, candidate_id=candidate.pk)
    with raises(ErrorCode.CONFLICT):
        candidate_approve(actor=owner_actor, candidate_id=candidate.pk)
    assert Memory.objects.count() == 1


def test_agents_cannot_review_and_another_owner_sees_nothing(agent_actor, other_owner, candidate):
    from foundation.actors import Actor

    with raises(ErrorCode.FORBIDDEN):
        candidate_approve(actor=agent_actor, candidate_id=candidate.pk)
    with raises(ErrorCode.NOT_FOUND):
        candidate_reject(actor=Actor.owner(other_owner), candidate_id=candidate.pk)
    with raises(ErrorCode.VALIDATION_ERROR):
        candidate_reject(actor=Actor.owner(other_owner), candidate_id="not-a-uuid")


def _three(owner):
    propose(owner, "I prefer tabs over spaces. 我偏好简洁的回答。 We decided to ship on Fridays.")
    return pending(owner)


def test_bulk_approve_decides_every_candidate_in_one_go(owner_actor, owner):
    candidates = _three(owner)
    decided = candidates_bulk(
        actor=owner_actor,
        action="approve",
        ids=[str(c.pk) for c in candidates],
        visibility="shared",
    )
    assert len(decided) == 3 and set(Memory.objects.values_list("visibility", flat=True)) == {
        "shared"
    }


def test_bulk_with_one_bad_id_refuses_everything(owner_actor, owner, other_owner):
    candidates = _three(owner)
    ids = [str(c.pk) for c in candidates]
    with raises(ErrorCode.NOT_FOUND) as info:
        candidates_bulk(
            actor=owner_actor, action="reject", ids=[*ids, "00000000-0000-0000-0000-000000000000"]
        )
    assert info.value.details[0]["id"] == "00000000-0000-0000-0000-000000000000"
    with raises(ErrorCode.VALIDATION_ERROR):
        candidates_bulk(actor=owner_actor, action="reject", ids=[*ids, "nope"])
    candidate_reject(actor=owner_actor, candidate_id=ids[0])
    with raises(ErrorCode.CONFLICT):
        candidates_bulk(actor=owner_actor, action="approve", ids=ids)
    assert len(pending(owner)) == 2 and Memory.objects.count() == 0
    with raises(ErrorCode.VALIDATION_ERROR):
        candidates_bulk(actor=owner_actor, action="explode", ids=ids[1:])


def test_bulk_approve_rolls_back_every_memory_when_one_fails(owner_actor, owner):
    candidates = _three(owner)
    remember(owner_actor, "Never use tabs in Go files", kind="constraint")
    Candidate.objects.filter(pk=candidates[-1].pk).update(content="   ")  # cannot become a memory
    with raises(ErrorCode.VALIDATION_ERROR):
        candidates_bulk(actor=owner_actor, action="approve", ids=[str(c.pk) for c in candidates])
    assert len(pending(owner)) == 3 and Memory.objects.count() == 1


def test_a_never_remember_pattern_is_idempotent_and_clears_matching_pending_candidates(
    owner_actor, owner
):
    _three(owner)
    row, expired = never_remember_add(actor=owner_actor, pattern="  简洁  ")
    assert (row.pattern, expired) == ("简洁", 1)
    again, expired = never_remember_add(actor=owner_actor, pattern="简洁")
    assert again.pk == row.pk and expired == 0
    assert sorted(c.content for c in pending(owner)) == [
        "I prefer tabs over spaces",
        "We decided to ship on Fridays",
    ]
    assert Candidate.objects.get(content="我偏好简洁的回答").status == "expired"
    never_remember_delete(actor=owner_actor, pattern_id=row.pk)
    assert not NeverRememberPattern.objects.exists()
    with raises(ErrorCode.NOT_FOUND):
        never_remember_delete(actor=owner_actor, pattern_id=row.pk)


@pytest.mark.parametrize("pattern", ["", "   ", "x" * 201, None, 7])
def test_a_bad_never_remember_pattern_is_refused(owner_actor, pattern):
    with raises(ErrorCode.VALIDATION_ERROR):
        never_remember_add(actor=owner_actor, pattern=pattern)
    assert not NeverRememberPattern.objects.exists()
