"""`manage.py export_memories --user U --output FILE.tar.gz`: one owner's memory package."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from foundation.errors import ServiceError
from portability.management.commands._owner import failure, owner_actor
from portability.packages import package_export


class Command(BaseCommand):
    help = (
        "Export one owner's memories, history, links and handoffs as a package (.tar.gz, or a "
        "directory when OUTPUT ends with / or is a directory)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--user", required=True, help="The owner's username.")
        parser.add_argument("--output", required=True, help="FILE.tar.gz or DIRECTORY/.")

    def handle(self, *args, user, output, **options):
        try:
            manifest = package_export(actor=owner_actor(user), output=output)
        except ServiceError as error:
            raise failure(error) from None
        counts = ", ".join(f"{count} {kind}" for kind, count in manifest["counts"].items())
        self.stdout.write(f"Exported {counts} to {output}")
