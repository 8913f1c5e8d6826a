"""What the MCP tools do, through the SDK's own client connected in memory to the server
(acting with one token, as the stdio door does): every tool for a read-write agent, the
identity from the token, tool errors carrying the envelope, argument validation per field,
and refused calls changing nothing. The transport itself is test_http.py's."""

from __future__ import annotations

import uuid

import pytest

from tests.api.helpers import database_dump
from tests.mcp.helpers import error, ok, unique

pytestmark = pytest.mark.django_db(transaction=True)

READ_WRITE = ["memories:read", "memories:write"]


@pytest.fixture
def agents(mcp_as, other_owner) -> dict:
    """The agents of the live server's seed: ada's claude-code and codex (read-write), her
    read-only cursor, and grace's claude-code."""
    return {
        "full": mcp_as("claude-code", scopes=READ_WRITE),
        "second": mcp_as("codex", scopes=READ_WRITE),
        "read_only": mcp_as("cursor", scopes=["memories:read"]),
        "grace": mcp_as("claude-code", scopes=READ_WRITE, user=other_owner),
    }


# --- every tool -------------------------------------------------------------------------------


def test_every_tool_works_for_an_agent_with_a_read_write_token(agents):
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

    r = agents["full"].session(work)

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


def test_the_agent_identity_comes_from_the_token(agents):
    content = unique("Deploys go out on Tuesdays")
    receipt = ok(agents["second"].call("memory_remember", {"content": content, "kind": "fact"}))

    history = ok(agents["full"].call("memory_history", {"id": receipt["id"]}))
    assert history["events"][0]["actor"] == "agent:codex"

    # Another user's agent cannot see it at all.
    other = error(agents["grace"].call("memory_history", {"id": receipt["id"]}))
    assert other["code"] == "NOT_FOUND"


# --- tool errors ------------------------------------------------------------------------------


def test_service_failures_are_tool_errors_carrying_the_envelope(agents):
    mcp = agents["full"]
    key = f"editor.{uuid.uuid4().hex[:8]}"

    conflict = error(mcp.call("memory_remember", {
        "content": "Uses vim", "kind": "preference", "key": key, "expected_version": 1,
    }))  # fmt: skip
    assert conflict["code"] == "VERSION_CONFLICT"
    assert conflict["message"].startswith("expected version 1")
    assert conflict["details"][0]["actual"] == 0

    secret = error(mcp.call("memory_remember", {
        "content": "The deploy key is AKIAIOSFODNN7EXAMPLE", "kind": "fact",
    }))  # fmt: skip
    assert secret["code"] == "SECRET_REJECTED"

    missing = error(mcp.call("memory_history", {"id": str(uuid.uuid4())}))
    assert missing["code"] == "NOT_FOUND"


def test_a_read_only_token_may_recall_but_not_remember(agents):
    mcp = agents["read_only"]

    refused = error(mcp.call("memory_remember", {"content": "x y z", "kind": "fact"}))
    assert refused["code"] == "FORBIDDEN"
    assert "memories:write" in refused["message"]
    assert "memories" in ok(mcp.call("memory_recall", {"query": "anything"}))


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
def test_invalid_arguments_are_validation_errors_naming_the_field(agents, name, arguments, field):
    envelope = error(agents["full"].call(name, arguments))

    assert envelope["code"] == "VALIDATION_ERROR"
    assert field in [detail["field"] for detail in envelope["details"]]


def test_refused_calls_change_nothing(agents):
    before = database_dump()
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
        assert agents[token].call(name, arguments).is_error

    assert database_dump() == before
