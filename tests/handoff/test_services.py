"""Handoff services: create, resume (this task's newest unexpired capsule only), expire."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from foundation.actors import Actor
from foundation.errors import ErrorCode, ServiceError
from handoff.models import HandoffCapsule
from handoff.services import handoff_create, handoff_expire, handoff_resume

pytestmark = pytest.mark.django_db


def create(actor, task_id="TASK-1", summary="Parser half done; tests for errors missing.", **extra):
    return handoff_create(actor=actor, task_id=task_id, summary=summary, **extra)


def fails(code, work):
    with pytest.raises(ServiceError) as caught:
        work()
    assert caught.value.code == code, caught.value
    return caught.value


def test_a_capsule_records_the_agent_from_its_token_and_a_default_expiry(agent_actor):
    capsule = create(
        agent_actor, status="blocked", decisions=["Use a hand-written lexer"],
        next_steps=["Write error tests", "Wire the CLI"], artifacts=["src/parser.py"],
        blockers=["Grammar for comments undecided"],
    )  # fmt: skip

    assert capsule.from_agent == "claude-code" and capsule.from_token == agent_actor.token
    assert capsule.owner == agent_actor.user and capsule.status == "blocked"
    assert capsule.next_steps == ["Write error tests", "Wire the CLI"]
    assert timedelta(days=13) < capsule.expires_at - timezone.now() <= timedelta(days=14)
    assert capsule.state == "open"


def test_resume_returns_the_newest_capsule_of_the_task_and_marks_who_resumed(
    agent_actor, other_agent_actor
):
    create(agent_actor, summary="First pass")
    newest = create(agent_actor, summary="Second pass")

    resumed = handoff_resume(actor=other_agent_actor, task_id="TASK-1")

    assert resumed.pk == newest.pk
    assert resumed.resumed_by == "codex" and resumed.resumed_at and resumed.resume_count == 1
    assert HandoffCapsule.objects.get(pk=newest.pk).resumed_by == "codex"


def test_resuming_never_returns_another_tasks_capsule(agent_actor):
    create(agent_actor, task_id="TASK-1")
    create(agent_actor, task_id="TASK-10")
    create(agent_actor, task_id="task-1")

    assert handoff_resume(actor=agent_actor, task_id="TASK-1").task_id == "TASK-1"
    assert handoff_resume(actor=agent_actor, task_id="TASK-2") is None
    assert handoff_resume(actor=agent_actor, task_id="TASK") is None


def test_expired_capsules_are_never_returned(agent_actor):
    older = create(agent_actor, summary="Still valid")
    newer = create(agent_actor, summary="Already expired")
    HandoffCapsule.objects.filter(pk=newer.pk).update(
        expires_at=timezone.now() - timedelta(seconds=1)
    )

    assert handoff_resume(actor=agent_actor, task_id="TASK-1").pk == older.pk
    HandoffCapsule.objects.filter(pk=older.pk).update(expires_at=timezone.now())
    assert handoff_resume(actor=agent_actor, task_id="TASK-1") is None


def test_another_owners_capsule_is_never_returned(agent_actor, make_token, other_owner):
    token, _ = make_token("claude-code", user=other_owner)
    create(Actor.agent(token), summary="Grace's task state")

    assert handoff_resume(actor=agent_actor, task_id="TASK-1") is None


def test_agents_need_the_handoff_scope(make_token):
    token, _ = make_token("reader", scopes=["memories:read", "memories:write"])
    actor = Actor.agent(token)

    fails(ErrorCode.FORBIDDEN, lambda: create(actor))
    fails(ErrorCode.FORBIDDEN, lambda: handoff_resume(actor=actor, task_id="TASK-1"))
    assert not HandoffCapsule.objects.exists()


def test_secrets_in_any_text_field_are_rejected(agent_actor):
    error = fails(
        ErrorCode.SECRET_REJECTED,
        lambda: create(agent_actor, next_steps=["Deploy with key AKIAIOSFODNN7EXAMPLE"]),
    )
    assert error.details[0]["field"] == "next_steps"
    fails(
        ErrorCode.SECRET_REJECTED,
        lambda: create(
            agent_actor, summary="Send Authorization: Bearer abcdef0123456789abcdef to the API"
        ),
    )
    assert not HandoffCapsule.objects.exists()


@pytest.mark.parametrize(
    "fields, field",
    [
        ({"task_id": ""}, "task_id"),
        ({"task_id": "x" * 301}, "task_id"),
        ({"summary": "   "}, "summary"),
        ({"summary": "x" * 4001}, "summary"),
        ({"summary": "nul\x00"}, "summary"),
        ({"status": "finished"}, "status"),
        ({"decisions": "one decision"}, "decisions"),
        ({"decisions": [1, 2]}, "decisions"),
        ({"next_steps": ["step"] * 51}, "next_steps"),
        ({"blockers": ["x" * 1001]}, "blockers"),
        ({"artifacts": ["x" * 2001]}, "artifacts"),
        ({"expires_at": "tomorrow"}, "expires_at"),
        ({"expires_at": "2030-01-01T00:00:00"}, "expires_at"),
        ({"expires_at": timezone.now() - timedelta(minutes=1)}, "expires_at"),
        ({"expires_at": timezone.now() + timedelta(days=91)}, "expires_at"),
    ],
)
def test_bad_input_is_refused_and_writes_nothing(agent_actor, fields, field):
    error = fails(ErrorCode.VALIDATION_ERROR, lambda: create(agent_actor, **fields))
    assert error.details[0]["field"] == field
    assert not HandoffCapsule.objects.exists()


def test_an_explicit_expiry_is_kept(agent_actor):
    when = timezone.now() + timedelta(hours=3)
    assert create(agent_actor, expires_at=when.isoformat()).expires_at == when


def test_the_owner_expires_a_capsule_so_it_is_no_longer_resumed(agent_actor, owner_actor):
    capsule = create(agent_actor)

    expired = handoff_expire(actor=owner_actor, capsule_id=capsule.pk)
    again = handoff_expire(actor=owner_actor, capsule_id=capsule.pk)

    assert expired.state == "expired" and again.expires_at == expired.expires_at
    assert handoff_resume(actor=agent_actor, task_id="TASK-1") is None


def test_agents_cannot_expire_and_other_owners_see_nothing(agent_actor, other_owner):
    capsule = create(agent_actor)

    fails(ErrorCode.FORBIDDEN, lambda: handoff_expire(actor=agent_actor, capsule_id=capsule.pk))
    fails(
        ErrorCode.NOT_FOUND,
        lambda: handoff_expire(actor=Actor.owner(other_owner), capsule_id=capsule.pk),
    )
    assert handoff_resume(actor=agent_actor, task_id="TASK-1").pk == capsule.pk
