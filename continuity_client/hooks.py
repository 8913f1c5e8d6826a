"""`continuity hook claude-stop | claude-prompt | codex-stop | codex-prompt`.

Each reads the agent's hook JSON on stdin (formats in docs/agent-formats.md) and always
fails open: any error or timeout ends the process with exit 0 and no output, so Continuity
can never block or break an agent. A watchdog ends the process after HARD_TIMEOUT seconds
whatever it is doing; errors go to a small local log (config.log_path()), and those only
the user can fix (a refused token, a bad URL) also to trouble.py's last-error files, which
`continuity doctor` and `continuity status` show.

Stop hooks send the transcript lines written since the session's watermark (byte offset and
line count, one file per session) as capture batches, and move the watermark only after the
server accepted a batch (202). Replays are harmless: the server keys events by fingerprint.

Prompt hooks ask the server for the memory block of the prompt and print it as
`hookSpecificOutput.additionalContext`, the JSON both Claude Code and Codex accept.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from pathlib import Path

from continuity_client import config, http, trouble
from continuity_client.workspace import project_key_for

HARD_TIMEOUT = 1.0  # seconds, from process start to exit, whatever happens
MAX_BATCH_ITEMS = 500  # the server takes ≤ 1,000 items and ≤ 2 MB per batch
MAX_BATCH_BYTES = 1_500_000
MAX_LINE_BYTES = 1_000_000  # a bigger line (an inlined image) could never be sent: skip it
SEND_RESERVE, TRANSCRIPT_POLL = 0.4, 0.02  # seconds: left for sending; between two looks

AGENTS = {
    "claude-stop": ("claude_code", "claude-code", "Stop"),
    "claude-prompt": ("claude_code", "claude-code", "UserPromptSubmit"),
    "codex-stop": ("codex", "codex", "Stop"),
    "codex-prompt": ("codex", "codex", "UserPromptSubmit"),
}
HOOK_NAMES = tuple(AGENTS)


def run(name: str, stdin=None, stdout=None, started: float | None = None) -> int:
    """Run one hook; the exit code is always 0."""
    started = time.monotonic() if started is None else started
    deadline = started + HARD_TIMEOUT - 0.1  # keep a margin for writing and exiting
    watchdog = threading.Timer(
        max(started + HARD_TIMEOUT - time.monotonic(), 0), _give_up, args=(name,)
    )
    watchdog.daemon = True
    watchdog.start()
    try:
        # Bytes, decoded as UTF-8 whatever the locale: prompts are often not ASCII.
        raw = (stdin or sys.stdin.buffer).read()
        payload = json.loads((raw.decode("utf-8") if isinstance(raw, bytes) else raw) or "{}")
        if not isinstance(payload, dict):
            raise ValueError("hook input is not a JSON object")
        source, agent, event = AGENTS[name]
        settings = config.load()
        if not settings["url"] or not settings["token"]:
            raise trouble.NotConfigured("no server configured, or no token")
        if event == "Stop":
            accepted = _capture(payload, source, settings, deadline)
        else:
            output, accepted = _inject(payload, agent, event, settings, deadline), True
            if output:
                out = stdout or sys.stdout.buffer
                out.write(output.encode("utf-8"))
                out.flush()
        if accepted:
            trouble.clear(name)  # the server took a request: an earlier error is resolved
    except Exception as error:  # fail open: whatever went wrong, the agent carries on
        config.log(f"{name}: {type(error).__name__}: {error}")
        trouble.record(name, name.split("-")[0], error)
    finally:
        watchdog.cancel()
    return 0


def _give_up(name: str) -> None:
    config.log(f"{name}: hard timeout of {HARD_TIMEOUT} s reached")
    os._exit(0)


def _remaining(deadline: float) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError("no time left")
    return left


def _workspace(payload: dict) -> tuple[str, str | None]:
    cwd = payload.get("cwd")
    if not isinstance(cwd, str) or not cwd:
        return "", None
    return cwd, project_key_for(cwd)


# --- prompt hooks ------------------------------------------------------------------------


def _inject(payload: dict, agent: str, event: str, settings: dict, deadline: float) -> str:
    prompt = payload.get("prompt")
    if not isinstance(prompt, str):
        raise ValueError("hook input has no prompt")
    workspace, project_key = _workspace(payload)
    body = {"prompt": prompt, "agent": agent}
    if project_key:
        body |= {"project_key": project_key}
    reply = http.call(
        "POST", f"{settings['url']}/api/v1/inject", token=settings["token"], body=body,
        timeout=_remaining(deadline),
    )  # fmt: skip
    if reply.status != 200 or not isinstance(reply.body, dict):
        raise trouble.Refused("inject", reply.status, _error_of(reply))
    context = reply.body.get("context") or ""
    if not context:
        return ""
    output = {"hookSpecificOutput": {"hookEventName": event, "additionalContext": context}}
    return json.dumps(output, ensure_ascii=False) + "\n"


def _error_of(reply: http.Reply) -> str:
    if isinstance(reply.body, dict) and isinstance(reply.body.get("error"), dict):
        return f"{reply.body['error'].get('code')}: {reply.body['error'].get('message')}"
    return "no error body"


# --- stop hooks --------------------------------------------------------------------------


def watermark_path(source: str, session_id: str) -> Path:
    import hashlib  # only the Stop hooks need it

    digest = hashlib.sha256(session_id.encode("utf-8")).hexdigest()[:24]
    return config.state_dir() / "watermarks" / f"{source}-{digest}.json"


def read_watermark(path: Path, transcript: str) -> dict:
    """{"offset", "lines"} for this transcript; a missing or foreign file starts at 0."""
    try:
        mark = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {"offset": 0, "lines": 0}
    if not isinstance(mark, dict) or mark.get("transcript_path") != transcript:
        return {"offset": 0, "lines": 0}
    return {"offset": int(mark.get("offset", 0)), "lines": int(mark.get("lines", 0))}


def _capture(payload: dict, source: str, settings: dict, deadline: float) -> bool:
    """Send what is new; True when the server accepted at least one batch."""
    session_id, transcript = payload.get("session_id"), payload.get("transcript_path")
    if not isinstance(session_id, str) or not session_id:
        raise ValueError("hook input has no session_id")
    if not isinstance(transcript, str) or not transcript:
        return False  # Codex may give none (transcript_path is nullable): nothing to read
    workspace, project_key = _workspace(payload)
    path = watermark_path(source, session_id)
    mark = read_watermark(path, transcript)
    size = _written_size(transcript, deadline)
    if size < mark["offset"]:
        mark = {"offset": 0, "lines": 0}  # rewritten or truncated: read it again from the start
    sent = False
    with open(transcript, "rb") as file:
        while mark["offset"] < size:
            file.seek(mark["offset"])
            items, consumed, lines = _next_lines(file)
            if not consumed:
                return sent  # only an unfinished last line: the next Stop sends it
            if items:
                _send(settings, deadline, source, session_id, workspace, project_key, items)
                sent = True
            mark = {"offset": mark["offset"] + consumed, "lines": mark["lines"] + lines}
            config.atomic_write(
                path, json.dumps({"session_id": session_id, "transcript_path": transcript, **mark})
            )
    return sent


def _written_size(transcript: str, deadline: float) -> int:
    """The transcript's size once the agent has created it: the Stop hook can start a few
    milliseconds before the agent writes a new session's file. Waits while SEND_RESERVE
    of the hook's time is left for sending; a file still missing then is sent next time."""
    while True:
        try:
            return os.path.getsize(transcript)
        except FileNotFoundError:
            if deadline - time.monotonic() <= SEND_RESERVE:
                raise TimeoutError(f"timed out waiting for the transcript {transcript}") from None
            time.sleep(TRANSCRIPT_POLL)


