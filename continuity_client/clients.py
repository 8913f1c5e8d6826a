"""Every MCP client Continuity documents, in one place: where its configuration file lives,
the entry that file holds for a server and token, and the text to paste.

`continuity setup` writes these entries (mcp_install.py) and the dashboard's Tokens tab
shows them as ready-to-paste set-up, so the two can never drift apart; docs/agents.md
shows the same shapes. Standard library only: the server imports this module too.

How each client gets the token, and why:

- Codex and Gemini CLI run from a shell and expand environment variables, so their entry
  names `CONTINUITY_TOKEN` and the file holds no secret (Codex refuses one in the file).
- VS Code asks for an `${input:...}` value once and keeps it in its secret storage.
- Claude Code (user scope, `~/.claude.json`), Cursor, Windsurf and Claude Desktop hold the
  token itself: desktop apps often do not see variables exported in a shell profile, and
  Claude Code has been reported to send a `${VAR}` header unexpanded. Setup makes those
  files readable only by the user (0600).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import sys
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from continuity_client import config

SERVER_NAME = "continuity"
TOKEN_ENV = "CONTINUITY_TOKEN"
VSCODE_INPUT_ID = "continuity-token"
VSCODE_INPUT = {
    "type": "promptString",
    "id": VSCODE_INPUT_ID,
    "description": "Continuity access token (cont_pat_...)",
    "password": True,
}


class ConfigError(Exception):
    """A client's file that setup will not change (not JSON/TOML, or an unexpected shape)."""


@dataclass(frozen=True)
class Connection:
    """What an entry points at: the server's base URL and a token; for a stdio client the
    interpreter and manage.py that start `mcp_stdio`, and any variables it needs."""

    url: str
    token: str
    python: str = ""
    manage: str = ""
    stdio_env: dict = field(default_factory=dict)

    @property
    def mcp_url(self) -> str:
        return self.url.rstrip("/") + "/mcp"


@dataclass(frozen=True)
class Client:
    name: str  # the `continuity setup <name>` argument
    title: str
    where: str  # the file, as the docs name it (the dashboard cannot see the agent's HOME)
    format: str  # "json" or "toml"
    servers_key: str  # the table of servers in that file
    token_in_file: bool
    hooks: bool  # setup also installs capture and injection hooks
    path: Callable[[], Path]
    entry: Callable[[Connection], dict]
    note: str  # one sentence setup prints and the dashboard shows


def _app_config_dir(mac: str, windows: str, linux: str) -> Path:
    """A desktop app's configuration folder on this platform."""
    if sys.platform == "darwin":
        return config.home() / "Library" / "Application Support" / mac
    if sys.platform == "win32":
        return Path(os.environ.get("APPDATA") or config.home() / "AppData" / "Roaming") / windows
    base = os.environ.get("XDG_CONFIG_HOME")
    return (Path(base) if base else config.home() / ".config") / linux


def _bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


CLIENTS: dict[str, Client] = {
    client.name: client
    for client in (
        Client(
            "claude", "Claude Code", "~/.claude.json (user scope)", "json", "mcpServers",
            token_in_file=True, hooks=True,
            path=lambda: config.home() / ".claude.json",
            entry=lambda c: {"type": "http", "url": c.mcp_url, "headers": _bearer(c.token)},
            note="Claude Code rewrites ~/.claude.json while it runs: set up with it closed. "
            "`claude mcp get continuity` shows the entry.",
        ),
        Client(
            "codex", "Codex CLI", "$CODEX_HOME/config.toml (default ~/.codex)", "toml",
            "mcp_servers", token_in_file=False, hooks=True,
            path=lambda: config.codex_home() / "config.toml",
            entry=lambda c: {"url": c.mcp_url, "bearer_token_env_var": TOKEN_ENV},
            note=f"Codex reads the token from ${TOKEN_ENV}: export it in the shell that "
            "starts Codex.",
        ),
        Client(
            "gemini", "Gemini CLI", "~/.gemini/settings.json", "json", "mcpServers",
            token_in_file=False, hooks=False,
            path=lambda: config.home() / ".gemini" / "settings.json",
            entry=lambda c: {
                "type": "http", "url": c.mcp_url, "headers": _bearer(f"${TOKEN_ENV}"),
            },
            note=f"Gemini reads the token from ${TOKEN_ENV}: export it in the shell that "
            "starts Gemini. Gemini keeps MCP servers disabled in a folder you have not "
            "trusted: trust it when Gemini asks.",
        ),
        Client(
            "cursor", "Cursor", "~/.cursor/mcp.json", "json", "mcpServers",
            token_in_file=True, hooks=False,
            path=lambda: config.home() / ".cursor" / "mcp.json",
            entry=lambda c: {"url": c.mcp_url, "headers": _bearer(c.token)},
            note="The server appears under Cursor Settings → MCP with a green dot once "
            "connected.",
        ),
        Client(
            "vscode", "VS Code", "the user mcp.json (MCP: Open User Configuration)", "json",
            "servers", token_in_file=False, hooks=False,
            path=lambda: _app_config_dir("Code/User", "Code/User", "Code/User") / "mcp.json",
            entry=lambda c: {
                "type": "http", "url": c.mcp_url,
                "headers": _bearer("${input:" + VSCODE_INPUT_ID + "}"),
            },
            note="VS Code asks for the token once, when the server first starts, and keeps "
            "it in its secret storage. The same entry works in a workspace's .vscode/mcp.json.",
        ),
        Client(
            "windsurf", "Windsurf", "~/.codeium/windsurf/mcp_config.json", "json",
            "mcpServers", token_in_file=True, hooks=False,
            path=lambda: config.home() / ".codeium" / "windsurf" / "mcp_config.json",
            entry=lambda c: {"serverUrl": c.mcp_url, "headers": _bearer(c.token)},
            note="Refresh the MCP servers in Windsurf's Cascade panel after setup.",
        ),
        Client(
            "claude-desktop", "Claude Desktop", "claude_desktop_config.json (Settings → "
            "Developer → Edit Config)", "json", "mcpServers", token_in_file=True, hooks=False,
            path=lambda: _app_config_dir("Claude", "Claude", "Claude")
            / "claude_desktop_config.json",
            entry=lambda c: {
                "command": c.python, "args": [c.manage, "mcp_stdio"],
                "env": {TOKEN_ENV: c.token, **c.stdio_env},
            },
            note="Claude Desktop starts the stdio server on this machine (it opens the "
            "database itself); restart Claude Desktop after setup.",
        ),
    )
}  # fmt: skip


