"""The set-up snippets in the docs are ones the agents' own CLIs accept as written: checked
against the rules those CLIs follow (docs/agents.md names each), for every snippet found, so
a new snippet cannot skip the check."""

from __future__ import annotations

import json
import re
import shlex
import tomllib
from pathlib import Path

import pytest

from continuity_client import clients

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"```(\w*)\n(.*?)```", re.S)


def commands(program: str) -> list[tuple[str, list[str]]]:
    """Every `<program> ...` shell command in a code block, continuation lines joined."""
    found = []
    for doc in DOCS:
        for _, block in FENCE.findall(doc.read_text(encoding="utf-8")):
            for command in block.replace("\\\n", " ").splitlines():
                if command.strip().startswith(program + " "):
                    found.append((doc.name, shlex.split(command)))
    return found


def sections(title: str) -> list[tuple[str, str]]:
    """(doc, text) of each part of the docs about `title`: from a heading or a bold lead
    naming it to the next heading or bold lead."""
    parts = []
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        starts = [m.start() for m in re.finditer(r"^(?:#+ |\*\*)", text, re.M)] + [len(text)]
        for start, end in zip(starts, starts[1:], strict=False):
            head = text[start : text.find("\n", start)]
            if title in head:
                parts.append((doc.name, text[start:end]))
    return parts


def test_every_claude_mcp_add_names_the_server_before_a_many_valued_option():
    # `--env` and `--header` take any number of values: a name after them is eaten.
    many, one = {"-e", "--env", "-H", "--header"}, {"-t", "--transport", "-s", "--scope"}
    found = [(doc, words) for doc, words in commands("claude") if words[1:3] == ["mcp", "add"]]
    assert len(found) >= 3
    for doc, words in found:
        named, rest = False, iter(words[3:])
        for word in rest:
            if word == "--":
                break
            if word in many:
                assert named, f"{doc}: the server name comes after {word}: {shlex.join(words)}"
                next(rest)
            elif word in one:
                next(rest)
            elif not word.startswith("-"):
                named = True
        assert named, f"{doc}: no server name: {shlex.join(words)}"


def test_every_gemini_server_uses_url_with_type_http_not_the_deprecated_http_url():
    servers = []
    for doc, text in sections("Gemini"):
        for language, block in FENCE.findall(text):
            if language == "json":
                for name, server in json.loads(block)["mcpServers"].items():
                    servers.append((doc, name, server))
    assert any("url" in server for _, _, server in servers)
    for doc, name, server in servers:
        assert "httpUrl" not in server, f"{doc}: {name} uses the deprecated httpUrl"
        if "url" in server:
            assert server.get("type") == "http", f"{doc}: {name} has url without type http"


@pytest.mark.parametrize(
    ("words", "caveat"),
    [
        ("`codex mcp list`", "does not connect"),
        ("`.mcp.json`", "pending approval"),
        ("Gemini", "trusted"),
    ],
)
def test_the_client_guide_states_each_checks_known_blind_spot(words, caveat):
    guide = (ROOT / "docs" / "agents.md").read_text(encoding="utf-8")
    paragraphs = [paragraph for paragraph in guide.split("\n\n") if words in paragraph]
    assert any(caveat in paragraph for paragraph in paragraphs), (words, caveat)


# The placeholders docs/agents.md writes for the checkout, the server and the token.
DOCS_CONNECTION = clients.Connection(
    "http://127.0.0.1:8000", "cont_pat_...",
    python="<repo>/.venv/bin/python", manage="<repo>/manage.py",
)  # fmt: skip


def client_section(title: str) -> str:
    guide = (ROOT / "docs" / "agents.md").read_text(encoding="utf-8")
    [part] = [
        part
        for part in re.split(r"^## ", guide, flags=re.M)
        if part.split("\n")[0].endswith(f". {title}")
    ]
    return part


@pytest.mark.parametrize("name", list(clients.CLIENTS))
def test_the_client_guide_shows_the_entry_continuity_setup_writes(name):
    client = clients.CLIENTS[name]
    parse = tomllib.loads if client.format == "toml" else json.loads
    blocks = [
        parse(block)
        for language, block in FENCE.findall(client_section(client.title))
        if language == client.format
    ]
    assert clients.document(name, DOCS_CONNECTION) in blocks, name


@pytest.mark.parametrize(
    ("client", "setting"),
    [
        ("Codex CLI", "`startup_timeout_sec`"),
        ("Claude Code", "`MCP_TIMEOUT`"),
        ("Gemini CLI", "`timeout`"),
    ],
)
def test_the_client_guide_names_each_clients_start_up_grace_setting(client, setting):
    [(_, text)] = [part for part in sections("Start-up time") if part[0] == "agents.md"]
    rows = [line for line in text.splitlines() if line.startswith(f"| {client} |")]
    assert rows and setting in rows[0], (client, setting)


def test_the_start_up_grace_example_is_a_codex_stdio_entry():
    [(_, text)] = [part for part in sections("Start-up time") if part[0] == "agents.md"]
    [block] = [block for language, block in FENCE.findall(text) if language == "toml"]
    entry = tomllib.loads(block)["mcp_servers"]["continuity"]
    assert entry["args"][-1] == "mcp_stdio"
    assert entry["startup_timeout_sec"] > 10
