"""The real agent clients these tests run, pinned in .ci/run and found through one
variable each. Without one its tests are skipped; with CONTINUITY_REQUIRE_AGENTS set (as
.ci/run does) a missing client is an error instead."""

from __future__ import annotations

import os
import shutil

import pytest

# name -> (variable naming the executable, command on PATH, npm package it comes from)
CLIENTS = {
    "claude": ("CONTINUITY_CLAUDE", "claude", "@anthropic-ai/claude-code"),
    "codex": ("CONTINUITY_CODEX", "codex", "@openai/codex"),
    "gemini": ("CONTINUITY_GEMINI", "gemini", "@google/gemini-cli"),
    "inspector": ("CONTINUITY_INSPECTOR", "mcp-inspector-cli", "@modelcontextprotocol/inspector"),
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
