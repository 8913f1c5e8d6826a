"""Ask Codex itself about its hooks, through `codex app-server` (JSON-RPC, one JSON object a
line on stdio), and record trust the way Codex's own /hooks review does.

`hooks/list` gives every hook with its trust key, `currentHash` and `trustStatus`
(`trusted`, `untrusted`, `modified`, `managed`); `config/batchWrite` upserts
`hooks.state.<key>.trusted_hash = currentHash` into Codex's config.toml. Continuity never
computes the hash: it hands Codex's own value back, then lists again and reports only what
Codex then says. The app-server is marked experimental upstream; any surprise is an
AppServerError, and the caller falls back to telling the user to trust the hooks in /hooks.
Measured against codex-cli 0.171.0.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading

TIMEOUT_SECONDS = 20


class AppServerError(Exception):
    """Codex's app-server could not be started or did not answer as expected."""


def codex_binary() -> str | None:
    """CONTINUITY_CODEX if set (a Codex not on PATH; `off` never asks Codex), else `codex`
    on PATH."""
    configured = os.environ.get("CONTINUITY_CODEX", "").strip()
    if configured == "off":
        return None
    return configured or shutil.which("codex")


class _Session:
    def __init__(self, binary: str) -> None:
        try:
            self.process = subprocess.Popen(
                [binary, "app-server"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL, text=True, encoding="utf-8",
            )  # fmt: skip
        except OSError as error:
            raise AppServerError(f"cannot start {binary} app-server ({error})") from None
        # A hung app-server must not hang setup: kill it after the time limit.
        self.timer = threading.Timer(TIMEOUT_SECONDS, self.process.kill)
        self.timer.daemon = True
        self.timer.start()
        self.next_id = 0

    def call(self, method: str, params: dict) -> dict:
        self.next_id += 1
        self._send({"id": self.next_id, "method": method, "params": params})
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise AppServerError(f"codex app-server ended before answering {method}")
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if message.get("id") != self.next_id:
                continue  # a notification, or a request for another client
            if "error" in message or not isinstance(message.get("result"), dict):
                raise AppServerError(f"{method} failed: {message.get('error')}")
            return message["result"]

    def notify(self, method: str) -> None:
        self._send({"method": method})

    def _send(self, message: dict) -> None:
        try:
            self.process.stdin.write(json.dumps(message) + "\n")
            self.process.stdin.flush()
        except OSError as error:
            raise AppServerError(f"codex app-server stopped ({error})") from None

    def close(self) -> None:
        self.timer.cancel()
        self.process.kill()
        self.process.wait()


def _open(binary: str) -> _Session:
    session = _Session(binary)
    try:
        session.call("initialize", {"clientInfo": {"name": "continuity", "version": "1"}})
        session.notify("initialized")
    except BaseException:
        session.close()
        raise
    return session


def _hooks(session: _Session) -> list[dict]:
    result = session.call("hooks/list", {"cwds": [os.getcwd()]})
    entries = [
        hook
        for listing in result.get("data", [])
        if isinstance(listing, dict)
        for hook in listing.get("hooks", [])
        if isinstance(hook, dict) and {"key", "currentHash", "trustStatus"} <= hook.keys()
    ]
    return entries


def list_hooks(binary: str) -> list[dict]:
    """Every hook Codex sees, as `hooks/list` describes it."""
    session = _open(binary)
    try:
        return _hooks(session)
    finally:
        session.close()


def trust(binary: str, is_ours) -> list[dict]:
    """Trust the hooks `is_ours` selects that Codex holds as untrusted or modified; returns
    them as Codex lists them afterwards (the caller checks their trustStatus)."""
    session = _open(binary)
    try:
        ours = [hook for hook in _hooks(session) if is_ours(hook)]
        pending = [hook for hook in ours if hook["trustStatus"] in ("untrusted", "modified")]
        if pending:
            state = {hook["key"]: {"trusted_hash": hook["currentHash"]} for hook in pending}
            session.call(
                "config/batchWrite",
                {"edits": [{"keyPath": "hooks.state", "mergeStrategy": "upsert", "value": state}]},
            )
        return [hook for hook in _hooks(session) if is_ours(hook)]
    finally:
        session.close()
