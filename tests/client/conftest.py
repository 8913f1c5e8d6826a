"""Fixtures for the client: a live server with a token, and a home folder for the CLI."""

from __future__ import annotations

import socket
import threading
from contextlib import closing

import httpx
import pytest

from tests.client.helpers import git_checkout

SHOP = "github:acme/shop"


@pytest.fixture(autouse=True)
def roomy_time_budget(settings):
    """A loaded test machine (or a cold semantic model) must not turn these into time-budget
    answers; the budget itself has its own tests with a tiny setting."""
    settings.CONTINUITY_INJECT_BUDGET_MS = 30_000


@pytest.fixture
def home(tmp_path):
    folder = tmp_path / "home"
    folder.mkdir()
    return folder


@pytest.fixture
def server(live_server, make_token):
    """(url, raw token) of a live server; the token reads memories and writes captures."""
    _, raw = make_token("claude-code", scopes=["memories:read", "capture:write"])
    # The first request of a fresh server pays one-time costs (imports, a semantic model
    # load) that a hook's 1 s limit is not meant to cover; pay them here.
    httpx.post(f"{live_server.url}/api/v1/inject", json={"prompt": "warm up"},
               headers={"Authorization": f"Bearer {raw}"}, timeout=60)  # fmt: skip
    return live_server.url, raw


@pytest.fixture
def shop_checkout(tmp_path):
    return git_checkout(tmp_path / "work" / "shop", "git@github.com:acme/shop.git")


@pytest.fixture
def dead_url():
    """An address where nothing listens."""
    with closing(socket.socket()) as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


@pytest.fixture
def silent_url():
    """A server that accepts connections and never answers: only timeouts end a call."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    accepted = []
    stop = threading.Event()

    def accept():
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                accepted.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    stop.set()
    thread.join()
    for connection in accepted:
        connection.close()
    listener.close()
