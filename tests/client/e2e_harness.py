"""Run in a subprocess by the end-to-end test, against that instance's own settings.

python -m tests.client.e2e_harness owner   # the owner (password below) and a hook token, as JSON
"""

from __future__ import annotations

import json
import os
import sys

PASSWORD = "a long owner password for the e2e run"


def main(argv: list[str]) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "continuity.settings")
    import django

    django.setup()
    from django.contrib.auth import get_user_model

    from accounts.tokens import token_create
    from foundation.actors import Actor

    if argv != ["owner"]:
        raise SystemExit(f"unknown command {argv!r}")
    owner = get_user_model().objects.create_user(username="ada", password=PASSWORD)
    _, raw = token_create(
        actor=Actor.owner(owner), name="hooks", agent_name="claude-code",
        scopes=["memories:read", "capture:write"], expires_in_days=1,
    )  # fmt: skip
    print(json.dumps({"username": "ada", "password": PASSWORD, "token": raw}))


if __name__ == "__main__":
    main(sys.argv[1:])
