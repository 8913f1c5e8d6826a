"""Project-wide Celery tasks (app-specific work lives in each app's tasks.py)."""

from __future__ import annotations

from celery import shared_task
from django.core.cache import cache
from django.utils import timezone

HEARTBEAT_CACHE_KEY = "continuity:worker-heartbeat"


@shared_task(name="continuity.heartbeat", ignore_result=True)
def heartbeat() -> str:
    """Record that a worker just ran a task sent by beat; `/health` reports the time.

    Idempotent and stateless: it only overwrites one cache key, so retries, duplicates
    from a second beat, or a missed run are all harmless.
    """
    now = timezone.now().isoformat()
    # No expiry: a stale heartbeat is the information ("the worker stopped at ...").
    cache.set(HEARTBEAT_CACHE_KEY, now, timeout=None)
    return now
