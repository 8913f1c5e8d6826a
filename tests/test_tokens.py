"""Personal access tokens at the service level: create, authenticate, revoke."""

from __future__ import annotations

import hashlib
from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.models import PersonalAccessToken
from accounts.tokens import (
    LAST_USED_RESOLUTION,
    PREFIX_LENGTH,
    TOKEN_MARKER,
    TOKEN_PATTERN,
    token_authenticate,
    token_create,
    token_revoke,
)
from foundation.actors import Actor
from foundation.errors import ErrorCode, ServiceError

pytestmark = pytest.mark.django_db

VALID = dict(
    name="laptop claude",
    agent_name="claude-code",
    scopes=["memories:read", "memories:write"],
    expires_in_days=30,
)


def create(actor, **changes):
    return token_create(actor=actor, **{**VALID, **changes})


def assert_unauthorized(raw):
    with pytest.raises(ServiceError) as caught:
        token_authenticate(raw)
    assert caught.value.code == ErrorCode.UNAUTHORIZED
    # One message for every failure, so a caller learns nothing about which check failed.
    assert caught.value.message == "Invalid, expired or revoked access token."


# --- create -------------------------------------------------------------------------------


def test_created_token_matches_the_public_pattern(owner_actor):
    token, raw = create(owner_actor)

    assert TOKEN_PATTERN.match(raw)
    assert raw.startswith("cont_pat_")
    assert token.owner == owner_actor.user
    assert token.agent_name == "claude-code"
    assert token.scopes == ["memories:read", "memories:write"]
    assert token.allowed_projects == []
    assert token.revoked_at is None and token.last_used_at is None


def test_raw_token_is_never_stored_only_its_hash(owner_actor):
    token, raw = create(owner_actor)
    row = PersonalAccessToken.objects.filter(pk=token.pk).values().get()

    assert row["secret_hash"] == hashlib.sha256(raw.encode()).hexdigest()
    assert row["prefix"] == raw[len(TOKEN_MARKER) : len(TOKEN_MARKER) + PREFIX_LENGTH]
    secret = raw[len(TOKEN_MARKER) :]
    for column, value in row.items():
        assert secret not in str(value), f"{column} holds the secret"


def test_each_token_gets_a_different_secret(owner_actor):
    raws = {create(owner_actor, name=f"t{i}")[1] for i in range(5)}
    assert len(raws) == 5


def test_expiry_in_days_is_counted_from_now(owner_actor):
    before = timezone.now()
    token, _ = create(owner_actor, expires_in_days=7)
    assert before + timedelta(days=7) <= token.expires_at <= timezone.now() + timedelta(days=7)


def test_explicit_expiry_is_kept(owner_actor):
    when = timezone.now() + timedelta(days=3)
    token, _ = create(owner_actor, expires_in_days=None, expires_at=when)
    assert token.expires_at == when


def test_scopes_and_projects_are_normalised(owner_actor):
    token, _ = create(
        owner_actor,
        scopes=["memories:write", "memories:read", "memories:write"],
        allowed_projects=[" github:b/two ", "github:a/one", "", "github:a/one"],
    )
    assert token.scopes == ["memories:read", "memories:write"]
    assert token.allowed_projects == ["github:a/one", "github:b/two"]


@pytest.mark.parametrize(
    "changes, field",
    [
        ({"name": ""}, "name"),
        ({"name": "   "}, "name"),
        ({"name": "n" * 101}, "name"),
        ({"agent_name": ""}, "agent_name"),
        ({"agent_name": "claude code"}, "agent_name"),
        ({"agent_name": "-leading-dash"}, "agent_name"),
        ({"agent_name": "a" * 101}, "agent_name"),
        ({"scopes": []}, "scopes"),
        ({"scopes": ["memories:read", "admin"]}, "scopes"),
        ({"expires_in_days": None}, "expires_at"),
        ({"expires_at": timezone.now() + timedelta(days=1)}, "expires_at"),
        ({"expires_in_days": 0}, "expires_in_days"),
        ({"expires_in_days": -5}, "expires_in_days"),
        ({"expires_in_days": 3651}, "expires_in_days"),
        (
            {"expires_in_days": None, "expires_at": timezone.now() - timedelta(minutes=1)},
            "expires_at",
        ),
        (
            {"expires_in_days": None, "expires_at": timezone.now() + timedelta(days=3700)},
            "expires_at",
        ),
    ],
    ids=lambda value: str(value)[:40] if isinstance(value, dict) else value,
)
def test_create_rejects_each_bad_field_and_creates_nothing(owner_actor, changes, field):
    with pytest.raises(ServiceError) as caught:
        create(owner_actor, **changes)

    assert caught.value.code == ErrorCode.VALIDATION_ERROR
    assert caught.value.details[0]["field"] == field
    assert PersonalAccessToken.objects.count() == 0


def test_unknown_scope_is_named_in_the_error(owner_actor):
    with pytest.raises(ServiceError) as caught:
        create(owner_actor, scopes=["memories:read", "root"])
    assert "root" in caught.value.message


