"""The MCP endpoint at /mcp as agents reach it: uvicorn serving continuity.asgi, driven by the
official Python MCP client over both protocol revisions (the initialize handshake and the
stateless 2026 revision), plus raw HTTP for what a client library hides (401, 421, 403)."""

from __future__ import annotations

import uuid

import anyio
import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

pytestmark = pytest.mark.slow

TOOLS = {
    "memory_bootstrap", "memory_recall", "memory_remember", "memory_checkpoint", "memory_link",
    "memory_forget", "memory_history", "memory_context", "memory_capabilities",
    "memory_handoff_create", "memory_handoff_resume",
}  # fmt: skip
MODES = ["legacy", "2026-07-28", "auto"]


async def _session(url: str, token: str | None, mode: str, work):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
        async with Client(streamable_http_client(url, http_client=http), mode=mode) as client:
            return await work(client)


def session(server, token, work, mode="legacy"):
    """Run `await work(client)` in one MCP client session."""
    return anyio.run(_session, server.url, token, mode, work)


def call(server, token, name, arguments=None, mode="legacy"):
    async def work(client):
        return await client.call_tool(name, arguments or {})

    return session(server, token, work, mode)


def ok(result) -> dict:
    assert not result.is_error, result.content[0].text
    return result.structured_content


def error(result) -> dict:
    assert result.is_error, result.structured_content
    envelope = result.structured_content["error"]
    assert result.content[0].text.startswith(f"{envelope['code']}: ")
    return envelope


def post(server, body, token=None, **headers) -> httpx.Response:
    sent = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    if token:
        sent["authorization"] = f"Bearer {token}"
    return httpx.post(server.url, json=body, headers={**sent, **headers}, timeout=10)


LIST_TOOLS = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}


def unique(text: str) -> str:
    return f"{text} ({uuid.uuid4().hex[:8]})"


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


# --- every tool -------------------------------------------------------------------------------


