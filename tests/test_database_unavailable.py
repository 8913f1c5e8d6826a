"""A database outage gets one answer at every door: UNAVAILABLE, one message, Retry-After.

The outage is simulated in process: every query raises what Django raises when the server
has gone (OperationalError) or the connection broke (InterfaceError). The agent API, the
owner API and the dashboard answer 503; an MCP tool call answers a tool error with the same
envelope; the ASGI dispatcher answers 503 for /mcp and for Django alike, and lets nothing
escape to the server. tests/faults/test_database_outage.py stops a real PostgreSQL.
"""

from __future__ import annotations

import anyio
import httpx
import pytest
from django.db import InterfaceError, OperationalError
from django.db.backends import utils
from mcp import Client

from continuity.mcp import build_server
from foundation.errors import UNAVAILABLE_RETRY_AFTER, ErrorCode, unavailable_error

pytestmark = pytest.mark.django_db

OUTAGES = {
    "server gone": (OperationalError, "could not connect to server: Connection refused"),
    "connection broken": (InterfaceError, "connection already closed"),
}
THE_ERROR = unavailable_error(OperationalError("down"))
ENVELOPE = THE_ERROR.as_envelope()
RETRY_AFTER = str(UNAVAILABLE_RETRY_AFTER)


@pytest.fixture(params=sorted(OUTAGES))
def database_down(request, monkeypatch):
    """From now on every query, in every thread, fails as the named outage does."""
    kind, message = OUTAGES[request.param]

    def fail(self, *args, **kwargs):
        raise kind(message)  # a new one each time: a raised error's traceback holds its cursor

    def down():
        monkeypatch.setattr(utils.CursorWrapper, "_execute_with_wrappers", fail)

    return down


@pytest.fixture
def agent_token(make_token):
    return make_token("claude-code")[1]


def test_the_one_error_says_unavailable_with_its_wait():
    assert THE_ERROR.code == ErrorCode.UNAVAILABLE and THE_ERROR.http_status == 503
    assert THE_ERROR.headers == {"Retry-After": RETRY_AFTER}
    assert ENVELOPE["error"]["details"] == [{"retry_after": UNAVAILABLE_RETRY_AFTER}]
    assert unavailable_error(InterfaceError("closed")).as_envelope() == ENVELOPE
    assert unavailable_error(ValueError("not an outage")) is None


def test_the_agent_api_answers_an_outage_with_the_one_error(client, agent_token, database_down):
    database_down()

    response = client.get(
        "/api/v1/recall", {"query": "python"}, headers={"Authorization": f"Bearer {agent_token}"}
    )

    assert response.status_code == 503
    assert response.json() == ENVELOPE
    assert response["Retry-After"] == RETRY_AFTER


def test_the_owner_api_answers_an_outage_with_the_one_error(client, owner, database_down):
    client.force_login(owner)
    database_down()

    response = client.get("/api/owner/memories/")

    assert response.status_code == 503
    assert response.json() == ENVELOPE
    assert response["Retry-After"] == RETRY_AFTER


def test_the_dashboard_answers_an_outage_with_a_page_saying_the_one_message(
    client, owner, database_down
):
    client.force_login(owner)
    database_down()

    response = client.get("/")

    assert response.status_code == 503
    assert ENVELOPE["error"]["message"] in response.content.decode()
    assert response["Retry-After"] == RETRY_AFTER


def test_an_mcp_tool_call_answers_an_outage_with_the_one_error(agent_token, database_down):
    async def call():
        async with Client(build_server(token=agent_token)) as session:
            database_down()
            return await session.call_tool("memory_recall", {"query": "python"})

    result = anyio.run(call)

    assert result.is_error
    assert result.structured_content == ENVELOPE
    assert result.content[0].text == f"UNAVAILABLE: {ENVELOPE['error']['message']}"


@pytest.mark.parametrize("path", ["/mcp", "/api/v1/recall?query=python"])
def test_the_asgi_dispatcher_answers_an_outage_with_the_one_error(agent_token, database_down, path):
    from continuity.asgi import application

    async def post():
        # raise_app_exceptions: an exception the dispatcher let escape would fail the test.
        transport = httpx.ASGITransport(app=application, raise_app_exceptions=True)
        async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as http:
            database_down()
            body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
            headers = {
                "Authorization": f"Bearer {agent_token}",
                "Accept": "application/json, text/event-stream",
            }
            if path == "/mcp":
                return await http.post(path, json=body, headers=headers)
            return await http.get(path, headers=headers)

    response = anyio.run(post)

    assert response.status_code == 503
    assert response.json() == ENVELOPE
    assert response.headers["Retry-After"] == RETRY_AFTER
