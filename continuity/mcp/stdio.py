"""The stdio door's two halves that need the SDK: serving a server over given line streams,
and recording the handshake that `continuity.stdio_front` answers before the SDK and Django
have loaded (continuity/mcp/handshake.json).

    .venv/bin/python manage.py mcp_handshake    # write handshake.json again after a tool changed

The recording is the server's own answer to `initialize` and `tools/list`, made through the
same stdio transport an agent talks to, for every protocol version the handshake offers; the
front answers only a request identical in shape to what was recorded, and a test compares
the file with a fresh recording, so the two never drift apart.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterable
from pathlib import Path
from typing import Any

import anyio
from mcp.server.stdio import stdio_server
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION

HANDSHAKE_FILE = Path(__file__).with_name("handshake.json")


class LinesIn:
    """Lines for the SDK's stdio reader (it only iterates), from any async line source."""

    def __init__(self, lines: AsyncIterator[str]):
        self._lines = lines

    def __aiter__(self):
        return self._lines


class LinesOut:
    """The SDK's stdio writer: each `write` is one JSON-RPC message and a newline."""

    def __init__(self, emit):
        self._emit = emit

    async def write(self, text: str) -> None:
        await self._emit(text)

    async def flush(self) -> None:
        pass


async def serve_lines(server, stdin: LinesIn, stdout: LinesOut) -> None:
    """Serve `server` (a ContinuityMCP) over these streams, as `run("stdio")` does over fds 0
    and 1 (the SDK has no public entry for explicit streams at the MCPServer level)."""
    lowlevel = server._lowlevel_server
    async with stdio_server(stdin=stdin, stdout=stdout) as (read, write):
        await lowlevel.run(read, write, lowlevel.create_initialization_options())


def _initialize(version: str) -> dict:
    return {
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": version, "capabilities": {},
                   "clientInfo": {"name": "continuity-handshake", "version": "1"}},
    }  # fmt: skip


def exchange(server, messages: Iterable[dict]) -> list[dict]:
    """The server's answers to `messages`, sent over the stdio transport in order."""
    answers: list[dict] = []

    async def lines():
        for message in messages:
            yield json.dumps(message) + "\n"
        # Keep the input open until every request has its answer, as a client does.
        while len(answers) < sum(1 for m in messages if "id" in m):
            await anyio.sleep(0.01)

    async def emit(text: str) -> None:
        answers.append(json.loads(text))

    messages = list(messages)
    anyio.run(serve_lines, server, LinesIn(lines()), LinesOut(emit))
    return answers


def record(server) -> dict[str, Any]:
    """What the server answers at the start of a stdio session. The answers must be the same
    for every handshake version but for the version itself, or the front could not answer
    from one recording: then this refuses, and the front must learn about versions."""
    answers = []
    for version in HANDSHAKE_PROTOCOL_VERSIONS:
        initialized, tools = exchange(server, [
            _initialize(version),
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        ])  # fmt: skip
        result = initialized["result"]
        if result.pop("protocolVersion") != version:
            raise RuntimeError(f"the server did not accept protocol version {version}")
        answers.append({"initialize": result, "tools/list": tools["result"]})
    if any(answer != answers[0] for answer in answers):
        raise RuntimeError("the server answers differently per protocol version")
    return {"versions": list(HANDSHAKE_PROTOCOL_VERSIONS), "latest": LATEST_HANDSHAKE_VERSION,
            **answers[0]}  # fmt: skip


def write_handshake(server) -> Path:
    HANDSHAKE_FILE.write_text(
        json.dumps(record(server), ensure_ascii=False, indent=1, sort_keys=True) + "\n",
        encoding="utf-8",
    )
    return HANDSHAKE_FILE
