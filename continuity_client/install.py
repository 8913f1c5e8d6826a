"""`continuity setup claude|codex` and `continuity uninstall claude|codex`.

Both agents read the same hook shape: {"hooks": {"Stop": [{"hooks": [{"type": "command",
"command": ..., "timeout": ...}]}], "UserPromptSubmit": [...]}}. Claude Code keeps it in
~/.claude/settings.json beside its other settings; Codex in $CODEX_HOME/hooks.json.

Setup adds one handler per event, recognised later by its command (`... hook <name>`), so
running it twice adds nothing, and a moved executable replaces the old handler instead of
adding a second. Uninstall removes only those handlers. Every change first copies the file
to a timestamped backup; an unchanged file is not rewritten.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

from continuity_client import codex_trust, config

HOOK_TIMEOUT_SECONDS = 5  # the agent's own limit; the hook ends itself within 1 s
TARGETS = {
    "claude": (
        config.claude_settings_path,
        {"Stop": "claude-stop", "UserPromptSubmit": "claude-prompt"},
    ),
    "codex": (config.codex_hooks_path, {"Stop": "codex-stop", "UserPromptSubmit": "codex-prompt"}),
}
_OURS = re.compile(
    r"(?:\bcontinuity\"?|-m continuity_client)\s+hook\s+(?:claude|codex)-(?:stop|prompt)\s*$"
)


class SetupError(Exception):
    """A problem the user must fix (bad URL, unreadable settings file); nothing was written."""


def command_for(hook: str) -> str:
    """How the agent should start the hook: the installed `continuity` script if found."""
    script = shutil.which("continuity") or str(Path(sys.executable).parent / "continuity")
    if os.path.exists(script):
        return f'"{script}" hook {hook}'
    return f'"{sys.executable}" -m continuity_client hook {hook}'


def is_ours(handler) -> bool:
    return isinstance(handler, dict) and bool(_OURS.search(str(handler.get("command", ""))))


def _read(path: Path) -> dict:
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8") or "{}")
    except (OSError, ValueError) as error:
        raise SetupError(f"{path} is not readable JSON ({error}); fix or move it first.") from None
    if not isinstance(data, dict) or not isinstance(data.get("hooks", {}), dict):
        raise SetupError(f"{path} does not hold a JSON object with a 'hooks' object.")
    return data


def _write(path: Path, data: dict, before: str | None) -> str | None:
    """Write `data` if it changed; returns the backup's path (None when nothing changed)."""
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    if before is not None and json.loads(before or "{}") == data:
        return None
    backup = None
    if before is not None:
        backup = path.with_name(
            f"{path.name}.bak-{time.strftime('%Y%m%d-%H%M%S')}-{time.time_ns() % 10**6:06d}"
        )
        shutil.copy2(path, backup)
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o600
    config.atomic_write(path, text, mode=mode)
    return str(backup) if backup else str(path)


def _without_ours(groups: list) -> list:
    kept = []
    for group in groups:
        if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
            kept.append(group)
            continue
        handlers = [handler for handler in group["hooks"] if not is_ours(handler)]
        if handlers or not group["hooks"]:
            kept.append({**group, "hooks": handlers})
    return kept


def readable(agent: str) -> None:
    """Raise SetupError if the agent's hook file exists but cannot be understood."""
    _read(TARGETS[agent][0]())


def install(agent: str) -> tuple[Path, str | None]:
    path_of, events = TARGETS[agent]
    path = path_of()
    data = _read(path)
    before = path.read_text(encoding="utf-8") if path.exists() else None
    hooks = data.setdefault("hooks", {})
    old_positions = codex_trust.positions(hooks, events, is_ours) if agent == "codex" else {}
    changed = []
    for event, hook in events.items():
        groups = hooks.get(event) if isinstance(hooks.get(event), list) else []
        handler = {"type": "command", "command": command_for(hook), "timeout": HOOK_TIMEOUT_SECONDS}
        present = [
            h for g in groups if isinstance(g, dict) for h in g.get("hooks", []) if is_ours(h)
        ]
        if present == [handler]:
            continue  # already installed exactly so
        hooks[event] = [*_without_ours(groups), {"hooks": [handler]}]
        changed.append(event)
    if agent == "codex" and changed:
        # Codex trusted the old definitions, not these: its records there no longer apply.
        new_positions = codex_trust.positions(hooks, events, is_ours)
        codex_trust.note_stale(
            [key for event in changed for key in old_positions.get(event, [])]
            + [key for event in changed for key in new_positions.get(event, [])]
        )
    return path, _write(path, data, before)


