"""Helpers for the MCP door's tests: the tool names, result checks, and clients.

`InMemoryMCP` connects the SDK's own `Client` to the server object in process (the SDK's
in-memory transport), acting with one token as the stdio door does; tool behaviour is
tested through it. The live-server helpers (`session`, `call`, `post`) drive a real
uvicorn, for what only the transport shows (401, 421, Origin, 503).
"""

from __future__ import annotations

import uuid

import anyio
import httpx
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

TOOLS = {
    "memory_bootstrap", "memory_recall", "memory_remember", "memory_checkpoint", "memory_link",
    "memory_forget", "memory_history", "memory_context", "memory_capabilities",
    "memory_handoff_create", "memory_handoff_resume",
}  # fmt: skip
LIST_TOOLS = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}


def ok(result) -> dict:
    assert not result.is_error, result.content[0].text
    return result.structured_content


def error(result) -> dict:
    assert result.is_error, result.structured_content
    envelope = result.structured_content["error"]
    assert result.content[0].text.startswith(f"{envelope['code']}: ")
    return envelope


def unique(text: str) -> str:
    return f"{text} ({uuid.uuid4().hex[:8]})"


class InMemoryMCP:
    """The SDK client connected in memory to the server acting with `raw` (a token secret).

    Each method opens one client session; `session(work)` runs several calls in one."""

    def __init__(self, raw: str):
        self.raw = raw

    def session(self, work):
        """`await work(client)` in one client session; returns its result."""
        from continuity.mcp import build_server

        async def main():
            async with Client(build_server(token=self.raw)) as client:
                return await work(client)

        return anyio.run(main)

    def call(self, name: str, arguments: dict | None = None):
        async def work(client):
            return await client.call_tool(name, arguments or {})

        return self.session(work)

    def calls(self, calls) -> list:
        """Each (name, arguments) in turn, in one session: the results in order."""

        async def work(client):
            return [await client.call_tool(name, arguments) for name, arguments in calls]

        return self.session(work)

    def list_tools(self) -> list:
        async def work(client):
            return (await client.list_tools()).tools

        return self.session(work)


# --- a live server ----------------------------------------------------------------------------


async def _session(url: str, token: str | None, mode: str, work):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
        async with Client(streamable_http_client(url, http_client=http), mode=mode) as client:
            return await work(client)


def session(server, token, work, mode="legacy"):
    """Run `await work(client)` in one MCP client session with a live server."""
    return anyio.run(_session, server.url, token, mode, work)


def call(server, token, name, arguments=None, mode="legacy"):
    async def work(client):
        return await client.call_tool(name, arguments or {})

    return session(server, token, work, mode)


def post(server, body, token=None, **headers) -> httpx.Response:
    sent = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    if token:
        sent["authorization"] = f"Bearer {token}"
    return httpx.post(server.url, json=body, headers={**sent, **headers}, timeout=10)
