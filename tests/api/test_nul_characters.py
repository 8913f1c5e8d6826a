"""Input carrying a NUL character (U+0000), which PostgreSQL cannot store, is refused at
every door with a 400 and changes nothing — found by fuzzing recall on PostgreSQL."""

from __future__ import annotations

import json
from urllib.parse import urlencode

import anyio
import pytest
from mcp import Client

from continuity.mcp import build_server
from memories.models import Memory
from tests.dashboard.conftest import DashboardClient

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def headers(make_token):
    return {"Authorization": f"Bearer {make_token('claude-code')[1]}"}


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("get", "/api/v1/recall?query=cache%00key", None),
        ("post", "/api/v1/recall", '{"query": "cache\\u0000key"}'),
        ("post", "/api/v1/memories", '{"content": "Use uv\\u0000 always", "kind": "preference"}'),
        ("post", "/api/v1/memories", '{"content": "Use uv", "kind": "preference", "tags": ["a\\u0000"]}'),
        ("post", "/api/v1/capture/batches", '{"source": "generic", "thread_id": "t", "items": [{"role": "user", "text": "hi\\u0000"}]}'),
    ],
)  # fmt: skip
def test_the_agent_api_refuses_nul_characters_with_a_400_envelope(
    client, headers, method, path, body
):
    if method == "get":
        response = client.get(path, headers=headers)
    else:
        response = client.post(path, body, content_type="application/json", headers=headers)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "VALIDATION_ERROR"
    assert "NUL" in response.json()["error"]["message"]
    assert Memory.objects.count() == 0


def test_an_escaped_backslash_before_u0000_is_ordinary_text(client, headers):
    content = "Windows paths like C:\\\\u0000 are literal text"
    response = client.post(
        "/api/v1/memories", json.dumps({"content": content, "kind": "fact"}),
        content_type="application/json", headers=headers,
    )  # fmt: skip
    assert response.status_code == 201


def test_the_dashboard_refuses_a_nul_character_in_a_search_and_in_a_form(owner):
    browser = DashboardClient(owner)
    assert browser.get("/search/", {"q": "cache\x00key"}).status_code == 400
    form = urlencode({"name": "ci\x00", "agent_name": "codex", "scopes": "memories:read"})
    response = browser.post(
        "/tokens/", form, content_type="application/x-www-form-urlencoded"
    )  # as browsers send it
    assert response.status_code == 400
    assert not owner.access_tokens.exists()


def test_an_mcp_tool_given_a_nul_character_answers_a_validation_error(make_token):
    raw = make_token("claude-code")[1]

    async def call():
        async with Client(build_server(token=raw)) as client:
            return await client.call_tool(
                "memory_remember", {"content": "Use uv\x00 always", "kind": "preference"}
            )

    result = anyio.run(call)
    assert result.is_error
    assert result.structured_content["error"]["code"] == "VALIDATION_ERROR"
    assert Memory.objects.count() == 0
