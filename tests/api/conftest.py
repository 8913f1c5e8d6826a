"""Fixtures for the agent API: an isolated cache per test and HTTP clients bound to tokens."""

from __future__ import annotations

import uuid

import pytest
from django.conf import settings as django_settings

from tests.api.helpers import ApiClient
from tests.api.isolation import world  # noqa: F401 - the isolation matrix's fixture


@pytest.fixture(autouse=True)
def isolated_cache(settings):
    """Each test counts rate limits under its own cache key prefix. Clearing the cache would
    also work for the file cache, but on a shared Redis it would flush other users' keys."""
    caches = {name: dict(config) for name, config in django_settings.CACHES.items()}
    caches["default"]["KEY_PREFIX"] = f"test-{uuid.uuid4().hex}"
    settings.CACHES = caches


@pytest.fixture
def agent_token(make_token):
    """A token with every agent scope: (row, raw)."""
    return make_token("claude-code")


@pytest.fixture
def api(client, agent_token) -> ApiClient:
    return ApiClient(client, agent_token[1])


@pytest.fixture
def api_as(client, make_token):
    """`api_as(scopes=[...], allowed_projects=[...], user=...)`: a client with a new token."""

    def make(agent_name="claude-code", **token_options) -> ApiClient:
        _, raw = make_token(agent_name, **token_options)
        return ApiClient(client, raw)

    return make
