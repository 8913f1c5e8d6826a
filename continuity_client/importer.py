"""`continuity import-sessions claude|codex [--since DAYS] [--project KEY] [--dry-run]`.

Backfills transcripts already on disk — Claude Code's `~/.claude/projects/**/*.jsonl`, Codex's
`$CODEX_HOME/sessions/**/*.jsonl` (default `~/.codex`) — through the capture endpoint, exactly
as the Stop hooks send them: the same token, the same batches and bounds, the same per-session
watermark. A second run therefore sends nothing new, and a later Stop hook goes on from where
the import stopped; if a watermark is lost, the server's fingerprints still store no event twice.

A session's project is the project key of the working directory recorded in the file (Claude:
the `cwd` of its lines; Codex: `session_meta.payload.cwd`), resolved like the hooks resolve it.
"""

from __future__ import annotations

import json
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from continuity_client import config, hooks, trouble
from continuity_client.workspace import project_key_for, project_key_of

SOURCES = {"claude": "claude_code", "codex": "codex"}
HEAD_LINES = 50  # a session's id and working directory are on its first lines
NO_DEADLINE = 24 * 3600.0  # an import has no hook time limit; each request keeps its own


class ImportProblem(RuntimeError):
    """Something only the user can fix; the message says what."""


@dataclass
class Session:
    path: Path
    session_id: str
    cwd: str
    project_key: str | None


def session_root(agent: str) -> Path:
    if agent == "claude":
        return Path.home() / ".claude" / "projects"
    codex_home = os.environ.get("CODEX_HOME") or str(Path.home() / ".codex")
    return Path(codex_home) / "sessions"


def _head(path: Path):
    with open(path, "rb") as file:
        for _, raw in zip(range(HEAD_LINES), file, strict=False):
            try:
                item = json.loads(raw)
            except ValueError:
                continue
            if isinstance(item, dict):
                yield item


def read_session(agent: str, path: Path) -> Session | None:
    """The session in `path`, or None when its first lines name no session."""
    session_id, cwd = "", ""
    for item in _head(path):
        if agent == "claude":
            session_id = session_id or str(item.get("sessionId") or "")
            cwd = cwd or str(item.get("cwd") or "")
        elif item.get("type") == "session_meta" and isinstance(item.get("payload"), dict):
            session_id = str(item["payload"].get("id") or "")
            cwd = str(item["payload"].get("cwd") or "")
        if session_id and cwd:
            break
    if agent == "claude":
        session_id = session_id or path.stem  # the file is named after its session
    if not session_id:
        return None
    return Session(path, session_id, cwd, project_key_for(cwd) if cwd else None)


def find_sessions(agent: str, since_days: float | None, project: str | None) -> list[Session]:
    root = session_root(agent)
    if not root.is_dir():
        raise ImportProblem(f"no {agent} sessions here: {root} is not a directory.")
    oldest = time.time() - since_days * 86400 if since_days is not None else None
    wanted = None
    if project:  # a local checkout names its project as the hooks would; else a key as given
        local = os.path.isdir(os.path.expanduser(project))
        wanted = project_key_for(project) if local else project_key_of(project)
    found = []
    for path in sorted(root.rglob("*.jsonl")):
        if not path.is_file() or (oldest is not None and path.stat().st_mtime < oldest):
            continue
        session = read_session(agent, path)
        if session is None or (wanted is not None and session.project_key != wanted):
            continue
        found.append(session)
    return found


def run(agent: str, since_days: float | None, project: str | None, dry_run: bool, out) -> int:
    """Import every matching session; 0 when all were sent, 2 when the user must fix
    something (no such directory, no setup, a refused token), 1 when a file failed."""
    source = SOURCES[agent]
    try:
        sessions = find_sessions(agent, since_days, project)
    except ImportProblem as problem:
        print(f"continuity: {problem}", file=sys.stderr)
        return 2
    settings = config.load()
    if not dry_run and not (settings["url"] and settings["token"]):
        print("continuity: no server or token; run `continuity setup` first.", file=sys.stderr)
        return 2
    if dry_run:
        for session in sessions:
            print(f"would send {session.path} ({_describe(session)})", file=out)
        print(f"{len(sessions)} session file(s) would be sent; nothing was sent.", file=out)
        return 0
    failed = 0
    for number, session in enumerate(sessions, 1):
        payload = {
            "session_id": session.session_id,
            "transcript_path": str(session.path),
            "cwd": session.cwd,
        }
        prefix = f"[{number}/{len(sessions)}] {session.path}"
        try:
            sent = hooks._capture(payload, source, settings, time.monotonic() + NO_DEADLINE)
        except trouble.Refused as refused:
            if refused.status in (401, 403):
                print(f"{prefix}: refused ({refused}); check the hook token.", file=sys.stderr)
                return 2
            print(f"{prefix}: failed ({refused})", file=out)
            failed += 1
            continue
        except OSError as error:
            print(f"{prefix}: failed ({error})", file=out)
            failed += 1
            continue
        print(f"{prefix}: {'sent' if sent else 'nothing new'} ({_describe(session)})", file=out)
    print(f"{len(sessions)} session file(s), {failed} failed.", file=out)
    return 1 if failed else 0


def _describe(session: Session) -> str:
    return f"session {session.session_id}, project {session.project_key or 'none'}"
