"""Input no door can store or parse safely is refused at the door with VALIDATION_ERROR and
changes nothing: unpaired surrogates in any field, nesting past the bound, integers past
2^53, NaN. Before the guard these reached a recursion or the database and answered 500."""

from __future__ import annotations

import json

import pytest

from tests.api.helpers import database_dump
from tests.dashboard.conftest import DashboardClient

pytestmark = pytest.mark.django_db

LONE = "\ud800"
REMEMBER = {"content": "Use uv for Python projects.", "kind": "preference"}

# Every string field an agent sends in a JSON body, by route.
AGENT_FIELDS = [
    ("/api/v1/memories", REMEMBER, ["content", "key", "scope_key", "idempotency_key"]),
    ("/api/v1/memories", {**REMEMBER, "tags": ["x"], "retrieval_hints": ["y"]}, ["tags.0", "retrieval_hints.0"]),
    ("/api/v1/memories", {**REMEMBER, "value": {"a": "b"}}, ["value.a"]),
    ("/api/v1/recall", {"query": "uv"}, ["query", "project_key", "alt_queries.0"]),
    ("/api/v1/context", {"query": "uv"}, ["query", "project_key"]),
    ("/api/v1/handoffs", {"task_id": "t-1", "summary": "Half-way."}, ["task_id", "summary", "decisions.0"]),
    ("/api/v1/capture/batches", {"source": "generic", "thread_id": "t", "items": [{"role": "user", "text": "hi"}]}, ["thread_id", "items.0.text"]),
]  # fmt: skip


def _with(body: dict, path: str, value) -> dict:
    """`body` with `value` at the dotted `path` (list indexes and dict keys)."""
    body = json.loads(json.dumps(body))
    parts = path.split(".")
    node = body
    for index, part in enumerate(parts[:-1]):
        key = int(part) if part.isdigit() else part
        if isinstance(node, dict) and key not in node:
            node[key] = [] if parts[index + 1].isdigit() else {}
        node = node[key]
    last = parts[-1]
    if last.isdigit():
        node.append(value) if len(node) <= int(last) else node.__setitem__(int(last), value)
    else:
        node[last] = value
    return body


@pytest.fixture
def agent_headers(make_token):
    scopes = ["memories:read", "memories:write", "capture:write", "handoff"]
    return {"Authorization": f"Bearer {make_token('claude-code', scopes=scopes)[1]}"}


CASES = [(route, body, field) for route, body, fields in AGENT_FIELDS for field in fields]


@pytest.mark.parametrize(("route", "body", "field"), CASES, ids=[f"{r}:{f}" for r, _, f in CASES])
def test_an_unpaired_surrogate_in_any_agent_field_is_refused(
    client, agent_headers, route, body, field
):
    before = database_dump()
    response = client.post(
        route, json.dumps(_with(body, field, f"x{LONE}y")), content_type="application/json",
        headers=agent_headers,
    )  # fmt: skip
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["code"] == "VALIDATION_ERROR"
    assert "surrogate" in error["message"]
    assert error["details"][0]["field"] == field
    assert database_dump() == before


@pytest.mark.parametrize("depth", [40, 1_000, 100_000])
def test_a_value_nested_too_deep_is_refused_by_the_agent_api(client, agent_headers, depth):
    nested = "[" * depth + "]" * depth
    raw = json.dumps(REMEMBER)[:-1] + f', "value": {{"a": {nested}}}}}'
    response = client.post(
        "/api/v1/memories", raw, content_type="application/json", headers=agent_headers
    )
    assert response.status_code == 400, response.content[:300]
    assert response.json()["error"]["code"] == "VALIDATION_ERROR"
    assert "deeper" in response.json()["error"]["message"]


@pytest.mark.parametrize("number", [2**53, -(2**64), 10**400])
def test_an_integer_past_what_json_clients_hold_is_refused(client, agent_headers, number):
    raw = json.dumps(REMEMBER)[:-1] + f', "value": {{"n": {number}}}}}'
    response = client.post(
        "/api/v1/memories", raw, content_type="application/json", headers=agent_headers
    )
    assert response.status_code == 400, response.content[:300]
    assert response.json()["error"]["details"][0]["field"] == "value.n"


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_are_refused(client, agent_headers, constant):
    raw = json.dumps(REMEMBER)[:-1] + f', "confidence": {constant}}}'
    response = client.post(
        "/api/v1/memories", raw, content_type="application/json", headers=agent_headers
    )
    assert response.status_code == 400, response.content[:300]
    assert response.json()["error"]["code"] == "VALIDATION_ERROR"


def test_a_body_sent_as_text_plain_is_guarded_too(client, agent_headers):
    body = json.dumps({"content": f"a{LONE}", "kind": "fact"})
    response = client.post(
        "/api/v1/memories", body, content_type="text/plain", headers=agent_headers
    )
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "VALIDATION_ERROR"


def test_the_owner_api_refuses_a_value_nested_three_thousand_deep(owner):
    browser = DashboardClient(owner)
    nested = "[" * 3000 + "]" * 3000
    raw = json.dumps(REMEMBER)[:-1] + f', "value": {{"a": {nested}}}}}'
    before = database_dump()
    response = browser.post("/api/owner/memories/", raw, content_type="application/json")
    assert response.status_code == 400, response.content[:300]
    assert response.json()["error"]["code"] == "VALIDATION_ERROR"
    assert database_dump() == before


def test_ordinary_text_in_any_script_passes(client, agent_headers):
    body = {"content": "缓存层用 Redis 🚀 — naïve café", "kind": "fact", "value": {"n": 2**53 - 1}}
    response = client.post(
        "/api/v1/memories", json.dumps(body), content_type="application/json", headers=agent_headers
    )
    assert response.status_code == 201, response.content


@pytest.mark.parametrize(
    "arguments",
    [
        {"content": f"Use uv{LONE}", "kind": "preference"},
        {"content": "Use uv", "kind": "preference", "tags": [f"a{LONE}"]},
        {"content": "Use uv", "kind": "preference", "value": {"n": 2**60}},
        {
            "content": "Use uv",
            "kind": "preference",
            "value": {"a": json.loads("[" * 40 + "]" * 40)},
        },
    ],
    ids=["surrogate", "surrogate-in-list", "huge-integer", "too-deep"],
)
@pytest.mark.django_db(transaction=True)
def test_an_mcp_tool_call_is_guarded_like_the_http_doors(mcp_as, arguments):
    client = mcp_as("claude-code")
    before = database_dump()
    result = client.call("memory_remember", arguments)
    assert result.is_error
    assert result.structured_content["error"]["code"] == "VALIDATION_ERROR"
    assert database_dump() == before
