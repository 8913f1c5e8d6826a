"""Bearer-token authentication and the per-token rate limit, below any web framework."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.auth import actor_from_authorization, authenticate_agent
from accounts.ratelimit import rate_limit_hit
from accounts.tokens import token_revoke
from foundation.actors import Actor
from foundation.errors import (
    AuthenticationFailed,
    ErrorCode,
    ServiceError,
    retry_after_of,
    www_authenticate,
)
from tests.accounts.helpers import end_window

pytestmark = pytest.mark.django_db


def test_a_valid_bearer_token_becomes_an_agent_actor(make_token):
    token, raw = make_token("codex")

    actor = actor_from_authorization(f"Bearer {raw}")

    assert actor.is_agent and actor.token.pk == token.pk and actor.agent_name == "codex"


def test_the_scheme_is_case_insensitive_and_whitespace_tolerated(make_token):
    _, raw = make_token()

    assert actor_from_authorization(f"  bearer   {raw} ").is_agent


@pytest.mark.parametrize("header", [None, "", "   "])
def test_a_missing_header_gets_the_bare_challenge(header):
    with pytest.raises(AuthenticationFailed) as caught:
        actor_from_authorization(header)

    assert caught.value.code == ErrorCode.UNAUTHORIZED
    assert caught.value.www_authenticate == 'Bearer realm="continuity"'


@pytest.mark.parametrize(
    "header", ["Basic dXNlcjpwYXNz", "Bearer", "Bearer a b", "cont_pat_" + "a" * 40, "Token x"]
)
def test_a_header_that_is_not_bearer_token_is_an_invalid_request(header):
    with pytest.raises(AuthenticationFailed) as caught:
        actor_from_authorization(header)

    assert caught.value.www_authenticate == 'Bearer realm="continuity", error="invalid_request"'


def test_unknown_expired_and_revoked_tokens_fail_alike(make_token, owner):
    expired_row, expired = make_token("old")
    expired_row.expires_at = timezone.now() - timedelta(seconds=1)
    expired_row.save()
    revoked_row, revoked = make_token("gone")
    token_revoke(actor=Actor.owner(owner), token_id=revoked_row.pk)
    unknown = "cont_pat_" + "x" * 40
    malformed = "cont_pat_short"

    messages = set()
    for raw in (expired, revoked, unknown, malformed):
        with pytest.raises(AuthenticationFailed) as caught:
            actor_from_authorization(f"Bearer {raw}")
        assert caught.value.www_authenticate == 'Bearer realm="continuity", error="invalid_token"'
        messages.add(caught.value.message)
    assert messages == {"Invalid, expired or revoked access token."}


def test_a_token_of_a_deactivated_owner_is_refused(make_token, owner):
    _, raw = make_token()
    owner.is_active = False
    owner.save()

    with pytest.raises(AuthenticationFailed):
        actor_from_authorization(f"Bearer {raw}")


def test_www_authenticate_is_only_for_authentication_failures():
    assert www_authenticate(ServiceError(ErrorCode.FORBIDDEN, "no")) is None
    assert "invalid_token" in www_authenticate(ServiceError(ErrorCode.UNAUTHORIZED, "no"))


def test_the_rate_limit_refuses_the_request_past_the_limit(settings, make_token):
    settings.CONTINUITY_RATE_LIMIT_PER_MINUTE = 3
    token, raw = make_token()
    for _ in range(3):
        authenticate_agent(f"Bearer {raw}")

    with pytest.raises(ServiceError) as caught:
        authenticate_agent(f"Bearer {raw}")

    assert caught.value.code == ErrorCode.RATE_LIMITED
    assert 1 <= retry_after_of(caught.value) <= 60


def test_the_rate_limit_counts_each_token_separately(settings, make_token):
    settings.CONTINUITY_RATE_LIMIT_PER_MINUTE = 1
    first, _ = make_token("one")
    second, _ = make_token("two")

    rate_limit_hit(first.pk)
    rate_limit_hit(second.pk)
    with pytest.raises(ServiceError):
        rate_limit_hit(first.pk)


def test_a_new_window_starts_a_new_count(settings):
    settings.CONTINUITY_RATE_LIMIT_PER_MINUTE = 1
    rate_limit_hit(7)
    with pytest.raises(ServiceError) as caught:
        rate_limit_hit(7)
    assert 1 <= retry_after_of(caught.value) <= 60

    end_window("ratelimit:token:7")
    rate_limit_hit(7)


def test_a_limit_of_zero_turns_the_limit_off(settings):
    settings.CONTINUITY_RATE_LIMIT_PER_MINUTE = 0
    for _ in range(50):
        rate_limit_hit(8)


def test_an_unreachable_counter_lets_requests_through(settings, monkeypatch, caplog):
    settings.CONTINUITY_RATE_LIMIT_PER_MINUTE = 1

    def broken(*args, **kwargs):
        raise ConnectionError("counter store down")

    monkeypatch.setattr("accounts.ratelimit.counter_hit", broken)
    rate_limit_hit(9)
    rate_limit_hit(9)
    assert "rate limit counter unavailable" in caplog.text
