"""The handoff tools through the official MCP Python client, connected in memory to the server
acting with each agent's token."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

from handoff.models import HandoffCapsule
from tests.mcp.helpers import error, ok

pytestmark = pytest.mark.django_db(transaction=True)

SCOPES = ["memories:read", "memories:write", "handoff"]


@pytest.fixture
def agents(mcp_as, other_owner) -> dict:
    return {
        "writer": mcp_as("claude-code", scopes=SCOPES),
        "reader": mcp_as("codex", scopes=SCOPES),
        "grace": mcp_as("cursor", scopes=SCOPES, user=other_owner),
        "no_handoff": mcp_as("gemini", scopes=["memories:read", "memories:write"]),
    }


def task() -> str:
    return f"github:ada/app#{uuid.uuid4().hex[:8]}"


def test_the_tools_are_listed_with_their_calling_policy(agents):
    listed = {tool.name: tool for tool in agents["writer"].list_tools()}

    create, resume = listed["memory_handoff_create"], listed["memory_handoff_resume"]
    assert "Call it" in create.description and "NOT" in create.description
    assert set(create.input_schema["properties"]) == {
        "task_id", "summary", "status", "decisions", "next_steps", "artifacts", "blockers",
        "expires_at",
    }  # fmt: skip
    assert set(resume.input_schema["properties"]) == {"task_id"}
    assert create.input_schema["properties"]["summary"]["maxLength"] == 4000


def test_one_agent_hands_over_and_another_resumes_through_the_client(agents):
    task_id = task()
    created = ok(agents["writer"].call("memory_handoff_create", {
        "task_id": task_id, "summary": "Migrations written; data backfill not started.",
        "status": "blocked", "next_steps": ["Backfill", "Drop old column"],
        "blockers": ["Needs a maintenance window"],
    }))  # fmt: skip
    assert created["from_agent"] == "claude-code" and created["status"] == "blocked"

    resumed = ok(agents["reader"].call("memory_handoff_resume", {"task_id": task_id}))

    assert resumed["handoff"]["id"] == created["id"]
    assert resumed["handoff"]["resumed_by"] == "codex"
    assert resumed["handoff"]["next_steps"] == ["Backfill", "Drop old column"]


def test_resume_never_crosses_tasks_owners_or_expiry(agents):
    mine, other = task(), task()
    ok(agents["writer"].call("memory_handoff_create", {"task_id": mine, "summary": "Mine"}))
    ok(agents["grace"].call("memory_handoff_create", {"task_id": other, "summary": "Grace's"}))

    def resume(agent, task_id):
        return ok(agents[agent].call("memory_handoff_resume", {"task_id": task_id}))

    assert resume("reader", other) == {"handoff": None}  # grace's task, ada's token
    assert resume("reader", mine + "0") == {"handoff": None}
    assert resume("reader", mine)["handoff"]["summary"] == "Mine"
    HandoffCapsule.objects.filter(task_id=mine).update(
        expires_at=timezone.now() - timedelta(seconds=1)
    )
    assert resume("reader", mine) == {"handoff": None}


def test_errors_are_tool_errors_in_the_envelope(agents):
    writer = agents["writer"]
    secret = error(writer.call("memory_handoff_create", {
        "task_id": task(), "summary": "The deploy key is AKIAIOSFODNN7EXAMPLE",
    }))  # fmt: skip
    assert secret["code"] == "SECRET_REJECTED"

    bad = error(writer.call("memory_handoff_create", {
        "task_id": task(), "summary": "x", "status": "finished",
    }))  # fmt: skip
    assert bad["code"] == "VALIDATION_ERROR"

    unknown = error(writer.call("memory_handoff_resume", {"task_id": "x", "agent": "me"}))
    assert unknown["code"] == "VALIDATION_ERROR"

    forbidden = error(agents["no_handoff"].call("memory_handoff_resume", {"task_id": "x"}))
    assert forbidden["code"] == "FORBIDDEN"
    assert HandoffCapsule.objects.count() == 0
