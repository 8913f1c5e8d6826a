"""`manage.py doctor`: is this Continuity instance, and its background work, healthy?

Prints what `/health` reports, for a person: database, broker, worker heartbeat age, each
periodic job's last success and what it produced, pending work, and every problem the
watchdog found. Exit status 0 when all is well, 1 when something is failing or degraded
(so it can run from cron or a monitoring check). `--json` prints the report as JSON.
"""

from __future__ import annotations

import json as jsonlib

from django.core.management.base import BaseCommand, CommandError

from continuity.health import health_report


def _seconds(value: float | None) -> str:
    if value is None:
        return "never"
    if value < 120:
        return f"{value:.0f} s ago"
    if value < 7200:
        return f"{value / 60:.0f} min ago"
    return f"{value / 3600:.1f} h ago"


class Command(BaseCommand):
    help = "Check the database, broker, workers and periodic jobs; exit 1 on any problem."

    def add_arguments(self, parser):
        parser.add_argument("--json", action="store_true", help="print the report as JSON")

    def handle(self, *args, json: bool = False, **options):
        report = health_report()
        if json:
            self.stdout.write(_dumps(report))
        else:
            self.stdout.write("\n".join(self.lines(report)))
        if report["status"] != "ok":
            raise CommandError(f"Continuity is {report['status']}.", returncode=1)

    def lines(self, report: dict) -> list[str]:
        def mark(ok: bool) -> str:
            return "ok  " if ok else "FAIL"

        database, broker, watchdog = report["database"], report["broker"], report["watchdog"]
        lines = [
            f"Continuity {report['version']} ({report['profile']} profile): {report['status']}",
            f"  [{mark(database['ok'])}] database  {database['vendor']}"
            + (f" — {database['error']}" if not database["ok"] else ""),
            f"  [{mark(broker['ok'])}] broker    {broker.get('transport', '?')}"
            + (f" — {broker['error']}" if not broker["ok"] else ""),
        ]
        if watchdog is None:
            lines.append("  (background work not checked: the database is unavailable)")
            return lines
        lines.append(f"         heartbeat {_seconds(watchdog['heartbeat_age_seconds'])}")
        for name, job in watchdog["jobs"].items():
            produced = ", ".join(f"{key} {value}" for key, value in job["produced"].items())
            lines.append(
                f"  [{mark(job['ok'])}] {name}: last success {_seconds(job['last_success_age_seconds'])}"
                f" (every {job['interval_seconds']:g} s)" + (f" — {produced}" if produced else "")
            )
            attempt = job["last_attempt"]
            if attempt and attempt["status"] == "failed":
                lines.append(f"         last attempt failed: {attempt['error']}")
        for name, work in watchdog["work"].items():
            lines.append(f"  [{mark(not work['stalled'])}] {name}: {work['pending']} pending")
        for problem in watchdog["problems"]:
            lines.append(f"  problem: {problem}")
        return lines


def _dumps(report: dict) -> str:
    return jsonlib.dumps(report, indent=2, sort_keys=True)