def _next_lines(file) -> tuple[list, int, int]:
    """Complete lines from the current position, within the batch bounds: (items, bytes
    consumed, lines consumed). Blank, unparseable and oversized lines are consumed unsent."""
    items, consumed, lines, size = [], 0, 0, 0
    while len(items) < MAX_BATCH_ITEMS:
        raw = file.readline(MAX_LINE_BYTES + 1)
        if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
            skipped = _skip_line(file, len(raw))
            if not skipped:
                break  # an oversized line still being written: look again next time
            consumed, lines = consumed + skipped, lines + 1
            config.log(f"skipped a transcript line of {skipped} bytes (over {MAX_LINE_BYTES})")
            continue
        if not raw.endswith(b"\n"):
            break  # the end, or a last line still being written
        if items and size + len(raw) > MAX_BATCH_BYTES:
            break
        consumed, lines = consumed + len(raw), lines + 1
        try:
            item = json.loads(raw)
        except ValueError:
            continue
        if isinstance(item, dict):
            items.append(item)
            size += len(raw)
    return items, consumed, lines


def _skip_line(file, read: int) -> int:
    """Bytes of the oversized line begun, through its newline; 0 if it has none yet."""
    while True:
        chunk = file.readline(1 << 20)
        read += len(chunk)
        if not chunk:
            return 0
        if chunk.endswith(b"\n"):
            return read


def _send(settings, deadline, source, session_id, workspace, project_key, items) -> None:
    body = {"source": source, "thread_id": session_id, "items": items}
    if workspace:
        body["workspace"] = workspace
    if project_key:
        body["project_key"] = project_key
    reply = http.call(
        "POST", f"{settings['url']}/api/v1/capture/batches", token=settings["token"], body=body,
        timeout=_remaining(deadline),
    )  # fmt: skip
    if reply.status != 202:
        raise trouble.Refused("capture", reply.status, _error_of(reply))
