"""The MCP Inspector's CLI, the reference client of the MCP project, against a running
Continuity: over Streamable HTTP with a bearer header, and over stdio with
`manage.py mcp_stdio` started by the Inspector with the token in the server's environment
(`-e`, as a client's `env` entry gives it; the Inspector does not pass its own environment
on). Every answer is read from `--format json`: one JSON object, `{"result": …}` or
`{"error": {"code", "message"}}`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.agents.clients import inspector
from tests.agents.hub import MCP_SCOPES
from tests.workers.instance import ROOT

pytestmark = pytest.mark.slow

RUN_TIMEOUT = 180  # one Inspector run; under a second over HTTP on an idle machine
CONTINUITY_TOOLS = sorted(json.loads((ROOT / "tests" / "mcp" / "tools.json").read_text()))
WRONG_TOKEN = "cont_pat_" + "W" * 40
STDIO = [sys.executable, str(ROOT / "manage.py"), "mcp_stdio"]
STORE = ("CONTINUITY_DATA_DIR", "DATABASE_URL", "REDIS_URL")  # where a stdio server finds data
CHINESE = "部署走蓝绿流水线，先切百分之十的流量"
ENGLISH = "The atlas service deploys through the blue-green pipeline, ten percent first."
STDIO_FACT = "账单服务的数据库迁移只在周四晚上执行，先在预发环境演练"


@dataclass
class Answer:
    returncode: int
    body: dict
    stderr: str

    @property
    def result(self) -> dict:
        assert self.returncode == 0 and "result" in self.body, (self.body, self.stderr[-3000:])
        return self.body["result"]

    def structured(self) -> dict:
        """A tool call's structured result, which must not be a tool error."""
        assert self.result.get("isError") is False, self.result
        return self.result["structuredContent"]


@pytest.fixture(scope="module", autouse=True)
def command() -> list[str]:
    """The Inspector, looked up before the hub starts, so that a skip costs nothing."""
    return inspector()


@pytest.fixture
def ask(command, tmp_path):
    """Run the Inspector's CLI in a fresh HOME (it keeps a catalog and storage there)."""
    home = tmp_path / "home"
    home.mkdir()

    def run(*args: str) -> Answer:
        done = subprocess.run(
            [*command, "--cli", *args, "--format", "json"], cwd=home, text=True,
            env=environment(home), stdin=subprocess.DEVNULL, capture_output=True,
            timeout=RUN_TIMEOUT,
        )  # fmt: skip
        try:
            body = json.loads(done.stdout or done.stderr.strip().splitlines()[-1])
        except (ValueError, IndexError):
            body = {}
        return Answer(done.returncode, body, done.stderr)

    return run


def environment(home: Path) -> dict:
    kept = {k: v for k, v in os.environ.items() if not k.startswith(("CONTINUITY_", "MCP_"))}
    return kept | {"HOME": str(home)}


def http(hub, token: str, *args: str) -> list[str]:
    return ["--transport", "http", "--server-url", hub.mcp_url,
            "--header", f"Authorization: Bearer {token}", *args]  # fmt: skip


def stdio(hub, token: str | None, *args: str) -> list[str]:
    """Options that start the stdio server on the hub's own store, `token` in its env."""
    env = {name: hub.instance.env[name] for name in STORE if hub.instance.env.get(name)}
    if token is not None:
        env["CONTINUITY_TOKEN"] = token
    options = [word for name, value in env.items() for word in ("-e", f"{name}={value}")]
    return [*options, *args, "--transport", "stdio", *STDIO]


def remember(content: str) -> list[str]:
    return ["--method", "tools/call", "--tool-name", "memory_remember",
            "--tool-arg", f"content={content}", "kind=decision"]  # fmt: skip


def recall(query: str) -> list[str]:
    return [
        "--method",
        "tools/call",
        "--tool-name",
        "memory_recall",
        "--tool-arg",
        f"query={query}",
    ]


def recalled(answer: Answer) -> list[str]:
    return [memory["content"] for memory in answer.structured()["memories"]]


# --- Streamable HTTP ---------------------------------------------------------------------


def test_the_inspector_lists_every_tool_over_http_with_a_bearer_header(hub, ask):
    token = hub.token("inspector", MCP_SCOPES)

    listed = ask(*http(hub, token, "--method", "tools/list"))

    tools = {tool["name"]: tool for tool in listed.result["tools"]}
    assert sorted(tools) == CONTINUITY_TOOLS
    assert {"content", "kind"} <= set(tools["memory_remember"]["inputSchema"]["required"])
    assert tools["memory_recall"]["annotations"]["readOnlyHint"] is True


def test_the_inspector_remembers_and_recalls_chinese_and_english_over_http(hub, ask):
    token = hub.token("inspector", MCP_SCOPES)

    stored = [ask(*http(hub, token, *remember(text))).structured() for text in (CHINESE, ENGLISH)]

    assert [memory["status"] for memory in stored] == ["active", "active"]
    contents = {m["id"]: m["content"] for m in hub.memories(source_agent="inspector")}
    assert [contents.get(memory["id"]) for memory in stored] == [CHINESE, ENGLISH]
    assert CHINESE in recalled(ask(*http(hub, token, *recall("蓝绿流水线"))))
    assert ENGLISH in recalled(ask(*http(hub, token, *recall("blue-green pipeline atlas"))))


def test_a_wrong_token_over_http_is_refused_with_the_servers_reason(hub, ask):
    # --stored-auth-only: a run without a terminal that must not start an OAuth login, as
    # the Inspector advises for unattended use; the server's 401 body then comes through.
    refused = ask(*http(hub, WRONG_TOKEN, "--method", "tools/list", "--stored-auth-only"))

    assert refused.returncode != 0
    assert refused.body["error"]["code"] == "auth_required", refused.body
    assert '"error": "invalid_token"' in refused.body["error"]["message"]


# --- stdio -------------------------------------------------------------------------------


def test_the_inspector_runs_the_stdio_server_with_the_token_in_its_environment(hub, ask):
    token = hub.token("inspector-stdio", MCP_SCOPES)

    listed = ask(*stdio(hub, token, "--method", "tools/list"))
    stored = ask(*stdio(hub, token, *remember(STDIO_FACT))).structured()
    found = ask(*stdio(hub, token, *recall("数据库迁移 周四")))

    assert sorted(tool["name"] for tool in listed.result["tools"]) == CONTINUITY_TOOLS
    assert stored["status"] == "active"
    assert STDIO_FACT in recalled(found)
    # The stdio server wrote to the hub's own store: the owner sees it over HTTP.
    [memory] = [m for m in hub.memories(source_agent="inspector-stdio") if m["id"] == stored["id"]]
    assert memory["content"] == STDIO_FACT


def test_the_stdio_server_says_on_stderr_why_it_will_not_serve(hub, ask):
    wrong = ask(*stdio(hub, WRONG_TOKEN, *recall("蓝绿流水线")))
    missing = ask(*stdio(hub, None, *recall("蓝绿流水线")))

    for answer in (wrong, missing):
        assert answer.returncode != 0 and "error" in answer.body, answer.body
    assert "CONTINUITY_TOKEN was refused: Invalid, expired or revoked access token." in wrong.stderr
    assert "CONTINUITY_TOKEN is not set" in missing.stderr
