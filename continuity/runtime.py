"""Where Continuity keeps its data and which profile it runs in, read from the environment.

Pure functions of an environment mapping, so settings, the `serve` command and tests all
agree on one answer. Profiles:

- lite: SQLite (WAL) under the data directory and an embedded filesystem broker; no servers.
- team: PostgreSQL and Redis.

A configuration that mixes the two refuses to start with a message saying what to change.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

PROFILES = ("lite", "team")


@dataclass(frozen=True)
class Runtime:
    profile: str
    data_dir: Path
    database: dict
    broker_url: str
    cache_url: str | None  # a Redis URL in the team profile; None means the database cache

    @property
    def database_vendor(self) -> str:
        return "postgresql" if "postgresql" in self.database["ENGINE"] else "sqlite"

    @property
    def broker_folder(self) -> Path:
        return self.data_dir / "broker"


def default_data_dir(env: Mapping[str, str]) -> Path:
    if env.get("CONTINUITY_DATA_DIR"):
        return Path(env["CONTINUITY_DATA_DIR"]).expanduser().resolve()
    if env.get("XDG_DATA_HOME"):
        return Path(env["XDG_DATA_HOME"]).expanduser() / "continuity"
    return Path.home() / ".local" / "share" / "continuity"


def _scheme(url: str) -> str:
    return url.split(":", 1)[0].lower()


def resolve(env: Mapping[str, str]) -> Runtime:
    data_dir = default_data_dir(env)
    database_url = env.get("DATABASE_URL", "").strip()
    broker_url = (env.get("CELERY_BROKER_URL") or env.get("REDIS_URL") or "").strip()
    redis_url = env.get("REDIS_URL", "").strip() or None
    asked = env.get("CONTINUITY_PROFILE", "").strip().lower()
    if asked and asked not in PROFILES:
        raise ImproperlyConfigured(
            f"CONTINUITY_PROFILE={asked!r} is not a profile; use 'lite' or 'team'."
        )

    uses_postgres = _scheme(database_url).startswith("postgres") if database_url else False
    if database_url and not uses_postgres and not _scheme(database_url).startswith("sqlite"):
        raise ImproperlyConfigured(
            f"DATABASE_URL uses {_scheme(database_url)!r}; Continuity supports "
            "sqlite:// (lite) and postgres:// (team)."
        )
    uses_redis = bool(broker_url) and _scheme(broker_url) in {"redis", "rediss"}
    if redis_url and _scheme(redis_url) not in {"redis", "rediss"}:
        raise ImproperlyConfigured(
            f"REDIS_URL uses {_scheme(redis_url)!r}; it must be a redis:// or rediss:// URL."
        )
    if broker_url and not uses_redis:
        raise ImproperlyConfigured(
            f"The broker URL uses {_scheme(broker_url)!r}; the team profile needs redis://. "
            "Leave CELERY_BROKER_URL and REDIS_URL unset for the embedded broker."
        )
    profile = asked or ("team" if uses_postgres or uses_redis else "lite")

    if profile == "team":
        if not uses_postgres:
            raise ImproperlyConfigured(
                "The team profile needs PostgreSQL: set DATABASE_URL=postgres://... "
                "(SQLite belongs to the lite profile)."
            )
        if not uses_redis:
            raise ImproperlyConfigured(
                "The team profile needs Redis: set REDIS_URL=redis://... "
                "(the embedded broker belongs to the lite profile)."
            )
        database = dj_database_url.parse(database_url, conn_max_age=60, conn_health_checks=True)
        # An unreachable server fails a request in seconds instead of hanging it.
        database.setdefault("OPTIONS", {}).setdefault("connect_timeout", 5)
        return Runtime("team", data_dir, database, broker_url, redis_url or broker_url)

    if uses_postgres or uses_redis:
        raise ImproperlyConfigured(
            "The lite profile runs on SQLite with the embedded broker; unset DATABASE_URL, "
            "REDIS_URL and CELERY_BROKER_URL, or set CONTINUITY_PROFILE=team with both "
            "PostgreSQL and Redis."
        )
    sqlite_url = database_url or f"sqlite:///{data_dir / 'continuity.sqlite3'}"
    # Connections are kept per worker thread, as in team mode: opening one per request (a
    # file, WAL and pragmas) cost ~1.4 ms of every MCP call.
    database = dj_database_url.parse(sqlite_url, conn_max_age=60, conn_health_checks=True)
    database["OPTIONS"] = {
        # Workers write beside the web process: WAL lets readers run during a write, the
        # busy timeout waits for the lock instead of failing, and IMMEDIATE transactions
        # take the write lock up front so a read-then-write never deadlocks.
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
        "init_command": (
            "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;"
        ),
    }
    # The filesystem transport ignores the host, but kombu warns on every connection
    # that names none.
    return Runtime("lite", data_dir, database, "filesystem://localhost//", None)


def secret_key(env: Mapping[str, str], data_dir: Path) -> str:
    """SECRET_KEY from the environment, else one generated once and kept in the data dir."""
    if env.get("SECRET_KEY"):
        return env["SECRET_KEY"]
    path = data_dir / "secret_key"
    if path.exists():
        return path.read_text().strip()
    data_dir.mkdir(parents=True, exist_ok=True)
    key = secrets.token_urlsafe(50)
    # O_EXCL: when two processes start at once, the first writer wins and both read its key.
    try:
        with open(path, "x") as handle:
            handle.write(key)
        path.chmod(0o600)
    except FileExistsError:
        return path.read_text().strip()
    return key


# Fences of other memory tools and editor rules (Continuity's own block and Claude Code's
# <system-reminder> are always stripped, whatever this says).
STRIP_MARKERS = (
    "<memory>|</memory>,<user-memory>|</user-memory>,<memory-context>|</memory-context>,"
    "<claude-mem-context>|</claude-mem-context>,"
    "<supermemory-context>|</supermemory-context>,<user_rules>|</user_rules>"
)


def marker_pairs(value: str) -> list[tuple[str, str]]:
    """CONTINUITY_CAPTURE_STRIP_MARKERS: comma-separated `start|end` pairs. A malformed pair
    refuses to start, naming it, rather than silently capturing what it should fence."""
    from capture.markers import marker_problem  # plain functions: no app registry needed

    pairs = []
    for item in (part.strip() for part in value.split(",")):
        if not item:
            continue
        start, bar, end = item.partition("|")
        problem = ("", "each pair is start|end") if not bar else None
        problem = problem or marker_problem(start.strip(), end.strip())
        if problem:
            raise ImproperlyConfigured(f"CONTINUITY_CAPTURE_STRIP_MARKERS: {item!r}: {problem[1]}")
        pairs.append((start.strip(), end.strip()))
    return list(dict.fromkeys(pairs))
