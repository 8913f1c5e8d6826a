"""`manage.py create_token`: a thin door over token_create."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from accounts.models import PersonalAccessToken
from accounts.tokens import TOKEN_PATTERN, token_authenticate

pytestmark = pytest.mark.django_db

BASE = {
    "--user": "ada",
    "--agent": "claude-code",
    "--scopes": "memories:read,memories:write",
    "--expires-in": "30",
}


def run(*extra, **changes):
    """Call the command with BASE options, `changes` replacing some ("--expires-in"="x")."""
    options = {**BASE, **{f"--{key.replace('_', '-')}": value for key, value in changes.items()}}
    argv = [part for key, value in options.items() if value is not None for part in (key, value)]
    out, err = StringIO(), StringIO()
    call_command("create_token", *argv, *extra, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_create_token_prints_a_token_that_authenticates(owner):
    out, err = run()

    raw = out.strip()
    assert TOKEN_PATTERN.match(raw)
    token = token_authenticate(raw)
    assert token.owner == owner
    assert token.agent_name == "claude-code"
    assert token.name == "claude-code token"
    assert token.scopes == ["memories:read", "memories:write"]
    assert token.allowed_projects == []
    assert abs(token.expires_at - (timezone.now() + timedelta(days=30))) < timedelta(minutes=1)
    assert "will not be shown again" in err
    # The raw token appears once, on stdout only, so `$(manage.py create_token ...)` captures it.
    assert raw not in err


def test_create_token_takes_a_name_purpose_and_projects(owner):
    out, err = run(
        "--project",
        "github:ada/notes",
        "--project",
        "github:ada/site",
        name="CI runner",
        purpose="nightly jobs",
        scopes="memories:read, handoff",
    )

    token = token_authenticate(out.strip())
    assert token.name == "CI runner"
    assert token.purpose == "nightly jobs"
    assert token.scopes == ["handoff", "memories:read"]
    assert token.allowed_projects == ["github:ada/notes", "github:ada/site"]
    assert "projects github:ada/notes, github:ada/site" in err


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"user": "nobody"}, "No user named 'nobody'"),
        ({"scopes": "memories:read,admin"}, "unknown: ['admin']"),
        ({"scopes": " , "}, "scopes must be a non-empty subset"),
        ({"expires_in": "0"}, "expires_in_days must be between 1 and 3650"),
        ({"expires_in": "5000"}, "expires_in_days must be between 1 and 3650"),
        ({"expires_in": "soon"}, "invalid int value: 'soon'"),
        ({"agent": "claude code"}, "agent_name must be"),
        ({"name": "n" * 101}, "needs a name of 1-100 characters"),
        ({"user": None}, "--user"),
        ({"expires_in": None}, "--expires-in"),
    ],
    ids=lambda value: str(value)[:30],
)
def test_create_token_refuses_bad_input_and_creates_nothing(owner, changes, message):
    with pytest.raises(CommandError) as caught:
        run(**changes)

    assert message in str(caught.value)
    assert PersonalAccessToken.objects.count() == 0


def test_create_token_refuses_an_inactive_user(owner):
    owner.is_active = False
    owner.save()

    with pytest.raises(CommandError, match="inactive"):
        run()

    assert PersonalAccessToken.objects.count() == 0
