"""Leases that keep a periodic job from running twice at once, across workers and machines.

A lease is a row in `continuity_maintenancelock`. Taking it is one atomic statement on
both profiles: an UPDATE that only succeeds when the current lease has expired, else an
INSERT that only succeeds when no row exists (primary key). Two workers can never both
succeed, whatever the timing; a worker killed while holding a lease blocks the job only
until the lease expires (its TTL is the task's hard time limit plus a margin, so a live
holder is killed by Celery before its lease can run out).

Why not Django's cache `add`: on Redis it is an atomic SET NX, but the lite profile's
file cache implements `add` as "exists? then write", which two processes can both pass.
The database is the one shared, transactional thing both profiles have.
"""

from __future__ import annotations

import contextlib
import secrets
from datetime import timedelta

from django.db import IntegrityError, transaction
from django.utils import timezone

from foundation.models import MaintenanceLock


def lease_acquire(*, name: str, ttl_seconds: float, holder: str | None = None) -> str | None:
    """Take the lease `name` for `ttl_seconds`. Returns the holder token, or None when
    someone else holds an unexpired lease. Never blocks."""
    holder = holder or secrets.token_hex(16)
    now = timezone.now()
    expires_at = now + timedelta(seconds=ttl_seconds)
    with transaction.atomic():
        taken_over = MaintenanceLock.objects.filter(name=name, expires_at__lte=now).update(
            holder=holder, acquired_at=now, expires_at=expires_at
        )
        if taken_over:
            return holder
        try:
            with transaction.atomic():  # a savepoint: a lost race must not break the outer one
                MaintenanceLock.objects.create(
                    name=name, holder=holder, acquired_at=now, expires_at=expires_at
                )
        except IntegrityError:
            return None
    return holder


def lease_release(*, name: str, holder: str) -> bool:
    """Give the lease back; a no-op (False) if it expired and someone else took it since."""
    deleted, _ = MaintenanceLock.objects.filter(name=name, holder=holder).delete()
    return bool(deleted)


@contextlib.contextmanager
def lease(name: str, *, ttl_seconds: float):
    """`with lease("job", ttl_seconds=...) as held:` — `held` is False when another worker
    has it; the lease is released on exit either way."""
    holder = lease_acquire(name=name, ttl_seconds=ttl_seconds)
    try:
        yield holder is not None
    finally:
        if holder is not None:
            lease_release(name=name, holder=holder)