def codex_trust_states() -> dict[str, str]:
    """Per Codex event with a Continuity handler: trusted, untrusted, changed or disabled.
    Raises ValueError when Codex's config.toml cannot be read."""
    _, events = TARGETS["codex"]
    try:
        hooks = _read(config.codex_hooks_path()).get("hooks", {})
    except SetupError:
        return {}
    return codex_trust.trust(codex_trust.positions(hooks, events, is_ours))


def uninstall(agent: str) -> tuple[Path, str | None]:
    path_of, events = TARGETS[agent]
    path = path_of()
    if not path.exists():
        return path, None
    data = _read(path)
    before = path.read_text(encoding="utf-8")
    hooks = data.get("hooks", {})
    for event in events:
        if isinstance(hooks.get(event), list):
            remaining = _without_ours(hooks[event])
            if remaining:
                hooks[event] = remaining
            else:
                del hooks[event]
    return path, _write(path, data, before)


def installed(agent: str) -> dict[str, bool]:
    """Per event: is a Continuity handler present?"""
    path_of, events = TARGETS[agent]
    try:
        hooks = _read(path_of()).get("hooks", {})
    except SetupError:
        return dict.fromkeys(events, False)
    return {
        event: any(
            is_ours(handler)
            for group in hooks.get(event, []) if isinstance(group, dict)
            for handler in group.get("hooks", [])
        )
        for event in events
    }  # fmt: skip


def _saved() -> dict:
    try:
        stored = json.loads(config.config_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return stored if isinstance(stored, dict) else {}


def save_config(url: str, token: str, client: str | None = None) -> Path:
    """Save the server and the hooks' token, keeping the list of clients set up here."""
    validate(url, token)
    clients = [name for name in _saved().get("clients", []) if isinstance(name, str)]
    return _save(
        {"url": url.rstrip("/"), "token": token}, [*clients, *([client] if client else [])]
    )


def save_client(url: str, client: str) -> tuple[Path, str]:
    """Record an MCP-only client. The saved server (and the hooks' token beside it) stays as
    it is; a first set-up saves this URL. Returns (path, the saved URL)."""
    stored = _saved()
    saved_url = str(stored.get("url") or "") or url.rstrip("/")
    fields = {"url": saved_url, **({"token": stored["token"]} if stored.get("token") else {})}
    clients = [name for name in stored.get("clients", []) if isinstance(name, str)]
    return _save(fields, [*clients, client]), saved_url


def forget_client(client: str) -> None:
    stored = _saved()
    if client in stored.get("clients", []):
        clients = [name for name in stored["clients"] if name != client]
        _save({k: v for k, v in stored.items() if k in ("url", "token")}, clients)


def saved_clients() -> list[str]:
    return [name for name in _saved().get("clients", []) if isinstance(name, str)]


def _save(fields: dict, clients: list[str]) -> Path:
    path = config.config_path()
    data = {**fields, **({"clients": sorted(set(clients))} if clients else {})}
    config.atomic_write(path, json.dumps(data, indent=2) + "\n")
    return path


def validate(url: str, token: str) -> None:
    """Raise SetupError for a URL or token that cannot be right, before asking the server."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise SetupError(
            f"--url must be an http(s) address like http://127.0.0.1:8000, not {url!r}."
        )
    if not token.startswith("cont_pat_"):
        raise SetupError("--token must be a Continuity access token (it starts with cont_pat_).")
