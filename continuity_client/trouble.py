"""The last error of each hook that only the user can fix, kept where `doctor` and `status`
show it.

Hooks fail open and log every error, but nobody reads a log: a revoked token or a wrong URL
would silently lose every turn. So such an error (a refused token, a missing scope, a bad or
unreachable URL, no config at all) is also written to one small file per hook,
`$CONTINUITY_STATE_DIR/last-errors/<hook>.json`, with what to do about it and since when
(the same problem again is not rewritten, so it costs a read, not a write); the next request
of that hook the server accepts deletes the file, and so does a successful `setup`. A
passing problem (a timeout, a 5xx) goes only to the log. One file per hook, so two agents'
hooks never race on a shared file. Standard library only: every hook imports this.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import time
from pathlib import Path

from continuity_client import config

NEEDED = "memories:read and capture:write"


class Refused(RuntimeError):
    """The server answered a hook's request with an error status."""

    def __init__(self, what: str, status: int, detail: str) -> None:
        super().__init__(f"{what} answered {status}: {detail}")
        self.status = status
        self.detail = detail


class NotConfigured(RuntimeError):
    """No server or no token: `continuity setup` never ran (or its config is gone)."""


def folder() -> Path:
    return config.state_dir() / "last-errors"


def diagnose(error: BaseException, agent: str) -> tuple[str, str] | None:
    """(what went wrong, what to do) when the user must act; None for a passing problem.
    `agent` is the setup target (`claude`, `codex`), for the commands the advice names."""
    setup = f"continuity setup {agent} --url URL --token TOKEN"
    if isinstance(error, NotConfigured):
        return str(error), f"run `{setup}`"
    if isinstance(error, Refused):
        if error.status == 401:
            return (
                f"the server refused the token (401: {error.detail})",
                f"the token is wrong, revoked or expired: create a new one and run `{setup}`",
            )
        if error.status == 403:
            return (
                f"the token may not do this (403: {error.detail})",
                f"the hooks need a token with {NEEDED}: create one and run `{setup}` "
                "(CONTINUITY_HOOK_TOKEN, if exported, overrides the saved token)",
            )
        if error.status == 404:
            return (
                f"no Continuity API at this address (404: {error.detail})",
                f"check the server's URL and run `{setup}`",
            )
        return None
    if isinstance(error, ConnectionRefusedError | socket.gaierror):
        return (
            f"the server is not reachable ({error})",
            f"start it (`python3 run.py serve`) or fix its URL with `{setup}`",
        )
    if isinstance(error, OSError) and "not an http(s) URL" in str(error):
        return str(error), f"fix the URL with `{setup}`"
    return None


def record(hook: str, agent: str, error: BaseException) -> None:
    """Keep `error` as the hook's last one if the user must fix it; never raises."""
    found = diagnose(error, agent)
    if found is None:
        return
    problem, fix = found
    path = folder() / f"{hook}.json"
    with contextlib.suppress(OSError, ValueError, AttributeError):  # no readable trace yet
        if json.loads(path.read_text(encoding="utf-8")).get("problem") == problem:
            return  # already standing: a server that is down costs no write per prompt
    entry = {"hook": hook, "at": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "problem": problem}
    try:
        config.atomic_write(path, json.dumps(entry | {"fix": fix}) + "\n")
    except OSError:
        return  # a trace that cannot be written must not make the hook fail


def clear(hook: str) -> None:
    """The server accepted this hook's request: its last error, if any, is resolved."""
    try:
        os.unlink(folder() / f"{hook}.json")
    except OSError:
        return


def clear_all() -> None:
    for path in folder().glob("*.json") if folder().is_dir() else []:
        path.unlink(missing_ok=True)


def recorded() -> list[dict]:
    """Every hook's last error still standing, oldest first; an unreadable file is shown as
    such rather than hidden."""
    entries = []
    for path in sorted(folder().glob("*.json")) if folder().is_dir() else []:
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(entry, dict):
                raise ValueError("not an object")
        except (OSError, ValueError) as error:
            entry = {"hook": path.stem, "at": "?", "problem": f"unreadable ({error})",
                     "fix": f"delete {path}"}  # fmt: skip
        entries.append(entry)
    return sorted(entries, key=lambda entry: str(entry.get("at")))
