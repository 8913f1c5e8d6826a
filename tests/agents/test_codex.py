"""The real Codex CLI against a running Continuity, its model a fake Responses API
(tests/agents/fake_openai.py). Each test is one user's machine: a fresh HOME and CODEX_HOME
whose config.toml already names the model provider, as a Codex user's does, then
`continuity setup codex` as docs/client.md says, then `codex exec` turns.

- MCP: Codex reaches /mcp with $CONTINUITY_TOKEN and offers the model every tool; the
  model's remember call stores a memory, its recall call brings it back to the model.
- Hooks: trusted through `setup --trust`, the Stop hook captures a turn, the approved
  candidate comes back in the next turn's request inside Continuity's fence, and nothing
  captured holds the fence. Untrusted, Codex skips them and doctor says what to do.
- A refused token: what doctor says, and what Codex itself shows.

A hook ends itself after 1 s and fails open, so on a loaded machine one turn's hook may
deliver nothing: the tests repeat a turn (a new Codex session each time) until its hook's
work shows, and wait on conditions, never for a duration."""

from __future__ import annotations

import json
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from capture.markers import INJECTION_OPEN
from tests.agents.clients import client
from tests.agents.fake_model import Request
from tests.agents.fake_openai import Call, FakeOpenAI
from tests.client.helpers import client_env, continuity, hook_log
from tests.workers.instance import ROOT, WORK_TIMEOUT, wait_until

pytestmark = pytest.mark.slow

RUN_TIMEOUT = 180  # one `codex exec` turn; a few seconds on an idle machine
CODEX_PRESET = ["capture:write", "memories:read", "memories:write"]  # "Codex: hooks and MCP"
NAMESPACE = "mcp__continuity"  # how Codex offers the tools of the MCP server `continuity`
CONTINUITY_TOOLS = sorted(json.loads((ROOT / "tests" / "mcp" / "tools.json").read_text()))
WRONG_TOKEN = "cont_pat_" + "W" * 40
# The user's own Codex settings before Continuity's setup: the model provider, and a wait
# for MCP servers while the first request's tools are gathered (Codex waits 1 s by default
# and leaves out a server not ready by then; this machine may be busy).
CODEX_CONFIG = """\
model = "fake-model"
model_provider = "fake"
mcp_optional_startup_grace_ms = 0

[model_providers.fake]
name = "Fake Responses API"
base_url = "{url}/v1"
env_key = "FAKE_OPENAI_KEY"
wire_api = "responses"
"""


@dataclass
class Turn:
    returncode: int
    stdout: str
    stderr: str
    session: str  # Codex's session id, the capture thread's external id
    requests: list[Request]  # what Codex sent the model during this turn

    def injected(self) -> list[tuple[str, str]]:
        """(role, text) of every input message holding Continuity's fence."""
        return [
            (item.get("role"), part.get("text", ""))
            for request in self.requests
            for item in (request.body or {}).get("input", [])
            if item.get("type") == "message"
            for part in item.get("content") or []
            if INJECTION_OPEN in str(part.get("text", ""))
        ]


class Machine:
    """One user's machine with Codex installed; `mcp_token` is what the user exported as
    $CONTINUITY_TOKEN in the shell that starts Codex."""

    def __init__(self, codex: str, folder: Path, model: FakeOpenAI):
        self.codex, self.model, self.mcp_token = codex, model, ""
        self.home = folder / "home"
        self.work = self.home / "work"  # the folder Codex works in
        self.work.mkdir(parents=True)
        (self.home / ".codex").mkdir()
        (self.home / ".codex" / "config.toml").write_text(CODEX_CONFIG.format(url=model.url))

    def continuity(self, *args: str, **env: str):
        env = {"CONTINUITY_CODEX": self.codex, **env}
        return continuity(self.home, *args, timeout=RUN_TIMEOUT, **env)

    def turn(self, prompt: str, **env: str) -> Turn:
        before = len(self.model.turns())
        shell = client_env(self.home, CONTINUITY_TOKEN=self.mcp_token, **env)
        shell = {k: v for k, v in shell.items() if not k.startswith("OPENAI_")}
        done = subprocess.run(
            [self.codex, "exec", "--skip-git-repo-check", "--color", "never", prompt],
            cwd=self.work, env=shell | {"FAKE_OPENAI_KEY": "dummy"}, stdin=subprocess.DEVNULL,
            capture_output=True, text=True, timeout=RUN_TIMEOUT,
        )  # fmt: skip
        session = re.search(r"^session id: ([0-9a-f-]+)$", done.stderr, re.M)
        return Turn(done.returncode, done.stdout, done.stderr, session.group(1) if session else "",
                    self.model.turns()[before:])  # fmt: skip

    def turn_until(self, prompt: str, done, what: str, attempts: int = 3) -> Turn:
        """A turn, again until `done(turn)`: a hook past its 1 s gives up without a word."""
        for _ in range(attempts):
            turn = self.turn(prompt)
            assert turn.returncode == 0, turn.stderr[-3000:]
            if done(turn):
                return turn
        pytest.fail(f"no {what} in {attempts} turns:\n{turn.stderr[-3000:]}\n{hook_log(self.home)}")

    def delivered(self, turn: Turn) -> bool:
        """The turn's Stop hook had its batch accepted: its watermark moves only on a 202."""
        folder = self.home / ".continuity" / "state" / "watermarks"
        return any(
            json.loads(path.read_text()).get("session_id") == turn.session
            for path in (folder.glob("*.json") if folder.is_dir() else [])
        )

    def last_errors(self) -> list[Path]:
        folder = self.home / ".continuity" / "state" / "last-errors"
        return sorted(folder.glob("*.json")) if folder.is_dir() else []


