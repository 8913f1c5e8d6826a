"""Sign-in throttling: password guessing is slowed to a few tries per quarter hour.

Failures are counted in Django's cache (shared by every web process; Redis in team mode)
per account+address and per address alone: after `CONTINUITY_LOGIN_MAX_FAILURES` failures
for one account from one address (default 5), or `CONTINUITY_LOGIN_MAX_FAILURES_PER_IP`
from one address across accounts (default 20, against spraying), sign-in from there is
refused — without checking the password, so a locked-out guesser learns nothing — until
the window (`CONTINUITY_LOGIN_WINDOW_SECONDS`, default 900) ends. A success clears the
account's counter.

It is an authentication backend, so every sign-in form shares it: the dashboard's, the
admin's and the browsable owner API's. The dashboard's sign-in view also asks
`retry_after` first, to answer 429 with `Retry-After` instead of a generic failure.
"""

from __future__ import annotations

import hashlib
import logging
import math
import time

from django.conf import settings
from django.contrib.auth.backends import ModelBackend
from django.core.cache import cache
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest

logger = logging.getLogger(__name__)


def _limits() -> tuple[int, int, int]:
    return (
        int(getattr(settings, "CONTINUITY_LOGIN_MAX_FAILURES", 5)),
        int(getattr(settings, "CONTINUITY_LOGIN_MAX_FAILURES_PER_IP", 20)),
        int(getattr(settings, "CONTINUITY_LOGIN_WINDOW_SECONDS", 900)),
    )


def client_address(request: HttpRequest | None) -> str:
    # REMOTE_ADDR only: a forwarded-for header is the client's to forge unless a proxy that
    # the operator trusts rewrites it, and then the proxy's address is what reaches us.
    return (request.META.get("REMOTE_ADDR") if request is not None else "") or "unknown"


def _keys(request: HttpRequest | None, username: str | None) -> tuple[str, str]:
    account = hashlib.sha256((username or "").strip().casefold().encode()).hexdigest()[:24]
    address = client_address(request)
    return f"login-fail:acct:{account}:{address}", f"login-fail:ip:{address}"


def _count(key: str) -> tuple[int, float]:
    value = cache.get(key)
    if not value:
        return 0, 0.0
    return value  # (failures, when the window started)


def retry_after(request: HttpRequest | None, username: str | None) -> int:
    """Seconds until sign-in from this address for this account is allowed again; 0 if now."""
    max_account, max_address, window = _limits()
    now = time.time()
    waits = []
    for key, limit in zip(_keys(request, username), (max_account, max_address), strict=True):
        try:
            failures, started = _count(key)
        except Exception:  # noqa: BLE001 - an unreachable cache must not lock everyone out
            logger.warning("login throttle unavailable; allowing the attempt", exc_info=True)
            return 0
        left = started + window - now
        if limit > 0 and failures >= limit and left > 0:
            waits.append(math.ceil(left))
    return max(waits, default=0)


def record_failure(request: HttpRequest | None, username: str | None) -> None:
    _, _, window = _limits()
    now = time.time()
    for key in _keys(request, username):
        try:
            failures, started = _count(key)
            if not failures or now - started >= window:
                failures, started = 0, now
            cache.set(
                key, (failures + 1, started), timeout=max(1, math.ceil(started + window - now))
            )
        except Exception:  # noqa: BLE001
            logger.warning("login throttle unavailable; failure not counted", exc_info=True)


def clear_account(request: HttpRequest | None, username: str | None) -> None:
    try:
        cache.delete(_keys(request, username)[0])
    except Exception:  # noqa: BLE001
        logger.warning("login throttle unavailable; counter not cleared", exc_info=True)


class ThrottledModelBackend(ModelBackend):
    """Django's model backend behind the throttle."""

    def authenticate(self, request, username=None, password=None, **kwargs):
        if username is None:
            username = kwargs.get(self._username_field(), "")
        if retry_after(request, username):
            # PermissionDenied stops Django from trying other backends and reports a failure.
            raise PermissionDenied("Too many failed sign-in attempts; try again later.")
        user = super().authenticate(request, username=username, password=password, **kwargs)
        if user is None:
            record_failure(request, username)
        else:
            clear_account(request, username)
        return user

    @staticmethod
    def _username_field() -> str:
        from django.contrib.auth import get_user_model

        return get_user_model().USERNAME_FIELD
