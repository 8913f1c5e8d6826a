"""The MCP endpoint's own Host/Origin allow-list is exact (the SDK's matched `name:*` by
prefix), and GET, which would hold an event stream open, answers 405."""

from __future__ import annotations

import anyio
import httpx
import pytest

from continuity.mcp.guard import allowed

HOSTS = ["127.0.0.1", "localhost", "[::1]", "memory.example.com:8443"]


@pytest.mark.parametrize(
    ("host", "ok"),
    [
        ("127.0.0.1", True),
        ("127.0.0.1:8000", True),
        ("[::1]:8000", True),
        ("memory.example.com:8443", True),
        ("127.0.0.1:8000.evil.example", False),
        ("127.0.0.1:.evil.example", False),
        ("127.0.0.1.evil.example", False),
        ("localhost:80x", False),
        ("memory.example.com:9999", False),
        ("", False),
    ],
)
def test_a_host_matches_an_entry_exactly_or_with_a_numeric_port(host, ok):
    assert allowed(host, HOSTS) is ok


def test_an_origin_is_matched_the_same_way():
    origins = ["http://127.0.0.1", "https://localhost"]
    assert allowed("http://127.0.0.1:8000", origins)
    assert not allowed("http://127.0.0.1:8000.evil.example", origins)
    assert not allowed("http://localhost:8000", origins)


def _request(method: str, headers: dict) -> httpx.Response:
    from continuity.asgi import application

    async def send():
        transport = httpx.ASGITransport(app=application)
        async with httpx.AsyncClient(
            transport=transport, base_url="http://127.0.0.1:8000"
        ) as client:
            return await client.request(method, "/mcp", headers=headers)

    return anyio.run(send)


@pytest.mark.django_db
def test_a_rebinding_host_is_answered_421_at_the_door():
    response = _request(
        "POST", {"Host": "127.0.0.1:8000.evil.example", "Content-Type": "application/json"}
    )
    assert response.status_code == 421
    assert response.json()["error"]["code"] == "VALIDATION_ERROR"


@pytest.mark.django_db
def test_a_rebinding_origin_is_answered_403_at_the_door():
    response = _request(
        "POST", {"Origin": "http://127.0.0.1:8000.evil.example", "Content-Type": "application/json"}
    )
    assert response.status_code == 403


@pytest.mark.django_db
def test_get_answers_405_instead_of_holding_a_stream_open():
    response = _request("GET", {"Accept": "text/event-stream"})
    assert response.status_code == 405
    assert response.headers["allow"] == "POST"
    assert response.json()["error"]["code"] == "METHOD_NOT_ALLOWED"
