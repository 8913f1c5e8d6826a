"""`manage.py restore FILE --yes`: put a backup back (handoff/backup.py). Refuses without --yes."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError
from django.db import connection

from foundation.errors import ServiceError
from portability import backup as backups
from portability.management.commands._owner import failure


class Command(BaseCommand):
    # An operator may need this while some other part of the configuration is broken.
    requires_system_checks = []
    help = (
        "Restore a backup made by `backup`, replacing the current data. SQLite: the current "
        "database is kept beside it as a rollback file; stop the server first. PostgreSQL: each "
        "user in the bundle gets their memory replaced. Needs --yes."
    )

    def add_arguments(self, parser):
        parser.add_argument("backup", help="The file `manage.py backup` wrote.")
        parser.add_argument("--yes", action="store_true", help="Really replace the current data.")

    def handle(self, *args, backup: str, yes: bool, **options):
        if not yes:
            raise CommandError(
                "Restoring replaces the current data. Nothing was changed; run again with --yes "
                "to restore (SQLite keeps the current database as a rollback file)."
            )
        try:
            if connection.vendor == "sqlite":
                info = backups.sqlite_restore(backup=backup)
                self.stdout.write(f"Restored {info['memories']} memories from {backup}.")
                if info["rollback"]:
                    self.stdout.write(f"The previous database is kept at {info['rollback']}.")
                if info["pending_migrations"]:
                    self.stdout.write(
                        "The backup predates some migrations: run `manage.py migrate`."
                    )
            else:
                info = backups.bundle_restore(backup=backup)
                for username, created in info["users"].items():
                    counts = ", ".join(f"{count} {kind}" for kind, count in created.items())
                    self.stdout.write(f"Restored {username}: {counts}.")
        except ServiceError as error:
            raise failure(error) from None