def test_every_tool_works_for_an_agent_with_a_read_write_token(mcp_server, mcp_site):
    token = mcp_site.raw("full")
    project = f"github:ada/{uuid.uuid4().hex[:6]}"

    async def work(client):
        results = {}

        async def run(name, **arguments):
            results.setdefault(name, []).append(await client.call_tool(name, arguments))
            return ok(results[name][-1])

        old = await run(
            "memory_remember", content="The staging database is refreshed every Monday night.",
            kind="fact", scope_type="project", scope_key=project, tags=["staging", "database"],
            retrieval_hints=["when is staging reset"],
        )  # fmt: skip
        new = await run(
            "memory_remember", content="The staging database is refreshed every Sunday night.",
            kind="fact", scope_type="project", scope_key=project,
            confidence=0.8, confidence_basis="source_supported", trust="observed",
        )  # fmt: skip
        assert new["trust"] == "observed"
        keyed = await run(
            "memory_remember", content="Python tests run with pytest.", kind="decision",
            key="python.test_runner", scope_type="project", scope_key=project,
            value={"runner": "pytest"}, expected_version=0, idempotency_key=uuid.uuid4().hex,
        )  # fmt: skip
        merged = await run(
            "memory_remember", content="Python tests run with pytest -x.", kind="decision",
            key="python.test_runner", scope_type="project", scope_key=project,
            value={"flags": ["-x"]}, write_mode="merge", expected_version=1,
        )  # fmt: skip
        recalled = await run("memory_recall", query="staging database refresh", project_key=project)
        link = await run("memory_link", from_id=new["id"], to_id=keyed["id"], relation="related_to")
        uri_link = await run(
            "memory_link",
            from_id=new["id"],
            uri="https://wiki.example/staging",
            relation="derived_from",
        )
        forgotten = await run(
            "memory_forget", id=old["id"], reason="moved to Sunday", superseded_by=new["id"]
        )
        history = await run("memory_history", id=new["id"])
        merged_history = await run("memory_history", id=merged["id"], limit=1)
        context = await run(
            "memory_context", query="how are python tests run", project_key=project,
            purpose="coding", token_budget=500,
        )  # fmt: skip
        bootstrap = await run("memory_bootstrap", project_key=project)
        capabilities = await run("memory_capabilities")
        checkpoint = await run(
            "memory_checkpoint", summary="Moved the staging refresh to Sundays; docs updated.",
            project_key=project, memories=[
                {"content": "Staging refreshes are announced in #ops.", "kind": "procedure"},
                {"content": "Release notes are drafted in docs/releases.", "kind": "decision",
                 "tags": ["release"]},
            ],
        )  # fmt: skip
        checkpoint_recall = await run(
            "memory_recall", query="where are release notes drafted", project_key=project, limit=1
        )
        after = await run("memory_recall", query="staging database refresh", project_key=project)
        return locals()

    r = session(mcp_server, token, work)

    assert r["old"]["id"] in [m["id"] for m in r["recalled"]["memories"]]
    assert r["merged"]["version"] == 2 and r["merged"]["evolution"]["action"] == "merged"
    assert r["link"]["relation"] == "related_to" and r["link"]["to_id"] == r["keyed"]["id"]
    assert r["uri_link"]["uri"] == "https://wiki.example/staging"
    assert r["forgotten"]["status"] == "superseded" and r["forgotten"]["id"] == r["old"]["id"]
    events = r["history"]["events"]
    assert [e["event_type"] for e in events][-1] == "created"
    assert {e["actor"] for e in events} == {"agent:claude-code"}
    assert len(r["merged_history"]["events"]) == 1 and r["merged_history"]["next_cursor"]
    assert r["merged"]["id"] in [item["id"] for item in r["context"]["items"]]
    assert r["context"]["budget"]["token_budget"] == 500
    assert "context" in r["bootstrap"] and "dropped_ids" in r["bootstrap"]
    assert r["capabilities"]["agent_name"] == "claude-code"
    assert r["capabilities"]["scopes"] == ["memories:read", "memories:write"]
    assert r["capabilities"]["channels"]
    checkpoint = r["checkpoint"]
    assert len(checkpoint["memory_ids"]) == 2 and checkpoint["summary_id"]
    assert r["checkpoint_recall"]["memories"][0]["id"] == checkpoint["memory_ids"][1]
    # Recall demotes what was superseded: the replacement now ranks first.
    ranked = [m["id"] for m in r["after"]["memories"]]
    assert ranked[0] == r["new"]["id"]
    assert [m["status"] for m in r["after"]["memories"] if m["id"] == r["old"]["id"]] in (
        [],
        ["superseded"],
    )


def test_the_agent_identity_comes_from_the_token(mcp_server, mcp_site):
    content = unique("Deploys go out on Tuesdays")
    receipt = ok(call(mcp_server, mcp_site.raw("second"), "memory_remember",
                      {"content": content, "kind": "fact"}))  # fmt: skip

    history = ok(call(mcp_server, mcp_site.raw("full"), "memory_history", {"id": receipt["id"]}))
    assert history["events"][0]["actor"] == "agent:codex"

    # Another user's agent cannot see it at all.
    other = error(call(mcp_server, mcp_site.raw("grace"), "memory_history", {"id": receipt["id"]}))
    assert other["code"] == "NOT_FOUND"


# --- tool errors ------------------------------------------------------------------------------


def test_service_failures_are_tool_errors_carrying_the_envelope(mcp_server, mcp_site):
    token = mcp_site.raw("full")
    key = f"editor.{uuid.uuid4().hex[:8]}"

    conflict = error(call(mcp_server, token, "memory_remember", {
        "content": "Uses vim", "kind": "preference", "key": key, "expected_version": 1,
    }))  # fmt: skip
    assert conflict["code"] == "VERSION_CONFLICT"
    assert conflict["message"].startswith("expected version 1")
    assert conflict["details"][0]["actual"] == 0

    secret = error(call(mcp_server, token, "memory_remember", {
        "content": "The deploy key is AKIAIOSFODNN7EXAMPLE", "kind": "fact",
    }))  # fmt: skip
    assert secret["code"] == "SECRET_REJECTED"

    missing = error(call(mcp_server, token, "memory_history", {"id": str(uuid.uuid4())}))
    assert missing["code"] == "NOT_FOUND"


