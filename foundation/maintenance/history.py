"""What background runs did, as the settings page shows it (newest first, bounded)."""

from __future__ import annotations

from django.utils.module_loading import autodiscover_modules

from foundation.maintenance.runs import JOBS
from foundation.models import MaintenanceRun, MaintenanceRunStatus

MAX_RUNS = 50
# Parameters a run echoes back (its window, cutoff, batch count): not something it did.
NOT_COUNTS = {"window", "after_days", "cap", "batches", "unit", "cutoff", "complete"}


def run_counts(result: dict, prefix: tuple[str, ...] = ()) -> list[tuple[str, int]]:
    """Every number a run reported, as (what, how many): `rules.tokens.removed` reads
    `tokens · removed` (the per-rule nesting of retention says nothing by itself)."""
    counts = []
    for key, value in result.items():
        if key in NOT_COUNTS:
            continue
        path = prefix if key == "rules" else (*prefix, key)
        if isinstance(value, dict):
            counts += run_counts(value, path)
        elif isinstance(value, int) and not isinstance(value, bool):
            counts.append((" · ".join(path), value))
    return counts


def recent_runs(*, limit: int = 20, include_skipped: bool = False) -> list[dict]:
    """The latest maintenance runs of every job with what each removed or produced.
    Skipped runs (another worker had the job) are left out unless asked for."""
    if not JOBS:  # jobs register when their app's tasks module is imported (a worker does)
        autodiscover_modules("tasks")
    runs = MaintenanceRun.objects.order_by("-started_at", "-id")
    if not include_skipped:
        runs = runs.exclude(status=MaintenanceRunStatus.SKIPPED)
    return [
        {
            "run": run,
            "description": JOBS[run.task].description if run.task in JOBS else "",
            "counts": run_counts(run.result if isinstance(run.result, dict) else {}),
        }
        for run in runs[: min(limit, MAX_RUNS)]
    ]
