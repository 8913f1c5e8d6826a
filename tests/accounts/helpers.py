"""Helpers for the accounts tests: ending a counter's window without waiting for it."""

from __future__ import annotations

import time
from datetime import timedelta

from django.core.cache import cache
from django.core.cache.backends.redis import RedisCache
from django.utils import timezone

from accounts.counters import counter_peek
from accounts.models import ThrottleCounter


def end_window(key: str) -> None:
    """Make the counter's open window end now, as time passing would."""
    if isinstance(cache, RedisCache):
        cache._cache.get_client(key, write=True).pexpire(cache.make_and_validate_key(key), 1)
        deadline = time.monotonic() + 10
        while counter_peek(key).count and time.monotonic() < deadline:
            time.sleep(0.005)  # polls a 1 ms expiry; bounded by the deadline
        assert counter_peek(key).count == 0
    else:
        ThrottleCounter.objects.filter(key=key).update(
            window_ends_at=timezone.now() - timedelta(seconds=1)
        )
