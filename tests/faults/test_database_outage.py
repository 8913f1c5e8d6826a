"""The database goes away and comes back: every door answers a clear 503 while it is gone
(the envelope on the APIs and MCP, a short page on the dashboard), nothing is half-written,
and the same server process serves again as soon as it returns — no restart.

Real servers: a private PostgreSQL cluster that the test stops and starts, a private Redis,
and Continuity under uvicorn. Team profile only (the lite profile's SQLite is a file in
the server's own data directory, not a server that can be away).
"""

from __future__ import annotations

import httpx
import pytest

from tests.faults.servers import OWNER_PASSWORD, Continuity, team_stack

pytestmark = [pytest.mark.postgres, pytest.mark.slow]

MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@pytest.fixture
def stack(tmp_path):
    with team_stack(tmp_path, "memories:read,memories:write") as (app, postgres, _, token):
        yield app, postgres, token


def signed_in(app: Continuity) -> httpx.Client:
    client = httpx.Client(base_url=app.url, timeout=15)
    client.get("/signin/")
    response = client.post(
        "/signin/",
        data={
            "username": "ada",
            "password": OWNER_PASSWORD,
            "csrfmiddlewaretoken": client.cookies["csrftoken"],
        },
        headers={"Referer": f"{app.url}/signin/"},
    )
    assert response.status_code == 302, response.text
    return client


def mcp_call(app: Continuity, token: str, name: str, arguments: dict) -> httpx.Response:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }
    return httpx.post(
        f"{app.url}/mcp",
        json=body,
        headers={**MCP_HEADERS, "Authorization": f"Bearer {token}"},
        timeout=15,
    )


def test_every_door_answers_503_while_the_database_is_away_and_recovers_without_restart(stack):
    app, postgres, token = stack
    agent = httpx.Client(base_url=app.url, headers={"Authorization": f"Bearer {token}"}, timeout=15)
    owner = signed_in(app)
    assert (
        agent.post(
            "/api/v1/memories", json={"content": "Use uv for Python.", "kind": "preference"}
        ).status_code
        == 201
    )

    postgres.stop()

    answers = {
        "recall": agent.get("/api/v1/recall", params={"query": "python"}),
        "remember": agent.post(
            "/api/v1/memories", json={"content": "Use ruff to lint.", "kind": "preference"}
        ),
        "owner api": owner.get("/api/owner/memories/"),
        "mcp": mcp_call(app, token, "memory_recall", {"query": "python"}),
    }
    for door, response in answers.items():
        assert response.status_code == 503, (door, response.status_code, response.text)
        assert response.json()["error"]["code"] == "UNAVAILABLE", door
        assert response.headers["Retry-After"] == "5", door
    page = owner.get("/")
    assert page.status_code == 503
    assert "cannot reach its database" in page.text
    assert httpx.get(f"{app.url}/health", timeout=15).status_code == 503

    postgres.start()

    assert (
        agent.get("/api/v1/recall", params={"query": "python"}).json()["memories"][0]["content"]
        == "Use uv for Python."
    )
    remembered = agent.post(
        "/api/v1/memories", json={"content": "Use ruff to lint.", "kind": "preference"}
    )
    assert remembered.status_code == 201  # the write refused during the outage left nothing behind
    assert owner.get("/api/owner/memories/").status_code == 200
    assert owner.get("/").status_code == 200
    recalled = mcp_call(app, token, "memory_recall", {"query": "ruff lint"})
    assert recalled.status_code == 200 and "isError" not in recalled.text.replace(
        '"isError":false', ""
    )
    assert httpx.get(f"{app.url}/health", timeout=15).status_code == 200
