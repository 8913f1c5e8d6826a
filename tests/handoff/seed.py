"""Prepare the MCP test server's database for handoff tests; run in the server's environment.

python -m tests.handoff.seed tokens        handoff-scoped tokens for ada and grace, as JSON
python -m tests.handoff.seed expire TASK   expire every capsule of that task
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

from accounts.tokens import token_create  # noqa: E402
from foundation.actors import Actor  # noqa: E402
from handoff.models import HandoffCapsule  # noqa: E402

SCOPES = ["memories:read", "memories:write", "handoff"]


def tokens() -> dict:
    users = get_user_model().objects
    issued = {}
    for name, username, agent in (
        ("writer", "ada", "claude-code"), ("reader", "ada", "codex"), ("grace", "grace", "cursor"),
    ):  # fmt: skip
        _, raw = token_create(
            actor=Actor.owner(users.get(username=username)), name=f"handoff {name}",
            agent_name=agent, scopes=SCOPES, expires_in_days=1,
        )  # fmt: skip
        issued[name] = raw
    return issued


def expire(task_id: str) -> dict:
    past = timezone.now() - timedelta(seconds=1)
    return {"expired": HandoffCapsule.objects.filter(task_id=task_id).update(expires_at=past)}


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    print(json.dumps({"tokens": tokens, "expire": expire}[command](*args)))
