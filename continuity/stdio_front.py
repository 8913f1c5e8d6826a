"""The stdio door's front: answers an agent's first requests while the server loads.

An agent that starts `manage.py mcp_stdio` waits for `initialize` and then `tools/list`
before its first turn (Codex sends the turn without the tools after a short grace).
Loading Django and the MCP SDK takes over a second on a small machine, so `manage.py` hands
`mcp_stdio` to this module first. It imports only the standard library and:

- answers `initialize` (for a handshake version the server offers), `tools/list` and `ping`
  at once from continuity/mcp/handshake.json, the server's own recorded answers (a test
  keeps the file equal to what the server says);
- meanwhile loads Django, checks CONTINUITY_TOKEN and builds the server in the main thread;
- then replays `initialize` and `notifications/initialized` to the real server (its answer to
  that `initialize` is dropped: the agent has one already), passes every other request on in
  the order it came, and from then on the server answers everything.

A request it does not know (`server/discover`, a call) waits for the server. A refused token
ends the process with the reason on stderr, as the command itself does. File descriptor 1
carries the protocol only: stray output from anything loaded goes to stderr.
"""

from __future__ import annotations

import json
import os
import queue
import sys
import threading
from pathlib import Path

HANDSHAKE_FILE = Path(__file__).parent / "mcp" / "handshake.json"
END = object()


class Front:
    def __init__(self, handshake: dict, stdin, stdout):
        self.handshake = handshake
        self.stdin, self.stdout = stdin, stdout
        self.lines: queue.Queue = queue.Queue()
        self.ready = threading.Event()
        self.write_lock = threading.Lock()
        self.answered_initialize = None  # the id whose answer the server must not repeat

    def write(self, text: str) -> None:
        with self.write_lock:
            self.stdout.write(text.encode("utf-8"))
            self.stdout.flush()

    def answer(self, message_id, result: dict) -> None:
        self.write(json.dumps({"jsonrpc": "2.0", "id": message_id, "result": result}) + "\n")

    def early_answer(self, message: dict) -> bool:
        """Answer `message` from the recording if it can be; True when answered."""
        method, params = message.get("method"), message.get("params") or {}
        if "id" not in message or not isinstance(params, dict):
            return False
        if method == "initialize" and self.answered_initialize is None:
            requested = params.get("protocolVersion")
            if not isinstance(requested, str) or "clientInfo" not in params:
                return False
            version = (
                requested if requested in self.handshake["versions"] else self.handshake["latest"]
            )
            self.answer(message["id"], {**self.handshake["initialize"], "protocolVersion": version})
            self.answered_initialize = message["id"]
            return False  # the server must see it too, to start its session
        if self.answered_initialize is None:
            return False
        if method == "tools/list" and not params.get("cursor"):
            self.answer(message["id"], self.handshake["tools/list"])
            return True
        if method == "ping":
            self.answer(message["id"], {})
            return True
        return False

    def read(self) -> None:
        """The reader thread: every line from the agent, answered early or queued."""
        for line in self.stdin:
            text = line.decode("utf-8", errors="replace")
            if not self.ready.is_set():
                try:
                    message = json.loads(text)
                except ValueError:
                    message = None
                if isinstance(message, dict) and self.early_answer(message):
                    continue
            self.lines.put(text)
        self.lines.put(END)

    async def server_lines(self):
        """The agent's lines for the real server, in order, read off the queue."""
        import anyio

        while True:
            line = await anyio.to_thread.run_sync(self.lines.get)
            if line is END:
                return
            yield line

    async def server_writes(self, text: str) -> None:
        if self.answered_initialize is not None:
            try:
                message = json.loads(text)
            except ValueError:
                message = None
            if (
                isinstance(message, dict)
                and message.get("id") == self.answered_initialize
                and ("result" in message or "error" in message)
            ):
                self.answered_initialize = None  # dropped once; later answers pass
                return
        self.write(text)


def _protocol_fds():
    """fd 0 and fd 1 for the protocol only; the process's own fd 0 reads the null device
    and its fd 1 goes to stderr, so nothing loaded can read or print on the wire."""
    stdin = os.fdopen(os.dup(0), "rb", buffering=0)
    stdout = os.fdopen(os.dup(1), "wb")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    return stdin, stdout


def main() -> None:
    raw = os.environ.get("CONTINUITY_TOKEN", "").strip()
    try:
        handshake = json.loads(HANDSHAKE_FILE.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        handshake = None
    if not raw or handshake is None:
        return _command()  # the command says what is wrong, or serves without a front
    stdin, stdout = _protocol_fds()
    front = Front(handshake, stdin, stdout)
    threading.Thread(target=front.read, name="stdio-front", daemon=True).start()

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "continuity.settings")
    import django

    try:
        django.setup()
        from continuity.management.commands.mcp_stdio import announce, checked_token

        token = checked_token(raw)
    except Exception as error:  # noqa: BLE001 - the reason goes to stderr, as the command's does
        sys.stderr.write(f"{error}\n")
        sys.exit(1)
    announce(sys.stderr, token)
    from django.db import connections

    connections.close_all()  # tool calls run in worker threads with connections of their own
    import anyio

    from continuity.mcp import build_server
    from continuity.mcp.stdio import LinesIn, LinesOut, serve_lines

    front.ready.set()
    anyio.run(serve_lines, build_server(token=raw), LinesIn(front.server_lines()),
              LinesOut(front.server_writes))  # fmt: skip


def _command() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "continuity.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line([sys.argv[0], "mcp_stdio"])
