"""Run in a subprocess by the capture worker test, against that instance's own settings.

    python -m tests.capture.worker_harness post SOURCE THREAD_ID

Posts the fabricated fixture of SOURCE through the agent API (Django's test client: the
real door, the real commit hook that sends the task to the broker) and prints the answer.
"""

from __future__ import annotations

import json
import os
import sys


def main(argv: list[str]) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "continuity.settings")
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.test import Client

    from accounts.tokens import token_create
    from foundation.actors import Actor
    from tests.capture.helpers import items_of

    command, source, thread_id = argv
    if command != "post":
        raise SystemExit(f"unknown command {command!r}")
    owner, _ = get_user_model().objects.get_or_create(username="ada")
    _, raw = token_create(
        actor=Actor.owner(owner), name="hook", agent_name="claude-code", scopes=["capture:write"],
        expires_in_days=1,
    )  # fmt: skip
    response = Client().post(
        "/api/v1/capture/batches",
        json.dumps({"source": source, "thread_id": thread_id, "items": items_of(source)}),
        content_type="application/json",
        headers={"Authorization": f"Bearer {raw}", "Host": "localhost"},
    )
    print(response.status_code, response.content.decode())


if __name__ == "__main__":
    main(sys.argv[1:])
