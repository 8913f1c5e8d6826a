"""`continuity doctor` checks the token that Codex and Gemini CLI send over MCP: their entry
names a variable (`$CONTINUITY_TOKEN`), read when the client starts, and Codex given none or
a refused one offers none of Continuity's tools without a word. With no hooks installed that
variable is the MCP clients' token, not a hooks' token missing capture:write."""

from __future__ import annotations

import pytest

from continuity_client import clients
from tests.client.helpers import continuity

pytestmark = pytest.mark.django_db(transaction=True)

MCP = ["memories:read", "memories:write"]
WRONG = "cont_pat_" + "W" * 40


def doctor(home, **env):
    return continuity(home, "doctor", CONTINUITY_CODEX="off", **env)


def test_an_mcp_only_codex_with_its_exported_token_passes(live_server, make_token, home):
    _, raw = make_token("codex", scopes=MCP)
    continuity(home, "setup", "codex", "--url", live_server.url, "--token", raw, "--mcp-only")

    run = doctor(home, CONTINUITY_TOKEN=raw)

    assert run.returncode == 0, run.stdout
    assert f"[ok] config: server {live_server.url} (MCP clients only, no hooks)" in run.stdout
    assert (
        "[ok] mcp: $CONTINUITY_TOKEN (read by codex): valid for agent 'codex', scopes "
        "memories:read, memories:write" in run.stdout
    )
    assert "capture:write" not in run.stdout


def test_the_variable_not_set_is_reported_with_what_to_do(live_server, make_token, home):
    _, raw = make_token("codex", scopes=MCP)
    continuity(home, "setup", "codex", "--url", live_server.url, "--token", raw, "--mcp-only")

    run = doctor(home)

    assert run.returncode == 1
    assert (
        "[FAIL] mcp: $CONTINUITY_TOKEN (read by codex) is not set here: export "
        "CONTINUITY_TOKEN=<token> in the shell that starts codex" in run.stdout
    )


def test_a_refused_mcp_token_fails_beside_a_good_hooks_token(server, home):
    url, token = server  # the hooks' token, saved by setup
    continuity(home, "setup", "codex", "--url", url, "--token", token)

    run = doctor(home, CONTINUITY_TOKEN=WRONG)

    assert run.returncode == 1
    assert "[ok] token: valid for agent 'claude-code'" in run.stdout
    assert "(from the saved config)" in run.stdout
    assert (
        "[FAIL] mcp: $CONTINUITY_TOKEN (read by codex): the server refused the token (401)"
        in run.stdout
    )


def test_an_mcp_token_that_cannot_read_fails(live_server, make_token, home):
    _, hooks = make_token("codex", scopes=["memories:read", "capture:write"])
    _, writer = make_token("codex", scopes=["capture:write"])
    continuity(home, "setup", "codex", "--url", live_server.url, "--token", hooks)

    run = doctor(home, CONTINUITY_TOKEN=writer)

    assert run.returncode == 1
    assert "(read by codex): valid for agent 'codex', scopes capture:write; " in run.stdout
    assert "lacks memories:read" in run.stdout


def test_clients_sharing_the_variable_get_one_line(live_server, make_token, home):
    _, raw = make_token("laptop", scopes=MCP)
    for name in ("codex", "gemini"):
        continuity(home, "setup", name, "--url", live_server.url, "--token", raw, "--mcp-only")

    run = doctor(home, CONTINUITY_TOKEN=raw)

    assert run.returncode == 0, run.stdout
    assert run.stdout.count("$CONTINUITY_TOKEN") == 1
    assert "[ok] mcp: $CONTINUITY_TOKEN (read by codex, gemini): valid" in run.stdout


def test_entries_name_their_token_variable():
    connection = clients.Connection(url="http://h:1", token="cont_pat_x")
    assert [clients.token_variable(clients.entry(name, connection)) for name in clients.CLIENTS] == [
        "", "CONTINUITY_TOKEN", "CONTINUITY_TOKEN", "", "", "", "",
    ]  # fmt: skip
    assert clients.token_variable({"headers": {"Authorization": "Bearer ${MY_TOKEN}"}}) == (
        "MY_TOKEN"
    )
    assert clients.token_variable({"headers": {"Authorization": "Bearer $MY_TOKEN"}}) == "MY_TOKEN"
