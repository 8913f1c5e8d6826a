"""Where the client keeps its files, and how it writes them safely.

    ~/.continuity/config.json    {"url", "token"}, mode 0600 (written by `continuity setup`)
    ~/.continuity/state/         watermarks/ (one file per captured session) and hook.log

HOME, CODEX_HOME and CONTINUITY_STATE_DIR move them; CONTINUITY_URL overrides the saved
server and CONTINUITY_HOOK_TOKEN the saved token. Standard library only: every hook imports this.

The hooks never prefer CONTINUITY_TOKEN: MCP configs use that variable (often with memories-only
scopes) and agents pass their environment on to hooks, so preferring it would silently swap
the hooks' token. It is still read as a last resort, when neither a hook token nor a saved
config exists, so a machine wired by environment alone keeps working.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from pathlib import Path

LOG_MAX_BYTES = 256 * 1024


def home() -> Path:
    return Path(os.environ.get("HOME") or os.path.expanduser("~"))


def config_path() -> Path:
    return home() / ".continuity" / "config.json"


def state_dir() -> Path:
    configured = os.environ.get("CONTINUITY_STATE_DIR")
    return Path(configured) if configured else home() / ".continuity" / "state"


def log_path() -> Path:
    return state_dir() / "hook.log"


def claude_settings_path() -> Path:
    return home() / ".claude" / "settings.json"


def codex_home() -> Path:
    configured = os.environ.get("CODEX_HOME")
    return Path(configured) if configured else home() / ".codex"


def codex_hooks_path() -> Path:
    return codex_home() / "hooks.json"


# Where the hooks' token comes from, in order; the first one set wins.
TOKEN_SOURCES = ("CONTINUITY_HOOK_TOKEN", "config", "CONTINUITY_TOKEN")


def load() -> dict:
    """{"url", "token", "token_source"}; missing → "". The token follows TOKEN_SOURCES."""
    stored: dict = {}
    try:
        stored = json.loads(config_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        stored = {}
    if not isinstance(stored, dict):
        stored = {}
    candidates = {
        "CONTINUITY_HOOK_TOKEN": os.environ.get("CONTINUITY_HOOK_TOKEN", "").strip(),
        "config": str(stored.get("token") or "").strip(),
        "CONTINUITY_TOKEN": os.environ.get("CONTINUITY_TOKEN", "").strip(),
    }
    source = next((name for name in TOKEN_SOURCES if candidates[name]), "")
    return {
        "url": (os.environ.get("CONTINUITY_URL") or stored.get("url") or "").rstrip("/"),
        "token": candidates[source] if source else "",
        "token_source": source,
    }


def atomic_write(path: Path, text: str, mode: int = 0o600) -> None:
    """Write to a temporary file beside `path`, then rename: a reader never sees half a file,
    and a crash leaves the old one. (Not `tempfile`: a hook should not pay for importing it.)"""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = f"{path.parent}/.{path.name}.{os.getpid()}.{time.monotonic_ns()}.tmp"
    handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        # The write failed: remove the partial file, then let the real error surface.
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def log(message: str) -> None:
    """One line in the small local log; hooks never print errors (they fail open)."""
    try:
        path = log_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists() and path.stat().st_size > LOG_MAX_BYTES:
            os.replace(path, path.with_suffix(".log.1"))
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
        with open(path, "a", encoding="utf-8") as file:
            file.write(f"{stamp} {message}\n")
    except OSError:
        return  # a log that cannot be written must not make the hook fail
