"""`manage.py mcp_stdio`: the same tools over stdio, driven by the official Python MCP client,
acting with the token from CONTINUITY_TOKEN."""

from __future__ import annotations

import sys

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tests.mcp.helpers import TOOLS, error, ok
from tests.mcp.live import ROOT

pytestmark = pytest.mark.slow


def stdio(site, token_name: str, work, mode="legacy", **env):
    params = StdioServerParameters(
        command=sys.executable,
        args=["manage.py", "mcp_stdio"],
        env={**site.env, "CONTINUITY_TOKEN": site.raw(token_name), **env},
        cwd=str(ROOT),
    )

    async def main():
        async with Client(params, mode=mode, read_timeout_seconds=60) as client:
            return await work(client)

    return anyio.run(main)


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_stdio_serves_the_same_tools_acting_with_the_environment_token(mcp_site, mode):
    async def work(client):
        listed = await client.list_tools()
        capabilities = await client.call_tool("memory_capabilities", {})
        written = await client.call_tool(
            "memory_remember",
            {
                "content": f"Commit messages are written in the imperative ({mode}).",
                "kind": "preference",
            },
        )
        history = await client.call_tool("memory_history", {"id": written.structured_content["id"]})
        found = await client.call_tool("memory_recall", {"query": "how to write commit messages"})
        return listed, capabilities, written, history, found

    listed, capabilities, written, history, found = stdio(mcp_site, "full", work, mode)

    assert {tool.name for tool in listed.tools} == TOOLS
    assert ok(capabilities)["agent_name"] == "claude-code"
    assert ok(history)["events"][0]["actor"] == "agent:claude-code"
    assert ok(written)["id"] in [memory["id"] for memory in ok(found)["memories"]]


def test_a_token_revoked_while_the_stdio_server_runs_stops_working_at_once(mcp_site):
    async def work(client):
        before = await client.call_tool("memory_capabilities", {})
        mcp_site.seed("revoke", str(mcp_site.tokens["stdio_revoke"]["id"]))
        after = await client.call_tool("memory_capabilities", {})
        return before, after

    before, after = stdio(mcp_site, "stdio_revoke", work)

    assert ok(before)["agent_name"] == "gemini-cli"
    assert error(after)["code"] == "UNAUTHORIZED"


def test_the_per_token_rate_limit_applies_to_tool_calls(mcp_site):
    async def work(client):
        return [await client.call_tool("memory_capabilities", {}) for _ in range(3)]

    first, second, third = stdio(mcp_site, "limited", work, CONTINUITY_RATE_LIMIT_PER_MINUTE="2")

    ok(first), ok(second)
    refused = error(third)
    assert refused["code"] == "RATE_LIMITED"
    assert refused["details"][0]["retry_after"] >= 1


@pytest.mark.parametrize(
    ("token", "message"),
    [("", "CONTINUITY_TOKEN is not set"), ("cont_pat_" + "x" * 40, "CONTINUITY_TOKEN was refused")],
)
def test_stdio_refuses_to_start_without_a_valid_token(mcp_site, token, message):
    import subprocess

    result = subprocess.run(
        [sys.executable, "manage.py", "mcp_stdio"], cwd=ROOT,
        env={**mcp_site.env, "CONTINUITY_TOKEN": token}, stdin=subprocess.DEVNULL,
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip

    assert result.returncode != 0
    assert message in result.stderr
    assert result.stdout == ""


# Loaded only when a tool needs them (the embedding model, vectors, the poisoning
# classifier's weights): an agent waits for `initialize` before its first turn has tools.
HEAVY_AT_START = ("numpy", "onnxruntime", "tokenizers", "huggingface_hub", "sklearn", "torch")


def test_initialize_and_tools_list_import_no_heavy_module(mcp_site, tmp_path):
    modules_file = tmp_path / "modules.txt"
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "tests.mcp.stdio_modules", str(modules_file)],
        env={**mcp_site.env, "CONTINUITY_TOKEN": mcp_site.raw("full")},
        cwd=str(ROOT),
    )

    async def main():
        async with Client(params, mode="legacy", read_timeout_seconds=60) as client:
            return await client.list_tools()

    listed = anyio.run(main)

    assert {tool.name for tool in listed.tools} == TOOLS
    loaded = set(modules_file.read_text().split())
    assert "continuity.mcp.server" in loaded  # the file is the server's, written at its exit
    assert "memories.poisoning.classifier" in loaded  # imported, but its weights are not
    assert sorted(name for name in loaded if name.split(".")[0] in HEAVY_AT_START) == []


def test_the_first_recall_after_a_lean_start_still_answers(mcp_site):
    async def work(client):
        await client.list_tools()
        return await client.call_tool("memory_recall", {"query": "commit message style"})

    found = stdio(mcp_site, "full", work)

    assert "memories" in ok(found)
