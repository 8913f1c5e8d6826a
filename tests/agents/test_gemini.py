"""The real Gemini CLI against a running Continuity, its model a fake Generative Language
API (tests/agents/fake_gemini.py). Each test is one user's machine: a fresh HOME whose
~/.gemini/settings.json already holds the user's own settings (an API key sign-in, no usage
statistics), then `continuity setup gemini` as docs/client.md says, then what docs/agents.md
asks of a Gemini user: a trusted folder, and a policy rule that lets headless runs call
Continuity's tools. The token is exported as $CONTINUITY_TOKEN, which the entry names.

- MCP: `gemini -p` reaches /mcp with the token and offers the model every tool; the model's
  remember call stores a memory, and a later run's recall brings it back to the model.
- Trust: until the folder is trusted, Gemini keeps the server disabled.
- A refused token: what `gemini mcp list` shows, what a run does, and what doctor says."""

from __future__ import annotations

import json
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.agents.clients import client
from tests.agents.fake_gemini import FakeGemini
from tests.agents.fake_model import Request
from tests.client.helpers import client_env, continuity
from tests.workers.instance import ROOT

pytestmark = pytest.mark.slow

RUN_TIMEOUT = 180  # one `gemini` run; a few seconds on an idle machine
PREFIX = "mcp_continuity_"  # how Gemini names the tools of the MCP server `continuity`
CONTINUITY_TOOLS = sorted(json.loads((ROOT / "tests" / "mcp" / "tools.json").read_text()))
WRONG_TOKEN = "cont_pat_" + "W" * 40
# The user's own settings before Continuity's setup: sign in with an API key (the fake
# endpoint takes any), and nothing sent to Google's statistics or update servers.
USER_SETTINGS = {
    "security": {"auth": {"selectedType": "gemini-api-key"}},
    "privacy": {"usageStatisticsEnabled": False},
    "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
}


def documented_policy() -> str:
    """The policy rule docs/agents.md gives Gemini users for headless runs."""
    guide = (ROOT / "docs" / "agents.md").read_text(encoding="utf-8")
    [section] = [part for part in re.split(r"^## ", guide, flags=re.M)
                 if part.startswith("5. Gemini CLI")]  # fmt: skip
    [policy] = re.findall(r"```toml\n(.*?)```", section, re.S)
    return policy


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str
    requests: list[Request]  # what Gemini streamed from the model during this run

    @property
    def output(self) -> str:
        return self.stdout + self.stderr

    def offered(self) -> list[str]:
        """Continuity's tools in the run's first request, by their own names."""
        names = FakeGemini.declarations(self.requests[0])
        return sorted(name.removeprefix(PREFIX) for name in names if name.startswith(PREFIX))


class Machine:
    """One user's machine with Gemini CLI installed; `token` is what the user exported as
    $CONTINUITY_TOKEN in the shell that starts Gemini."""

    def __init__(self, gemini: str, folder: Path, model: FakeGemini):
        self.gemini, self.model, self.token = gemini, model, ""
        self.home = folder / "home"
        self.work = self.home / "work"  # the folder Gemini works in
        self.work.mkdir(parents=True)
        self.settings = self.home / ".gemini" / "settings.json"
        self.settings.parent.mkdir()
        self.settings.write_text(json.dumps(USER_SETTINGS, indent=2))

    def continuity(self, *args: str, **env: str):
        return continuity(self.home, *args, timeout=RUN_TIMEOUT, **env)

    def setup(self, hub, token: str) -> None:
        done = self.continuity("setup", "gemini", "--url", hub.url, "--token", token)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "Gemini reads the token from $CONTINUITY_TOKEN" in done.stdout
        self.token = token

    def trust_folder(self) -> None:
        """What Gemini records when the user trusts the folder at start-up."""
        trusted = self.home / ".gemini" / "trustedFolders.json"
        trusted.write_text(json.dumps({str(self.work): "TRUST_FOLDER"}))

    def allow_continuity(self) -> None:
        policies = self.home / ".gemini" / "policies"
        policies.mkdir(exist_ok=True)
        (policies / "continuity.toml").write_text(documented_policy())

    def run(self, *args: str, token: str | None = None) -> Run:
        before = len(self.model.turns())
        shell = {k: v for k, v in client_env(self.home).items()
                 if not k.startswith(("GEMINI_", "GOOGLE_"))}  # fmt: skip
        token = self.token if token is None else token
        shell |= {"CONTINUITY_TOKEN": token} if token else {}
        done = subprocess.run(
            [self.gemini, *args], cwd=self.work, stdin=subprocess.DEVNULL, capture_output=True,
            env=shell | {"GOOGLE_GEMINI_BASE_URL": self.model.url, "GEMINI_API_KEY": "dummy"},
            text=True, timeout=RUN_TIMEOUT,
        )  # fmt: skip
        return Run(done.returncode, done.stdout, done.stderr, self.model.turns()[before:])

    def listed(self, **kwargs) -> str:
        """`gemini mcp list`'s line for Continuity's server."""
        done = self.run("mcp", "list", **kwargs)
        assert done.returncode == 0, done.output
        lines = [line for line in done.output.splitlines() if " continuity: " in line]
        assert len(lines) == 1, done.output
        return lines[0].strip()


