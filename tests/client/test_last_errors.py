"""A hook that fails for a reason the user must fix still fails open, but leaves its last
error where `continuity status` and `continuity doctor` show it, with what to do."""

from __future__ import annotations

import json

import pytest

from tests.client.helpers import continuity, save_config

pytestmark = pytest.mark.django_db(transaction=True)


def stop_payload(tmp_path, cwd):
    transcript = tmp_path / "session.jsonl"
    line = {"type": "user", "uuid": "u-1", "message": {"role": "user", "content": "第一行"}}
    transcript.write_text(json.dumps(line, ensure_ascii=False) + "\n", encoding="utf-8")
    return {"session_id": "s-1", "transcript_path": str(transcript), "cwd": str(cwd),
            "hook_event_name": "Stop", "stop_hook_active": False}  # fmt: skip


def test_a_capture_refused_for_a_missing_scope_is_shown_by_status_and_doctor(
    server, make_token, home, tmp_path
):
    url, _ = server
    _, reader = make_token("mcp-reader", scopes=["memories:read"])
    save_config(home, url, reader)

    hook = continuity(home, "hook", "claude-stop", stdin=stop_payload(tmp_path, home))
    status = continuity(home, "status")
    doctor = continuity(home, "doctor")

    assert (hook.returncode, hook.stdout, hook.stderr) == (0, "", "")
    assert status.returncode == 1
    assert "claude: hooks not installed" in status.stdout
    assert "last error: claude-stop since " in status.stdout
    assert "(403: " in status.stdout
    assert "a token with memories:read and capture:write" in status.stdout
    assert "continuity setup claude --url URL --token TOKEN" in status.stdout
    assert doctor.returncode == 1 and "[FAIL] last error: claude-stop" in doctor.stdout


def test_the_next_accepted_capture_clears_the_error(server, make_token, home, tmp_path):
    url, token = server
    _, reader = make_token("mcp-reader", scopes=["memories:read"])
    save_config(home, url, reader)
    continuity(home, "hook", "codex-stop", stdin=stop_payload(tmp_path, home))
    assert "codex-stop" in continuity(home, "status").stdout

    save_config(home, url, token)
    continuity(home, "hook", "codex-stop", stdin=stop_payload(tmp_path, home))
    status = continuity(home, "status")

    assert status.returncode == 0 and "no hook error stands" in status.stdout
    assert "last error" not in status.stdout


def test_setup_with_a_good_token_clears_standing_errors(server, home, tmp_path):
    url, token = server
    save_config(home, url, "cont_pat_" + "W" * 40)
    continuity(home, "hook", "claude-prompt", stdin={"prompt": "hi", "cwd": str(home)})
    assert "the server refused the token (401" in continuity(home, "status").stdout

    assert continuity(home, "setup", "claude", "--url", url, "--token", token).returncode == 0
    status = continuity(home, "status")

    assert status.returncode == 0 and "claude: hooks installed" in status.stdout
    assert "no hook error stands" in status.stdout


def test_an_unreachable_server_leaves_a_trace_but_a_slow_one_does_not(
    home, tmp_path, dead_url, silent_url
):
    save_config(home, dead_url, "cont_pat_" + "W" * 40)
    continuity(home, "hook", "claude-stop", stdin=stop_payload(tmp_path, home))
    down = continuity(home, "status")

    (home / ".continuity" / "state" / "last-errors" / "claude-stop.json").unlink()
    save_config(home, silent_url, "cont_pat_" + "W" * 40)
    slow = continuity(home, "hook", "claude-stop", stdin=stop_payload(tmp_path, home))

    assert "the server is not reachable" in down.stdout and "python3 run.py serve" in down.stdout
    assert slow.returncode == 0 and "no hook error stands" in continuity(home, "status").stdout


def test_no_config_is_a_standing_error_too(home):
    run = continuity(home, "hook", "codex-prompt", stdin={"prompt": "hi", "cwd": str(home)})

    status = continuity(home, "status")

    assert run.returncode == 0 and status.returncode == 1
    assert "server: not set up" in status.stdout
    assert "codex-prompt" in status.stdout and "run `continuity setup codex" in status.stdout