def entry(name: str, connection: Connection) -> dict:
    return CLIENTS[name].entry(connection)


def document(name: str, connection: Connection) -> dict:
    """The smallest file holding Continuity's entry (what a new file gets)."""
    client = CLIENTS[name]
    data: dict = {client.servers_key: {SERVER_NAME: client.entry(connection)}}
    if name == "vscode":
        data = {"inputs": [VSCODE_INPUT], **data}
    return data


def entry_target(found: dict) -> str:
    """Where an entry sends the client: its URL, or `stdio:<manage.py>` for a local process."""
    for key in ("url", "serverUrl", "httpUrl"):
        if isinstance(found.get(key), str):
            return found[key]
    args = found.get("args")
    if isinstance(args, list) and args and isinstance(args[0], str):
        return f"stdio:{args[0]}"
    return ""


_ENV_BEARER = re.compile(r"^Bearer \$(?:\{(\w+)\}|(\w+))$")


def token_variable(found: dict) -> str:
    """The environment variable an entry's client takes the token from when it starts
    (Codex's `bearer_token_env_var`, a `Bearer $VAR` header); "" when the file holds the
    token or the client keeps it (VS Code's input)."""
    variable = found.get("bearer_token_env_var")
    if isinstance(variable, str):
        return variable.strip()
    headers = found.get("headers")
    header = headers.get("Authorization") if isinstance(headers, dict) else None
    match = _ENV_BEARER.match(header.strip()) if isinstance(header, str) else None
    return (match.group(1) or match.group(2)) if match else ""


# --- ready-to-paste text -----------------------------------------------------------------


@dataclass(frozen=True)
class Block:
    language: str  # "json", "toml" or "sh"
    text: str


def paste(name: str, connection: Connection) -> list[Block]:
    """What to paste for `name`, token filled in: the file's text, and the client's own
    command where it has one. Parsing the file's text gives exactly `document()`."""
    client = CLIENTS[name]
    blocks = [Block(client.format, render(name, connection))]
    if name == "claude":
        blocks.insert(0, Block("sh", shlex.join([
            "claude", "mcp", "add", "--transport", "http", "--scope", "user", SERVER_NAME,
            connection.mcp_url, "--header", f"Authorization: Bearer {connection.token}",
        ])))  # fmt: skip
    if not client.token_in_file and name != "vscode":
        blocks.append(Block("sh", f"export {TOKEN_ENV}={shlex.quote(connection.token)}"))
    return blocks


def setup_command(name: str, connection: Connection, *, mcp_only: bool = False) -> str:
    words = ["continuity", "setup", name, "--url", connection.url, "--token", connection.token]
    return shlex.join(words + (["--mcp-only"] if mcp_only and CLIENTS[name].hooks else []))


def render(name: str, connection: Connection) -> str:
    data = document(name, connection)
    if CLIENTS[name].format == "toml":
        return _toml_table(f"mcp_servers.{SERVER_NAME}", data["mcp_servers"][SERVER_NAME])
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _toml_value(value) -> str:
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a JSON string is a TOML basic string
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(item) for item in value) + "]"
    if isinstance(value, dict):
        return (
            "{ " + ", ".join(f"{_toml_key(k)} = {_toml_value(v)}" for k, v in value.items()) + " }"
        )
    raise TypeError(f"no TOML form for {value!r}")


def _toml_key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else json.dumps(key)


