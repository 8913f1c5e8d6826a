"""Fixtures for the property tests over the doors: a cache of their own, room for many calls."""

from __future__ import annotations

import uuid

import pytest
from django.conf import settings as django_settings


@pytest.fixture(autouse=True)
def roomy_limits(settings):
    """Each test counts under its own cache prefix, with room for the calls its examples
    make (the limits themselves are tested in tests/accounts)."""
    caches = {name: dict(config) for name, config in django_settings.CACHES.items()}
    caches["default"]["KEY_PREFIX"] = f"test-{uuid.uuid4().hex}"
    settings.CACHES = caches
    settings.CONTINUITY_RATE_LIMIT_PER_MINUTE = 1_000_000
