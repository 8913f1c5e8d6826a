"""Continuity's MCP entry in a client's own configuration file (the shapes are clients.py's).

`plan` reads the file and computes the change without writing, so setup can refuse a file it
cannot change before anything is written; `apply` then writes it. A changed file is first
copied to `<file>.bak-<timestamp>`; an unchanged one is not touched. A file holding the
token is made readable only by the user (0600); any other keeps its mode. `remove` takes out
only Continuity's entry.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from continuity_client import clients, config


class MCPConfigError(Exception):
    """A client's file setup will not change; nothing was written."""


@dataclass(frozen=True)
class Change:
    name: str
    path: Path
    text: str | None  # the new text; None when the file already holds the entry


def local_connection(url: str, token: str) -> clients.Connection:
    """The connection as seen from this machine: the stdio server is this checkout's
    manage.py, run by the interpreter running this client."""
    manage = Path(__file__).resolve().parents[1] / "manage.py"
    extra = {"CONTINUITY_DATA_DIR": os.environ["CONTINUITY_DATA_DIR"]} if os.environ.get(
        "CONTINUITY_DATA_DIR"
    ) else {}  # fmt: skip
    return clients.Connection(
        url=url.rstrip("/"), token=token, python=sys.executable,
        manage=str(manage) if manage.exists() else "", stdio_env=extra,
    )  # fmt: skip


def _text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8") if path.exists() else None
    except (OSError, UnicodeDecodeError) as error:
        raise MCPConfigError(f"{path} cannot be read ({error}); fix or move it first.") from None


def plan(name: str, connection: clients.Connection) -> Change:
    path = clients.CLIENTS[name].path()
    if name == "claude-desktop" and not connection.manage:
        raise MCPConfigError(
            "claude-desktop starts the stdio server from a Continuity checkout: run "
            "setup with that checkout's .venv/bin/continuity."
        )
    try:
        return Change(name, path, clients.merged(name, _text(path), connection))
    except clients.ConfigError as error:
        raise MCPConfigError(f"{path} {error}; fix or move it first.") from None


def apply(change: Change) -> str | None:
    """Write the change; returns the backup's path, the file's path for a new file, or None
    when nothing changed."""
    token_in_file = clients.CLIENTS[change.name].token_in_file
    if change.text is None:
        if token_in_file and change.path.exists():
            os.chmod(change.path, 0o600)  # an entry written by hand may sit in a 0644 file
        return None
    backup = None
    if change.path.exists():
        backup = change.path.with_name(
            f"{change.path.name}.bak-{time.strftime('%Y%m%d-%H%M%S')}-{time.time_ns() % 10**6:06d}"
        )
        shutil.copy2(change.path, backup)
        os.chmod(backup, 0o600)  # the old file may hold a token too
    mode = (
        0o600 if token_in_file or not change.path.exists() else change.path.stat().st_mode & 0o777
    )
    config.atomic_write(change.path, change.text, mode=mode)
    return str(backup) if backup else str(change.path)


def remove(name: str) -> tuple[Path, str | None]:
    path = clients.CLIENTS[name].path()
    try:
        text = clients.without(name, _text(path))
    except clients.ConfigError as error:
        raise MCPConfigError(f"{path} {error}; fix or move it first.") from None
    return path, apply(Change(name, path, text)) if text is not None else None


def state(name: str) -> tuple[Path, dict | None, str]:
    """(path, Continuity's entry or None, a problem reading the file or "")."""
    path = clients.CLIENTS[name].path()
    try:
        return path, clients.current(name, _text(path)), ""
    except (clients.ConfigError, MCPConfigError) as error:
        return path, None, str(error)
