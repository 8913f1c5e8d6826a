"""Fixtures for the MCP door: one prepared database and one live uvicorn for the session (for
transport tests), the isolation world, and an isolated rate-limit cache per test."""

from __future__ import annotations

import uuid

import pytest
from django.conf import settings as django_settings

from tests.api.isolation import world  # noqa: F401 - the isolation matrix's fixture
from tests.mcp.live import Site, start_server


@pytest.fixture(autouse=True)
def isolated_cache(settings):
    """Each test counts rate limits under its own cache key prefix (as tests/api does)."""
    caches = {name: dict(config) for name, config in django_settings.CACHES.items()}
    caches["default"]["KEY_PREFIX"] = f"test-{uuid.uuid4().hex}"
    settings.CACHES = caches


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
