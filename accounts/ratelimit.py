"""Per-token request limits, counted where every web process shares them.

One-minute windows, opened by a token's first request: every request counts one on an atomic
counter (accounts.counters: Redis in team mode, a database row on lite), and the requests
past the limit are refused with the seconds left in the window. Concurrent web processes
count exactly, so the limit holds under any number of parallel clients.

Framework-free: the agent API and the MCP endpoint call `rate_limit_hit` after
authenticating a token, and render the ServiceError in their own way.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.utils.translation import gettext_noop

from accounts.counters import counter_hit
from foundation.errors import ErrorCode, ServiceError
from foundation.messages import known

logger = logging.getLogger(__name__)

WINDOW_SECONDS = 60


TOO_MANY = known(
    gettext_noop(
        "Too many requests: this token may make %(limit)s per minute. Retry in %(seconds)s s."
    )
)


def rate_limit_per_minute() -> int:
    """Requests each token may make per minute; 0 or less turns the limit off."""
    return int(getattr(settings, "CONTINUITY_RATE_LIMIT_PER_MINUTE", 600))


def rate_limit_hit(token_id: int | str) -> None:
    """Count one request by this token; raise RATE_LIMITED when it is over the limit.

    `details` carries `retry_after` (whole seconds until the window ends) for the door's
    `Retry-After` header. When the counter cannot be reached the request is let through and
    a warning logged: a missing counter should not take every agent offline.
    """
    limit = rate_limit_per_minute()
    if limit <= 0:
        return
    try:
        hit = counter_hit(f"ratelimit:token:{token_id}", window_seconds=WINDOW_SECONDS)
    except Exception:  # noqa: BLE001 - any counter failure: fail open, loudly
        logger.warning("rate limit counter unavailable; letting the request through", exc_info=True)
        return
    if hit.count > limit:
        raise ServiceError(
            ErrorCode.RATE_LIMITED,
            TOO_MANY,
            [{"retry_after": hit.retry_after, "limit": limit, "window_seconds": WINDOW_SECONDS}],
            params={"limit": limit, "seconds": hit.retry_after},
        )
