"""The watchdog: judge the workers by what they produce, not only by whether they answer.

Three kinds of evidence, each turned into plain-language problems:

- periodic jobs (runs.JOBS): a job whose last success is older than
  CONTINUITY_WATCHDOG_LATE_FACTOR × its interval is late; a job that has been attempted
  for that long without ever succeeding is failing. A job not attempted yet is not judged
  (a fresh install, or workers that run elsewhere and have not reached it).
- the heartbeat: once a worker has beaten, a heartbeat older than the factor × its
  interval means the worker or beat stopped.
- work probes: a queue of pending work (capture batches, later) registers a WorkProbe
  telling how much is pending and when something was last processed; pending work with
  no progress for CONTINUITY_WATCHDOG_STALL_SECONDS is a stall. Capture plugs in with one
  `register_probe(...)` in its tasks module.

Everything here is a few indexed reads, cheap enough for `/health`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.utils import timezone
from django.utils.module_loading import autodiscover_modules

from foundation.maintenance.runs import JOBS, PeriodicJob, last_success
from foundation.models import MaintenanceRun
from foundation.models import MaintenanceRunStatus as RunStatus


@dataclass(frozen=True)
class WorkProbe:
    name: str
    pending: Callable[[], int]  # how many items wait to be processed
    last_progress: Callable[[], datetime | None]  # when an item was last processed


PROBES: dict[str, WorkProbe] = {}
_discovered = False


def register_probe(probe: WorkProbe) -> WorkProbe:
    PROBES[probe.name] = probe
    return probe


def _discover() -> None:
    # Jobs and probes are declared in the apps' tasks modules, which a web process has
    # not necessarily imported.
    global _discovered
    if not _discovered:
        autodiscover_modules("tasks")
        _discovered = True


def _age(moment: datetime | None, now: datetime) -> float | None:
    return None if moment is None else round((now - moment).total_seconds(), 1)


def produced(result: dict, prefix: str = "", limit: int = 16) -> dict:
    """The numbers a run's result holds, flattened ("rules.idempotency_records.removed": 5)."""
    found: dict = {}
    for key, value in (result or {}).items():
        name = f"{prefix}{key}"
        if isinstance(value, bool) or not isinstance(value, (int, float, dict)):
            continue
        if isinstance(value, dict):
            found.update(produced(value, f"{name}.", limit))
        elif key not in {"window", "batches", "cap", "after_days"}:
            found[name] = value
    return dict(list(found.items())[:limit])


def job_report(job: PeriodicJob, now: datetime) -> tuple[dict, list[str]]:
    late_after = job.interval_seconds * settings.CONTINUITY_WATCHDOG_LATE_FACTOR
    success = last_success(job.name)
    attempt = (
        MaintenanceRun.objects.filter(task=job.name)
        .exclude(status=RunStatus.SKIPPED)
        .order_by("-started_at", "-id")
        .first()
    )
    report = {
        "interval_seconds": job.interval_seconds,
        "last_success": success.started_at.isoformat() if success else None,
        "last_success_age_seconds": _age(success.finished_at, now) if success else None,
        "produced": produced(success.result) if success else {},
        "last_attempt": None,
    }
    if attempt is not None:
        report["last_attempt"] = {
            "status": attempt.status, "started_at": attempt.started_at.isoformat(),
            "error": attempt.error,
        }  # fmt: skip
    problems = []
    if success is not None and (now - success.finished_at).total_seconds() > late_after:
        problems.append(
            f"{job.name}: last success {_age(success.finished_at, now):.0f} s ago, "
            f"more than {settings.CONTINUITY_WATCHDOG_LATE_FACTOR:g} intervals"
        )
    elif success is None and attempt is not None:
        first = MaintenanceRun.objects.filter(task=job.name).order_by("started_at").first()
        if (now - first.started_at).total_seconds() > late_after:
            problems.append(
                f"{job.name}: never succeeded; last attempt {attempt.status}: {attempt.error}"
            )
    report["ok"] = not problems
    return report, problems


def heartbeat_report(last_heartbeat: str | None, now: datetime) -> tuple[dict, list[str]]:
    when = datetime.fromisoformat(last_heartbeat) if last_heartbeat else None
    age = _age(when, now)
    report = {"heartbeat_age_seconds": age}
    late_after = settings.CONTINUITY_HEARTBEAT_SECONDS * settings.CONTINUITY_WATCHDOG_LATE_FACTOR
    if age is not None and age > late_after:
        return report, [f"worker heartbeat {age:.0f} s old: the worker or beat has stopped"]
    return report, []


def probe_report(probe: WorkProbe, now: datetime) -> tuple[dict, list[str]]:
    pending = probe.pending()
    progress = probe.last_progress()
    age = _age(progress, now)
    stalled = pending > 0 and (age is None or age > settings.CONTINUITY_WATCHDOG_STALL_SECONDS)
    report = {"pending": pending, "last_progress": progress.isoformat() if progress else None,
              "stalled": stalled}  # fmt: skip
    if stalled:
        since = "ever" if age is None else f"{age:.0f} s"
        return report, [f"{probe.name}: {pending} pending but nothing processed for {since}"]
    return report, []


def watchdog_report(*, last_heartbeat: str | None, now: datetime | None = None) -> dict:
    _discover()
    now = now or timezone.now()
    problems: list[str] = []
    heartbeat, found = heartbeat_report(last_heartbeat, now)
    problems += found
    jobs = {}
    for job in JOBS.values():
        jobs[job.name], found = job_report(job, now)
        problems += found
    work = {}
    for probe in PROBES.values():
        work[probe.name], found = probe_report(probe, now)
        problems += found
    return {"ok": not problems, "problems": problems, **heartbeat, "jobs": jobs, "work": work}
