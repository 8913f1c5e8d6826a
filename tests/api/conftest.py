"""Fixtures for the agent API: an isolated cache per test, HTTP helpers, database snapshots."""

from __future__ import annotations

import uuid

import pytest
from django.conf import settings as django_settings


@pytest.fixture(autouse=True)
def isolated_cache(settings):
    """Each test counts rate limits under its own cache key prefix. Clearing the cache would
    also work for the file cache, but on a shared Redis it would flush other users' keys."""
    caches = {name: dict(config) for name, config in django_settings.CACHES.items()}
    caches["default"]["KEY_PREFIX"] = f"test-{uuid.uuid4().hex}"
    settings.CACHES = caches
