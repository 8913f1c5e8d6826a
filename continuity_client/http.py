"""A small JSON-over-HTTP/1.1 client on a plain socket, with one deadline for the whole call.

Hooks start for every prompt: `urllib.request` pulls in `http.client`, `email` and `ssl`,
which costs more than the request itself on loopback. This speaks just enough HTTP for the
Continuity API (one request per connection, Content-Length or chunked replies); `ssl` is
imported only for an https:// server. Standard library only.
"""

from __future__ import annotations

import json
import socket
import time
from urllib.parse import urlsplit

MAX_REPLY_BYTES = 4 * 1024 * 1024


class Reply:
    def __init__(self, status: int, body):
        self.status = status
        self.body = body


def encode_json(body) -> bytes:
    """UTF-8 JSON of `body`. A transcript can hold a broken character (an unpaired surrogate,
    which UTF-8 cannot encode and the server refuses): it becomes U+FFFD, so one bad
    character never stops a conversation from being captured."""
    text = json.dumps(body, ensure_ascii=False)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace").encode("utf-8")


def call(method: str, url: str, *, token: str = "", body=None, timeout: float = 1.0) -> Reply:
    """One request; any HTTP status comes back as a Reply, transport failures (refused,
    timed out, a malformed reply) raise OSError."""
    deadline = time.monotonic() + max(timeout, 0.01)
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise OSError(f"not an http(s) URL: {url!r}")
    port = parts.port or (443 if parts.scheme == "https" else 80)
    data = b"" if body is None else encode_json(body)
    host = parts.hostname if ":" not in parts.hostname else f"[{parts.hostname}]"
    lines = [
        f"{method} {parts.path or '/'}{'?' + parts.query if parts.query else ''} HTTP/1.1",
        f"Host: {host}" + (f":{parts.port}" if parts.port else ""),
        "Accept: application/json",
        "Connection: close",
        "User-Agent: continuity-client",
        f"Content-Length: {len(data)}",
    ]
    if body is not None:
        lines.append("Content-Type: application/json")
    if token:
        lines.append(f"Authorization: Bearer {token}")
    request = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + data

    with socket.create_connection((parts.hostname, port), timeout=_left(deadline)) as raw:
        connection = raw
        if parts.scheme == "https":
            import ssl

            connection = ssl.create_default_context().wrap_socket(
                raw, server_hostname=parts.hostname
            )
        connection.settimeout(_left(deadline))
        connection.sendall(request)
        reply = _read_all(connection, deadline)
    return _parse(reply)


def _left(deadline: float) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError("timed out")
    return left


def _read_all(connection, deadline: float) -> bytes:
    chunks, size = [], 0
    while True:
        connection.settimeout(_left(deadline))
        chunk = connection.recv(65536)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        size += len(chunk)
        if size > MAX_REPLY_BYTES:
            raise OSError("reply too large")


def _parse(reply: bytes) -> Reply:
    head, separator, payload = reply.partition(b"\r\n\r\n")
    if not separator:
        raise OSError("incomplete HTTP reply")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    try:
        status = int(status_line.split(" ", 2)[1])
    except (IndexError, ValueError):
        raise OSError(f"not an HTTP reply: {status_line[:40]!r}") from None
    headers = {}
    for line in header_lines:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    if headers.get("transfer-encoding", "").lower() == "chunked":
        payload = _unchunk(payload)
    elif "content-length" in headers:
        payload = payload[: int(headers["content-length"])]
    try:
        return Reply(status, json.loads(payload.decode("utf-8")) if payload else None)
    except ValueError:
        return Reply(status, None)


def _unchunk(payload: bytes) -> bytes:
    out, position = [], 0
    while True:
        end = payload.find(b"\r\n", position)
        if end < 0:
            raise OSError("truncated chunked reply")
        length = int(payload[position:end].split(b";")[0], 16)
        if length == 0:
            return b"".join(out)
        out.append(payload[end + 2 : end + 2 + length])
        position = end + 2 + length + 2
