"""The handoff tools through the official MCP Python client against a live uvicorn."""

from __future__ import annotations

import json
import uuid

import pytest

from tests.mcp.test_http import call, error, ok, session

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def handoff_tokens(mcp_site) -> dict:
    return json.loads(mcp_site.run("-m", "tests.handoff.seed", "tokens").stdout)


def task() -> str:
    return f"github:ada/app#{uuid.uuid4().hex[:8]}"


def test_the_tools_are_listed_with_their_calling_policy(mcp_server, handoff_tokens):
    async def work(client):
        return await client.list_tools()

    listed = {tool.name: tool for tool in session(mcp_server, handoff_tokens["writer"], work).tools}
    create, resume = listed["memory_handoff_create"], listed["memory_handoff_resume"]
    assert "Call it" in create.description and "NOT" in create.description
    assert set(create.input_schema["properties"]) == {
        "task_id", "summary", "status", "decisions", "next_steps", "artifacts", "blockers",
        "expires_at",
    }  # fmt: skip
    assert set(resume.input_schema["properties"]) == {"task_id"}
    assert create.input_schema["properties"]["summary"]["maxLength"] == 4000


def test_one_agent_hands_over_and_another_resumes_through_the_client(mcp_server, handoff_tokens):
    task_id = task()
    created = ok(call(mcp_server, handoff_tokens["writer"], "memory_handoff_create", {
        "task_id": task_id, "summary": "Migrations written; data backfill not started.",
        "status": "blocked", "next_steps": ["Backfill", "Drop old column"],
        "blockers": ["Needs a maintenance window"],
    }))  # fmt: skip
    assert created["from_agent"] == "claude-code" and created["status"] == "blocked"

    resumed = ok(
        call(mcp_server, handoff_tokens["reader"], "memory_handoff_resume", {"task_id": task_id})
    )

    assert resumed["handoff"]["id"] == created["id"]
    assert resumed["handoff"]["resumed_by"] == "codex"
    assert resumed["handoff"]["next_steps"] == ["Backfill", "Drop old column"]


def test_resume_never_crosses_tasks_owners_or_expiry(mcp_server, mcp_site, handoff_tokens):
    mine, other = task(), task()
    ok(
        call(
            mcp_server,
            handoff_tokens["writer"],
            "memory_handoff_create",
            {"task_id": mine, "summary": "Mine"},
        )
    )
    ok(
        call(
            mcp_server,
            handoff_tokens["grace"],
            "memory_handoff_create",
            {"task_id": other, "summary": "Grace's"},
        )
    )

    def resume(token, task_id):
        return ok(
            call(mcp_server, handoff_tokens[token], "memory_handoff_resume", {"task_id": task_id})
        )

    assert resume("reader", other) == {"handoff": None}  # grace's task, ada's token
    assert resume("reader", mine + "0") == {"handoff": None}
    assert resume("reader", mine)["handoff"]["summary"] == "Mine"
    mcp_site.run("-m", "tests.handoff.seed", "expire", mine)
    assert resume("reader", mine) == {"handoff": None}


def test_errors_are_tool_errors_in_the_envelope(mcp_server, mcp_site, handoff_tokens):
    secret = error(call(mcp_server, handoff_tokens["writer"], "memory_handoff_create", {
        "task_id": task(), "summary": "The deploy key is AKIAIOSFODNN7EXAMPLE",
    }))  # fmt: skip
    assert secret["code"] == "SECRET_REJECTED"

    bad = error(call(mcp_server, handoff_tokens["writer"], "memory_handoff_create", {
        "task_id": task(), "summary": "x", "status": "finished",
    }))  # fmt: skip
    assert bad["code"] == "VALIDATION_ERROR"

    unknown = error(
        call(
            mcp_server,
            handoff_tokens["writer"],
            "memory_handoff_resume",
            {"task_id": "x", "agent": "me"},
        )
    )
    assert unknown["code"] == "VALIDATION_ERROR"

    # The MCP door's own tokens carry no handoff scope.
    forbidden = error(
        call(mcp_server, mcp_site.raw("full"), "memory_handoff_resume", {"task_id": "x"})
    )
    assert forbidden["code"] == "FORBIDDEN"
