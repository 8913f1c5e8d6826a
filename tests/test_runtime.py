"""Profile resolution: every combination of environment variables, and the refusals."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from continuity import runtime

ROOT = Path(__file__).resolve().parent.parent
PG = "postgres://continuity:secret@db.example:5432/continuity"
REDIS = "redis://cache.example:6379/0"


@pytest.fixture
def env(tmp_path) -> dict[str, str]:
    """A minimal environment: only the data dir, so the real one is never touched."""
    return {"CONTINUITY_DATA_DIR": str(tmp_path / "data")}


# --- lite -------------------------------------------------------------------------------


def test_empty_environment_resolves_to_lite_with_sqlite_in_the_data_dir(env, tmp_path):
    resolved = runtime.resolve(env)

    assert resolved.profile == "lite"
    assert resolved.data_dir == tmp_path / "data"
    assert resolved.database_vendor == "sqlite"
    assert resolved.database["NAME"] == str(tmp_path / "data" / "continuity.sqlite3")
    assert resolved.broker_url == "filesystem://localhost//"
    assert resolved.broker_folder == tmp_path / "data" / "broker"
    assert resolved.cache_url is None


def test_lite_sqlite_runs_in_wal_mode_with_immediate_transactions(env):
    options = runtime.resolve(env).database["OPTIONS"]

    assert "journal_mode=WAL" in options["init_command"]
    assert options["transaction_mode"] == "IMMEDIATE"
    assert options["timeout"] > 0


def test_explicit_lite_profile_is_accepted(env):
    assert runtime.resolve({**env, "CONTINUITY_PROFILE": "lite"}).profile == "lite"


def test_profile_name_is_case_and_space_insensitive(env):
    assert runtime.resolve({**env, "CONTINUITY_PROFILE": " Lite "}).profile == "lite"


def test_sqlite_database_url_is_used_in_lite(env, tmp_path):
    path = tmp_path / "elsewhere.sqlite3"

    resolved = runtime.resolve({**env, "DATABASE_URL": f"sqlite:///{path}"})

    assert resolved.profile == "lite"
    assert resolved.database["NAME"] == str(path)


# --- team -------------------------------------------------------------------------------


def test_postgres_and_redis_resolve_to_team(env):
    resolved = runtime.resolve({**env, "DATABASE_URL": PG, "REDIS_URL": REDIS})

    assert resolved.profile == "team"
    assert resolved.database_vendor == "postgresql"
    assert resolved.database["NAME"] == "continuity"
    assert resolved.database["HOST"] == "db.example"
    assert resolved.broker_url == REDIS
    assert resolved.cache_url == REDIS


def test_explicit_team_profile_with_postgres_and_redis_is_accepted(env):
    resolved = runtime.resolve(
        {**env, "CONTINUITY_PROFILE": "team", "DATABASE_URL": PG, "REDIS_URL": REDIS}
    )

    assert resolved.profile == "team"


@pytest.mark.parametrize("scheme", ["postgres", "postgresql"])
def test_both_postgres_url_spellings_are_accepted(env, scheme):
    url = PG.replace("postgres://", f"{scheme}://")

    assert runtime.resolve({**env, "DATABASE_URL": url, "REDIS_URL": REDIS}).profile == "team"


def test_tls_redis_is_accepted(env):
    url = "rediss://cache.example:6380/0"

    assert runtime.resolve({**env, "DATABASE_URL": PG, "REDIS_URL": url}).broker_url == url


def test_celery_broker_url_alone_serves_as_broker_and_cache(env):
    resolved = runtime.resolve({**env, "DATABASE_URL": PG, "CELERY_BROKER_URL": REDIS})

    assert resolved.profile == "team"
    assert resolved.broker_url == REDIS
    assert resolved.cache_url == REDIS


def test_celery_broker_url_wins_for_the_broker_and_redis_url_for_the_cache(env):
    broker = "redis://broker.example:6379/1"

    resolved = runtime.resolve(
        {**env, "DATABASE_URL": PG, "CELERY_BROKER_URL": broker, "REDIS_URL": REDIS}
    )

    assert resolved.broker_url == broker
    assert resolved.cache_url == REDIS


def test_team_database_keeps_connections_with_health_checks(env):
    database = runtime.resolve({**env, "DATABASE_URL": PG, "REDIS_URL": REDIS}).database

    assert database["CONN_MAX_AGE"] > 0
    assert database["CONN_HEALTH_CHECKS"] is True


# --- contradictions refuse to start, saying what to change ---------------------------------

CONTRADICTIONS = {
    "unknown profile": ({"CONTINUITY_PROFILE": "cluster"}, "not a profile"),
    "unsupported database": ({"DATABASE_URL": "mysql://u:p@h/db"}, "'mysql'"),
    "unsupported broker": ({"CELERY_BROKER_URL": "amqp://h//"}, "'amqp'"),
    "unsupported redis url": ({"REDIS_URL": "memcached://h:11211"}, "'memcached'"),
    "team without a database": ({"CONTINUITY_PROFILE": "team"}, "needs PostgreSQL"),
    "team on sqlite": (
        {"CONTINUITY_PROFILE": "team", "DATABASE_URL": "sqlite:///x.db", "REDIS_URL": REDIS},
        "needs PostgreSQL",
    ),
    "team without redis": ({"CONTINUITY_PROFILE": "team", "DATABASE_URL": PG}, "needs Redis"),
    "postgres without redis": ({"DATABASE_URL": PG}, "needs Redis"),
    "redis without postgres": ({"REDIS_URL": REDIS}, "needs PostgreSQL"),
    "broker without postgres": ({"CELERY_BROKER_URL": REDIS}, "needs PostgreSQL"),
    "redis beside sqlite": (
        {"DATABASE_URL": "sqlite:///x.db", "REDIS_URL": REDIS},
        "needs PostgreSQL",
    ),
    "lite on postgres": ({"CONTINUITY_PROFILE": "lite", "DATABASE_URL": PG}, "lite profile"),
    "lite with redis": ({"CONTINUITY_PROFILE": "lite", "REDIS_URL": REDIS}, "lite profile"),
    "lite with a redis broker": (
        {"CONTINUITY_PROFILE": "lite", "CELERY_BROKER_URL": REDIS},
        "lite profile",
    ),
    "lite with the whole team setup": (
        {"CONTINUITY_PROFILE": "lite", "DATABASE_URL": PG, "REDIS_URL": REDIS},
        "lite profile",
    ),
}


@pytest.mark.parametrize("variables, says", CONTRADICTIONS.values(), ids=CONTRADICTIONS.keys())
def test_contradictory_configuration_refuses_with_a_clear_message(env, variables, says):
    with pytest.raises(ImproperlyConfigured) as refused:
        runtime.resolve({**env, **variables})

    assert says in str(refused.value)


def test_non_redis_cache_url_beside_a_redis_broker_refuses(env):
    with pytest.raises(ImproperlyConfigured):
        runtime.resolve(
            {
                **env,
                "DATABASE_URL": PG,
                "CELERY_BROKER_URL": REDIS,
                "REDIS_URL": "memcached://cache.example:11211",
            }
        )


def test_refusal_never_echoes_the_database_password(env):
    with pytest.raises(ImproperlyConfigured) as refused:
        runtime.resolve({**env, "CONTINUITY_PROFILE": "lite", "DATABASE_URL": PG})

    assert "secret" not in str(refused.value)


# --- data directory and secret key --------------------------------------------------------


def test_data_dir_comes_from_continuity_data_dir_first(tmp_path):
    env = {"CONTINUITY_DATA_DIR": str(tmp_path / "a"), "XDG_DATA_HOME": str(tmp_path / "x")}

    assert runtime.default_data_dir(env) == tmp_path / "a"


def test_relative_data_dir_is_made_absolute(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)

    assert runtime.default_data_dir({"CONTINUITY_DATA_DIR": "data"}) == tmp_path / "data"


def test_data_dir_falls_back_to_xdg_data_home(tmp_path):
    env = {"XDG_DATA_HOME": str(tmp_path / "xdg")}

    assert runtime.default_data_dir(env) == tmp_path / "xdg" / "continuity"


def test_data_dir_defaults_to_local_share_in_home(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))

    assert runtime.default_data_dir({}) == tmp_path / ".local" / "share" / "continuity"


def test_secret_key_is_generated_once_and_kept_private(tmp_path):
    first = runtime.secret_key({}, tmp_path)
    second = runtime.secret_key({}, tmp_path)

    assert first == second
    assert len(first) >= 50
    assert (tmp_path / "secret_key").stat().st_mode & 0o777 == 0o600


def test_secret_key_from_the_environment_wins(tmp_path):
    assert runtime.secret_key({"SECRET_KEY": "from-env"}, tmp_path) == "from-env"
    assert not (tmp_path / "secret_key").exists()


# --- the refusal at the command line ---------------------------------------------------------


def test_manage_py_refuses_a_contradictory_configuration_without_a_traceback(tmp_path):
    env = {
        name: value
        for name, value in os.environ.items()
        if name not in {"DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL"}
    }
    env.update(
        DJANGO_SETTINGS_MODULE="continuity.settings",
        CONTINUITY_PROFILE="team",
        CONTINUITY_DATA_DIR=str(tmp_path),
    )

    result = subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert result.returncode != 0
    assert "Continuity cannot start: " in result.stderr
    assert "needs PostgreSQL" in result.stderr
    assert "Traceback" not in result.stderr + result.stdout
