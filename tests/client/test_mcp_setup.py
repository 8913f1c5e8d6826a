"""`continuity setup <client>`: Continuity's MCP entry in each documented client's own file,
merged beside other servers, idempotent, backed up, refused when malformed, removed alone,
and seen by `continuity doctor`; the dashboard's pasted text parses to what setup writes."""

from __future__ import annotations

import json
import shlex
import stat
import tomllib
from pathlib import Path

import pytest

from continuity_client import clients
from tests.client.helpers import ROOT, continuity

pytestmark = pytest.mark.django_db(transaction=True)

ALL = list(clients.CLIENTS)
OTHER = {"url": "http://other.example/mcp"}
TOML_BEFORE = (
    '# my own settings\nmodel = "o3"\n\n[mcp_servers.other]\nurl = "http://other.example/mcp"\n'
)


@pytest.fixture
def place(home, monkeypatch):
    """`place(name)`: where the client's file lives under the test HOME, computed by the
    same code the CLI runs, with the environment the CLI subprocess gets."""
    for key, value in env(home).items():
        monkeypatch.setenv(key, value)
    return lambda name: clients.CLIENTS[name].path()


def env(home: Path) -> dict:
    return {"HOME": str(home), "CODEX_HOME": str(home / ".codex"),
            "XDG_CONFIG_HOME": str(home / ".config")}  # fmt: skip


def run(home, *args):
    return continuity(home, *args, **env(home))


@pytest.fixture
def mcp_server(live_server, make_token):
    """(url, token): a token for hooks and MCP, as the dashboard's presets make."""
    _, raw = make_token("laptop", scopes=["memories:read", "memories:write", "capture:write"])
    return live_server.url, raw


def setup(home, name, server, *extra):
    url, token = server
    only = ["--mcp-only"] if clients.CLIENTS[name].hooks else []
    return run(home, "setup", name, "--url", url, "--token", token, *only, *extra)


def write_existing(path: Path, name: str) -> str:
    """A file holding another server and another setting, as the user left it."""
    client = clients.CLIENTS[name]
    path.parent.mkdir(parents=True, exist_ok=True)
    if client.format == "toml":
        text = TOML_BEFORE
    else:
        data = {"theme": "dark", client.servers_key: {"other": OTHER}}
        if name == "vscode":
            data["inputs"] = [{"type": "promptString", "id": "other-key", "password": True}]
        text = json.dumps(data, indent=4)
    path.write_text(text)
    path.chmod(0o644)
    return text


def load(path: Path, name: str) -> dict:
    text = path.read_text()
    return tomllib.loads(text) if clients.CLIENTS[name].format == "toml" else json.loads(text)


def servers(path: Path, name: str) -> dict:
    return load(path, name)[clients.CLIENTS[name].servers_key]


def backups(path: Path) -> list[Path]:
    return sorted(path.parent.glob(f"{path.name}.bak-*"))


def wanted(name: str, url: str, token: str, written: dict) -> dict:
    """The entry for this server and token; a stdio entry runs this checkout's manage.py
    with the interpreter the installed script runs (the one the CLI saw)."""
    return clients.entry(name, connection(url, token, written))


def connection(url: str, token: str, written: dict | None = None) -> clients.Connection:
    python = (written or {}).get("command", "")
    return clients.Connection(url, token, python=python, manage=str(ROOT / "manage.py"))


@pytest.mark.parametrize("name", ALL)
def test_setup_writes_the_entry_beside_other_servers_and_settings_with_a_backup(
    name, home, place, mcp_server
):
    path = place(name)
    before = write_existing(path, name)
    url, token = mcp_server

    result = setup(home, name, mcp_server)

    assert result.returncode == 0, result.stderr
    found = servers(path, name)
    assert found["other"] == OTHER
    assert found["continuity"] == wanted(name, url, token, found["continuity"])
    data = load(path, name)
    assert data.get("theme", "dark") == "dark" and data.get("model", "o3") == "o3"
    [backup] = backups(path)
    assert backup.read_text() == before
    assert "backup:" in result.stdout
    if clients.CLIENTS[name].token_in_file:
        assert token in path.read_text()
        assert stat.S_IMODE(path.stat().st_mode) == 0o600 and "mode 0600" in result.stdout
    else:
        assert token not in path.read_text()
        assert stat.S_IMODE(path.stat().st_mode) == 0o644


@pytest.mark.parametrize("name", ALL)
def test_a_second_setup_changes_nothing_and_says_so(name, home, place, mcp_server):
    path = place(name)
    write_existing(path, name)
    setup(home, name, mcp_server)
    after_first = path.read_text()

    again = setup(home, name, mcp_server)

    assert again.returncode == 0, again.stderr
    assert "already set, nothing changed" in again.stdout
    assert path.read_text() == after_first and len(backups(path)) == 1