def test_agent_cannot_create_tokens(agent_actor):
    count = PersonalAccessToken.objects.count()

    with pytest.raises(ServiceError) as caught:
        create(agent_actor, agent_name="sneaky")

    assert caught.value.code == ErrorCode.FORBIDDEN
    assert PersonalAccessToken.objects.count() == count


# --- authenticate -------------------------------------------------------------------------


def test_authenticate_accepts_the_right_token(owner_actor):
    token, raw = create(owner_actor)
    assert token_authenticate(raw) == token


def test_authenticate_rejects_a_wrong_secret_with_the_right_prefix(owner_actor):
    _, raw = create(owner_actor)
    last = raw[-1]
    forged = raw[:-1] + ("A" if last != "A" else "B")
    assert TOKEN_PATTERN.match(forged)

    assert_unauthorized(forged)


@pytest.mark.parametrize(
    "raw",
    [
        "",
        "cont_pat_",
        "cont_pat_short",
        "cont_pat_" + "a" * 41,
        "cont_pat_" + "a" * 39 + "!",
        "ghp_" + "a" * 40,
        "Bearer cont_pat_" + "a" * 40,
    ],
)
def test_authenticate_rejects_malformed_tokens(raw):
    assert_unauthorized(raw)


def test_authenticate_rejects_an_unknown_token(owner_actor):
    create(owner_actor)
    assert_unauthorized("cont_pat_" + "z" * 40)


def test_authenticate_rejects_an_expired_token(owner_actor):
    token, raw = create(owner_actor)
    PersonalAccessToken.objects.filter(pk=token.pk).update(
        expires_at=timezone.now() - timedelta(seconds=1)
    )
    assert_unauthorized(raw)


def test_authenticate_rejects_a_revoked_token(owner_actor):
    token, raw = create(owner_actor)
    token_revoke(actor=owner_actor, token_id=token.pk)
    assert_unauthorized(raw)


def test_authenticate_rejects_the_token_of_an_inactive_owner(owner, owner_actor):
    _, raw = create(owner_actor)
    owner.is_active = False
    owner.save()
    assert_unauthorized(raw)


def test_authenticate_records_last_use(owner_actor):
    token, raw = create(owner_actor)

    token_authenticate(raw)

    token.refresh_from_db()
    assert token.last_used_at is not None
    assert timezone.now() - token.last_used_at < timedelta(seconds=5)


def test_last_use_is_written_at_most_once_a_minute(
    owner_actor, monkeypatch, django_assert_num_queries
):
    token, raw = create(owner_actor)
    start = timezone.now()
    clock = {"now": start}
    monkeypatch.setattr(timezone, "now", lambda: clock["now"])

    token_authenticate(raw)
    clock["now"] = start + LAST_USED_RESOLUTION - timedelta(seconds=1)
    with django_assert_num_queries(1):  # the lookup only; no write
        token_authenticate(raw)
    token.refresh_from_db()
    assert token.last_used_at == start

    clock["now"] = start + LAST_USED_RESOLUTION
    token_authenticate(raw)
    token.refresh_from_db()
    assert token.last_used_at == start + LAST_USED_RESOLUTION


# --- revoke -------------------------------------------------------------------------------


def test_owner_revokes_their_token(owner_actor):
    token, _ = create(owner_actor)

    revoked = token_revoke(actor=owner_actor, token_id=token.pk)

    assert revoked.revoked_at is not None
    token.refresh_from_db()
    assert token.is_revoked and not token.is_usable


def test_revoking_twice_keeps_the_first_revocation_time(owner_actor):
    token, _ = create(owner_actor)
    first = token_revoke(actor=owner_actor, token_id=token.pk).revoked_at

    second = token_revoke(actor=owner_actor, token_id=token.pk).revoked_at

    assert second == first
    token.refresh_from_db()
    assert token.revoked_at == first


def test_another_owner_cannot_revoke_my_token(owner_actor, other_owner):
    token, raw = create(owner_actor)

    with pytest.raises(ServiceError) as caught:
        token_revoke(actor=Actor.owner(other_owner), token_id=token.pk)

    # NOT_FOUND rather than FORBIDDEN: another owner's tokens do not exist for them.
    assert caught.value.code == ErrorCode.NOT_FOUND
    token.refresh_from_db()
    assert token.revoked_at is None
    assert token_authenticate(raw) == token


def test_agent_cannot_revoke_tokens_not_even_its_own(agent_actor):
    with pytest.raises(ServiceError) as caught:
        token_revoke(actor=agent_actor, token_id=agent_actor.token.pk)

    assert caught.value.code == ErrorCode.FORBIDDEN
    agent_actor.token.refresh_from_db()
    assert agent_actor.token.revoked_at is None


def test_revoking_an_unknown_token_is_not_found(owner_actor):
    with pytest.raises(ServiceError) as caught:
        token_revoke(actor=owner_actor, token_id=999_999)
    assert caught.value.code == ErrorCode.NOT_FOUND
