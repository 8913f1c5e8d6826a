"""`GET /health`: can this instance do its work?

Cheap enough for a load balancer to call every few seconds: one `SELECT 1`, a look at
the broker (folders in the lite profile, a Redis PING with short timeouts in the team
profile), one cache read, the watchdog's few indexed reads and a look at the semantic
model (never a load of it). 503 ("unhealthy") when the database or the broker fails, with
the failing parts listed in `failing`: this instance cannot serve. 200 otherwise — "degraded" when the watchdog sees a problem with the
background work (a late periodic job, a stopped heartbeat, stalled pending work; listed in
`problems`), since taking web processes out of a load balancer would not fix a worker;
`manage.py doctor` exits non-zero for those. Errors are reported by type only: messages
can carry connection URLs, and this endpoint needs no sign-in.
"""

from __future__ import annotations

import os
from functools import lru_cache

import redis
from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.http import JsonResponse
from django.views.decorators.http import require_GET
from redis.backoff import NoBackoff
from redis.retry import Retry

from foundation.maintenance.watchdog import watchdog_report
from foundation.tasks import HEARTBEAT_CACHE_KEY

# Connect and read timeouts for the Redis check: together they bound a request to ~2 s
# even when Redis sits behind a firewall that drops packets instead of refusing them.
REDIS_TIMEOUT_SECONDS = 1.0

# The filesystem transport's folders; the worker and every web process must share them.
BROKER_FOLDER_OPTIONS = ("data_folder_in", "data_folder_out", "processed_folder", "control_folder")


def check_database() -> dict:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as error:  # any driver error means the same thing here: unusable
        return {"ok": False, "vendor": connection.vendor, "error": type(error).__name__}
    return {"ok": True, "vendor": connection.vendor}


def check_broker() -> dict:
    url = settings.CELERY_BROKER_URL
    transport = url.split(":", 1)[0].lower()
    if transport == "filesystem":
        return check_broker_folders(settings.CELERY_BROKER_TRANSPORT_OPTIONS)
    if transport in {"redis", "rediss"}:
        return check_redis(url)
    return {"ok": False, "transport": transport, "error": "unsupported transport"}


def check_broker_folders(options: dict) -> dict:
    """Lite: the embedded broker is a set of folders; they must exist and take files."""
    for name in BROKER_FOLDER_OPTIONS:
        folder = options.get(name)
        if not folder or not os.path.exists(folder):
            return {"ok": False, "transport": "filesystem", "error": f"{name} is missing"}
        if not os.path.isdir(folder):
            return {"ok": False, "transport": "filesystem", "error": f"{name} is not a folder"}
        if not os.access(folder, os.W_OK | os.X_OK):
            return {"ok": False, "transport": "filesystem", "error": f"{name} is not writable"}
    return {"ok": True, "transport": "filesystem"}


@lru_cache(maxsize=4)
def redis_client(url: str) -> redis.Redis:
    # One client (and its connection pool) per URL, so a health probe reuses a connection
    # instead of opening one each time. No retries: a retry loop would blow the time bound.
    return redis.Redis.from_url(
        url,
        socket_connect_timeout=REDIS_TIMEOUT_SECONDS,
        socket_timeout=REDIS_TIMEOUT_SECONDS,
        retry=Retry(NoBackoff(), 0),
    )


def check_redis(url: str) -> dict:
    transport = url.split(":", 1)[0].lower()
    try:
        redis_client(url).ping()
    except Exception as error:  # refused, timed out, bad password: unreachable all the same
        return {"ok": False, "transport": transport, "error": type(error).__name__}
    return {"ok": True, "transport": transport}


def last_heartbeat() -> str | None:
    """When a worker last ran the scheduled heartbeat; informational, never fails health.

    A deployment may run its workers elsewhere (or `serve --no-worker`), so a missing
    heartbeat is reported, not judged.
    """
    try:
        return cache.get(HEARTBEAT_CACHE_KEY)
    except Exception:
        return None


def health_report() -> dict:
    """Everything `/health` and `manage.py doctor` show."""
    database = check_database()
    broker = check_broker()
    parts = {"database": database, "broker": broker}
    failing = [name for name, part in parts.items() if not part["ok"]]
    # Skip the cache when the broker is down: in the team profile both are usually the
    # same Redis, and a second timeout would only slow the answer.
    beat = last_heartbeat() if broker["ok"] else None
    watchdog = check_watchdog(beat) if database["ok"] else None
    status = "unhealthy" if failing else ("degraded" if watchdog and not watchdog["ok"] else "ok")
    # A missing or failing embedding model leaves recall lexical-only: degraded, not down.
    semantic = check_semantic()
    if status == "ok" and not semantic["ok"]:
        status = "degraded"
    return {
        "status": status,
        "failing": failing,
        "profile": settings.CONTINUITY_PROFILE,
        "version": settings.VERSION,
        "database": database,
        "broker": broker,
        "worker": {"last_heartbeat": beat},
        # What the background work produced: each periodic job's last success and output,
        # the heartbeat's age, pending-work probes, and the problems found in them.
        "watchdog": watchdog,
        "semantic": semantic,
    }


def check_semantic() -> dict:
    """The semantic channel as this process sees it. Never loads the model: a first load
    takes seconds, and a load balancer's probe (or a test's first request) would pay it."""
    from memories.embeddings.embedders import embedder_status

    return embedder_status()


def check_watchdog(beat: str | None) -> dict | None:
    try:
        return watchdog_report(last_heartbeat=beat)
    except Exception as error:  # e.g. migrations not applied yet: report, never crash /health
        return {"ok": False, "problems": [f"watchdog: {type(error).__name__}"],
                "heartbeat_age_seconds": None, "jobs": {}, "work": {}}  # fmt: skip


@require_GET
def health(request):
    body = health_report()
    response = JsonResponse(body, status=503 if body["failing"] else 200)
    response["Cache-Control"] = "no-store"
    return response
