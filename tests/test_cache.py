"""Team mode's cache backend (continuity/cache.py): every cache object of a process shares
one Redis client per server and options, whatever async context or thread made it."""

from __future__ import annotations

import threading

from continuity.cache import SharedRedisCache


def cache(location: str) -> SharedRedisCache:
    return SharedRedisCache(location, {"KEY_PREFIX": "continuity"})


def test_cache_objects_for_one_server_share_one_client_across_threads():
    first = cache("redis://127.0.0.1:1/5")
    from_thread = []
    thread = threading.Thread(
        target=lambda: from_thread.append(cache("redis://127.0.0.1:1/5")._cache)
    )
    thread.start()
    thread.join()
    assert from_thread == [first._cache]
    assert first._cache._pools is from_thread[0]._pools


def test_another_server_or_database_gets_its_own_client():
    assert cache("redis://127.0.0.1:1/5")._cache is not cache("redis://127.0.0.1:1/6")._cache
    assert cache("redis://127.0.0.1:1/5")._cache is not cache("redis://127.0.0.1:2/5")._cache
