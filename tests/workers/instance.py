"""A Continuity instance with real Celery workers as subprocesses, for the tests that need
one (workers, capture, the client end to end); `instance` is a fixture for every directory
through tests/conftest.py."""

from __future__ import annotations

import json
import os
import secrets
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

ROOT = Path(__file__).resolve().parents[2]
READY_TIMEOUT = 120  # a worker takes 6–9 s to start on 2 cores; generous bound
WORK_TIMEOUT = 90
RETENTION = "continuity.retention_cleanup"


def team_urls() -> tuple[str, str] | None:
    database = os.environ.get("WORKERS_TEST_DATABASE_URL") or os.environ.get("DATABASE_URL", "")
    redis_url = os.environ.get("WORKERS_TEST_REDIS_URL") or os.environ.get("REDIS_URL", "")
    if not database.startswith("postgres") or not redis_url.startswith("redis"):
        return None
    if not os.environ.get("WORKERS_TEST_REDIS_URL"):
        # The suite's own Redis database stays untouched: use another number on that server.
        current = urlsplit(redis_url).path.strip("/") or "0"
        redis_url = urlunsplit(
            urlsplit(redis_url)._replace(path="/13" if current != "13" else "/12")
        )
    return database, redis_url


class Instance:
    """One Continuity installation (data dir + database + broker) and its workers."""

    def __init__(self, tmp_path: Path, profile: str):
        self.tmp_path = tmp_path
        self.profile = profile
        self.workers: list[tuple[subprocess.Popen, Path]] = []
        self.env = dict(
            os.environ,
            DJANGO_SETTINGS_MODULE="continuity.settings",
            CONTINUITY_DATA_DIR=str(tmp_path / "data"),
            PYTHONUNBUFFERED="1",
            PYTHONPATH=str(ROOT),
        )
        for name in ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL", "CONTINUITY_PROFILE"):
            self.env.pop(name, None)
        self.database_name = None
        if profile == "team":
            database, redis_url = team_urls()
            self.database_name = f"continuity_workers_{secrets.token_hex(4)}"
            self.admin_url = database
            self._admin(f'CREATE DATABASE "{self.database_name}"')
            self.database_url = urlunsplit(
                urlsplit(database)._replace(path=f"/{self.database_name}")
            )
            self.env.update(DATABASE_URL=self.database_url, REDIS_URL=redis_url)
            import redis

            redis.Redis.from_url(redis_url).flushdb()

    def _admin(self, sql: str) -> None:
        import psycopg

        with psycopg.connect(self.admin_url, dbname="postgres", autocommit=True) as admin:
            admin.execute(sql)

    def harness(self, *args: str, **env: str) -> None:
        subprocess.run(
            [sys.executable, "-m", "tests.workers.harness", *args],
            cwd=ROOT, env={**self.env, **env}, check=True, timeout=120,
        )  # fmt: skip

    def query(self, sql: str) -> list[tuple]:
        if self.profile == "lite":
            with sqlite3.connect(self.tmp_path / "data" / "continuity.sqlite3", timeout=20) as db:
                return db.execute(sql).fetchall()
        import psycopg

        with psycopg.connect(self.database_url) as db:
            return db.execute(sql).fetchall()

    def runs(self, task: str) -> list[dict]:
        rows = self.query(
            f"SELECT status, worker, result FROM continuity_maintenancerun WHERE task = '{task}' ORDER BY id"
        )
        return [
            {
                "status": status,
                "worker": worker,
                "result": json.loads(result) if isinstance(result, str) else result,
            }
            for status, worker, result in rows
        ]

    def start_worker(self, name: str, *extra: str, **env: str) -> None:
        log = self.tmp_path / f"{name}.log"
        command = [
            sys.executable, "-m", "celery", "-A", "continuity", "worker", "--pool", "solo",
            "--hostname", f"{name}@%h", "--loglevel", "INFO", "--without-mingle", "--without-gossip",
            *extra,
        ]  # fmt: skip
        with open(log, "w") as handle:
            process = subprocess.Popen(
                command, cwd=self.tmp_path, env={**self.env, **env}, stdin=subprocess.DEVNULL,
                stdout=handle, stderr=subprocess.STDOUT, process_group=0,
            )  # fmt: skip
        self.workers.append((process, log))
        wait_until(
            lambda: " ready." in log.read_text(errors="replace"),
            f"{name} ready",
            READY_TIMEOUT,
            self,
        )

    def logs(self) -> str:
        return "\n".join(
            f"--- {log.name}\n{log.read_text(errors='replace')[-4000:]}" for _, log in self.workers
        )

    def stop(self) -> None:
        for process, _ in self.workers:
            if process.poll() is None:
                process.terminate()
        for process, _ in self.workers:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, 9)
                process.wait()
        if self.database_name:
            self._admin(f'DROP DATABASE IF EXISTS "{self.database_name}" WITH (FORCE)')


def wait_until(condition, what: str, timeout: float, instance: Instance):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = condition()
        if result:
            return result
        for process, _log in instance.workers:
            if process.poll() is not None:
                pytest.fail(
                    f"a worker exited ({process.returncode}) before {what}:\n{instance.logs()}"
                )
        time.sleep(0.2)
    pytest.fail(f"no {what} within {timeout} s:\n{instance.logs()}")


PROFILES = [
    pytest.param("lite", marks=pytest.mark.once),  # its own SQLite store, whatever the run
    pytest.param("team", marks=pytest.mark.postgres),  # PostgreSQL + Redis: the team run
]  # fmt: skip


@pytest.fixture(params=PROFILES)
def instance(request, tmp_path):
    made = Instance(tmp_path, request.param)
    try:
        made.harness("migrate")
        yield made
    finally:
        made.stop()
