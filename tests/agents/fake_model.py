"""A base for the fake model endpoints: each vendor's API is the one thing that cannot run
here, so a small HTTP server on loopback stands in for it. It records every request (path,
headers, JSON body) so a test can look at exactly what the real client sent the model, and
answers through a vendor subclass's `reply`."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Request:
    method: str
    path: str
    headers: dict
    body: dict | None
    raw: bytes = field(repr=False, default=b"")

    def text(self) -> str:
        """Everything the client sent, as one string to search in."""
        return self.raw.decode("utf-8", errors="replace")


class FakeModel:
    """Start with `with Vendor() as model:`; `model.url` is its base URL."""

    def __init__(self):
        self.requests: list[Request] = []
        self._lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # quiet
                pass

            def _handle(self):
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw) if raw else None
                except ValueError:
                    body = None
                request = Request(self.command, self.path, dict(self.headers), body, raw)
                with fake._lock:
                    fake.requests.append(request)
                status, headers, payload = fake.reply(request)
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_GET = do_POST = do_PUT = do_DELETE = _handle

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def reply(self, request: Request) -> tuple[int, dict, bytes]:
        raise NotImplementedError  # each vendor answers in its own format

    @staticmethod
    def json_reply(payload, status: int = 200) -> tuple[int, dict, bytes]:
        return status, {"Content-Type": "application/json"}, json.dumps(payload).encode()

    @staticmethod
    def sse_reply(events: list[tuple[str | None, dict]]) -> tuple[int, dict, bytes]:
        """A whole server-sent event stream in one body (event name may be None)."""
        chunks = []
        for name, data in events:
            head = f"event: {name}\n" if name else ""
            chunks.append(f"{head}data: {json.dumps(data)}\n\n")
        return (
            200,
            {"Content-Type": "text/event-stream", "Cache-Control": "no-cache"},
            ("".join(chunks).encode()),
        )

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=10)
