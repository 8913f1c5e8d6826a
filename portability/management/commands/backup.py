"""`manage.py backup --output FILE`: a consistent backup of this instance (handoff/backup.py)."""

from __future__ import annotations

from django.core.management.base import BaseCommand
from django.db import connection

from foundation.errors import ServiceError
from portability import backup as backups
from portability.management.commands._owner import failure


class Command(BaseCommand):
    # An operator may need this while some other part of the configuration is broken.
    requires_system_checks = []
    help = (
        "Back up this instance while it runs. SQLite: an integrity-checked copy of the database "
        "file. PostgreSQL: a bundle of every user's memory package."
    )

    def add_arguments(self, parser):
        parser.add_argument("--output", required=True, help="Where to write the backup.")

    def handle(self, *args, output, **options):
        try:
            if connection.vendor == "sqlite":
                info = backups.sqlite_backup(output=output)
                summary = f"{info['memories']} memories, {info['bytes']:,} bytes"
            else:
                info = backups.bundle_backup(output=output)
                summary = f"{info['users']} users' memory packages, {info['bytes']:,} bytes"
        except ServiceError as error:
            raise failure(error) from None
        self.stdout.write(f"Backed up ({info['vendor']}) to {info['output']}: {summary}.")
