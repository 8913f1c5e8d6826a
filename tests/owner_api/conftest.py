"""Fixtures for the owner API: signed-in clients that enforce CSRF like a browser would.

Every client here is `Client(enforce_csrf_checks=True)`: the CSRF check is never switched
off, so each unsafe request carries the cookie and the matching X-CSRFToken header.
"""

from __future__ import annotations

import hashlib
import json

import pytest
from django.conf import settings
from django.test import Client
from django.utils.crypto import get_random_string

from accounts.models import PersonalAccessToken
from memories.models import IdempotencyRecord, Memory, MemoryEvent, MemoryLink

API = "/api/owner"


class OwnerClient:
    """A browser session against the owner API: JSON in, JSON out, CSRF token attached."""

    def __init__(self, user=None, *, csrf: bool = True):
        self.django = Client(enforce_csrf_checks=True)
        if user is not None:
            self.django.force_login(user)
        self.csrf_token = get_random_string(32)
        self.django.cookies[settings.CSRF_COOKIE_NAME] = self.csrf_token
        self.csrf = csrf

    def _headers(self, headers):
        extra = {"HTTP_X_CSRFTOKEN": self.csrf_token} if self.csrf else {}
        return {**extra, **(headers or {})}

    def get(self, path, params=None, **headers):
        return self.django.get(API + path, params or {}, **self._headers(headers))

    def post(self, path, body=None, *, raw=None, content_type="application/json", **headers):
        data = raw if raw is not None else json.dumps(body if body is not None else {})
        return self.django.post(
            API + path, data, content_type=content_type, **self._headers(headers)
        )

    def delete(self, path, body=None, **headers):
        data = json.dumps(body) if body is not None else ""
        return self.django.delete(
            API + path, data, content_type="application/json", **self._headers(headers)
        )

    def request(self, method, path, body=None, **headers):
        call = getattr(self.django, method.lower())
        data = json.dumps(body) if body is not None else ""
        return call(API + path, data, content_type="application/json", **self._headers(headers))


@pytest.fixture
def api(owner) -> OwnerClient:
    """The owner, signed in."""
    return OwnerClient(owner)


@pytest.fixture
def other_api(other_owner) -> OwnerClient:
    return OwnerClient(other_owner)


@pytest.fixture
def anonymous() -> OwnerClient:
    return OwnerClient()


def error_of(response, status: int, code: str) -> dict:
    """Assert an error answer in the envelope and return its `error` object."""
    assert response.status_code == status, (response.status_code, response.content[:500])
    assert response["Content-Type"].startswith("application/json"), response["Content-Type"]
    body = response.json()
    assert set(body) == {"error"}, body
    assert set(body["error"]) == {"code", "message", "details"}, body
    assert body["error"]["code"] == code, body
    assert body["error"]["message"]
    assert isinstance(body["error"]["details"], list)
    return body["error"]


def db_state() -> tuple:
    """Everything an owner API call could change, in a comparable form."""
    memories = sorted(
        (str(m["id"]), m["content"], m["trust"], m["status"], m["version"], str(m["updated_at"]))
        for m in Memory.objects.values("id", "content", "trust", "status", "version", "updated_at")
    )
    tokens = sorted(
        (t["id"], str(t["revoked_at"]), str(t["last_used_at"]))
        for t in PersonalAccessToken.objects.values("id", "revoked_at", "last_used_at")
    )
    digest = hashlib.sha256(repr((memories, tokens)).encode()).hexdigest()
    return (
        digest,
        MemoryEvent.objects.count(),
        MemoryLink.objects.count(),
        IdempotencyRecord.objects.count(),
    )


def event_types(memory_id) -> list[str]:
    return list(
        MemoryEvent.objects.filter(memory_id=memory_id)
        .order_by("id")
        .values_list("event_type", flat=True)
    )
