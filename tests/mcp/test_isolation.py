"""The isolation matrix over MCP: the same two owners, canaries and token profiles as the
agent API's matrix (tests/api/isolation.py), every tool called through the SDK's own
client connected in memory to the server acting with each token (what the stdio door
does). A tool refused for a missing scope or project answers FORBIDDEN, the
other owner's ids NOT_FOUND, and no result carries a canary the token must not see."""

from __future__ import annotations

import json
import uuid

import pytest

from tests.api.isolation import P1, P2, forbidden_canaries, token_profiles
from tests.mcp.helpers import TOOLS

pytestmark = pytest.mark.django_db(transaction=True)


def calls_for(world, number: int):
    """(tool, arguments, required scope or None, project named or None, expect NOT_FOUND)."""
    ids, unique = world["ids"], f"{number}-{uuid.uuid4().hex[:6]}"
    note = {"content": f"Deploys need a green build ({unique})", "kind": "fact"}
    return [
        ("memory_capabilities", {}, None, None, False),
        ("memory_remember", {**note, "scope_type": "project", "scope_key": P1}, "memories:write", P1, False),
        ("memory_remember", {**note, "scope_type": "project", "scope_key": P2}, "memories:write", P2, False),
        ("memory_checkpoint", {"summary": f"Progress {unique}", "project_key": P1}, "memories:write", P1, False),
        ("memory_forget", {"id": ids["bob"]}, "memories:write", None, True),
        ("memory_link", {"from_id": ids["global"], "to_id": ids["bob"], "relation": "related_to"},
         "memories:write", None, True),
        ("memory_history", {"id": ids["bob"]}, "memories:read", None, True),
        ("memory_history", {"id": ids["other_agent"]}, "memories:read", None, True),
        ("memory_recall", {"query": "release notes"}, "memories:read", None, False),
        ("memory_recall", {"query": "release notes", "project_key": P2}, "memories:read", P2, False),
        ("memory_context", {"query": "release notes", "project_key": P1}, "memories:read", P1, False),
        ("memory_bootstrap", {"project_key": P1}, "memories:read", P1, False),
        ("memory_bootstrap", {"project_key": P2}, "memories:read", P2, False),
        ("memory_handoff_create", {"task_id": f"T-{unique}", "summary": "half done"}, "handoff", None, False),
        ("memory_handoff_resume", {"task_id": "T-shared"}, "handoff", None, False),
    ]  # fmt: skip


def test_every_tool_is_in_the_matrix(world):
    assert {tool for tool, *_ in calls_for(world, 0)} == TOOLS


def test_no_token_sees_or_touches_what_it_must_not_over_mcp(world, mcp_as, settings):
    settings.CONTINUITY_RATE_LIMIT_PER_MINUTE = 0
    problems = []
    for number, (scopes, restricted) in enumerate(token_profiles()):
        mcp = mcp_as(
            "claude-code", scopes=scopes, **({"allowed_projects": [P1]} if restricted else {})
        )
        calls = calls_for(world, number)
        results = mcp.calls([(tool, arguments) for tool, arguments, *_ in calls])
        leaks = forbidden_canaries(scopes, restricted)
        for (tool, arguments, scope, project, not_found), result in zip(
            calls, results, strict=True
        ):
            who = f"{tool} {json.dumps(arguments)[:60]} with {scopes}{' restricted to P1' if restricted else ''}"
            text = "".join(part.text for part in result.content)
            allowed = (scope is None or scope in scopes) and not (restricted and project == P2)
            code = result.structured_content["error"]["code"] if result.is_error else None
            expected = "FORBIDDEN" if not allowed else ("NOT_FOUND" if not_found else None)
            if code != expected:
                problems.append(
                    f"{who}: {code or 'ok'} (expected {expected or 'ok'}): {text[:160]}"
                )
            problems += [f"{who}: leaked {canary}" for canary in leaks if canary in text]

    assert problems == [], "\n".join(problems[:30])
