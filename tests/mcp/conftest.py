"""Fixtures for the MCP door: one prepared database and one live uvicorn for the session."""

from __future__ import annotations

import pytest

from tests.mcp.live import Site, start_server


@pytest.fixture(scope="session")
def mcp_site(tmp_path_factory):
    site = Site(tmp_path_factory.mktemp("mcp") / "data")
    yield site
    site.drop()


@pytest.fixture(scope="session")
def mcp_server(mcp_site, tmp_path_factory):
    server = start_server(mcp_site, tmp_path_factory.mktemp("mcp-log") / "uvicorn.log")
    yield server
    server.stop()
