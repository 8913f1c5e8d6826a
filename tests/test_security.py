"""Web security: response headers, sign-in throttling, the deploy check, and secrets kept
out of logs and error messages (docs/security.md)."""

from __future__ import annotations

import logging
import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import RequestFactory

from accounts import login_throttle
from accounts.models import PersonalAccessToken
from tests.accounts.helpers import end_window
from tests.factories import UserFactory

ROOT = Path(__file__).resolve().parent.parent
PASSWORD = "correct horse battery staple"

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def fresh_throttle(settings):
    """Each test counts sign-in failures under its own cache prefix (a shared Redis in team
    mode is never flushed)."""
    caches = {name: dict(config) for name, config in settings.CACHES.items()}
    caches["default"]["KEY_PREFIX"] = f"test-{secrets.token_hex(8)}"
    settings.CACHES = caches


@pytest.fixture
def account():
    return UserFactory(username="alice", password=PASSWORD)


def sign_in(client, password, address="203.0.113.7", username="alice"):
    return client.post(
        "/signin/", {"username": username, "password": password}, REMOTE_ADDR=address
    )


def test_pages_carry_a_strict_content_security_policy_and_the_usual_headers(client, owner):
    client.force_login(owner)
    response = client.get("/")

    assert response.status_code == 200
    policy = dict(
        part.strip().split(" ", 1) for part in response["Content-Security-Policy"].split(";")
    )
    assert policy["script-src"] == "'self'"  # no inline script, no eval
    assert policy["frame-ancestors"] == "'none'"
    assert policy["object-src"] == "'none'" and policy["base-uri"] == "'none'"
    assert response["X-Frame-Options"] == "DENY"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Referrer-Policy"] == "same-origin"
    assert response["Cross-Origin-Opener-Policy"] == "same-origin"
    assert b"<script>" not in response.content  # every script is a file the policy allows


def test_the_session_cookie_is_http_only_and_same_site(client, account):
    response = sign_in(client, PASSWORD)

    assert response.status_code == 302
    cookie = response.cookies["sessionid"]
    assert cookie["httponly"] and cookie["samesite"] == "Lax"


def test_repeated_failures_lock_the_account_from_that_address_even_with_the_right_password(
    client, account
):
    for _ in range(5):
        assert sign_in(client, "wrong").status_code == 200

    response = sign_in(client, PASSWORD)

    assert response.status_code == 429
    assert 0 < int(response["Retry-After"]) <= 900
    assert "Too many failed sign-in attempts" in response.content.decode()
    assert "_auth_user_id" not in client.session


def test_the_lock_does_not_reach_another_address(client, account):
    for _ in range(5):
        sign_in(client, "wrong")

    assert sign_in(client, PASSWORD, address="198.51.100.9").status_code == 302


def test_the_admin_sign_in_shares_the_throttle(client, account):
    account.is_staff = True
    account.save()
    for _ in range(5):
        sign_in(client, "wrong")

    response = client.post(
        "/admin/login/", {"username": "alice", "password": PASSWORD}, REMOTE_ADDR="203.0.113.7"
    )

    assert response.status_code == 200  # the form again, not the redirect of a success
    assert "_auth_user_id" not in client.session


def test_spraying_many_accounts_from_one_address_is_throttled_too(client, settings, account):
    settings.CONTINUITY_LOGIN_MAX_FAILURES_PER_IP = 6
    for index in range(6):
        sign_in(client, "wrong", username=f"user{index}")

    assert sign_in(client, PASSWORD).status_code == 429


def test_a_success_clears_the_accounts_failures(client, account):
    for _ in range(4):
        sign_in(client, "wrong")
    assert sign_in(client, PASSWORD).status_code == 302
    client.logout()

    for _ in range(4):
        sign_in(client, "wrong")
    assert sign_in(client, PASSWORD).status_code == 302


def test_the_lock_ends_with_its_window(client, settings, account):
    settings.CONTINUITY_LOGIN_WINDOW_SECONDS = 60
    for _ in range(5):
        sign_in(client, "wrong")
    assert sign_in(client, PASSWORD).status_code == 429
    # End the recorded window instead of waiting for it.
    request = RequestFactory().post("/signin/", REMOTE_ADDR="203.0.113.7")
    end_window(login_throttle._keys(request, "alice")[0])

    assert sign_in(client, PASSWORD).status_code == 302


def test_tokens_never_reach_the_logs(client, make_token, caplog):
    _, raw = make_token("claude-code")
    caplog.set_level(logging.DEBUG)

    client.get("/api/v1/capabilities", headers={"Authorization": f"Bearer {raw}"})
    client.get("/api/v1/capabilities", headers={"Authorization": f"Bearer {raw}x"})
    client.get(
        "/api/v1/capabilities", headers={"Authorization": "Bearer cont_pat_forged0000000000000000"}
    )

    logged = "\n".join(record.getMessage() + str(record.args) for record in caplog.records)
    assert raw not in logged
    assert "cont_pat_forged" not in logged
    secret = raw.removeprefix("cont_pat_")[len(PersonalAccessToken.objects.get().prefix) :]
    assert secret not in logged


def test_a_rejected_secret_is_never_echoed_in_the_error(client, make_token):
    _, raw = make_token("claude-code")
    secret = "sk-proj-" + secrets.token_urlsafe(32)

    response = client.post(
        "/api/v1/memories",
        {"content": f"The OpenAI key is {secret}", "kind": "fact"},
        content_type="application/json",
        headers={"Authorization": f"Bearer {raw}"},
    )

    assert response.status_code == 422
    assert response.json()["error"]["code"] == "SECRET_REJECTED"
    assert secret not in response.content.decode()
    assert secret[8:20] not in response.content.decode()


@pytest.mark.slow
def test_the_deploy_check_is_clean_for_a_team_deployment_served_over_https(tmp_path):
    env = {
        **os.environ,
        "CONTINUITY_DATA_DIR": str(tmp_path),
        "DATABASE_URL": os.environ.get(
            "DATABASE_URL", "postgres://continuity@127.0.0.1:5432/continuity"
        ),
        "REDIS_URL": os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"),
        "CONTINUITY_HTTPS": "true",
        "CONTINUITY_ALLOWED_HOSTS": "memory.example.com",
        "DJANGO_SETTINGS_MODULE": "continuity.settings",
    }
    if not env["DATABASE_URL"].startswith("postgres"):
        env["DATABASE_URL"] = "postgres://continuity@127.0.0.1:5432/continuity"

    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip

    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout
