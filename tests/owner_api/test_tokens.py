"""Access tokens through the owner API: the secret is shown once, never listed, revocable."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.models import PersonalAccessToken
from accounts.tokens import token_authenticate
from foundation.errors import ServiceError
from tests.owner_api.conftest import db_state, error_of

pytestmark = pytest.mark.django_db

NEW_TOKEN = {
    "name": "laptop",
    "purpose": "Claude Code on my laptop",
    "agent_name": "claude-code",
    "scopes": ["memories:read", "memories:write"],
    "allowed_projects": ["github:acme/api"],
    "expires_in_days": 30,
}
FIELDS = {
    "id", "name", "purpose", "agent_name", "scopes", "allowed_projects", "state",
    "created_at", "expires_at", "revoked_at", "last_used_at", "last_refusal",
}  # fmt: skip


def test_creating_a_token_shows_its_secret_once_and_the_secret_works(api, owner):
    response = api.post("/tokens/", NEW_TOKEN)
    assert response.status_code == 201
    assert response["Cache-Control"] == "no-store"
    body = response.json()
    assert set(body) == FIELDS | {"token"}
    assert body["token"].startswith("cont_pat_")
    assert (body["agent_name"], body["state"], body["allowed_projects"]) == (
        "claude-code",
        "usable",
        ["github:acme/api"],
    )
    token = token_authenticate(body["token"])
    assert token.pk == body["id"] and token.owner == owner
    assert token.expires_at - timezone.now() > timedelta(days=29, hours=23)


def test_listing_and_reading_never_show_the_secret_its_hash_or_its_prefix(api):
    created = api.post("/tokens/", NEW_TOKEN).json()
    token = PersonalAccessToken.objects.get(pk=created["id"])
    for response in (api.get("/tokens/"), api.get(f"/tokens/{token.pk}/")):
        text = response.content.decode()
        assert (
            created["token"] not in text
            and token.secret_hash not in text
            and token.prefix not in text
        )
    listed = api.get("/tokens/").json()["results"]
    assert [set(item) for item in listed] == [FIELDS]


def test_a_token_without_an_expiry_gets_the_default(api, settings):
    settings.CONTINUITY_TOKEN_DEFAULT_DAYS = 7
    body = {key: value for key, value in NEW_TOKEN.items() if key != "expires_in_days"}
    created = api.post("/tokens/", body).json()
    expires = PersonalAccessToken.objects.get(pk=created["id"]).expires_at
    assert timedelta(days=6, hours=23) < expires - timezone.now() <= timedelta(days=7)


def test_a_token_can_expire_at_a_given_moment(api):
    moment = (timezone.now() + timedelta(days=3)).replace(microsecond=0)
    body = {
        **{k: v for k, v in NEW_TOKEN.items() if k != "expires_in_days"},
        "expires_at": moment.isoformat(),
    }
    created = api.post("/tokens/", body)
    assert created.status_code == 201
    assert PersonalAccessToken.objects.get(pk=created.json()["id"]).expires_at == moment


def test_revoke_stops_the_token_at_once_and_is_idempotent(api):
    created = api.post("/tokens/", NEW_TOKEN).json()
    revoked = api.post(f"/tokens/{created['id']}/revoke/")
    assert revoked.status_code == 200
    assert revoked.json()["state"] == "revoked" and revoked.json()["revoked_at"]
    with pytest.raises(ServiceError):
        token_authenticate(created["token"])
    again = api.post(f"/tokens/{created['id']}/revoke/").json()
    assert again["revoked_at"] == revoked.json()["revoked_at"]


def test_the_list_shows_states_and_filters_by_state_and_agent(api, make_token, owner):
    usable, _ = make_token("claude-code")
    expired, _ = make_token("codex")
    PersonalAccessToken.objects.filter(pk=expired.pk).update(
        expires_at=timezone.now() - timedelta(days=1)
    )
    revoked, _ = make_token("cursor")
    api.post(f"/tokens/{revoked.pk}/revoke/")
    states = {item["agent_name"]: item["state"] for item in api.get("/tokens/").json()["results"]}
    assert states == {"claude-code": "usable", "codex": "expired", "cursor": "revoked"}
    for state, agent in (("usable", "claude-code"), ("expired", "codex"), ("revoked", "cursor")):
        assert [
            i["agent_name"] for i in api.get("/tokens/", {"state": state}).json()["results"]
        ] == [agent]
    assert [i["id"] for i in api.get("/tokens/", {"agent_name": "codex"}).json()["results"]] == [
        expired.pk
    ]


def test_tokens_page_newest_first(api, make_token):
    made = [make_token(f"agent-{i}")[0].pk for i in range(5)]
    first = api.get("/tokens/", {"limit": 3}).json()
    rest = api.get("/tokens/", {"limit": 3, "cursor": first["next_cursor"]}).json()
    listed = [item["id"] for page in (first, rest) for item in page["results"]]
    assert sorted(listed) == sorted(made) and len(listed) == 5
    assert rest["next_cursor"] is None


def test_another_owner_neither_sees_nor_revokes_my_tokens(other_api, make_token):
    token, _ = make_token("claude-code")
    assert other_api.get("/tokens/").json()["results"] == []
    before = db_state()
    error_of(other_api.get(f"/tokens/{token.pk}/"), 404, "NOT_FOUND")
    error_of(other_api.post(f"/tokens/{token.pk}/revoke/"), 404, "NOT_FOUND")
    assert db_state() == before
    token.refresh_from_db()
    assert token.revoked_at is None
