"""Sign-in throttling: password guessing is slowed to a few tries per quarter hour.

Attempts are counted on atomic counters (accounts.counters: Redis in team mode, a database
row on lite, shared by every web process) per account+address and per address alone,
BEFORE the password is checked: after `CONTINUITY_LOGIN_MAX_FAILURES` attempts for one
account from one address (default 5), or `CONTINUITY_LOGIN_MAX_FAILURES_PER_IP` from one
address across accounts (default 20, against spraying), sign-in from there is refused —
without checking the password, so a locked-out guesser learns nothing — until the window
(`CONTINUITY_LOGIN_WINDOW_SECONDS`, default 900, opened by the first attempt) ends. A
success clears the account's counter, so an owner who types their password right is never
held back by their own earlier attempts.

It is an authentication backend, so every sign-in form shares it: the dashboard's, the
admin's and the browsable owner API's. The dashboard's sign-in view also asks
`retry_after` first, to answer 429 with `Retry-After` instead of a generic failure.
"""

from __future__ import annotations

import hashlib
import logging

from django.conf import settings
from django.contrib.auth.backends import ModelBackend
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest

from accounts.counters import counter_clear, counter_hit, counter_peek, counter_refund

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


def retry_after(request: HttpRequest | None, username: str | None) -> int:
    """Seconds until sign-in from this address for this account is allowed again; 0 if now.
    Counts nothing: the dashboard asks it first, to answer 429 with `Retry-After`."""
    max_account, max_address, _ = _limits()
    waits = []
    for key, limit in zip(_keys(request, username), (max_account, max_address), strict=True):
        try:
            hit = counter_peek(key)
        except Exception:  # noqa: BLE001 - an unreachable counter must not lock everyone out
            logger.warning("login throttle unavailable; allowing the attempt", exc_info=True)
            return 0
        if limit > 0 and hit.count >= limit and hit.seconds_left > 0:
            waits.append(hit.retry_after)
    return max(waits, default=0)


def reserve_attempt(request: HttpRequest | None, username: str | None) -> int:
    """Count this attempt before its password is checked; 0 if it may go ahead, else the
    seconds to wait. Counting first is what makes the limit hold under concurrency: 40
    parallel guesses take 40 distinct counts, and only the first few are checked at all."""
    max_account, max_address, window = _limits()
    waits = []
    for key, limit in zip(_keys(request, username), (max_account, max_address), strict=True):
        if limit <= 0:
            continue
        try:
            hit = counter_hit(key, window_seconds=window)
        except Exception:  # noqa: BLE001
            logger.warning("login throttle unavailable; allowing the attempt", exc_info=True)
            return 0
        if hit.count > limit:
            waits.append(hit.retry_after)
    return max(waits, default=0)


def clear_account(request: HttpRequest | None, username: str | None) -> None:
    """A successful sign-in forgets the account's attempts from this address, and takes its
    own attempt back from the address's count: that count guards against spraying across
    accounts, so it keeps the failures."""
    account, address = _keys(request, username)
    try:
        counter_clear(account)
        counter_refund(address)
    except Exception:  # noqa: BLE001
        logger.warning("login throttle unavailable; counter not cleared", exc_info=True)


class ThrottledModelBackend(ModelBackend):
    """Django's model backend behind the throttle."""

    def authenticate(self, request, username=None, password=None, **kwargs):
        if username is None:
            username = kwargs.get(self._username_field(), "")
        if reserve_attempt(request, username):
            # PermissionDenied stops Django from trying other backends and reports a failure.
            raise PermissionDenied("Too many failed sign-in attempts; try again later.")
        user = super().authenticate(request, username=username, password=password, **kwargs)
        if user is not None:
            clear_account(request, username)
        return user

    @staticmethod
    def _username_field() -> str:
        from django.contrib.auth import get_user_model

        return get_user_model().USERNAME_FIELD
