"""The suite's own hub answers as the clients will see it: a token made through the owner
API reaches the MCP door, and a wrong one is refused."""

from __future__ import annotations

import httpx
import pytest

from tests.agents.hub import MCP_SCOPES

pytestmark = pytest.mark.slow

INITIALIZE = {
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "probe", "version": "1"}},
}  # fmt: skip
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def test_a_token_from_the_owner_api_opens_the_mcp_door_and_a_wrong_one_does_not(hub):
    token = hub.token("probe", MCP_SCOPES)
    good = httpx.post(hub.mcp_url, json=INITIALIZE, timeout=30,
                      headers=HEADERS | {"Authorization": f"Bearer {token}"})  # fmt: skip
    assert good.status_code == 200, good.text
    bad = httpx.post(hub.mcp_url, json=INITIALIZE, timeout=30,
                     headers=HEADERS | {"Authorization": "Bearer cont_pat_wrong0000000000000000"})  # fmt: skip
    assert bad.status_code == 401