def _toml_table(header: str, values: dict) -> str:
    lines = [f"[{header}]", *(f"{_toml_key(k)} = {_toml_value(v)}" for k, v in values.items())]
    return "\n".join(lines) + "\n"


# --- reading and changing a client's file (text in, text out; no file system) ------------


def parse(name: str, text: str | None) -> dict:
    """The file's data ({} for a missing or empty file); ConfigError if it is not one setup
    can change safely."""
    client = CLIENTS[name]
    if not (text or "").strip():
        return {}
    try:
        data = tomllib.loads(text) if client.format == "toml" else json.loads(text)
    except (ValueError, tomllib.TOMLDecodeError) as error:
        kind = "TOML" if client.format == "toml" else "JSON (comments are not supported)"
        raise ConfigError(f"is not valid {kind}: {error}") from None
    if not isinstance(data, dict):
        raise ConfigError("does not hold an object at the top level")
    if not isinstance(data.get(client.servers_key, {}), dict):
        raise ConfigError(f"has a '{client.servers_key}' that is not an object")
    if name == "vscode" and not isinstance(data.get("inputs", []), list):
        raise ConfigError("has an 'inputs' that is not a list")
    return data


def current(name: str, text: str | None) -> dict | None:
    """Continuity's entry in the file, if there is one."""
    found = parse(name, text).get(CLIENTS[name].servers_key, {}).get(SERVER_NAME)
    return found if isinstance(found, dict) else None


def merged(name: str, text: str | None, connection: Connection) -> str | None:
    """The file's text with Continuity's entry set, every other key and server kept; None
    when the file already holds exactly this entry."""
    client = CLIENTS[name]
    data = parse(name, text)
    wanted = client.entry(connection)
    servers = data.get(client.servers_key, {})
    inputs = data.get("inputs", [])
    has_input = VSCODE_INPUT in inputs
    if servers.get(SERVER_NAME) == wanted and (name != "vscode" or has_input):
        return None
    if client.format == "toml":
        return _toml_set(text or "", data, wanted)
    data.setdefault(client.servers_key, {})[SERVER_NAME] = wanted
    if name == "vscode" and not has_input:
        others = [i for i in inputs if not (isinstance(i, dict) and i.get("id") == VSCODE_INPUT_ID)]
        data["inputs"] = [*others, VSCODE_INPUT]
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def without(name: str, text: str | None) -> str | None:
    """The file's text without Continuity's entry (and VS Code input); None if it had none."""
    client = CLIENTS[name]
    data = parse(name, text)
    servers = data.get(client.servers_key, {})
    inputs = data.get("inputs", [])
    ours = [i for i in inputs if isinstance(i, dict) and i.get("id") == VSCODE_INPUT_ID]
    if SERVER_NAME not in servers and not (name == "vscode" and ours):
        return None
    if client.format == "toml":
        return _toml_set(text or "", data, None)
    servers.pop(SERVER_NAME, None)
    if name == "vscode" and ours:
        data["inputs"] = [i for i in inputs if i not in ours]
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


_TABLE = re.compile(r"^\s*\[")
_OUR_TABLE = re.compile(rf'^\s*\[\s*mcp_servers\s*\.\s*(?:{SERVER_NAME}|"{SERVER_NAME}")\s*[\].]')


def _toml_set(text: str, data: dict, wanted: dict | None) -> str:
    """Replace (or with None remove) the `[mcp_servers.continuity]` table by editing the text,
    so that comments and the layout of everything else stay as they were. The result is
    parsed again and must equal the old data with only that entry changed."""
    kept, ours = [], False
    for line in text.splitlines(keepends=True):
        if _TABLE.match(line):
            ours = bool(_OUR_TABLE.match(line))
        if not ours:
            kept.append(line)
    result = "".join(kept).rstrip("\n")
    result = result + "\n" if result else ""
    if wanted is not None:
        result += ("\n" if result else "") + _toml_table(f"mcp_servers.{SERVER_NAME}", wanted)
    expected = {key: value for key, value in data.items()}
    servers = dict(expected.get("mcp_servers", {}))
    servers.pop(SERVER_NAME, None)
    if wanted is not None:
        servers[SERVER_NAME] = wanted
    if servers or "mcp_servers" in expected:
        expected["mcp_servers"] = servers
    try:
        after = tomllib.loads(result)
    except tomllib.TOMLDecodeError:
        after = None
    if after != expected and not (wanted is None and _empty_servers_equal(after, expected)):
        raise ConfigError(
            f"defines mcp_servers.{SERVER_NAME} in a form setup does not rewrite (an inline "
            f"table or dotted keys); change it to a [mcp_servers.{SERVER_NAME}] table or "
            "remove it, then run again"
        )
    return result


def _empty_servers_equal(after: dict | None, expected: dict) -> bool:
    """Removing the last server may leave no `mcp_servers` table at all: the same thing."""
    if after is None:
        return False
    trimmed = {k: v for k, v in expected.items() if not (k == "mcp_servers" and not v)}
    return after == trimmed
