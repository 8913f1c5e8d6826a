"""Authentication, scopes and the rate limit as agents meet them over HTTP."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.models import PersonalAccessToken
from accounts.tokens import token_revoke
from foundation.actors import Actor
from tests.api.helpers import ApiClient, assert_envelope

pytestmark = pytest.mark.django_db

BARE = 'Bearer realm="continuity"'
INVALID_TOKEN = 'Bearer realm="continuity", error="invalid_token"'


def test_a_request_without_a_token_is_a_401_with_the_bare_challenge(client):
    response = ApiClient(client, None).get("capabilities")

    error = assert_envelope(response, 401, "UNAUTHORIZED")
    assert response["WWW-Authenticate"] == BARE
    assert "Bearer cont_pat_" in error["message"]


def test_a_non_bearer_authorization_header_is_an_invalid_request(client):
    response = ApiClient(client, None).get(
        "capabilities", headers={"Authorization": "Basic YWRhOnB3"}
    )

    assert_envelope(response, 401, "UNAUTHORIZED")
    assert response["WWW-Authenticate"] == 'Bearer realm="continuity", error="invalid_request"'


def test_an_unknown_token_is_a_401_invalid_token(client):
    response = ApiClient(client, "cont_pat_" + "A" * 40).get("capabilities")

    assert_envelope(response, 401, "UNAUTHORIZED")
    assert response["WWW-Authenticate"] == INVALID_TOKEN


def test_an_expired_token_is_refused_at_once(client, make_token):
    token, raw = make_token()
    api = ApiClient(client, raw)
    assert api.get("capabilities").status_code == 200

    PersonalAccessToken.objects.filter(pk=token.pk).update(
        expires_at=timezone.now() - timedelta(seconds=1)
    )

    assert_envelope(api.get("capabilities"), 401, "UNAUTHORIZED")


def test_a_revoked_token_is_refused_at_once(client, make_token, owner):
    token, raw = make_token()
    api = ApiClient(client, raw)
    assert api.get("capabilities").status_code == 200

    token_revoke(actor=Actor.owner(owner), token_id=token.pk)

    response = api.post("memories", {"content": "Anything.", "kind": "fact"})
    assert_envelope(response, 401, "UNAUTHORIZED")
    assert response["WWW-Authenticate"] == INVALID_TOKEN


def test_a_missing_scope_is_a_403_naming_it(api_as):
    capture_only = api_as("capture-bot", scopes=["capture:write"])

    error = assert_envelope(capture_only.get("recall", {"query": "python"}), 403, "FORBIDDEN")

    assert "memories:read" in error["message"]


def test_the_openapi_document_and_docs_page_need_no_token(client):
    schema = client.get("/api/v1/openapi.json")
    docs = client.get("/api/v1/docs")

    assert schema.status_code == 200
    assert schema.json()["components"]["securitySchemes"] == {
        "AgentTokenAuth": {"type": "http", "scheme": "bearer"}
    }
    assert docs.status_code == 200


def test_the_docs_page_loads_its_assets_from_this_server_not_a_cdn(client):
    from django.contrib.staticfiles import finders

    html = client.get("/api/v1/docs").content.decode()

    assert "cdn" not in html.lower() and "https://" not in html
    for asset in ("ninja/swagger-ui.css", "ninja/swagger-ui-bundle.js", "ninja/swagger-ui-init.js"):
        assert f"/static/{asset}" in html
        assert finders.find(asset), asset


# --- rate limit ----------------------------------------------------------------------------


def test_past_the_rate_limit_a_token_gets_429_with_retry_after(settings, api):
    settings.CONTINUITY_RATE_LIMIT_PER_MINUTE = 3
    for _ in range(3):
        assert api.get("capabilities").status_code == 200

    response = api.get("capabilities")

    error = assert_envelope(response, 429, "RATE_LIMITED")
    assert 1 <= int(response["Retry-After"]) <= 60
    assert error["details"][0]["retry_after"] == int(response["Retry-After"])
    assert error["details"][0]["limit"] == 3


def test_the_rate_limit_is_per_token(settings, api, api_as):
    settings.CONTINUITY_RATE_LIMIT_PER_MINUTE = 2
    for _ in range(2):
        api.get("capabilities")
    assert api.get("capabilities").status_code == 429

    assert api_as("codex").get("capabilities").status_code == 200


def test_a_rate_limited_write_writes_nothing(settings, api):
    from memories.models import Memory

    settings.CONTINUITY_RATE_LIMIT_PER_MINUTE = 1
    api.get("capabilities")

    response = api.post("memories", {"content": "Too late.", "kind": "fact"})

    assert_envelope(response, 429, "RATE_LIMITED")
    assert Memory.objects.count() == 0


def test_failed_authentication_does_not_count_against_a_token(settings, client, api):
    settings.CONTINUITY_RATE_LIMIT_PER_MINUTE = 1
    for _ in range(5):
        ApiClient(client, "cont_pat_" + "B" * 40).get("capabilities")

    assert api.get("capabilities").status_code == 200


# --- capabilities --------------------------------------------------------------------------


def test_capabilities_describe_the_server_and_the_calling_token(settings, api_as):
    settings.CONTINUITY_RATE_LIMIT_PER_MINUTE = 120
    api = api_as("codex", scopes=["memories:read"], allowed_projects=["github:acme/app"])

    response = api.get("capabilities")

    assert response.status_code == 200
    body = response.json()
    assert body["profile"] == settings.CONTINUITY_PROFILE and body["version"] == settings.VERSION
    assert body["agent_name"] == "codex"
    assert body["scopes"] == ["memories:read"] and body["allowed_projects"] == ["github:acme/app"]
    assert {"key", "fulltext", "hints"} <= set(body["channels"])
    limits = body["limits"]
    assert limits["max_content_chars"] == 4000 and limits["recall_max_limit"] == 100
    assert limits["rate_limit_per_minute"] == 120
    assert (
        limits["token_budget"]["min"]
        < limits["token_budget"]["bootstrap_default"]
        <= limits["token_budget"]["max"]
    )
