"""Claude Code itself (the real `claude` binary) against a live Continuity, set up the way
a person does it: `continuity setup claude` into a fresh HOME, or `claude mcp add` for the
stdio server. Only the model is fake (tests/agents/fake_anthropic.py): it decides which
tool to call, and records what Claude Code sends it, so the tests read what really reached
the model — the tools offered, the tool results, the memory block the prompt hook added.

A hook ends itself after 1 s whatever happens (docs/client.md, *Failing open*); a loaded
machine can push one run past that. When the hooks' log says a hook ran out of time, the
turn is run again in a new session; any other failure fails the test with the log."""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path

import pytest

from tests.agents.claude_code import SERVER, Desk, strings_in, tool
from tests.agents.fake_anthropic import FakeAnthropic, result_text
from tests.agents.hub import HOOK_SCOPES, MCP_SCOPES, wait_for
from tests.client.helpers import continuity
from tests.workers.instance import ROOT, WORK_TIMEOUT

pytestmark = pytest.mark.slow

SCOPES = sorted(set(HOOK_SCOPES) | set(MCP_SCOPES))  # the dashboard's "hooks and MCP" preset
TOOLS = sorted(json.loads((ROOT / "tests" / "mcp" / "tools.json").read_text()))
FENCE = "<continuity-memory"
OUT_OF_TIME = re.compile(r"timeout|timed out|no time left", re.I)
ATTEMPTS = 3


@pytest.fixture
def model():
    with FakeAnthropic() as fake:
        yield fake


@pytest.fixture
def desk(tmp_path, model):
    return Desk.fresh(tmp_path, model)


def set_up(desk: Desk, url: str, token: str) -> None:
    done = continuity(desk.home, "setup", "claude", "--url", url, "--token", token, timeout=60)
    assert done.returncode == 0, f"{done.stdout}\n{done.stderr}"


def hooked_turn(desk: Desk, prompt: str, hook: str, landed) -> str:
    """Run a turn until `landed(session)` holds once it ended; a run whose `hook` ran out
    of time is repeated. Returns the session that landed."""
    for _ in range(ATTEMPTS):
        session, logged = str(uuid.uuid4()), len(desk.hook_log())
        desk.turn(prompt, session)

        def settled(session=session, logged=logged):
            return landed(session) or hook in desk.hook_log()[logged:]

        wait_for(settled, f"the {hook} hook's work or its log line", 60)
        if landed(session):
            return session
        news = desk.hook_log()[logged:]
        assert OUT_OF_TIME.search(news), f"the {hook} hook failed:\n{news}"
    pytest.fail(f"the {hook} hook ran out of time {ATTEMPTS} times:\n{desk.hook_log()}")


def batches_done(hub, session: str) -> bool:
    """Every batch of this session processed by the worker (a failed one fails the test)."""
    statuses = {status for (status,) in hub.instance.query(
        "SELECT b.status FROM capture_capturebatch b JOIN capture_capturethread t"
        f" ON b.thread_id = t.id WHERE t.external_id = '{session}'"
    )}  # fmt: skip
    assert "failed" not in statuses, hub.logs()
    return statuses == {"done"}


def revoke(hub, name: str) -> None:
    listed = hub.owner.get("/api/owner/tokens/", params={"state": "usable"})
    [token] = [t for t in listed.json()["results"] if t["name"] == name]
    revoked = hub.owner.post(f"/api/owner/tokens/{token['id']}/revoke/")
    assert revoked.status_code == 200, revoked.text


# --- 1. the HTTP door ------------------------------------------------------------------


def test_claude_code_set_up_by_continuity_remembers_and_recalls_through_the_http_door(
    hub, desk, model
):
    set_up(desk, hub.url, hub.token("claude-code", SCOPES))
    fact = "The storefront's staging database is refreshed from production every Monday."
    model.plan("Saved.", tool("memory_remember"), content=fact, kind="fact")

    first = desk.turn("Please keep this: staging is refreshed from production on Mondays.")

    assert "Saved." in first.stdout
    offered = model.offered_tools()
    assert [name for name in offered if name.startswith(tool(""))] == [tool(t) for t in TOOLS]
    [remembered] = model.tool_results()
    assert not remembered.get("is_error"), remembered
    stored = json.loads(result_text(remembered))
    assert stored["status"] == "active"
    [memory] = [m for m in hub.memories() if m["id"] == stored["id"]]
    assert memory["content"] == fact
    assert memory["source_agent"] == "claude-code"

    model.plan("It is refreshed on Mondays.", tool("memory_recall"), query="staging database")
    second = desk.turn("When is the staging database refreshed?")

    assert "It is refreshed on Mondays." in second.stdout
    [_, recalled] = model.tool_results()
    assert not recalled.get("is_error"), recalled
    found = json.loads(result_text(recalled))["memories"]
    assert [m["content"] for m in found if m["id"] == stored["id"]] == [fact]


# --- 2. the hooks ----------------------------------------------------------------------