def test_a_read_only_token_may_recall_but_not_remember(mcp_server, mcp_site):
    token = mcp_site.raw("read_only")

    refused = error(
        call(mcp_server, token, "memory_remember", {"content": "x y z", "kind": "fact"})
    )
    assert refused["code"] == "FORBIDDEN"
    assert "memories:write" in refused["message"]
    assert "memories" in ok(call(mcp_server, token, "memory_recall", {"query": "anything"}))


@pytest.mark.parametrize(
    ("name", "arguments", "field"),
    [
        ("memory_remember", {"content": "x", "kind": "opinion"}, "kind"),
        ("memory_remember", {"content": "x", "kind": "fact", "scope_type": "team"}, "scope_type"),
        ("memory_remember", {"content": "x", "kind": "fact", "write_mode": "upsert"}, "write_mode"),
        ("memory_remember", {"content": "x" * 4001, "kind": "fact"}, "content"),
        ("memory_remember", {"kind": "fact"}, "content"),
        ("memory_remember", {"content": "x", "kind": "fact", "confidence": 1.5,
                             "confidence_basis": "agent_inferred"}, "confidence"),
        ("memory_remember", {"content": "x", "kind": "fact", "confidence": 0.5,
                             "confidence_basis": "user_asserted"}, "confidence_basis"),
        ("memory_remember", {"content": "x", "kind": "fact", "agent": "root"}, "agent"),
        ("memory_remember", {"content": "x", "kind": "fact", "tags": ["t"] * 21}, "tags"),
        ("memory_recall", {"query": "x", "limit": 0}, "limit"),
        ("memory_recall", {"query": "x", "limit": 101}, "limit"),
        ("memory_recall", {"query": ""}, "query"),
        ("memory_recall", {"query": "x", "kinds": ["opinion"]}, "kinds.0"),
        ("memory_link", {"from_id": "not-a-uuid", "to_id": str(uuid.uuid4()),
                         "relation": "related_to"}, "from_id"),
        ("memory_link", {"from_id": str(uuid.uuid4()), "to_id": str(uuid.uuid4()),
                         "relation": "supersedes"}, "relation"),
        ("memory_context", {"query": "x", "purpose": "gossip"}, "purpose"),
        ("memory_context", {"query": "x", "token_budget": 10**9}, "token_budget"),
        ("memory_history", {"id": str(uuid.uuid4()), "limit": "many"}, "limit"),
        ("memory_forget", {"id": str(uuid.uuid4()), "user": "ada"}, "user"),
        ("memory_checkpoint", {"summary": "s", "memories": [{"content": "c", "kind": "fact",
                                                             "agent": "x"}]}, "memories.0.agent"),
        ("memory_checkpoint", {"summary": "s", "memories": [{"content": "c", "kind": "fact"}] * 21},
         "memories"),
    ],
)  # fmt: skip
def test_invalid_arguments_are_validation_errors_naming_the_field(
    mcp_server, mcp_site, name, arguments, field
):
    envelope = error(call(mcp_server, mcp_site.raw("full"), name, arguments))

    assert envelope["code"] == "VALIDATION_ERROR"
    assert field in [detail["field"] for detail in envelope["details"]]


def test_refused_calls_change_nothing(mcp_server, mcp_site):
    before = mcp_site.seed("count")
    for token, name, arguments in [
        ("full", "memory_remember", {"content": "x", "kind": "opinion"}),
        ("full", "memory_remember", {"content": "password = hunter2hunter2", "kind": "fact"}),
        (
            "full",
            "memory_remember",
            {"content": "y", "kind": "fact", "key": "k", "expected_version": 3},
        ),
        ("read_only", "memory_remember", {"content": "Likes green", "kind": "preference"}),
        ("full", "memory_forget", {"id": str(uuid.uuid4())}),
    ]:
        assert call(mcp_server, mcp_site.raw(token), name, arguments).is_error

    assert mcp_site.seed("count") == before


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
