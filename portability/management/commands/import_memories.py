"""`manage.py import_memories --user U FILE [--merge] [--dry-run]`: import a memory package,
or with `--from context-keeper` a `.context/` store, or with `--from jsonl` a JSONL file.

Refused whole when anything in the source is wrong; by default only into an empty store.
"""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from foundation.errors import ServiceError
from portability.importers import context_keeper_import, jsonl_import
from portability.management.commands._owner import failure, owner_actor
from portability.packages import package_import

SOURCES = ("package", "context-keeper", "jsonl")


class Command(BaseCommand):
    help = (
        "Import a memory package (.tar.gz or directory) into one owner's store. Everything is "
        "checked before anything is written; by default the store must be empty."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "package",
            help="The package (FILE.tar.gz or a directory), a context-keeper project "
            "or .context/ folder, or a JSONL file.",
        )
        parser.add_argument(
            "--from",
            dest="source",
            choices=SOURCES,
            default="package",
            help="What PACKAGE is (default: a Continuity memory package).",
        )
        parser.add_argument(
            "--project",
            help="context-keeper: the project key its entries belong to "
            "(e.g. github:owner/repo); global when left out.",
        )
        parser.add_argument("--user", required=True, help="The owner's username.")
        parser.add_argument(
            "--merge",
            action="store_true",
            help="Add to a non-empty store: duplicates skipped, conflicts imported as disputed.",
        )
        parser.add_argument("--dry-run", action="store_true", help="Report only; write nothing.")
        parser.add_argument(
            "--json", dest="as_json", action="store_true", help="Print the report as JSON."
        )

    def handle(self, *args, package, user, merge, dry_run, as_json, source, project, **options):
        try:
            actor = owner_actor(user)
            if project and source != "context-keeper":
                raise CommandError("--project applies to --from context-keeper only.")
            if source == "context-keeper":
                report = context_keeper_import(
                    actor=actor, path=package, project_key=project, merge=merge, dry_run=dry_run
                )
            elif source == "jsonl":
                report = jsonl_import(actor=actor, path=package, merge=merge, dry_run=dry_run)
            else:
                report = package_import(actor=actor, source=package, merge=merge, dry_run=dry_run)
        except ServiceError as error:
            raise failure(error) from None
        if as_json:
            self.stdout.write(json.dumps(report.as_dict(), ensure_ascii=False, indent=2))
            return
        self.stdout.write(render(report))


def render(report) -> str:
    verb = "Would import" if report.dry_run else "Imported"
    created = ", ".join(f"{count} {kind}" for kind, count in report.created.items())
    lines = [f"{verb} ({report.mode} mode): created {created}."]
    duplicates = ", ".join(f"{count} {kind}" for kind, count in report.duplicate.items() if count)
    lines.append(f"Duplicate (already here, skipped): {duplicates or 'none'}.")
    if report.skipped_events:
        lines.append(f"History events of duplicate memories skipped: {report.skipped_events}.")
    lines.append(f"Conflicting (imported as disputed, for review): {len(report.conflicting)}.")
    for conflict in report.conflicting:
        lines.append(
            f"  - key {conflict['key']!r}: {conflict['id']} vs existing {conflict['existing_id']}"
        )
    if report.new_ids:
        lines.append(f"Records given new ids (their ids were taken here): {report.new_ids}.")
    return "\n".join(lines)
