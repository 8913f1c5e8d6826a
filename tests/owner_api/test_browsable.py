"""The browsable owner API renders every list for a signed-in owner (it answered 500 on the
lists that read through selectors: handoffs, candidates, proposals, never-remember,
rejections)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from capture.owner_urls import router as capture_router
from continuity.owner_urls import router as owner_router
from handoff.owner_urls import router as handoff_router

pytestmark = pytest.mark.django_db

PREFIXES = sorted(
    prefix
    for router in (owner_router, capture_router, handoff_router)
    for prefix, _viewset, _basename in router.registry
)


@pytest.mark.parametrize("prefix", PREFIXES)
def test_every_list_renders_in_the_browsable_api(prefix):
    owner = get_user_model().objects.create_superuser("owner", "o@example.com", "x" * 16)
    browser = Client()
    browser.force_login(owner)
    response = browser.get(f"/api/owner/{prefix}/", HTTP_ACCEPT="text/html")
    assert response.status_code == 200, response.content[:500]
    assert response["Content-Type"].startswith("text/html")