@pytest.mark.parametrize("name", ALL)
def test_a_malformed_file_is_refused_and_left_unchanged(name, home, place, mcp_server):
    path = place(name)
    path.parent.mkdir(parents=True, exist_ok=True)
    broken = "[mcp_servers\nurl = " if clients.CLIENTS[name].format == "toml" else '{"a": 1,'
    path.write_text(broken)

    result = setup(home, name, mcp_server)

    assert result.returncode == 2 and str(path) in result.stderr
    assert "is not valid" in result.stderr
    assert path.read_text() == broken and backups(path) == []
    assert not (home / ".continuity").exists()


@pytest.mark.parametrize("name", ALL)
def test_uninstall_removes_only_continuitys_entry(name, home, place, mcp_server):
    path = place(name)
    write_existing(path, name)
    setup(home, name, mcp_server)

    removed = run(home, "uninstall", name)
    again = run(home, "uninstall", name)

    assert removed.returncode == again.returncode == 0, removed.stderr
    assert servers(path, name) == {"other": OTHER}
    if name == "vscode":
        assert [entry["id"] for entry in load(path, name)["inputs"]] == ["other-key"]
    assert "none found, nothing changed" in again.stdout
    config = json.loads((home / ".continuity" / "config.json").read_text())
    assert "clients" not in config


@pytest.mark.parametrize("name", ALL)
def test_doctor_sees_the_entry_and_whether_it_points_at_the_saved_server(
    name, home, place, mcp_server
):
    url, _ = mcp_server
    setup(home, name, mcp_server)

    healthy = run(home, "doctor")

    target = f"starts the stdio server {ROOT / 'manage.py'}" if name == "claude-desktop" else (
        f"points at {url}/mcp"
    )  # fmt: skip
    assert f"[ok] mcp: {name} {target}" in healthy.stdout, healthy.stdout
    path = place(name)
    path.write_text(clients.without(name, path.read_text()))

    gone = run(home, "doctor")

    assert gone.returncode == 1
    assert f"[FAIL] mcp: {name} has no 'continuity' entry" in gone.stdout


@pytest.mark.parametrize("name", [name for name in ALL if name != "claude-desktop"])
def test_doctor_fails_an_entry_pointing_at_another_server(name, home, place, mcp_server):
    url, token = mcp_server
    setup(home, name, mcp_server)
    path = place(name)
    path.write_text(clients.merged(name, path.read_text(), connection("http://elsewhere:9", token)))

    result = run(home, "doctor")

    assert result.returncode == 1
    assert (
        f"[FAIL] mcp: {name} points at http://elsewhere:9/mcp, not the saved server's {url}/mcp"
        in result.stdout
    )


def test_an_mcp_only_machine_passes_doctor_without_hooks(home, place, mcp_server):
    setup(home, "cursor", mcp_server)

    result = run(home, "doctor")

    assert result.returncode == 0, result.stdout
    assert "(MCP clients only, no hooks)" in result.stdout
    assert "no agent has the hooks" not in result.stdout


@pytest.mark.parametrize("name", ALL)
def test_the_pasted_text_parses_to_exactly_what_setup_writes(name, home, place, mcp_server):
    url, token = mcp_server
    setup(home, name, mcp_server)
    written = load(place(name), name)
    entry = written[clients.CLIENTS[name].servers_key]["continuity"]

    blocks = clients.paste(name, connection(url, token, entry))

    [file_block] = [block for block in blocks if block.language != "sh"]
    parse = tomllib.loads if file_block.language == "toml" else json.loads
    assert parse(file_block.text) == written


def test_claude_codes_own_command_adds_the_same_entry_setup_writes(home, place, mcp_server):
    url, token = mcp_server
    setup(home, "claude", mcp_server)
    entry = servers(place("claude"), "claude")["continuity"]

    [command] = [
        b.text for b in clients.paste("claude", connection(url, token)) if b.language == "sh"
    ]

    words = shlex.split(command)
    assert words[:8] == ["claude", "mcp", "add", "--transport", "http", "--scope", "user",
                         "continuity"]  # fmt: skip
    assert words[8] == entry["url"] and entry["type"] == "http"
    assert words[9:] == ["--header", f"Authorization: {entry['headers']['Authorization']}"]


@pytest.mark.parametrize("name", ["codex", "gemini"])
def test_clients_reading_the_token_from_the_environment_are_told_to_export_it(
    name, home, place, mcp_server
):
    url, token = mcp_server
    result = setup(home, name, mcp_server)

    assert "CONTINUITY_TOKEN" in result.stdout and token not in place(name).read_text()
    exports = [b.text for b in clients.paste(name, connection(url, token)) if b.language == "sh"]
    assert exports == [f"export CONTINUITY_TOKEN={token}"]


