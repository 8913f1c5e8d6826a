"""In-place upgrade: a store written by release 0.1.0 migrates forward and reads back whole.

tests/fixtures/upgrade/store-0.1.0.sqlite3.gz is a data file release 0.1.0 wrote (its models
then lived in the `continuity` app, and capture held the injection models);
store-0.1.0.json lists what it holds. Each test runs `manage.py migrate` in a subprocess, as
a user upgrading would, then reads everything back through today's models in another
subprocess (`python -m tests.test_upgrade`, the block at the end of this file), proves the
raw tokens still authenticate and that recall finds every active memory.

PostgreSQL has no 0.1.0 data file, so the test builds one: a fresh database migrated to the
migrations the fixture recorded, every row of the SQLite file copied in, then migrated
forward the same way.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "upgrade"
EXPECTED = json.loads((FIXTURE / "store-0.1.0.json").read_text(encoding="utf-8"))
# What the current code reads from the store, named as store-0.1.0.json names it.
LISTS = ("token_rows", "memories", "events", "links", "candidates", "capsules", "proposals")
COUNTS = ("conversation_events", "threads", "maintenance_runs")
# The settings the user's environment may carry; each test sets its own profile.
PROFILE_VARIABLES = ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL", "CONTINUITY_PROFILE")


def unpacked_store(path: Path) -> Path:
    with gzip.open(FIXTURE / "store-0.1.0.sqlite3.gz") as source, path.open("wb") as target:
        shutil.copyfileobj(source, target)
    return path


def environment(data_dir: Path, **settings: str) -> dict[str, str]:
    env = {name: value for name, value in os.environ.items() if name not in PROFILE_VARIABLES}
    env.update(
        DJANGO_SETTINGS_MODULE="continuity.settings",
        CONTINUITY_DATA_DIR=str(data_dir),
        CONTINUITY_CELERY_EAGER="1",  # recall's access counts run inline, not via a broker
        **settings,
    )
    return env


def run(args: list[str], env: dict[str, str]) -> str:
    result = subprocess.run(
        [sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return result.stdout


def read_back(env: dict[str, str]) -> dict:
    return json.loads(run(["-m", "tests.test_upgrade"], env).splitlines()[-1])


def assert_store_is_the_fixtures(store: dict) -> None:
    for name in LISTS:
        assert store[name] == EXPECTED[name], name
    for name in COUNTS:
        assert store[name] == EXPECTED[name], name
    assert store["retention_overrides"] == EXPECTED["retention_overrides"]
    assert store["authenticated"] == {
        agent: {"agent_name": agent, "token": row["id"]}
        for agent, row in zip(EXPECTED["tokens"], EXPECTED["token_rows"], strict=True)
    }
    active = [memory["id"] for memory in EXPECTED["memories"] if memory["status"] == "active"]
    assert store["recalled"] == {"owner": active, "agent": store["agent_may_read"]}
    assert store["agent_may_read"], "the agent token reads some of the owner's memories"


@pytest.mark.sqlite
def test_a_0_1_0_sqlite_store_upgrades_in_place_and_keeps_everything(tmp_path):
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    unpacked_store(data_dir / "continuity.sqlite3")
    env = environment(data_dir)

    run(["manage.py", "migrate", "--no-input"], env)

    assert_store_is_the_fixtures(read_back(env))
    assert "No migrations to apply" in run(["manage.py", "migrate", "--no-input"], env)


# --- PostgreSQL: the same store, built on a 0.1.0 schema ------------------------------------

SQLITE_ONLY_TABLES = {
    "sqlite_sequence",
    # The FTS5 index of SQLite; PostgreSQL indexes the memory rows themselves.
    "memories_search",
    "memories_search_config",
    "memories_search_content",
    "memories_search_data",
    "memories_search_docsize",
    "memories_search_idx",
    "memories_search_vocab",
}
POSTGRES_ONLY_TABLES = {"memories_search_term"}
# memories 0007: on PostgreSQL, 0.1.0 added each memory's words after the write committed.
SEARCH_TERMS = """
    INSERT INTO memories_search_term (term)
    SELECT DISTINCT word FROM memories_memory,
        unnest(string_to_array(search_body || ' ' || search_aux, ' ')) AS word
    WHERE word <> ''
    ON CONFLICT DO NOTHING
