"""End to end through real processes: a Claude Code Stop hook payload and its transcript go
through the installed `continuity` script into a live server (uvicorn) and a real Celery
worker; the candidate it yields is approved through the owner API; the prompt hook then
prints it; replaying the same Stop payload (also with the watermark removed) adds nothing.

A hook ends itself after 1 s, and a loaded machine can push a run past that after the
server stored its batch but before the watermark moved. So the test never counts batches:
it waits for the watermark (it moves only after a 202), for every batch to settle, and
asserts on what the ledger holds."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys

import httpx
import pytest

from tests.client.helpers import continuity, git_checkout, hook_log
from tests.mcp.live import free_port
from tests.workers.instance import ROOT, WORK_TIMEOUT, wait_until

pytestmark = pytest.mark.slow

SESSION = "5f0e2a3c-1b7d-4e9a-8c6f-2d4b9a1e7c30"
PROMPT = "Remember that the shop deploys through the blue-green pipeline on Fridays."


def transcript_lines(cwd) -> str:
    common = {
        "sessionId": SESSION,
        "cwd": str(cwd),
        "version": "2.1.150",
        "userType": "external",
        "isSidechain": False,
    }
    lines = [
        {"type": "summary", "summary": "Deploying the shop", "leafUuid": "a-2"},
        {"type": "user", "uuid": "u-1", "parentUuid": None, "timestamp": "2026-11-29T09:00:00.000Z",
         "message": {"role": "user", "content": PROMPT}, **common},
        {"type": "assistant", "uuid": "a-1", "parentUuid": "u-1", "timestamp": "2026-11-29T09:00:05.000Z", "requestId": "req_1",
         "message": {"id": "msg_1", "role": "assistant", "type": "message", "model": "claude-x",
                     "content": [{"type": "text", "text": "Noted: blue-green pipeline, Fridays."}]}, **common},
    ]  # fmt: skip
    return "".join(json.dumps(line) + "\n" for line in lines)


@pytest.fixture
def server(instance, tmp_path):  # noqa: F811
    """uvicorn serving the instance's database; the inject budget is roomy because this
    machine is shared and the budget has its own tests."""
    port = free_port()
    log = tmp_path / "uvicorn.log"
    env = {**instance.env, "CONTINUITY_INJECT_BUDGET_MS": "30000"}
    with open(log, "w") as handle:
        process = subprocess.Popen(
            [sys.executable, "-m", "uvicorn", "continuity.asgi:application", "--host", "127.0.0.1",
             "--port", str(port), "--lifespan", "on", "--no-access-log"],
            cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=handle, stderr=subprocess.STDOUT,
        )  # fmt: skip
    url = f"http://127.0.0.1:{port}"

    def answering():
        assert process.poll() is None, log.read_text()
        with contextlib.suppress(httpx.TransportError):
            return httpx.get(f"{url}/health", timeout=5).status_code in (200, 503)
        return False

    try:
        wait_until(answering, "the server answering", 60, instance)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=20)


def owner_session(url: str, credentials: dict) -> httpx.Client:
    client = httpx.Client(base_url=url, timeout=30)
    client.get("/signin/")
    signed_in = client.post("/signin/", data={"username": credentials["username"], "password": credentials["password"],
                                              "csrfmiddlewaretoken": client.cookies["csrftoken"]})  # fmt: skip
    assert signed_in.status_code == 302, signed_in.text[:500]
    client.headers["X-CSRFToken"] = client.cookies["csrftoken"]
    return client


def counts(instance) -> tuple:  # noqa: F811
    return (
        instance.query("SELECT count(*) FROM capture_conversationevent")[0][0],
        instance.query("SELECT count(*) FROM capture_candidate")[0][0],
    )


def batches_settled(instance):  # noqa: F811
    """Every stored batch processed; a failed one fails the test."""

    def settled():
        statuses = dict(
            instance.query("SELECT status, count(*) FROM capture_capturebatch GROUP BY status")
        )
        assert "failed" not in statuses, instance.logs()
        return bool(statuses) and set(statuses) == {"done"}

    return settled


def watermarks(home) -> dict:
    folder = home / ".continuity" / "state" / "watermarks"
    return {path.name: path.read_text() for path in folder.glob("*.json")}


def stop_until_accepted(home, stop, attempts: int = 5) -> None:
    """Run the Stop hook until the server accepted its batch: the watermark moves only
    after a 202. A run past the hook's 1 s fails open; whatever it delivered is keyed by
    fingerprint in the ledger, which the test checks."""
    for _ in range(attempts):
        run = continuity(home, "hook", "claude-stop", stdin=stop)
        assert (run.returncode, run.stdout, run.stderr) == (0, "", ""), hook_log(home)
        if watermarks(home):
            return
    pytest.fail(f"no Stop hook run was accepted in {attempts} runs:\n{hook_log(home)}")


def test_a_stop_hook_capture_becomes_an_approved_memory_that_the_prompt_hook_injects(
    instance, server, tmp_path, dead_url
):  # noqa: F811
    credentials = json.loads(subprocess.run(
        [sys.executable, "-m", "tests.client.e2e_harness", "owner"], cwd=ROOT, env=instance.env,
        check=True, capture_output=True, text=True, timeout=120,
    ).stdout)  # fmt: skip
    home = tmp_path / "home"
    home.mkdir()
    checkout = git_checkout(tmp_path / "src" / "shop", "git@github.com:acme/shop.git")
    transcript = tmp_path / "transcript.jsonl"
    transcript.write_text(transcript_lines(checkout), encoding="utf-8")
    stop = {"session_id": SESSION, "transcript_path": str(transcript), "cwd": str(checkout), "permission_mode": "default",
            "hook_event_name": "Stop", "stop_hook_active": False, "last_assistant_message": "Noted: blue-green pipeline, Fridays."}  # fmt: skip
    assert (
        continuity(
            home, "setup", "claude", "--url", server, "--token", credentials["token"]
        ).returncode
        == 0
    )
    instance.start_worker("w1")

    stop_until_accepted(home, stop)
    wait_until(batches_settled(instance), "the batch processed", WORK_TIMEOUT, instance)
    pending = instance.query(
        "SELECT id, content, scope_type, scope_key FROM capture_candidate WHERE status = 'pending'"
    )
    assert len(pending) == 1, pending
    candidate_id, content = str(pending[0][0]), pending[0][1]
    assert "blue-green pipeline" in content
    if len(candidate_id) == 32:  # SQLite stores UUIDs as bare hex
        candidate_id = f"{candidate_id[:8]}-{candidate_id[8:12]}-{candidate_id[12:16]}-{candidate_id[16:20]}-{candidate_id[20:]}"

    owner = owner_session(server, credentials)
    approved = owner.post(
        f"/api/owner/candidates/{candidate_id}/approve/", json={"visibility": "shared"}
    )
    owner.close()
    assert approved.status_code == 200, approved.text

    # The first request a fresh server answers pays one-time costs; a hook fails open on it.
    httpx.post(f"{server}/api/v1/inject", json={"prompt": "warm up"},
               headers={"Authorization": f"Bearer {credentials['token']}"}, timeout=60)  # fmt: skip
    prompt = {"session_id": SESSION, "transcript_path": str(transcript), "cwd": str(checkout / "src"),
              "hook_event_name": "UserPromptSubmit", "prompt": "how does the shop deploy on Fridays?"}  # fmt: skip
    for _ in range(3):  # a loaded machine can push one call past the hook's 1 s: it fails open
        printed = continuity(home, "hook", "claude-prompt", stdin=prompt)
        if printed.stdout:
            break
    assert printed.returncode == 0 and printed.stdout, hook_log(home)
    context = json.loads(printed.stdout)["hookSpecificOutput"]["additionalContext"]
    assert content in context and context.startswith("<continuity-memory")

    before, marks, log = counts(instance), watermarks(home), hook_log(home)
    # The watermark says nothing is new, so the replay sends nothing: pointed at an
    # address where nothing listens, it has nothing to fail on.
    again = continuity(home, "hook", "claude-stop", stdin=stop, CONTINUITY_URL=dead_url)
    assert (again.returncode, hook_log(home), watermarks(home)) == (0, log, marks)
    for mark in (home / ".continuity" / "state" / "watermarks").glob("*.json"):
        mark.unlink()
    stop_until_accepted(home, stop)  # everything again
    assert watermarks(home) == marks
    wait_until(batches_settled(instance), "the resent batch processed", WORK_TIMEOUT, instance)
    assert counts(instance) == before
    assert instance.query("SELECT status FROM capture_candidate") == [("approved",)]