def test_a_turn_captured_by_the_stop_hook_comes_back_in_the_next_turn_and_never_echoes(
    hub, desk, model
):
    set_up(desk, hub.url, hub.token("claude-code", SCOPES))
    statement = "the release train leaves every Tuesday at noon"
    stored = "The release train leaves every Tuesday at noon"
    model.plan("Noted.")

    captured = hooked_turn(
        desk, f"Remember that {statement}.", "claude-stop", lambda s: desk.watermark(s)
    )

    wait_for(lambda: batches_done(hub, captured), "the first turn's batch processed", WORK_TIMEOUT)
    [candidate] = hub.pending_candidates(stored)
    hub.approve(candidate)
    model.plan("The release train leaves every Tuesday at noon.")

    def injected(session):
        sent = [s for r in model.conversations(session) for s in strings_in(r.body)]
        return [s for s in sent if FENCE in s]

    second = hooked_turn(desk, "When does the release train leave?", "claude-prompt", injected)

    [block, *_] = injected(second)
    fenced = block[block.index(FENCE) : block.index("</continuity-memory>")]
    assert stored in fenced
    # The block went into the transcript too (an attachment of the prompt hook); once the
    # Stop hook has sent the lines that hold it and the worker has read them, nothing of
    # the block is stored as the person's words. Claude Code writes a closing
    # `last-prompt` line after its Stop hook, so the watermark stops short of the end.
    transcript = desk.transcript(second)

    def block_sent():
        offset = (desk.watermark(second) or {}).get("offset", 0)
        return FENCE.encode() in transcript.read_bytes()[:offset]

    wait_for(block_sent, "the lines holding the block sent by the Stop hook", 60)
    wait_for(lambda: batches_done(hub, second), "the second turn's batch processed", WORK_TIMEOUT)
    like = f"'%{FENCE}%'"
    assert (
        hub.instance.query(f"SELECT id FROM capture_conversationevent WHERE text LIKE {like}") == []
    )
    assert hub.instance.query(f"SELECT id FROM capture_candidate WHERE content LIKE {like}") == []
    assert [c for c in pending(hub) if "release train" in c["content"]] == []


def pending(hub) -> list[dict]:
    listed = hub.owner.get("/api/owner/candidates/", params={"status": "pending"})
    assert listed.status_code == 200, listed.text
    return listed.json()["results"]


# --- 3. a token that no longer works ---------------------------------------------------


def test_a_revoked_token_shows_in_claude_mcp_list_and_in_continuity_doctor(hub, desk):
    name = f"claude-code revoked {uuid.uuid4().hex[:8]}"
    set_up(desk, hub.url, hub.token("claude-code", SCOPES, name=name))
    entry = f"{SERVER}: {hub.mcp_url} (HTTP) - "

    before = desk.run("mcp", "list")
    assert before.returncode == 0, before.stderr
    assert f"{entry}✔ Connected" in before.stdout
    assert continuity(desk.home, "doctor").returncode == 0

    revoke(hub, name)

    after = desk.run("mcp", "list")
    assert f"{entry}✘ Failed to connect" in after.stdout, after.stdout + after.stderr
    doctor = continuity(desk.home, "doctor")
    assert doctor.returncode == 1
    assert "[FAIL] token: the server refused the token (401)" in doctor.stdout, doctor.stdout


def test_setup_refuses_a_wrong_token_and_claude_code_reports_one_added_by_hand(hub, desk):
    wrong = "cont_pat_wrong0000000000000000000000000000000"

    refused = continuity(desk.home, "setup", "claude", "--url", hub.url, "--token", wrong)

    assert refused.returncode == 2
    assert "the server refused the token (401)" in refused.stderr + refused.stdout
    assert not (desk.home / ".claude.json").exists()
    assert not (desk.home / ".claude" / "settings.json").exists()

    added = desk.run("mcp", "add", "--transport", "http", "--scope", "user", SERVER, hub.mcp_url,
                     "--header", f"Authorization: Bearer {wrong}")  # fmt: skip
    assert added.returncode == 0, added.stderr
    listed = desk.run("mcp", "list")
    assert f"{SERVER}: {hub.mcp_url} (HTTP) - ✘ Failed to connect" in listed.stdout, listed.stdout


# --- 4. the stdio door -----------------------------------------------------------------


def stdio_env(hub) -> list[str]:
    """What `mcp_stdio` needs to open the hub's store (docs/agents.md, section 9)."""
    names = ("CONTINUITY_DATA_DIR", "DATABASE_URL", "REDIS_URL")
    return [f"{name}={hub.instance.env[name]}" for name in names if name in hub.instance.env]


def test_claude_code_calls_continuity_through_the_stdio_server_it_starts(hub, desk, model):
    token = hub.token("claude-code", MCP_SCOPES)
    env = [part for pair in stdio_env(hub) for part in ("--env", pair)]
    python, manage = Path(ROOT) / ".venv" / "bin" / "python", Path(ROOT) / "manage.py"
    added = desk.run(
        "mcp", "add", "--transport", "stdio", "--scope", "user", SERVER,
        "--env", f"CONTINUITY_TOKEN={token}", *env, "--", str(python), str(manage), "mcp_stdio",
    )  # fmt: skip
    assert added.returncode == 0, added.stdout + added.stderr
    fact = "Invoices are numbered per calendar year, starting again at 1 in January."
    model.plan("Kept.", tool("memory_remember"), content=fact, kind="fact")

    turn = desk.turn("Keep in mind how invoices are numbered.")

    assert "Kept." in turn.stdout
    assert [n for n in model.offered_tools() if n.startswith(tool(""))] == [tool(t) for t in TOOLS]
    [remembered] = model.tool_results()
    assert not remembered.get("is_error"), remembered
    stored = json.loads(result_text(remembered))
    [memory] = [m for m in hub.memories() if m["id"] == stored["id"]]
    assert memory["content"] == fact
