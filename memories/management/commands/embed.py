"""`manage.py embed`: semantic-recall vectors — progress, and the back-fill.

    manage.py embed                     what is embedded, stale and missing, per model
    manage.py embed --backfill [--batch N] [--owner USERNAME]

The back-fill embeds, in batches, every searchable memory that has no vector of the
active model for its current text (new memories written before semantic recall was on,
text changed, or a change of model). Idempotent: run it again to resume.
"""

from __future__ import annotations

import time

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from memories.embeddings.embedders import EmbedderUnavailable
from memories.embeddings.vectors import DEFAULT_BATCH, embedding_status
from memories.embeddings.vectors import backfill as run_backfill


class Command(BaseCommand):
    help = "Show semantic-recall embedding progress; --backfill embeds what is missing or stale."

    def add_arguments(self, parser):
        parser.add_argument(
            "--backfill", action="store_true", help="embed what lacks a current vector"
        )
        parser.add_argument(
            "--batch", type=int, default=DEFAULT_BATCH, help="memories per model call"
        )
        parser.add_argument("--owner", help="only this owner's memories (username)")

    def handle(self, *args, backfill: bool, batch: int, owner: str | None, **options):
        if batch < 1 or batch > 1000:
            raise CommandError("--batch must be between 1 and 1000.")
        user = None
        if owner:
            user = get_user_model().objects.filter(username=owner).first()
            if user is None:
                raise CommandError(f"No owner named {owner!r}.")
        self.report(user)
        if not backfill:
            return
        started = time.monotonic()

        def progress(done: int, total: int) -> None:
            rate = done / max(time.monotonic() - started, 1e-9)
            self.stdout.write(f"embedded {done}/{total} ({rate:.1f} memories/s)")

        try:
            written = run_backfill(owner=user, batch=batch, progress=progress)
        except EmbedderUnavailable as error:
            raise CommandError(f"The embedding model is unavailable: {error}") from None
        elapsed = time.monotonic() - started
        self.stdout.write(f"back-fill done: {written} vectors written in {elapsed:.1f} s")
        self.report(user)

    def report(self, user) -> None:
        status = embedding_status(user)
        if status.problem:
            self.stdout.write(f"semantic recall: {status.problem}")
        self.stdout.write(
            f"model {status.model or '-'}: {status.embedded} of {status.total} memories embedded, "
            f"{status.stale} stale, {status.missing} missing"
        )
