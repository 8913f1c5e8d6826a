"""The stdio front (continuity/stdio_front.py): the handshake an agent waits for comes from
the server's own recorded answers before Django loads, and nothing of the session changes
for it — one answer per request, the same answers as the server alone gives, calls served
by the real server afterwards, a refused token still refused."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from continuity.mcp import build_server
from continuity.mcp.stdio import HANDSHAKE_FILE, record
from tests.mcp.live import ROOT

INITIALIZE = {
    "jsonrpc": "2.0", "id": 0, "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "agent", "version": "1"}},
}  # fmt: skip
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def call(message_id: int, tool: str, arguments: dict) -> dict:
    return {"jsonrpc": "2.0", "id": message_id, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}}  # fmt: skip


def session(site, messages: list[dict], token: str, **env) -> tuple[list[dict], str, int]:
    """Send `messages` to `manage.py mcp_stdio` one line each, close stdin once every request
    is answered; (answers in order, stderr, exit code)."""
    process = subprocess.Popen(
        [sys.executable, "manage.py", "mcp_stdio"], cwd=ROOT, stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env={**site.env, "CONTINUITY_TOKEN": token, **env},
    )  # fmt: skip
    answers = []
    try:
        for message in messages:
            process.stdin.write((json.dumps(message) + "\n").encode())
            process.stdin.flush()
            if "id" in message:
                line = process.stdout.readline()
                if not line:
                    break
                answers.append(json.loads(line))
        process.stdin.close()
        rest = process.stdout.read()
        answers += [json.loads(line) for line in rest.splitlines() if line.strip()]
        stderr = process.stderr.read().decode()
        return answers, stderr, process.wait(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()


def test_the_recorded_handshake_is_what_the_server_answers():
    recorded = json.loads(HANDSHAKE_FILE.read_text(encoding="utf-8"))
    assert record(build_server(token="cont_pat_handshake")) == recorded, (
        "the MCP tools or server changed: run `manage.py mcp_handshake`"
    )


@pytest.mark.slow
def test_the_front_answers_as_the_server_alone_does_and_then_hands_over(mcp_site):
    listed = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
    remember = call(
        3, "memory_remember", {"content": "前端：stdio 握手先答，再交给服务器。", "kind": "fact"}
    )
    recall = call(4, "memory_recall", {"query": "stdio 握手"})
    script = [INITIALIZE, INITIALIZED, listed, ping, remember, recall]
    token = mcp_site.raw("full")

    fronted, _, code = session(mcp_site, script, token)
    alone, _, alone_code = session(mcp_site, script[:4], token, CONTINUITY_STDIO_FRONT="0")

    assert (code, alone_code) == (0, 0)
    assert [answer["id"] for answer in fronted] == [0, 1, 2, 3, 4]  # one answer each, in order
    assert fronted[:3] == alone[:3]
    written = fronted[3]["result"]["structuredContent"]
    assert written["status"] == "active", fronted[3]
    found = fronted[4]["result"]["structuredContent"]["memories"]
    assert written["id"] in [memory["id"] for memory in found]


@pytest.mark.slow
def test_an_unknown_protocol_version_gets_the_servers_latest(mcp_site):
    asked = {**INITIALIZE, "params": {**INITIALIZE["params"], "protocolVersion": "1999-01-01"}}
    fronted, _, _ = session(mcp_site, [asked], mcp_site.raw("full"))
    alone, _, _ = session(mcp_site, [asked], mcp_site.raw("full"), CONTINUITY_STDIO_FRONT="0")
    assert fronted == alone


@pytest.mark.slow
def test_a_refused_token_ends_the_process_with_the_reason(mcp_site):
    answers, stderr, code = session(mcp_site, [INITIALIZE, INITIALIZED], "cont_pat_" + "x" * 40)
    assert code == 1
    assert "CONTINUITY_TOKEN was refused" in stderr
    assert len(answers) <= 1  # the handshake may have been answered before the check
    missing, stderr, code = session(mcp_site, [INITIALIZE], "")
    assert (missing, code) == ([], 1) and "CONTINUITY_TOKEN is not set" in stderr


@pytest.mark.slow
def test_the_handshake_is_answered_before_django_has_loaded(mcp_site, tmp_path):
    hold = tmp_path / "release"
    process = subprocess.Popen(
        [sys.executable, "manage.py", "mcp_stdio"], cwd=ROOT, stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        env={**mcp_site.env, "CONTINUITY_TOKEN": mcp_site.raw("full"),
             "DJANGO_SETTINGS_MODULE": "tests.mcp.held_settings", "CONTINUITY_TEST_HOLD": str(hold)},
    )  # fmt: skip
    try:
        lines = [INITIALIZE, INITIALIZED, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}]
        process.stdin.write("".join(json.dumps(m) + "\n" for m in lines).encode())
        process.stdin.flush()
        # Answered while Django still waits for its settings: nothing has created `hold`.
        handshake = [json.loads(process.stdout.readline()) for _ in range(2)]
        assert [answer["id"] for answer in handshake] == [0, 1]
        assert {t["name"] for t in handshake[1]["result"]["tools"]} >= {"memory_recall"}
        hold.touch()
        process.stdin.write((json.dumps(call(2, "memory_capabilities", {})) + "\n").encode())
        process.stdin.flush()
        served = json.loads(process.stdout.readline())
        assert served["id"] == 2 and served["result"]["structuredContent"]["agent_name"]
    finally:
        process.kill()
        process.wait()
