"""What the MCP endpoint checks before the SDK sees a request: an exact Host and Origin
allow-list, and no GET.

The SDK's own allow-list matches a `name:*` entry by prefix, so `127.0.0.1:8000.evil.example`
passed for `127.0.0.1:*` — the very DNS-rebinding name the list exists to refuse. Here an
entry matches exactly, or, when it names no port, with a port of digits only. A bad Host is
answered 421 and a bad Origin 403, as the SDK does.

The server is stateless and offers no event stream, so `GET /mcp` (which would hold a stream
open forever) is answered 405 with `Allow: POST`, as the transport's specification asks.
"""

from __future__ import annotations

import json
import re

from foundation.errors import ErrorCode, envelope

_PORT = re.compile(r":[0-9]{1,5}")


def allowed(value: str, entries: list[str]) -> bool:
    """Whether a Host (or Origin) is one of `entries`, or an entry with no port plus a port."""
    for entry in entries:
        base = entry.removesuffix(":*")
        if value == base:
            return True
        authority = base.split("://", 1)[-1]
        has_port = "]:" in authority if authority.startswith("[") else ":" in authority
        if not has_port and value.startswith(base) and _PORT.fullmatch(value[len(base) :]):
            return True
    return False


class HostOriginGuard:
    """ASGI middleware in front of the SDK's Starlette app."""

    def __init__(self, app, *, hosts: list[str], origins: list[str], path: str):
        self.app, self.hosts, self.origins, self.path = app, hosts, origins, path

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = {name.lower(): value.decode("latin-1") for name, value in scope["headers"]}
        host, origin = headers.get(b"host", ""), headers.get(b"origin")
        if not allowed(host, self.hosts):
            return await _answer(send, 421, ErrorCode.VALIDATION_ERROR, "Invalid Host header.")
        if origin and not allowed(origin, self.origins):
            return await _answer(send, 403, ErrorCode.FORBIDDEN, "Invalid Origin header.")
        if scope["method"] == "GET" and scope["path"] in (self.path, self.path + "/"):
            return await _answer(
                send, 405, ErrorCode.METHOD_NOT_ALLOWED,
                "This server is stateless and offers no event stream: POST JSON-RPC messages.",
                allow="POST",
            )  # fmt: skip
        return await self.app(scope, receive, send)


async def _answer(send, status: int, code: ErrorCode, message: str, allow: str | None = None):
    body = json.dumps(envelope(code, message)).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if allow:
        headers.append((b"allow", allow.encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
