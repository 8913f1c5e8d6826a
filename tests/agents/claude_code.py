"""Running the real Claude Code for the tests: a fresh HOME per test, the fake Messages API
as its model, and the traces a turn leaves (its transcript, the hooks' watermark and log).

Claude Code needs no onboarding state to run headless: `claude -p` with an API key in the
environment starts in an empty HOME, and servers in the user's `~/.claude.json` (what
`continuity setup claude` and `claude mcp add --scope user` write) need no approval."""

from __future__ import annotations

import hashlib
import json
import subprocess
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from tests.agents.clients import client
from tests.agents.fake_anthropic import FakeAnthropic
from tests.client.helpers import Run, client_env, hook_log

CLAUDE_TIMEOUT = 180  # seconds per run: a loaded 2-core machine, far above the usual 2-6 s
SERVER = "continuity"  # the MCP server name setup writes


def tool(name: str) -> str:
    """The name Claude Code offers a Continuity tool under."""
    return f"mcp__{SERVER}__{name}"


@dataclass
class Desk:
    """One person's machine as Claude Code sees it: a HOME and a folder to work in."""

    claude: str
    home: Path
    work: Path
    model: FakeAnthropic

    @classmethod
    def fresh(cls, folder: Path, model: FakeAnthropic) -> Desk:
        home, work = folder / "home", folder / "work"
        home.mkdir(parents=True)
        work.mkdir(parents=True)
        return cls(client("claude"), home, work, model)

    def env(self) -> dict:
        return client_env(self.home) | {
            "ANTHROPIC_BASE_URL": self.model.url,
            "ANTHROPIC_API_KEY": "sk-ant-test-0000",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_AUTOUPDATER": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            # `claude -p` connects MCP servers in the background and sends the first request
            # without the tools of a server still starting (a stdio server takes seconds
            # here). Blocking start-up, with roomy limits, offers the tools on every turn.
            "MCP_CONNECTION_NONBLOCKING": "0",
            "MCP_CONNECT_TIMEOUT_MS": "120000",
            "MCP_TIMEOUT": "120000",
        }

    def run(self, *args: str, timeout: float = CLAUDE_TIMEOUT) -> Run:
        started = time.monotonic()
        done = subprocess.run(
            [self.claude, *args], capture_output=True, text=True, timeout=timeout,
            env=self.env(), cwd=self.work, stdin=subprocess.DEVNULL,
        )  # fmt: skip
        return Run(done.returncode, done.stdout, done.stderr, time.monotonic() - started)

    def turn(self, prompt: str, session: str | None = None) -> Run:
        """One headless turn that may use Continuity's tools without asking."""
        session = session or str(uuid.uuid4())
        turn = self.run("-p", prompt, "--session-id", session, "--allowedTools", tool("*"))
        assert turn.returncode == 0, f"{turn.stdout}\n{turn.stderr}"
        return turn

    def transcript(self, session: str) -> Path:
        [path] = (self.home / ".claude" / "projects").glob(f"*/{session}.jsonl")
        return path

    def watermark(self, session: str) -> dict | None:
        """Where the Stop hook's watermark stands for a session; None before the server
        accepted any of it (it moves only after a 202)."""
        digest = hashlib.sha256(session.encode()).hexdigest()[:24]
        path = self.home / ".continuity" / "state" / "watermarks" / f"claude_code-{digest}.json"
        return json.loads(path.read_text()) if path.exists() else None

    def hook_log(self) -> str:
        return hook_log(self.home)


def strings_in(value) -> list[str]:
    """Every string inside a JSON value, depth first."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):
        return [found for item in value for found in strings_in(item)]
    return []
