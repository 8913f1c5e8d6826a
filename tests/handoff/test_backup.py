"""`manage.py backup` / `manage.py restore` against an instance of their own, run as an
operator runs them: separate processes on a data directory (SQLite) or a dedicated
PostgreSQL database."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.mcp.live import ROOT, with_path

pytestmark = pytest.mark.slow

SEED = """
from django.contrib.auth import get_user_model
from foundation.actors import Actor
from handoff.services import handoff_create
from memories.services import memory_remember
users = get_user_model().objects
ada = users.filter(username="ada").first() or users.create_user(username="ada", password="x" * 20)
memory_remember(actor=Actor.owner(ada), content={content!r}, kind="fact")
handoff_create(actor=Actor.owner(ada), task_id="T-1", summary={content!r})
"""
COUNT = """
import json
from memories.models import Memory
from handoff.models import HandoffCapsule
print(json.dumps(sorted(Memory.objects.values_list("content", flat=True))))
"""


class Instance:
    def __init__(self, data_dir: Path, database_url: str | None = None):
        self.env = dict(os.environ, DJANGO_SETTINGS_MODULE="continuity.settings",
                        CONTINUITY_DATA_DIR=str(data_dir))  # fmt: skip
        for name in ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL", "CONTINUITY_PROFILE"):
            self.env.pop(name, None)
        if database_url:
            self.env["DATABASE_URL"] = database_url
            self.env["REDIS_URL"] = os.environ["REDIS_URL"]
        self.manage("migrate", "--noinput", "--skip-checks", "-v", "0")

    def manage(self, *args, check=True) -> subprocess.CompletedProcess:
        result = subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=self.env,
                                capture_output=True, text=True, timeout=120)  # fmt: skip
        if check and result.returncode != 0:
            raise AssertionError(f"{args} failed:\n{result.stdout}\n{result.stderr}")
        return result

    def seed(self, content: str) -> None:
        self.manage("shell", "-c", SEED.format(content=content))

    def contents(self) -> list[str]:
        return json.loads(self.manage("shell", "-c", COUNT).stdout.strip().splitlines()[-1])


@pytest.mark.once  # a lite store of its own, whatever the run
def test_sqlite_backup_then_restore_round_trips_and_keeps_a_rollback(tmp_path):
    instance = Instance(tmp_path / "data")
    instance.seed("Backed-up memory.")
    target = tmp_path / "backup.sqlite3"

    backed = instance.manage("backup", "--output", str(target))
    instance.seed("Written after the backup.")

    assert "1 memories" in backed.stdout
    with sqlite3.connect(target) as copy:
        assert copy.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    refused = instance.manage("restore", str(target), check=False)
    assert refused.returncode != 0 and "--yes" in refused.stderr
    assert instance.contents() == ["Backed-up memory.", "Written after the backup."]

    restored = instance.manage("restore", str(target), "--yes")

    assert instance.contents() == ["Backed-up memory."]
    rollback = Path(restored.stdout.split("kept at ")[1].strip().rstrip("."))
    with sqlite3.connect(rollback) as old:
        rows = old.execute("SELECT content FROM memories_memory ORDER BY content").fetchall()
    assert rows == [("Backed-up memory.",), ("Written after the backup.",)]
    instance.seed("Written after the restore.")  # the restored database is live and writable
    assert len(instance.contents()) == 2


@pytest.mark.once  # a lite store of its own, whatever the run
def test_restore_refuses_a_damaged_or_foreign_file_and_changes_nothing(tmp_path):
    instance = Instance(tmp_path / "data")
    instance.seed("Still here.")
    target = tmp_path / "backup.sqlite3"
    instance.manage("backup", "--output", str(target))
    damaged = tmp_path / "damaged.sqlite3"
    data = bytearray(target.read_bytes())
    data[len(data) // 2 : len(data) // 2 + 4096] = b"\xff" * 4096
    damaged.write_bytes(bytes(data))
    foreign = tmp_path / "foreign.sqlite3"
    with sqlite3.connect(foreign) as conn:
        conn.execute("CREATE TABLE t (x)")
    (tmp_path / "text.sqlite3").write_text("hello")

    for bad in (damaged, foreign, tmp_path / "text.sqlite3", tmp_path / "absent.sqlite3"):
        result = instance.manage("restore", str(bad), "--yes", check=False)
        assert result.returncode != 0 and "VALIDATION_ERROR" in result.stderr, (bad, result.stderr)
    assert instance.contents() == ["Still here."]


@pytest.mark.postgres
def test_postgres_backup_bundle_restores_each_users_memory(tmp_path):
    import psycopg

    url = os.environ["DATABASE_URL"]
    name = f"continuity_backup_{os.getpid()}"
    with psycopg.connect(url, dbname="postgres", autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        instance = Instance(tmp_path / "data", with_path(url, name))
        instance.seed("Backed-up memory.")
        target = tmp_path / "backup.tar.gz"
        assert "1 users" in instance.manage("backup", "--output", str(target)).stdout
        instance.seed("Written after the backup.")

        assert instance.manage("restore", str(target), check=False).returncode != 0
        instance.manage("restore", str(target), "--yes")

        assert instance.contents() == ["Backed-up memory."]
    finally:
        with psycopg.connect(url, dbname="postgres", autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
