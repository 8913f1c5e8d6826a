"""Semantic-recall fixtures: a network guard, a clean vector cache per test, and a small
OpenAI-compatible embeddings server on loopback (a real HTTP door, run in a thread)."""

from __future__ import annotations

import hashlib
import ipaddress
import json
import re
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from memories.embeddings import index


@pytest.fixture(autouse=True)
def fresh_vector_cache():
    # Row ids repeat across rolled-back tests; never let one test see another's matrix.
    index.forget_all()
    yield
    index.forget_all()


@pytest.fixture
def no_network(monkeypatch):
    """Any connection to a non-loopback address fails, as on a machine with no network."""
    real_connect = socket.socket.connect
    attempts = []

    def guarded(self, address):
        host = address[0] if isinstance(address, tuple) else None
        if host is not None:
            try:
                loopback = ipaddress.ip_address(host).is_loopback
            except ValueError:
                loopback = host == "localhost"
            if not loopback:
                attempts.append(host)
                raise OSError(f"network disabled in this test: {host}")
        return real_connect(self, address)

    monkeypatch.setattr(socket.socket, "connect", guarded)
    return attempts


def word_vector(text: str, dimension: int) -> list[float]:
    """Bag of words hashed into `dimension` buckets: texts sharing words are close."""
    vector = [0.0] * dimension
    for word in re.findall(r"\w+", text.lower()):
        vector[int(hashlib.sha1(word.encode()).hexdigest(), 16) % dimension] += 1.0
    return vector


class EmbeddingsServer:
    def __init__(self, dimension: int = 32):
        self.dimension = dimension
        self.requests: list[dict] = []
        self.fail = False
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.requests.append(
                    {"path": self.path, "body": body, "auth": self.headers.get("Authorization")}
                )
                if server.fail or self.path != "/v1/embeddings":
                    self.send_response(500 if server.fail else 404)
                    self.end_headers()
                    return
                data = [
                    {"object": "embedding", "index": position,
                     "embedding": word_vector(text, server.dimension)}
                    for position, text in reversed(list(enumerate(body["input"])))
                ]  # fmt: skip
                payload = json.dumps(
                    {"object": "list", "data": data, "model": body["model"]}
                ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args):
                return None

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def embeddings_server():
    server = EmbeddingsServer()
    yield server
    server.close()


@pytest.fixture
def use_openai_embedder(settings, embeddings_server):
    """Point the embedder setting at the local server (forgetting any loaded embedder)."""
    from memories.embeddings import embedders

    settings.CONTINUITY_EMBEDDER = "openai"
    settings.CONTINUITY_EMBEDDINGS_URL = embeddings_server.url
    settings.CONTINUITY_EMBEDDINGS_MODEL = "words-32"
    settings.CONTINUITY_EMBEDDINGS_API_KEY = "local-test-key"
    embedders._loaded.pop("openai", None)
    yield embeddings_server
    embedders._loaded.pop("openai", None)
