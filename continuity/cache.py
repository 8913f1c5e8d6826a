"""One Redis cache client per process for Django's cache.

Django keeps a cache object per async context (its cache handler is context-local), and
each RedisCache object builds a client of its own: under ASGI every request built a client
(redis-py looks its own version up in the installed packages' metadata for each, ~1.5% of
a loaded server's time) and connection pools, and opened and dropped a new Redis connection
for its rate-limit counter (measured: 4,733 connections for ~4,700 requests). The client
holds nothing per request and its pools are thread-safe, so every cache object of the
process shares the one built for the same servers and options.
"""

from __future__ import annotations

import threading

from django.core.cache.backends.redis import RedisCache
from django.utils.functional import cached_property

_clients: dict[tuple, object] = {}
_lock = threading.Lock()


class SharedRedisCache(RedisCache):
    @cached_property
    def _cache(self):
        key = (tuple(self._servers), repr(sorted(self._options.items())))
        with _lock:
            if key not in _clients:
                # redis-py notices a fork and opens fresh connections in the child.
                _clients[key] = self._class(self._servers, **self._options)
            return _clients[key]
