"""`continuity doctor`: one line per check, exit 1 when any fails."""

from __future__ import annotations

import pytest

from tests.client.helpers import continuity, save_config

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_wired_machine_passes_every_check(server, home):
    url, token = server
    continuity(home, "setup", "claude", "--url", url, "--token", token)
    watermarks = home / ".continuity" / "state" / "watermarks"
    watermarks.mkdir(parents=True)
    (watermarks / "claude_code-abc.json").write_text(
        '{"session_id": "s", "transcript_path": "/t", "offset": 10, "lines": 2}'
    )

    run = continuity(home, "doctor")

    assert run.returncode == 0, run.stdout
    assert (
        "[ok] token: valid for agent 'claude-code', scopes capture:write, memories:read"
        " (from the saved config)" in run.stdout
    )
    assert (
        "[ok] hooks: claude installed" in run.stdout
        and "[ok] watermarks: 1 session(s) readable" in run.stdout
    )
    assert run.stdout.rstrip().endswith("all checks passed")


def test_a_refused_token_fails_the_check(server, home):
    url, _ = server
    save_config(home, url, "cont_pat_" + "Q" * 40)

    run = continuity(home, "doctor")

    assert run.returncode == 1
    assert "[FAIL] token: the server refused the token (401)" in run.stdout


def test_a_token_missing_a_hook_scope_fails_the_check(live_server, make_token, home):
    _, raw = make_token("reader", scopes=["memories:read"])
    save_config(home, live_server.url, raw)

    run = continuity(home, "doctor")

    assert run.returncode == 1 and "lacks capture:write (it has memories:read)" in run.stdout


def test_a_server_that_is_down_fails_the_check(home, dead_url):
    save_config(home, dead_url, "cont_pat_" + "Q" * 40)

    run = continuity(home, "doctor")

    assert run.returncode == 1 and "[FAIL] server: not reachable" in run.stdout


def test_no_hooks_no_config_and_a_broken_watermark_are_reported(home):
    watermarks = home / ".continuity" / "state" / "watermarks"
    watermarks.mkdir(parents=True)
    (watermarks / "codex-1.json").write_text("{half")

    run = continuity(home, "doctor")

    assert run.returncode == 1
    assert "[FAIL] config: no server or token" in run.stdout
    assert "[FAIL] hooks: no agent has the hooks" in run.stdout
    assert "[FAIL] watermarks: unreadable: codex-1.json" in run.stdout