def test_codex_keeps_the_comments_and_layout_of_its_config(home, place, mcp_server):
    path = place("codex")
    write_existing(path, "codex")

    setup(home, "codex", mcp_server)
    run(home, "uninstall", "codex")

    assert path.read_text() == TOML_BEFORE


def test_codex_refuses_an_entry_it_cannot_rewrite_and_changes_nothing(home, place, mcp_server):
    path = place("codex")
    path.parent.mkdir(parents=True)
    inline = 'mcp_servers = { continuity = { url = "http://old/mcp" } }\n'
    path.write_text(inline)

    result = setup(home, "codex", mcp_server)

    assert result.returncode == 2 and "a form setup does not rewrite" in result.stderr
    assert path.read_text() == inline and backups(path) == []


def test_setup_claude_installs_hooks_and_the_mcp_entry_together(home, place, mcp_server):
    url, token = mcp_server
    result = run(home, "setup", "claude", "--url", url, "--token", token)

    assert result.returncode == 0, result.stderr
    assert servers(place("claude"), "claude")["continuity"]["url"] == f"{url}/mcp"
    assert json.loads((home / ".claude" / "settings.json").read_text())["hooks"]["Stop"]
    config = json.loads((home / ".continuity" / "config.json").read_text())
    assert config == {"url": url, "token": token, "clients": ["claude"]}


def test_mcp_only_setup_keeps_the_hooks_token_and_records_the_client(home, place, mcp_server):
    url, token = mcp_server
    run(home, "setup", "codex", "--url", url, "--token", token)

    setup(home, "windsurf", mcp_server)

    config = json.loads((home / ".continuity" / "config.json").read_text())
    assert config == {"url": url, "token": token, "clients": ["codex", "windsurf"]}


def test_a_token_that_cannot_read_memories_is_refused_for_mcp(home, place, live_server, make_token):
    _, capture_only = make_token("capture", scopes=["capture:write"])

    result = setup(home, "cursor", (live_server.url, capture_only))

    assert result.returncode == 2 and "lacks memories:read" in result.stderr
    assert not place("cursor").exists() and not (home / ".continuity").exists()


def test_trust_is_refused_with_mcp_only(home, place, mcp_server):
    url, token = mcp_server
    result = run(home, "setup", "codex", "--url", url, "--token", token, "--mcp-only", "--trust")

    assert result.returncode == 2 and "--mcp-only does not install" in result.stderr
    assert not place("codex").exists()


def test_a_malformed_mcp_file_stops_setup_claude_before_the_hooks(home, place, mcp_server):
    url, token = mcp_server
    path = place("claude")
    path.write_text("{ not json")

    result = run(home, "setup", "claude", "--url", url, "--token", token)

    assert result.returncode == 2 and "is not valid JSON" in result.stderr
    assert path.read_text() == "{ not json"
    assert not (home / ".claude").exists() and not (home / ".continuity").exists()


def test_doctor_leaves_alone_a_file_of_a_client_never_set_up_here(home, place, mcp_server):
    setup(home, "cursor", mcp_server)
    vscode = place("vscode")
    vscode.parent.mkdir(parents=True)
    vscode.write_text('{\n  // my servers\n  "servers": {}\n}\n')

    quiet = run(home, "doctor")
    refused = setup(home, "vscode", mcp_server)  # setup will not drop the comments
    (home / ".continuity" / "config.json").write_text(
        json.dumps({"url": mcp_server[0], "clients": ["cursor", "vscode"]})
    )  # as if vscode had been set up before the comments were added
    loud = run(home, "doctor")

    assert "mcp: vscode" not in quiet.stdout and quiet.returncode == 0, quiet.stdout
    assert refused.returncode == 2 and vscode.read_text().startswith("{\n  // my servers")
    assert loud.returncode == 1 and f"[FAIL] mcp: vscode: {vscode} is not valid JSON" in loud.stdout


def test_status_lists_the_mcp_entries_of_an_mcp_only_machine(home, place, mcp_server):
    url, _ = mcp_server
    setup(home, "windsurf", mcp_server)

    result = run(home, "status")

    assert result.returncode == 0, result.stdout
    assert f"server: {url} (MCP clients only, no hooks' token)" in result.stdout
    assert f"mcp: windsurf points at {url}/mcp ({place('windsurf')})" in result.stdout


def test_setup_says_when_the_token_lets_the_agent_recall_but_not_remember(home, place, server):
    url, token = server  # memories:read and capture:write: the hooks' scopes only

    result = run(home, "setup", "claude", "--url", url, "--token", token)

    assert result.returncode == 0, result.stderr
    assert "The token lacks memories:write: over MCP the agent can recall" in result.stdout
    assert servers(place("claude"), "claude")["continuity"]["headers"] == {
        "Authorization": f"Bearer {token}"
    }
