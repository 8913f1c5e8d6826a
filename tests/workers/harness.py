"""Run inside a subprocess by the integration tests, against the worker's own settings.

python -m tests.workers.harness migrate
python -m tests.workers.harness seed COUNT          # expired idempotency records
python -m tests.workers.harness enqueue TASK COPIES # as if COPIES beats sent TASK at once
"""

from __future__ import annotations

import os
import sys


def main(argv: list[str]) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "continuity.settings")
    import django

    django.setup()
    from datetime import timedelta

    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    command, *args = argv
    if command == "migrate":
        call_command("migrate", interactive=False, verbosity=0)
    elif command == "seed":
        from tests.workers.helpers import idempotency_records

        owner, _ = get_user_model().objects.get_or_create(username="ada")
        idempotency_records(owner, int(args[0]), age=timedelta(days=3))
    elif command == "enqueue":
        from continuity.celery import app

        name, copies = args[0], int(args[1])
        for _ in range(copies):
            app.send_task(name)
    else:
        raise SystemExit(f"unknown command {command!r}")


if __name__ == "__main__":
    main(sys.argv[1:])
