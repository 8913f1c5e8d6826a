"""Handoff tests reuse the agent API's HTTP clients and the MCP door's live server."""

from tests.api.conftest import agent_token, api, api_as, isolated_cache  # noqa: F401
from tests.mcp.conftest import mcp_server, mcp_site  # noqa: F401
