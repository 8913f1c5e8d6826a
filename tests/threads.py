"""Start work in many threads at once, for the concurrency tests."""

from __future__ import annotations

import threading

from django.db import connection


def run_in_threads(work, count: int = 20) -> list:
    """Run `work(index)` in `count` threads released together (a barrier); returns what
    each returned or raised, by index. Each thread closes its database connection."""
    barrier = threading.Barrier(count)
    outcomes: list = [None] * count

    def target(index):
        try:
            barrier.wait()
            outcomes[index] = work(index)
        except Exception as error:  # collected and asserted on by the caller
            outcomes[index] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=target, args=(index,)) for index in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads)
    return outcomes
