"""Who gets into the owner API: a signed-in owner session with CSRF, and nobody else."""

from __future__ import annotations

import json
import re
from html import unescape

import pytest
from django.test import Client

from memories.models import Memory
from tests.memories.helpers import remember
from tests.owner_api.conftest import API, OwnerClient, db_state, error_of

pytestmark = pytest.mark.django_db

ENDPOINTS = [
    ("get", "/"),
    ("get", "/memories/"),
    ("post", "/memories/"),
    ("get", "/memories/{id}/"),
    ("post", "/memories/{id}/confirm/"),
    ("post", "/memories/{id}/delete/"),
    ("delete", "/memories/{id}/?confirm=true"),
    ("get", "/memories/{id}/history/"),
    ("get", "/tokens/"),
    ("post", "/tokens/"),
    ("post", "/tokens/{token}/revoke/"),
]


@pytest.fixture
def targets(owner_actor, make_token):
    receipt = remember(owner_actor)
    token, _ = make_token("claude-code")
    return {"id": receipt.id, "token": token.pk}


def _call(client: OwnerClient, method: str, path: str, targets, body=None, **headers):
    path = path.format(**targets)
    if method == "get":
        return client.get(path, **headers)
    if method == "delete":
        return client.delete(path, **headers)
    return client.post(path, body or {"content": "Prefer tabs.", "kind": "preference"}, **headers)


@pytest.mark.parametrize("method,path", ENDPOINTS)
def test_an_anonymous_request_gets_401_in_the_envelope_and_changes_nothing(
    anonymous, targets, method, path
):
    before = db_state()
    response = _call(anonymous, method, path, targets)
    error = error_of(response, 401, "UNAUTHORIZED")
    assert "Sign in" in error["message"]
    assert response["WWW-Authenticate"].startswith("Session")
    assert db_state() == before


@pytest.mark.parametrize("method,path", ENDPOINTS)
def test_an_agent_token_is_refused_and_never_even_looked_up(
    anonymous, targets, make_token, method, path
):
    token, raw = make_token("codex", scopes=["memories:read", "memories:write"])
    before = db_state()
    response = _call(anonymous, method, path, targets, HTTP_AUTHORIZATION=f"Bearer {raw}")
    error = error_of(response, 401, "UNAUTHORIZED")
    assert "agent access tokens are refused" in error["message"]
    assert db_state() == before
    token.refresh_from_db()
    assert token.last_used_at is None  # no token authentication ran at all


def test_an_agent_token_is_refused_even_beside_a_signed_in_session(api, targets, make_token):
    _, raw = make_token("codex")
    before = db_state()
    response = api.post(
        "/memories/",
        {"content": "Prefer tabs.", "kind": "preference"},
        HTTP_AUTHORIZATION=f"Bearer {raw}",
    )
    error_of(response, 401, "UNAUTHORIZED")
    assert db_state() == before


def test_a_proxys_basic_authorization_header_does_not_get_in_the_way(api):
    response = api.get("/memories/", HTTP_AUTHORIZATION="Basic cHJveHk6cHJveHk=")
    assert response.status_code == 200


@pytest.mark.parametrize("method,path", [e for e in ENDPOINTS if e[0] != "get"])
def test_an_unsafe_request_without_the_csrf_token_is_refused(owner, targets, method, path):
    client = OwnerClient(owner, csrf=False)
    before = db_state()
    error = error_of(_call(client, method, path, targets), 403, "FORBIDDEN")
    assert "CSRF" in error["message"]
    assert db_state() == before


def test_a_wrong_csrf_token_is_refused(owner, targets):
    client = OwnerClient(owner)
    before = db_state()
    response = client.post(f"/memories/{targets['id']}/lock/", {}, HTTP_X_CSRFTOKEN="x" * 32)
    error_of(response, 403, "FORBIDDEN")
    assert db_state() == before


def test_reads_need_no_csrf_token(owner, targets):
    client = OwnerClient(owner, csrf=False)
    assert client.get("/memories/").status_code == 200
    assert client.get(f"/memories/{targets['id']}/").status_code == 200


def test_a_browser_signs_in_gets_its_csrf_cookie_and_then_writes(owner):
    """The real flow: sign in through the login page, then send the cookie's token back."""
    browser = Client(enforce_csrf_checks=True)
    login_page = browser.get(f"{API}/auth/login/")
    assert login_page.status_code == 200
    csrf = browser.cookies["csrftoken"].value
    signed_in = browser.post(
        f"{API}/auth/login/",
        {
            "username": "ada",
            "password": "correct horse battery",
            "csrfmiddlewaretoken": csrf,
            "next": f"{API}/",
        },
    )
    assert signed_in.status_code == 302
    csrf = browser.cookies["csrftoken"].value  # rotated at sign-in
    response = browser.post(
        f"{API}/memories/",
        '{"content": "Prefer tabs.", "kind": "preference"}',
        content_type="application/json",
        HTTP_X_CSRFTOKEN=csrf,
    )
    assert response.status_code == 201, response.content
    assert Memory.objects.filter(owner=owner, content="Prefer tabs.").exists()


def test_an_inactive_users_session_no_longer_works(owner, api):
    owner.is_active = False
    owner.save()
    error_of(api.get("/memories/"), 401, "UNAUTHORIZED")


def test_the_browsable_api_renders_for_a_signed_in_owner(api, targets):
    for path in ("/", "/memories/", f"/memories/{targets['id']}/", "/tokens/"):
        response = api.get(path, HTTP_ACCEPT="text/html")
        assert response.status_code == 200, path
        assert response["Content-Type"].startswith("text/html")


def test_the_browsable_api_shows_errors_in_the_envelope_too(api):
    response = api.get("/memories/?kind=opinion", HTTP_ACCEPT="text/html")
    assert response.status_code == 400
    assert b"VALIDATION_ERROR" in response.content


def test_no_token_authentication_class_serves_this_api():
    from continuity.owner_urls import router

    views = [viewset for _, viewset, _ in router.registry] + [router.APIRootView]
    for view in views:
        names = [cls.__name__ for cls in view.authentication_classes]
        assert names == ["OwnerSessionAuthentication"], (view, names)


def _raw_form_template(api, path) -> dict:
    html = api.get(path, HTTP_ACCEPT="text/html").content.decode()
    match = re.search(r'<textarea[^>]*name="_content"[^>]*>([^<]*)</textarea>', html)
    assert match, "no raw data form"
    return json.loads(unescape(match.group(1)))


def test_the_browsable_forms_templates_work_once_the_required_fields_are_filled(api):
    memory = _raw_form_template(api, "/memories/")
    memory.update(content="Prefer tabs.", kind="preference")
    assert api.post("/memories/", memory).status_code == 201
    token = _raw_form_template(api, "/tokens/")
    token.update(name="laptop", agent_name="cursor", scopes=["memories:read"])
    assert api.post("/tokens/", token).status_code == 201
