"""Prepare the database of a Continuity server under test; run in the server's environment.

    python -m tests.mcp.seed setup          users and tokens, printed as JSON
    python -m tests.mcp.seed revoke ID      revoke a token
    python -m tests.mcp.seed count          how many memories and events exist, as JSON

The tests drive the server from outside, so they prepare its database from outside too.
"""

from __future__ import annotations

import json
import os
import sys
from datetime import timedelta

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "continuity.settings")
django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.utils import timezone  # noqa: E402

from accounts.models import PersonalAccessToken  # noqa: E402
from accounts.tokens import token_create, token_revoke  # noqa: E402
from foundation.actors import Actor  # noqa: E402
from memories.models import Memory, MemoryEvent  # noqa: E402

READ_WRITE = ["memories:read", "memories:write"]


def setup() -> dict:
    users = get_user_model().objects
    ada = users.create_user(username="ada", password="correct horse battery staple")
    grace = users.create_user(username="grace", password="another long passphrase")
    tokens = {}

    def issue(name, user, agent, scopes, **extra):
        token, raw = token_create(
            actor=Actor.owner(user), name=name, agent_name=agent, scopes=scopes,
            expires_in_days=30, **extra,
        )  # fmt: skip
        tokens[name] = {"id": token.pk, "raw": raw, "agent": agent}
        return token

    issue("full", ada, "claude-code", READ_WRITE)
    issue("second", ada, "codex", READ_WRITE)
    issue("read_only", ada, "cursor", ["memories:read"])
    issue("to_revoke", ada, "gemini", READ_WRITE)
    issue("stdio_revoke", ada, "gemini-cli", READ_WRITE)
    issue("limited", ada, "busy-agent", READ_WRITE)
    issue("grace", grace, "claude-code", READ_WRITE)
    expired = issue("expired", ada, "old-agent", READ_WRITE)
    PersonalAccessToken.objects.filter(pk=expired.pk).update(
        expires_at=timezone.now() - timedelta(seconds=1)
    )
    return tokens


def revoke(token_id: str) -> dict:
    token = PersonalAccessToken.objects.select_related("owner").get(pk=int(token_id))
    token_revoke(actor=Actor.owner(token.owner), token_id=token.pk)
    return {"revoked": token.pk}


def count() -> dict:
    return {"memories": Memory.objects.count(), "events": MemoryEvent.objects.count()}


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    print(json.dumps({"setup": setup, "revoke": revoke, "count": count}[command](*args)))
