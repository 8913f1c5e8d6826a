"""The MCP endpoint at /mcp as agents reach it: uvicorn serving continuity.asgi, driven by the
official Python MCP client over both protocol revisions (the initialize handshake and the
stateless 2026 revision), plus raw HTTP for what a client library hides (401, 421, 403).

Only the transport is tested here; what the tools do is tested through the SDK's in-memory
client (test_tool_calls.py), which needs no server process."""

from __future__ import annotations

import httpx
import pytest
from mcp.shared.exceptions import MCPError
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from tests.mcp.helpers import LIST_TOOLS, TOOLS, call, ok, post, session, unique

pytestmark = pytest.mark.slow

MODES = ["legacy", "2026-07-28", "auto"]


# --- protocol ---------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_a_client_connects_and_lists_the_tools_in_each_protocol_revision(
    mcp_server, mcp_site, mode
):
    async def work(client):
        return client.protocol_version, await client.list_tools()

    version, listed = session(mcp_server, mcp_site.raw("full"), work, mode)

    if mode == "legacy":
        assert version in HANDSHAKE_PROTOCOL_VERSIONS
    else:
        assert version == "2026-07-28"
    assert {tool.name for tool in listed.tools} == TOOLS
    recall = next(tool for tool in listed.tools if tool.name == "memory_recall")
    assert "Call it" in recall.description and "NOT" in recall.description
    assert recall.annotations.read_only_hint is True
    assert recall.input_schema["properties"]["limit"]["maximum"] == 100


@pytest.mark.parametrize("mode", MODES)
def test_remember_then_recall_over_each_protocol_revision(mcp_server, mcp_site, mode):
    content = unique(f"Prefers tabs in Makefiles, noted over {mode}")

    async def work(client):
        written = await client.call_tool(
            "memory_remember", {"content": content, "kind": "preference"}
        )
        found = await client.call_tool("memory_recall", {"query": content, "limit": 5})
        return written, found

    written, found = session(mcp_server, mcp_site.raw("full"), work, mode)

    receipt = ok(written)
    assert receipt["evolution"]["action"] == "created" and receipt["trust"] == "inferred"
    assert receipt["id"] in [memory["id"] for memory in ok(found)["memories"]]


# --- authentication and transport security ----------------------------------------------------


@pytest.mark.parametrize("token", [None, "cont_pat_" + "x" * 40, "not-a-token", "expired"])
def test_requests_without_a_valid_token_get_401_with_a_bearer_challenge(
    mcp_server, mcp_site, token
):
    raw = mcp_site.raw(token) if token == "expired" else token

    response = post(mcp_server, LIST_TOOLS, raw)

    assert response.status_code == 401
    assert response.headers["www-authenticate"].startswith("Bearer ")


def test_a_revoked_token_is_refused_on_the_very_next_request(mcp_server, mcp_site):
    token = mcp_site.raw("to_revoke")
    assert ok(call(mcp_server, token, "memory_capabilities"))["agent_name"] == "gemini"

    mcp_site.seed("revoke", str(mcp_site.tokens["to_revoke"]["id"]))

    response = post(mcp_server, LIST_TOOLS, token)
    assert response.status_code == 401
    assert "www-authenticate" in response.headers
    with pytest.raises(ExceptionGroup) as refused:  # the client cannot even initialize
        call(mcp_server, token, "memory_capabilities")
    assert refused.group_contains(MCPError, match="error response", depth=None)


def test_a_valid_token_over_raw_http_gets_a_json_response(mcp_server, mcp_site):
    response = post(mcp_server, LIST_TOOLS, mcp_site.raw("full"))

    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    assert {tool["name"] for tool in response.json()["result"]["tools"]} == TOOLS


def test_a_foreign_host_gets_421_and_a_foreign_origin_403(mcp_server, mcp_site):
    token = mcp_site.raw("full")

    assert post(mcp_server, LIST_TOOLS, token, host="evil.example").status_code == 421
    assert post(mcp_server, LIST_TOOLS, token, origin="http://evil.example").status_code == 403
    allowed = post(mcp_server, LIST_TOOLS, token, origin=f"http://localhost:{mcp_server.port}")
    assert allowed.status_code == 200
    assert post(mcp_server, LIST_TOOLS, token, host="localhost").status_code == 200


def test_django_still_serves_everything_else(mcp_server):
    response = httpx.get(mcp_server.url.removesuffix("/mcp") + "/health", timeout=10)

    assert response.status_code in (200, 503)
    assert "status" in response.json()
