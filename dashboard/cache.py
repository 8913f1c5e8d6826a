"""Dashboard aggregates (tab counts, chart totals) cached per owner write generation.

Counting 100,000 memories by index still takes tens of milliseconds per count, and every
page shows the tab counts. Every change to a memory appends a history event, so the
owner's newest event names the state of their store: a cached value keyed by it is
recomputed after any change, and is never served stale after an action. The short
timeout bounds the one case the key cannot see: rows written with old timestamps (an
import of someone's history), which may take that long to show in the numbers.
"""

from __future__ import annotations

from collections.abc import Callable

from django.core.cache import cache

from memories.models import MemoryEvent

TIMEOUT_SECONDS = 30


def write_generation(user) -> str | None:
    """The owner's newest history event (one seek in the owner-recent index), or None."""
    newest = (
        MemoryEvent.objects.filter(owner=user)
        .order_by("-created_at")
        .values_list("pk", "created_at")
        .first()
    )
    return f"{newest[0]}@{newest[1].timestamp():.6f}" if newest else None


def per_generation[T](
    user, name: str, compute: Callable[[], T], *, generation: str | None = None
) -> T:
    """`compute()`, reused while the owner's store has not changed. An owner without
    history has nothing worth caching (and no key that could tell two stores apart)."""
    generation = generation or write_generation(user)
    if generation is None:
        return compute()
    key = f"dashboard:{name}:{user.pk}:{generation}"
    value = cache.get(key)
    if value is None:
        value = compute()
        cache.set(key, value, TIMEOUT_SECONDS)
    return value
