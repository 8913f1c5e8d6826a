"""Team mode keeps its Redis connections: requests share the process's pool instead of
each opening (and dropping) a connection for its rate-limit counter.

Real servers: a private PostgreSQL cluster and Redis, Continuity under uvicorn.
"""

from __future__ import annotations

import re
import socket

import httpx
import pytest

from tests.faults.servers import PrivateRedis, team_stack

pytestmark = [pytest.mark.postgres, pytest.mark.slow]

MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def connections_received(redis: PrivateRedis) -> int:
    with socket.create_connection(("127.0.0.1", redis.port), timeout=5) as sock:
        sock.sendall(b"INFO stats\r\n")
        reply = b""
        while b"total_connections_received" not in reply or not reply.endswith(b"\r\n"):
            reply += sock.recv(65536)
    return int(re.search(rb"total_connections_received:(\d+)", reply).group(1))


@pytest.fixture
def stack(tmp_path):
    with team_stack(tmp_path, "memories:read,memories:write") as (app, _, redis, token):
        yield app, redis, token


def test_requests_share_the_processs_redis_connections(stack):
    app, redis, token = stack
    auth = {"Authorization": f"Bearer {token}"}
    agent = httpx.Client(base_url=app.url, headers=auth, timeout=15)
    assert agent.get("/api/v1/recall", params={"query": "python"}).status_code == 200  # warm
    before = connections_received(redis)

    for number in range(20):
        assert agent.get("/api/v1/recall", params={"query": f"python {number}"}).status_code == 200
        call = {"jsonrpc": "2.0", "id": number, "method": "tools/call",
                "params": {"name": "memory_recall", "arguments": {"query": "python"}}}  # fmt: skip
        answer = httpx.post(
            f"{app.url}/mcp", json=call, headers={**MCP_HEADERS, **auth}, timeout=15
        )
        assert answer.status_code == 200 and '"isError":true' not in answer.text

    # 40 requests, each counted in Redis (the rate limit); one connection each would be 40.
    # This test's own INFO connection is one of them.
    assert connections_received(redis) - before <= 3
