"""Time and peak memory of retention cleanup purging expired rows, as the count grows.

    .venv/bin/python bench/cleanup.py [--sizes 10000,100000,1000000] [--profiles lite,team]

Conversation events do not exist yet (capture comes later); idempotency records are the
largest table that does, and stand in for them: the purge is the same code path any
retention rule takes (foundation.maintenance.retention.purge: primary-key batches of
2,000, one short transaction each). Each size is seeded with that many expired rows plus
1% fresh rows that must survive, then purged; the script prints seconds, rows/s and the
growth and the peak of the process's resident memory during the purge (sampled every
20 ms), which should stay flat as the count grows.

lite: SQLite in a temporary data directory. team: PostgreSQL from BENCH_DATABASE_URL, else
DATABASE_URL (default postgres://postgres@127.0.0.1:27432/continuity_workers), in a scratch
database created and dropped here. Each profile runs in a subprocess of its own.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_POSTGRES = "postgres://postgres@127.0.0.1:27432/continuity_workers"
STAND_IN = "idempotency records (standing in for conversation events until capture exists)"


def rss_bytes() -> int:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


class PeakRss:
    """Highest resident memory seen while the block runs, sampled in a thread."""

    def __enter__(self):
        self.start = self.peak = rss_bytes()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def _sample(self):
        while not self._stop.wait(0.02):
            self.peak = max(self.peak, rss_bytes())

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, rss_bytes())

    @property
    def growth_mb(self) -> float:
        return (self.peak - self.start) / 2**20

    @property
    def peak_mb(self) -> float:
        return self.peak / 2**20


def seed(owner_id: int, expired: int, fresh: int) -> None:
    """Rows inserted by the database itself (generate_series / a recursive CTE): seeding a
    million rows through the ORM would take longer than the purge being measured."""
    from datetime import timedelta

    from django.db import connection, transaction
    from django.utils import timezone

    old = connection.ops.adapt_datetimefield_value(timezone.now() - timedelta(days=3))
    new = connection.ops.adapt_datetimefield_value(timezone.now())
    columns = "owner_id, namespace, key, operation, request_hash, receipt, created_at"
    with transaction.atomic(), connection.cursor() as cursor:
        for count, created_at, prefix in ((expired, old, "old"), (fresh, new, "new")):
            if connection.vendor == "sqlite":
                cursor.execute(
                    "WITH RECURSIVE seq(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM seq WHERE n < %s) "
                    f"INSERT INTO memories_idempotencyrecord ({columns}) "
                    "SELECT %s, 'bench', %s || n, 'remember', '', '{}', %s FROM seq",
                    [count, owner_id, prefix, created_at],
                )
            else:
                cursor.execute(
                    f"INSERT INTO memories_idempotencyrecord ({columns}) "
                    "SELECT %s, 'bench', %s || n, 'remember', '', '{}', %s FROM generate_series(1, %s) n",
                    [owner_id, prefix, created_at, count],
                )
        if connection.vendor == "postgresql":
            cursor.execute("ANALYZE memories_idempotencyrecord")


def run_profile(profile: str, sizes: list[int]) -> None:
    data_dir = tempfile.mkdtemp(prefix="continuity-bench-cleanup-")
    os.environ.update(CONTINUITY_DATA_DIR=data_dir, DJANGO_SETTINGS_MODULE="continuity.settings")
    scratch = None
    if profile == "team":
        import secrets
        from urllib.parse import urlsplit, urlunsplit

        import psycopg

        base = (
            os.environ.get("BENCH_DATABASE_URL")
            or os.environ.get("DATABASE_URL")
            or DEFAULT_POSTGRES
        )
        scratch = f"continuity_workers_bench_{secrets.token_hex(3)}"
        with psycopg.connect(base, dbname="postgres", autocommit=True) as admin:
            admin.execute(f'CREATE DATABASE "{scratch}"')
        os.environ["DATABASE_URL"] = urlunsplit(urlsplit(base)._replace(path=f"/{scratch}"))
        os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:27379/8")
    else:
        for name in ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL"):
            os.environ.pop(name, None)
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection

    from foundation.maintenance.retention import purge, rule_get
    from foundation.maintenance.runs import Deadline
    from memories.models import IdempotencyRecord

    try:
        call_command("migrate", verbosity=0)
        owner = get_user_model().objects.create_user(username="bench")
        rule = rule_get("idempotency_records")
        print(
            f"\n{profile} ({connection.vendor}): purging {STAND_IN}, batches of {rule.batch_size}"
        )
        print(
            f"{'expired rows':>13} {'seed s':>8} {'purge s':>8} {'rows/s':>9} {'RSS +MB':>8} {'peak RSS MB':>12}  kept"
        )
        for size in sizes:
            IdempotencyRecord.objects.all().delete()
            started = time.perf_counter()
            seed(owner.pk, size, max(size // 100, 1))
            seeded = time.perf_counter() - started
            with PeakRss() as memory:
                started = time.perf_counter()
                report = purge(rule, deadline=Deadline.after(24 * 3600))
                elapsed = time.perf_counter() - started
            assert report["removed"] == size and report["complete"], report
            kept = IdempotencyRecord.objects.count()
            print(
                f"{size:>13,} {seeded:>8.1f} {elapsed:>8.1f} {size / elapsed:>9,.0f} "
                f"{memory.growth_mb:>8.1f} {memory.peak_mb:>12.1f}  {kept:,} fresh rows kept",
                flush=True,
            )
    finally:
        connection.close()
        if scratch:
            import psycopg

            with psycopg.connect(base, dbname="postgres", autocommit=True) as admin:
                admin.execute(f'DROP DATABASE IF EXISTS "{scratch}" WITH (FORCE)')


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--profiles", default="lite,team")
    parser.add_argument("--profile", help=argparse.SUPPRESS)  # one profile, in this process
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    if args.profile:
        run_profile(args.profile, sizes)
        return
    for profile in args.profiles.split(","):
        subprocess.run(
            [sys.executable, __file__, "--profile", profile, "--sizes", args.sizes], check=True
        )


if __name__ == "__main__":
    main()
