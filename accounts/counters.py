"""Atomic counters for the limits that must hold under concurrency: sign-in attempts and
per-token request rates.

`counter_hit(key, window_seconds)` counts one event and answers how many this window holds and
when it ends; the window opens with its first event. Each hit is one atomic step, so N
concurrent callers read N distinct counts and a limit of L lets exactly L of them through:
- team (Redis): INCR and EXPIRE in one Lua script, shared by every web process;
- lite (SQLite): one INSERT ... ON CONFLICT DO UPDATE ... RETURNING statement on a row of
  `accounts.ThrottleCounter`. Django's file cache, used before, implements `incr` as read then
  write, which lost increments: 20 clients got 1,300 calls through a 600-per-minute limit.
Nothing is kept in process memory (DESIGN §8).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.core.cache import cache
from django.core.cache.backends.redis import RedisCache
from django.db import connection
from django.db.models import F
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from accounts.models import ThrottleCounter

# KEYS[1]: the counter; ARGV[1]: the window in milliseconds. Returns {count, ms left}.
_REDIS_HIT = """
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local left = redis.call('PTTL', KEYS[1])
if left < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); left = tonumber(ARGV[1]) end
return {count, left}
"""

_REDIS_REFUND = """
if (tonumber(redis.call('GET', KEYS[1]) or '0')) > 0 then redis.call('DECR', KEYS[1]) end
"""


@dataclass(frozen=True)
class Hit:
    count: int  # events in the current window, this one included
    seconds_left: float  # until the window ends

    @property
    def retry_after(self) -> int:
        """Whole seconds to wait, at least 1: what a `Retry-After` header carries."""
        return max(1, math.ceil(self.seconds_left))


def _redis() -> RedisCache | None:
    return cache if isinstance(cache, RedisCache) else None


def counter_hit(key: str, *, window_seconds: float) -> Hit:
    """Count one event under `key` and return the window's count, atomically."""
    if redis_cache := _redis():
        client = redis_cache._cache.get_client(key, write=True)
        window_ms = max(1, int(window_seconds * 1000))
        count, left_ms = client.eval(
            _REDIS_HIT, 1, redis_cache.make_and_validate_key(key), window_ms
        )
        return Hit(int(count), int(left_ms) / 1000)
    return _database_hit(key, window_seconds)


def counter_peek(key: str) -> Hit:
    """The current window's count without counting anything (0 when no window is open)."""
    if redis_cache := _redis():
        client = redis_cache._cache.get_client(key)
        full_key = redis_cache.make_and_validate_key(key)
        pipe = client.pipeline()
        pipe.get(full_key)
        pipe.pttl(full_key)
        value, left_ms = pipe.execute()
        if value is None or left_ms is None or left_ms < 0:
            return Hit(0, 0.0)
        return Hit(int(value), left_ms / 1000)
    now = timezone.now()
    row = ThrottleCounter.objects.filter(key=key, window_ends_at__gt=now).first()
    if row is None:
        return Hit(0, 0.0)
    return Hit(row.count, (row.window_ends_at - now).total_seconds())


def counter_refund(key: str) -> None:
    """Take back one event counted in the open window (never below zero)."""
    if redis_cache := _redis():
        client = redis_cache._cache.get_client(key, write=True)
        client.eval(_REDIS_REFUND, 1, redis_cache.make_and_validate_key(key))
        return
    ThrottleCounter.objects.filter(key=key, count__gt=0).update(count=F("count") - 1)


def counter_clear(key: str) -> None:
    if redis_cache := _redis():
        redis_cache.delete(key)
        return
    ThrottleCounter.objects.filter(key=key).delete()


def _database_hit(key: str, window_seconds: float) -> Hit:
    now = timezone.now()
    ends = now + timedelta(seconds=window_seconds)
    quote = connection.ops.quote_name
    table, key_, count, ends_at = (
        quote(name) for name in (ThrottleCounter._meta.db_table, "key", "count", "window_ends_at")
    )
    adapt = connection.ops.adapt_datetimefield_value
    # Every SET expression reads the row as it was before this statement, on both backends.
    sql = (
        f"INSERT INTO {table} ({key_}, {count}, {ends_at}) VALUES (%s, 1, %s) "
        f"ON CONFLICT ({key_}) DO UPDATE SET "
        f"{count} = CASE WHEN {table}.{ends_at} <= %s THEN 1 ELSE {table}.{count} + 1 END, "
        f"{ends_at} = CASE WHEN {table}.{ends_at} <= %s "
        f"THEN excluded.{ends_at} ELSE {table}.{ends_at} END "
        f"RETURNING {count}, {ends_at}"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [key, adapt(ends), adapt(now), adapt(now)])
        hits, window_ends_at = cursor.fetchone()
    return Hit(int(hits), (_aware(window_ends_at) - now).total_seconds())


def _aware(value) -> datetime:
    """RETURNING hands back what the backend stores: text on SQLite, a datetime on PostgreSQL."""
    if isinstance(value, str):
        value = parse_datetime(value)
    if timezone.is_naive(value):
        value = value.replace(tzinfo=UTC)
    return value