"""


def recorded_migrations(store: Path) -> set[tuple[str, str]]:
    with sqlite3.connect(store) as db:
        return set(db.execute("SELECT app, name FROM django_migrations"))


def leaves(recorded: set[tuple[str, str]]) -> list[tuple[str, str]]:
    """The recorded migrations no other recorded migration depends on."""
    from django.db.migrations.loader import MigrationLoader

    graph = MigrationLoader(None, ignore_no_migrations=True).graph
    return sorted(
        node
        for node in recorded
        if not any(child.key in recorded for child in graph.node_map[node].children)
    )


@pytest.fixture
def fresh_postgres():
    """A new, empty database on the server DATABASE_URL names; dropped afterwards."""
    import psycopg

    base, _, _ = os.environ["DATABASE_URL"].rpartition("/")
    # The server's maintenance database: the one DATABASE_URL names may not exist (the test
    # run makes its own test_ database beside it).
    server = f"{base}/postgres"
    name = f"continuity_upgrade_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield f"{base}/{name}"
    finally:
        with psycopg.connect(server, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def pg_columns(db, table: str) -> dict[str, str]:
    """Column → type of the columns a row is written to (generated ones are computed)."""
    rows = db.execute(
        """
        SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute
        WHERE attrelid = %s::regclass AND attnum > 0 AND NOT attisdropped AND attgenerated = ''
        """,
        [table],
    ).fetchall()
    return dict(rows)


def copy_rows(store: Path, url: str) -> None:
    """Every row of every table of the SQLite file into the same table on PostgreSQL,
    replacing what `migrate` wrote there (content types, permissions); values go as text and
    PostgreSQL casts each to its column's type (0/1 → boolean, JSON text → jsonb, 32 hex
    digits → uuid, naive UTC timestamps → timestamptz)."""
    import psycopg

    source = sqlite3.connect(store)
    with psycopg.connect(url) as target:
        target.execute("SET TIME ZONE 'UTC'")
        sqlite_tables = {
            name for (name,) in source.execute("SELECT name FROM sqlite_master WHERE type='table'")
        }
        pg_tables = {
            name
            for (name,) in target.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()"
            )
        }
        assert sqlite_tables - pg_tables == SQLITE_ONLY_TABLES
        assert pg_tables - sqlite_tables == POSTGRES_ONLY_TABLES
        tables = sorted(sqlite_tables - SQLITE_ONLY_TABLES - {"django_migrations"})
        target.execute(f"TRUNCATE {', '.join(tables)} RESTART IDENTITY CASCADE")
        for table in tables:
            columns = [row[1] for row in source.execute(f'PRAGMA table_info("{table}")')]
            types = pg_columns(target, table)
            assert set(columns) == set(types), table
            names = ", ".join(f'"{column}"' for column in columns)
            values = ", ".join(f"CAST(%s AS {types[column]})" for column in columns)
            rows = [
                [
                    value if value is None or isinstance(value, bytes) else str(value)
                    for value in row
                ]
                for row in source.execute(f'SELECT {names} FROM "{table}"')
            ]
            if rows:
                with target.cursor() as cursor:
                    cursor.executemany(f'INSERT INTO "{table}" ({names}) VALUES ({values})', rows)
            for column in columns:  # identity columns continue after the copied ids
                (sequence,) = target.execute(
                    "SELECT pg_get_serial_sequence(%s, %s)", [f'"{table}"', column]
                ).fetchone()
                if sequence:
                    target.execute(
                        f'SELECT setval(%s, coalesce(max("{column}"), 1), max("{column}") IS NOT NULL) '
                        f'FROM "{table}"',
                        [sequence],
                    )
        target.execute(SEARCH_TERMS)
    source.close()


def applied_migrations(url: str) -> set[tuple[str, str]]:
    import psycopg

    with psycopg.connect(url) as db:
        return set(db.execute("SELECT app, name FROM django_migrations"))


@pytest.mark.postgres
def test_a_0_1_0_postgres_store_upgrades_in_place_and_keeps_everything(tmp_path, fresh_postgres):
    store = unpacked_store(tmp_path / "store-0.1.0.sqlite3")
    recorded = recorded_migrations(store)
    env = environment(tmp_path, DATABASE_URL=fresh_postgres, REDIS_URL=os.environ["REDIS_URL"])
    targets = json.dumps(leaves(recorded))
    run(["-m", "tests.test_upgrade", "migrate-to", targets], env)
    assert applied_migrations(fresh_postgres) == recorded  # the 0.1.0 schema, no more
    copy_rows(store, fresh_postgres)

    run(["manage.py", "migrate", "--no-input"], env)

    assert_store_is_the_fixtures(read_back(env))


# --- run in a subprocess against the upgraded store -----------------------------------------


def _migrate_to(targets: list[list[str]]) -> None:
    from django.core.management import call_command

    for app_label, name in targets:
        call_command("migrate", app_label, name, verbosity=0, interactive=False)


def _read_store() -> dict:
    """Everything the fixture lists, read through the current models and services."""
    from django.contrib.auth import get_user_model

    from accounts.models import PersonalAccessToken
    from accounts.tokens import token_authenticate
    from capture.models import Candidate, CaptureThread, ConversationEvent
    from foundation.actors import Actor
    from foundation.models import MaintenanceRun, RetentionOverride
    from handoff.models import HandoffCapsule
    from memories.models import Memory, MemoryEvent, MemoryLink, ReviewProposal
    from memories.retrieval import recall

    def memory(row: Memory) -> dict:
        return {
            "id": str(row.pk), "owner": row.owner.get_username(), "content": row.content,
            "key": row.key, "value": row.value, "version": row.version, "trust": row.trust,
            "status": row.status, "visibility": row.visibility, "scope_type": row.scope_type,
            "scope_key": row.scope_key,
            "supersedes": str(row.supersedes_id) if row.supersedes_id else None,
            "tags": row.tags, "retrieval_hints": row.retrieval_hints,
            "created_by_token": row.created_by_token_id, "origin": row.origin,
            "source_agent": row.source_agent,
        }  # fmt: skip

    def found(actor: Actor, row: Memory) -> bool:
        project = row.scope_key if row.scope_type == "project" else None
        result = recall(actor=actor, query=row.content, project_key=project, limit=100)
        return row.pk in {item.memory.pk for item in result.memories}

    expected = json.loads((FIXTURE / "store-0.1.0.json").read_text(encoding="utf-8"))
    authenticated = {}
    for agent, raw in expected["tokens"].items():
        token = token_authenticate(raw)
        authenticated[agent] = {"agent_name": token.agent_name, "token": token.pk}
    memories = list(Memory.objects.select_related("owner").order_by("created_at", "id"))
    by_id = {str(row.pk): row for row in memories}
    ordered = [by_id[item["id"]] for item in expected["memories"] if item["id"] in by_id]
    ordered += [row for row in memories if str(row.pk) not in {str(r.pk) for r in ordered}]
    owner = get_user_model().objects.get(username="owner")
    agent = Actor.agent(token_authenticate(expected["tokens"]["claude-code"]))
    active = [row for row in ordered if row.status == "active"]
    agent_may_read = [str(row.pk) for row in active if row.owner_id == owner.pk]
    return {
        "authenticated": authenticated,
        "token_rows": [
            {
                "id": row.pk,
                "agent_name": row.agent_name,
                "scopes": row.scopes,
                "allowed_projects": row.allowed_projects,
            }
            for row in PersonalAccessToken.objects.order_by("id")
        ],  # fmt: skip
        "memories": [memory(row) for row in ordered],
        "events": [
            {"memory": str(row.memory_id), "type": row.event_type, "version": row.version}
            for row in MemoryEvent.objects.order_by("id")
        ],
        "links": [
            {
                "from": str(row.from_memory_id),
                "relation": row.relation,
                "uri": row.uri,
                "to": str(row.to_memory_id) if row.to_memory_id else None,
            }
            for row in MemoryLink.objects.order_by("id")
        ],  # fmt: skip
        "candidates": [
            {"id": str(row.pk), "content": row.content, "status": row.status}
            for row in Candidate.objects.order_by("created_at", "id")
        ],
        "capsules": [
            {
                "id": str(row.pk),
                "task_id": row.task_id,
                "summary": row.summary,
                "decisions": row.decisions,
            }
            for row in HandoffCapsule.objects.order_by("created_at", "id")
        ],  # fmt: skip
        "proposals": [
            {
                "id": str(row.pk),
                "kind": row.kind,
                "status": row.status,
                "memory_ids": row.memory_ids,
            }
            for row in ReviewProposal.objects.order_by("id")
        ],  # fmt: skip
        "conversation_events": ConversationEvent.objects.count(),
        "threads": CaptureThread.objects.count(),
        "maintenance_runs": MaintenanceRun.objects.count(),
        "retention_overrides": [
            [row.rule, row.value] for row in RetentionOverride.objects.order_by("rule")
        ],
        "recalled": {
            "owner": [str(row.pk) for row in active if found(Actor.owner(row.owner), row)],
            "agent": [
                str(row.pk) for row in active if row.owner_id == owner.pk and found(agent, row)
            ],
        },
        "agent_may_read": agent_may_read,
    }


if __name__ == "__main__":
    import django

    django.setup()
    if sys.argv[1:2] == ["migrate-to"]:
        _migrate_to(json.loads(sys.argv[2]))
    else:
        print(json.dumps(_read_store(), ensure_ascii=False, default=str))
