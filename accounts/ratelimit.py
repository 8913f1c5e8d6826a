"""Per-token request limits, counted in Django's cache so every web process shares them.

Fixed one-minute windows: the first request of a window creates a counter that lives two
windows (so it never expires while its window is open), every request increments it, and
the request that takes it past the limit is refused with the seconds left in the window.
On Redis (team) `add` and `incr` are atomic, so concurrent web processes count exactly; the
file cache of the lite profile may lose an increment under a race, which only ever lets a
request through. Nothing is kept in process memory (DESIGN §8).

Framework-free: the agent API and the MCP endpoint call `rate_limit_hit` after
authenticating a token, and render the ServiceError in their own way.
"""

from __future__ import annotations

import logging
import math
import time

from django.conf import settings
from django.core.cache import cache

from foundation.errors import ErrorCode, ServiceError

logger = logging.getLogger(__name__)

WINDOW_SECONDS = 60


def rate_limit_per_minute() -> int:
    """Requests each token may make per minute; 0 or less turns the limit off."""
    return int(getattr(settings, "CONTINUITY_RATE_LIMIT_PER_MINUTE", 600))


def rate_limit_hit(token_id: int | str) -> None:
    """Count one request by this token; raise RATE_LIMITED when it is over the limit.

    `details` carries `retry_after` (whole seconds until the window ends) for the door's
    `Retry-After` header. When the cache cannot be reached the request is let through and
    a warning logged: a missing counter should not take every agent offline.
    """
    limit = rate_limit_per_minute()
    if limit <= 0:
        return
    now = time.time()
    window = int(now // WINDOW_SECONDS)
    key = f"ratelimit:token:{token_id}:{window}"
    try:
        cache.add(key, 0, timeout=2 * WINDOW_SECONDS)
        try:
            count = cache.incr(key)
        except ValueError:
            # The counter vanished between add and incr (evicted, or the cache was cleared):
            # start it again with this request.
            cache.add(key, 1, timeout=2 * WINDOW_SECONDS)
            count = 1
    except Exception:  # noqa: BLE001 - any cache failure: fail open, loudly
        logger.warning("rate limit counter unavailable; letting the request through", exc_info=True)
        return
    if count > limit:
        retry_after = max(1, math.ceil((window + 1) * WINDOW_SECONDS - now))
        raise ServiceError(
            ErrorCode.RATE_LIMITED,
            f"Too many requests: this token may make {limit} per minute. Retry in {retry_after} s.",
            [{"retry_after": retry_after, "limit": limit, "window_seconds": WINDOW_SECONDS}],
        )