@pytest.fixture(scope="module", autouse=True)
def gemini() -> str:
    """Gemini CLI, looked up before the hub starts, so that a skip costs nothing."""
    return client("gemini")


@pytest.fixture
def machine(gemini, tmp_path):
    with FakeGemini() as model:
        yield Machine(gemini, tmp_path, model)


def ready(machine: Machine, hub, name: str = "gemini") -> None:
    """Set up as docs/agents.md says, with a new token of the MCP scopes."""
    machine.setup(hub, hub.token(name, ["memories:read", "memories:write"]))
    machine.trust_folder()
    machine.allow_continuity()


# --- MCP ---------------------------------------------------------------------------------

FACT = "Release builds of the atlas app are signed on the heron build host."


def test_setup_keeps_the_users_gemini_settings_and_adds_the_http_entry(hub, machine):
    machine.setup(hub, hub.token("gemini", ["memories:read", "memories:write"]))

    settings = json.loads(machine.settings.read_text())

    assert {key: settings[key] for key in USER_SETTINGS} == USER_SETTINGS
    assert settings["mcpServers"]["continuity"] == {
        "type": "http", "url": hub.mcp_url,
        "headers": {"Authorization": "Bearer $CONTINUITY_TOKEN"},
    }  # fmt: skip
    assert machine.token not in machine.settings.read_text()


def test_gemini_is_offered_every_tool_and_remembers_then_recalls_through_them(hub, machine):
    ready(machine, hub)
    remember = (PREFIX + "memory_remember", {"content": FACT, "kind": "fact"})
    machine.model.play(remember, text="Saved.")

    remembered = machine.run("-p", "Remember where release builds of the atlas app are signed.")

    assert remembered.returncode == 0, remembered.output[-3000:]
    assert remembered.stdout.strip() == "Saved."
    assert remembered.offered() == CONTINUITY_TOOLS
    declared = FakeGemini.declarations(remembered.requests[0])[PREFIX + "memory_remember"]
    schema = declared.get("parametersJsonSchema") or declared.get("parameters") or {}
    assert {"content", "kind"} <= set(schema.get("required", [])), declared
    [stored] = FakeGemini.function_responses(remembered.requests[-1])
    assert stored["name"] == PREFIX + "memory_remember"
    assert '"status": "active"' in stored["response"]["output"]
    [memory] = [m for m in hub.memories() if "heron" in m["content"]]
    assert memory["content"] == FACT

    recall = (PREFIX + "memory_recall", {"query": "where are atlas release builds signed"})
    machine.model.play(recall, text="On the heron build host.")

    recalled = machine.run("-p", "Where are release builds of the atlas app signed?")

    assert recalled.returncode == 0, recalled.output[-3000:]
    assert recalled.stdout.strip() == "On the heron build host."
    [answer] = FakeGemini.function_responses(recalled.requests[-1])
    assert answer["name"] == PREFIX + "memory_recall"
    assert FACT in answer["response"]["output"]


def test_gemini_keeps_continuity_disabled_until_the_folder_is_trusted(hub, machine):
    machine.setup(hub, hub.token("gemini", ["memories:read"]))
    machine.allow_continuity()

    untrusted = machine.listed()
    machine.trust_folder()
    trusted = machine.listed()

    assert untrusted == f"○ continuity: {hub.mcp_url} (http) - Disabled"
    assert trusted == f"✓ continuity: {hub.mcp_url} (http) - Connected"


# --- a refused token ---------------------------------------------------------------------


def test_a_refused_token_shows_as_disconnected_and_doctor_says_why(hub, machine):
    ready(machine, hub)
    machine.model.play(text="Nothing to go on.")

    wrong = machine.listed(token=WRONG_TOKEN)
    unset = machine.listed(token="")
    turn = machine.run("-p", "Where are release builds of the atlas app signed?", token=WRONG_TOKEN)
    doctor = machine.continuity("doctor", CONTINUITY_TOKEN=WRONG_TOKEN)
    doctor_unset = machine.continuity("doctor")
    fixed = machine.continuity("doctor", CONTINUITY_TOKEN=machine.token)

    disconnected = f"✗ continuity: {hub.mcp_url} (http) - Disconnected"
    assert wrong == disconnected and unset == disconnected
    assert machine.listed() == f"✓ continuity: {hub.mcp_url} (http) - Connected"
    assert turn.returncode == 0, turn.output[-3000:]  # the run goes on without Continuity
    assert turn.stdout.strip() == "Nothing to go on."
    assert turn.offered() == []
    assert doctor.returncode == 1
    assert (
        "[FAIL] mcp: $CONTINUITY_TOKEN (read by gemini): the server refused the token (401)"
        in doctor.stdout
    ), doctor.stdout
    assert doctor_unset.returncode == 1
    assert "[FAIL] mcp: $CONTINUITY_TOKEN (read by gemini) is not set here" in doctor_unset.stdout
    assert fixed.returncode == 0, fixed.stdout
    assert "[ok] mcp: $CONTINUITY_TOKEN (read by gemini): valid for agent 'gemini'" in fixed.stdout
