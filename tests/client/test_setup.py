"""`continuity setup` / `uninstall`: hooks in the agents' files, idempotent, others' kept."""

from __future__ import annotations

import json
import stat

import pytest

from tests.client.helpers import SCRIPT, continuity

pytestmark = pytest.mark.django_db(transaction=True)

TOKEN = "cont_pat_" + "A" * 40
FOREIGN = {"type": "command", "command": "/usr/local/bin/notify-me --on-stop", "timeout": 10}


def settings_of(home):
    return json.loads((home / ".claude" / "settings.json").read_text())


def backups(folder):
    return sorted(path.name for path in folder.glob("*.bak-*"))


def wired(server) -> list[str]:
    url, token = server
    return ["--url", url, "--token", token]


def test_setup_claude_installs_both_hooks_and_a_private_config(tmp_path, server):
    url, token = server
    run = continuity(tmp_path, "setup", "claude", "--url", f"{url}/", "--token", token)

    assert run.returncode == 0, run.stderr
    hooks = settings_of(tmp_path)["hooks"]
    assert hooks["Stop"] == [
        {"hooks": [{"type": "command", "command": f'"{SCRIPT}" hook claude-stop', "timeout": 5}]}
    ]
    assert hooks["UserPromptSubmit"][0]["hooks"][0]["command"] == f'"{SCRIPT}" hook claude-prompt'
    config = tmp_path / ".continuity" / "config.json"
    assert json.loads(config.read_text()) == {"url": url, "token": token, "clients": ["claude"]}
    assert stat.S_IMODE(config.stat().st_mode) == 0o600


def test_setup_twice_adds_nothing_and_keeps_other_settings_and_hooks(tmp_path, server):
    claude = tmp_path / ".claude"
    claude.mkdir()
    original = {
        "model": "opus",
        "hooks": {"Stop": [{"matcher": "", "hooks": [FOREIGN]}]},
        "env": {"语言": "中文"},
    }
    (claude / "settings.json").write_text(json.dumps(original, ensure_ascii=False))

    first = continuity(tmp_path, "setup", "claude", *wired(server))
    after_first = settings_of(tmp_path)
    second = continuity(tmp_path, "setup", "claude", *wired(server))

    assert first.returncode == second.returncode == 0
    assert "already installed, nothing changed" in second.stdout
    assert settings_of(tmp_path) == after_first
    assert after_first["model"] == "opus" and after_first["env"] == {"语言": "中文"}
    assert after_first["hooks"]["Stop"][0] == {"matcher": "", "hooks": [FOREIGN]}
    assert len(after_first["hooks"]["Stop"]) == 2
    assert len(backups(claude)) == 1
    assert json.loads((claude / backups(claude)[0]).read_text()) == original


def test_a_moved_executable_replaces_the_old_handler_instead_of_adding_one(tmp_path, server):
    claude = tmp_path / ".claude"
    claude.mkdir()
    stale = {
        "type": "command",
        "command": '"/old/venv/bin/continuity" hook claude-stop',
        "timeout": 5,
    }
    (claude / "settings.json").write_text(
        json.dumps({"hooks": {"Stop": [{"hooks": [stale, FOREIGN]}]}})
    )

    continuity(tmp_path, "setup", "claude", *wired(server))

    stop = settings_of(tmp_path)["hooks"]["Stop"]
    commands = [handler["command"] for group in stop for handler in group["hooks"]]
    assert commands == [FOREIGN["command"], f'"{SCRIPT}" hook claude-stop']


def test_uninstall_removes_only_continuitys_handlers(tmp_path, server):
    claude = tmp_path / ".claude"
    claude.mkdir()
    (claude / "settings.json").write_text(
        json.dumps({"hooks": {"Stop": [{"hooks": [FOREIGN]}]}, "model": "opus"})
    )
    continuity(tmp_path, "setup", "claude", *wired(server))

    removed = continuity(tmp_path, "uninstall", "claude")
    again = continuity(tmp_path, "uninstall", "claude")

    assert removed.returncode == again.returncode == 0
    assert settings_of(tmp_path) == {"hooks": {"Stop": [{"hooks": [FOREIGN]}]}, "model": "opus"}
    assert "nothing changed" in again.stdout


def test_setup_codex_writes_hooks_json_under_codex_home(tmp_path, server):
    codex_home = tmp_path / "elsewhere"

    run = continuity(
        tmp_path,
        "setup",
        "codex",
        *wired(server),
        CODEX_HOME=str(codex_home),
    )
    twice = continuity(
        tmp_path,
        "setup",
        "codex",
        *wired(server),
        CODEX_HOME=str(codex_home),
    )

    assert run.returncode == twice.returncode == 0
    hooks = json.loads((codex_home / "hooks.json").read_text())["hooks"]
    assert [group["hooks"][0]["command"] for group in hooks["Stop"]] == [
        f'"{SCRIPT}" hook codex-stop'
    ]
    assert [group["hooks"][0]["command"] for group in hooks["UserPromptSubmit"]] == [
        f'"{SCRIPT}" hook codex-prompt'
    ]
    assert not (tmp_path / ".claude").exists()

    continuity(tmp_path, "uninstall", "codex", CODEX_HOME=str(codex_home))
    assert json.loads((codex_home / "hooks.json").read_text()) == {"hooks": {}}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--url", "ftp://example.org", "--token", TOKEN], "--url"),
        (["--url", "http://127.0.0.1:8000", "--token", "sk-not-ours"], "--token"),
        (["--url", "http://127.0.0.1:8000", "--token", TOKEN, "--trust"], "--trust is for codex"),
    ],
)
def test_bad_arguments_are_refused_and_nothing_is_written(tmp_path, args, message):
    run = continuity(tmp_path, "setup", "claude", *args)

    assert run.returncode == 2 and message in run.stderr
    assert not (tmp_path / ".claude").exists() and not (tmp_path / ".continuity").exists()


def test_an_unreadable_settings_file_is_left_alone(tmp_path, server):
    claude = tmp_path / ".claude"
    claude.mkdir()
    (claude / "settings.json").write_text("{ not json")

    run = continuity(tmp_path, "setup", "claude", *wired(server))

    assert run.returncode == 2 and "not readable JSON" in run.stderr
    assert (claude / "settings.json").read_text() == "{ not json" and backups(claude) == []
    assert not (tmp_path / ".continuity").exists()


def test_setup_refuses_a_token_without_capture_write_and_names_the_missing_scope(
    tmp_path, live_server, make_token
):
    _, reader = make_token("mcp-reader", scopes=["memories:read"])

    run = continuity(tmp_path, "setup", "claude", "--url", live_server.url, "--token", reader)

    assert run.returncode == 2 and "installed" not in run.stdout
    assert "lacks capture:write (it has memories:read)" in run.stderr
    assert not (tmp_path / ".claude").exists() and not (tmp_path / ".continuity").exists()


def test_setup_refuses_a_token_the_server_does_not_accept(tmp_path, live_server):
    run = continuity(tmp_path, "setup", "codex", "--url", live_server.url, "--token", TOKEN)

    assert run.returncode == 2 and "the server refused the token (401)" in run.stderr
    assert not (tmp_path / ".codex").exists() and not (tmp_path / ".continuity").exists()


def test_setup_with_an_unreachable_server_is_a_clear_error(tmp_path, dead_url):
    run = continuity(tmp_path, "setup", "claude", "--url", dead_url, "--token", TOKEN)

    assert run.returncode == 2 and f"cannot reach the server at {dead_url}" in run.stderr
    assert not (tmp_path / ".claude").exists() and not (tmp_path / ".continuity").exists()
