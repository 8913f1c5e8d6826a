"""Tokens page: create (the secret is shown once), revoke, bad input, other owners."""

from __future__ import annotations

import pytest

from accounts.models import PersonalAccessToken
from accounts.tokens import token_authenticate
from tests.htmx import counts_after

from .conftest import DashboardClient

pytestmark = pytest.mark.django_db

FORM = {
    "name": "Laptop Claude",
    "purpose": "coding on the laptop",
    "agent_name": "claude-code",
    "scopes": ["memories:read", "memories:write"],
    "projects": "github:ada/api, github:ada/web",
    "expires_in_days": "30",
}


def _secret(html: str) -> str:
    return html.split('id="new-secret" class="mono" value="')[1].split('"')[0]


def test_creating_a_token_shows_its_secret_once(browser):
    response = browser.post("/tokens/", FORM)
    assert response.status_code == 200
    secret = _secret(response.content.decode())
    token = token_authenticate(secret)
    assert (token.name, token.agent_name, token.purpose) == (
        "Laptop Claude",
        "claude-code",
        "coding on the laptop",
    )
    assert token.scopes == ["memories:read", "memories:write"]
    assert token.allowed_projects == ["github:ada/api", "github:ada/web"]
    assert secret not in browser.get("/tokens/").content.decode()


def test_creating_a_token_over_htmx_swaps_the_panel_and_the_count(browser):
    response = browser.post("/tokens/", FORM, htmx=True)
    html = response.content.decode()
    assert "<html" not in html and "cont_pat_" in html
    assert counts_after(browser, response)["tokens"] == 1


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"name": ""}, "name"),
        ({"agent_name": "has spaces"}, "agent_name"),
        ({"scopes": []}, "scopes"),
        ({"scopes": ["root"]}, "unknown"),
        ({"expires_in_days": "0"}, "expires_in_days"),
        ({"expires_in_days": "soon"}, "expires_in_days"),
    ],
)
def test_bad_token_input_shows_the_error_and_creates_nothing(browser, change, message):
    response = browser.post("/tokens/", {**FORM, **change})
    assert response.status_code == 400
    assert message in response.content.decode()
    assert 'role="alert"' in response.content.decode()
    assert not PersonalAccessToken.objects.exists()


def test_revoking_a_token_stops_it_at_once(browser, make_token):
    token, raw = make_token("codex")
    response = browser.post(f"/tokens/{token.pk}/revoke/")
    assert response.status_code == 302
    token.refresh_from_db()
    assert token.revoked_at is not None
    html = browser.get("/tokens/").content.decode()
    assert "revoked" in html


def test_revoking_over_htmx_answers_with_the_panel(browser, make_token):
    token, _ = make_token("codex")
    response = browser.post(f"/tokens/{token.pk}/revoke/", htmx=True)
    assert "was revoked" in response.content.decode() and "<html" not in response.content.decode()
    assert counts_after(browser, response)["tokens"] == 0


def test_the_tokens_page_shows_last_use(browser, make_token):
    token, raw = make_token("codex")
    assert "never" in browser.get("/tokens/").content.decode()
    token_authenticate(raw)
    html = browser.get("/tokens/").content.decode()
    row = html.split(f'id="token-{token.pk}"')[1].split("</tr>")[0]
    assert "never" not in row


def test_another_owners_token_is_neither_shown_nor_revocable(make_token, other_owner):
    token, _ = make_token("codex")
    grace = DashboardClient(other_owner)
    assert f'id="token-{token.pk}"' not in grace.get("/tokens/").content.decode()
    assert grace.post(f"/tokens/{token.pk}/revoke/").status_code == 404
    token.refresh_from_db()
    assert token.revoked_at is None