@pytest.fixture(scope="module", autouse=True)
def codex() -> str:
    """The Codex CLI, looked up before the hub starts, so that a skip costs nothing."""
    return client("codex")


@pytest.fixture
def machine(codex, tmp_path):
    with FakeOpenAI() as model:
        yield Machine(codex, tmp_path, model)


def setup_codex(machine: Machine, hub, *extra: str, name: str | None = None):
    """`continuity setup codex` with a new token of the dashboard's Codex preset, which the
    user then exports for Codex's MCP entry (`machine.mcp_token`); returns the run."""
    token = hub.token("codex", CODEX_PRESET, name=name)
    done = machine.continuity("setup", "codex", "--url", hub.url, "--token", token, *extra)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Codex reads the token from $CONTINUITY_TOKEN" in done.stdout
    machine.mcp_token = token
    return done


def thread_rows(hub, sql: str, session: str) -> list[tuple]:
    assert re.fullmatch(r"[0-9a-f-]+", session), session
    return hub.instance.query(
        f"{sql} JOIN capture_capturethread t ON t.id = x.thread_id WHERE t.external_id = '{session}'"
    )


def settled(hub, session: str) -> bool:
    """Every batch of the session's thread processed; a failed one fails the test."""
    statuses = {
        s for (s,) in thread_rows(hub, "SELECT x.status FROM capture_capturebatch x", session)
    }
    assert "failed" not in statuses, hub.logs()
    return statuses == {"done"}


# --- MCP ---------------------------------------------------------------------------------

FACT = "The kiosk firmware is signed with the orchard release key."


def test_codex_calls_continuitys_tools_to_remember_and_to_recall(hub, machine):
    setup_codex(machine, hub)
    remember = Call("memory_remember", {"content": FACT, "kind": "fact"}, namespace=NAMESPACE)
    machine.model.play(remember, text="Saved.")

    remembered = machine.turn("Remember which key signs the kiosk firmware.")

    assert remembered.returncode == 0, remembered.stderr
    assert remembered.stdout.strip() == "Saved."
    first, *_, last = remembered.requests
    assert sorted(FakeOpenAI.tools(first)[NAMESPACE]) == CONTINUITY_TOOLS
    assert '"status":"active"' in FakeOpenAI.outputs(last)[remember.call_id]
    assert [m["content"] for m in hub.memories() if "orchard" in m["content"]] == [FACT]

    recall = Call("memory_recall", {"query": "kiosk firmware signing key"}, namespace=NAMESPACE)
    machine.model.play(recall, text="The orchard release key.")

    recalled = machine.turn("Which key signs the kiosk firmware?")

    assert recalled.returncode == 0, recalled.stderr
    assert FACT in FakeOpenAI.outputs(recalled.requests[-1])[recall.call_id]
    assert recalled.stdout.strip() == "The orchard release key."


# --- hooks -------------------------------------------------------------------------------

PREFERENCE = "Remember that the kiosk ships through the lantern pipeline on Fridays."
QUESTION = "How does the kiosk ship on Fridays?"


