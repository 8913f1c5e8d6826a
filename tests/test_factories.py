"""The factories build rows the product itself would write: tokens that authenticate,
memories with their history, capsules an agent resumes, candidates the owner approves."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.tokens import token_authenticate
from capture.services.review import candidate_approve
from foundation.actors import Actor
from foundation.errors import ErrorCode, ServiceError
from handoff.services import handoff_resume
from memories import text
from memories.models import MemoryEvent
from tests.factories import (
    PASSWORD,
    CandidateFactory,
    HandoffCapsuleFactory,
    MemoryFactory,
    TokenFactory,
    UserFactory,
    statement,
)

pytestmark = pytest.mark.django_db


def test_a_user_signs_in_with_the_factory_password_or_the_one_given():
    assert UserFactory().check_password(PASSWORD)
    assert UserFactory(password="another long secret").check_password("another long secret")


def test_a_token_from_the_factory_authenticates_with_its_raw_secret():
    token = TokenFactory(agent_name="codex", scopes=["memories:read"])

    assert token_authenticate(token.raw) == token
    assert token.raw not in token.secret_hash and token.scopes == ["memories:read"]
    assert (token.name, token.agent_name) == ("codex token", "codex")


def test_a_token_takes_an_expiry_date_instead_of_days():
    expires_at = timezone.now() + timedelta(days=3)

    assert TokenFactory(expires_at=expires_at).expires_at == expires_at


def test_a_memory_from_the_factory_is_remembered_with_its_created_event(owner_actor):
    memory = MemoryFactory(actor=owner_actor, kind="fact")

    assert memory.owner == owner_actor.user and memory.kind == "fact" and memory.version == 1
    assert memory.receipt.id == str(memory.id)
    assert list(MemoryEvent.objects.filter(memory=memory).values_list("event_type", flat=True)) == [
        "created"
    ]


def test_a_memory_from_the_factory_passes_the_write_gate_like_any_write(owner_actor):
    with pytest.raises(ServiceError) as caught:
        MemoryFactory(actor=owner_actor, content="password=hunter2hunter2")

    assert caught.value.code == ErrorCode.SECRET_REJECTED


def test_memories_from_the_factory_say_different_things(owner_actor):
    first, second = MemoryFactory.create_batch(2, actor=owner_actor)

    assert first.content != second.content and first.id != second.id


def test_a_capsule_from_the_factory_is_resumed_by_the_next_agent(agent_actor, other_agent_actor):
    capsule = HandoffCapsuleFactory(actor=agent_actor)

    assert handoff_resume(actor=other_agent_actor, task_id=capsule.task_id) == capsule
    assert capsule.from_agent == "claude-code"


def test_a_candidate_from_the_factory_is_keyed_like_the_inbox_and_approves(owner):
    candidate = CandidateFactory(owner=owner, content=statement(3), scope_type="global")

    assert candidate.fingerprint == text.fingerprint(statement(3), "global", "")
    approved = candidate_approve(actor=Actor.owner(owner), candidate_id=candidate.pk)
    assert approved.status == "approved" and approved.memory.content == statement(3)