def test_trusted_hooks_capture_a_turn_and_bring_the_approved_memory_back(hub, machine):
    setup = setup_codex(machine, hub, "--trust")
    assert "Codex now trusts Continuity's hooks" in setup.stdout, setup.stdout
    machine.model.play(text="Noted.")

    told = machine.turn_until(PREFERENCE, machine.delivered, "turn captured by the Stop hook")

    assert "hook: Stop" in told.stderr  # Codex ran it
    [candidate] = hub.pending_candidates("lantern pipeline")
    hub.approve(candidate)
    machine.model.play(text="Understood.")

    asked = machine.turn_until(
        QUESTION, lambda turn: turn.injected() and machine.delivered(turn),
        "turn with the memory injected and captured",
    )  # fmt: skip

    [(role, block)] = asked.injected()
    assert role == "developer"  # how Codex hands the model a hook's additionalContext
    assert block.startswith(INJECTION_OPEN) and candidate["content"] in block
    wait_until(lambda: settled(hub, asked.session), "the turn's batches processed",
               WORK_TIMEOUT, hub.instance)  # fmt: skip
    captured = [t for (t,) in thread_rows(
        hub, "SELECT x.text FROM capture_conversationevent x", asked.session)]  # fmt: skip
    assert QUESTION in captured and "Understood." in captured
    fenced = f"%{INJECTION_OPEN}%"
    assert hub.instance.query(
        f"SELECT count(*) FROM capture_conversationevent WHERE text LIKE '{fenced}'"
    ) == [(0,)]  # fmt: skip
    assert hub.instance.query(
        f"SELECT count(*) FROM capture_candidate WHERE content LIKE '{fenced}'"
    ) == [(0,)]  # fmt: skip


def test_untrusted_hooks_are_skipped_by_codex_and_doctor_says_what_to_do(hub, machine):
    setup_codex(machine, hub)

    doctor = machine.continuity("doctor", CONTINUITY_TOKEN=machine.mcp_token)

    assert doctor.returncode == 1, doctor.stdout
    assert "[FAIL] hooks: codex skips them: " in doctor.stdout
    assert "Codex has not trusted Stop" in doctor.stdout
    assert "Codex has not trusted UserPromptSubmit" in doctor.stdout
    assert "open /hooks, review and trust Continuity's Stop and UserPromptSubmit" in doctor.stdout
    assert "`continuity setup codex ... --trust`" in doctor.stdout
    machine.model.play(text="Noted.")

    turn = machine.turn("Remember that the kiosk's spare screens sit in the blue cupboard.")

    assert turn.returncode == 0 and turn.stdout.strip() == "Noted.", turn.stderr
    assert "hook:" not in turn.stderr  # Codex says nothing of the hooks it skipped
    assert not machine.delivered(turn) and not hook_log(machine.home)
    assert thread_rows(hub, "SELECT x.id FROM capture_capturebatch x", turn.session) == []


# --- a refused token ---------------------------------------------------------------------


def test_a_refused_mcp_token_shows_in_codex_and_in_doctor(hub, machine):
    setup_codex(machine, hub, "--mcp-only")
    token, machine.mcp_token = machine.mcp_token, WRONG_TOKEN
    machine.model.play(text="Nothing to go on.")

    turn = machine.turn("Which key signs the kiosk firmware?")
    doctor = machine.continuity("doctor", CONTINUITY_TOKEN=WRONG_TOKEN)
    fixed = machine.continuity("doctor", CONTINUITY_TOKEN=token)

    assert turn.returncode == 0, turn.stderr  # the turn goes on without Continuity
    assert "invalid_token" in turn.stderr  # Codex logs the server's WWW-Authenticate answer
    assert NAMESPACE not in FakeOpenAI.tools(turn.requests[0])
    assert doctor.returncode == 1
    assert (
        "[FAIL] mcp: $CONTINUITY_TOKEN (read by codex): the server refused the token (401)"
        in doctor.stdout
    )
    assert fixed.returncode == 0, fixed.stdout
    assert "[ok] mcp: $CONTINUITY_TOKEN (read by codex): valid for agent 'codex'" in fixed.stdout


def test_a_revoked_token_is_reported_and_the_turn_goes_on(hub, machine):
    setup_codex(machine, hub, "--trust", name="codex, revoked later")
    [row] = [t for t in hub.owner.get("/api/owner/tokens/", params={"state": "usable"}).json()[
        "results"] if t["name"] == "codex, revoked later"]  # fmt: skip
    assert hub.owner.post(f"/api/owner/tokens/{row['id']}/revoke/").status_code == 200
    machine.model.play(text="Noted.")

    turn = machine.turn_until(PREFERENCE, lambda _: machine.last_errors(), "hook error recorded")
    doctor = machine.continuity("doctor", CONTINUITY_TOKEN=machine.mcp_token)

    assert turn.stdout.strip() == "Noted."  # the hooks failed open
    assert doctor.returncode == 1
    refused = "the server refused the token (401"
    assert f"[FAIL] token: {refused}): it is wrong, revoked or expired" in doctor.stdout
    assert f"[FAIL] mcp: $CONTINUITY_TOKEN (read by codex): {refused})" in doctor.stdout
    assert re.search(rf"\[FAIL\] last error: codex-(prompt|stop) since .*{re.escape(refused)}",
                     doctor.stdout), doctor.stdout  # fmt: skip
