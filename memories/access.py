"""Access counts, kept off recall's path.

Recall notes which memories it returned; a background thread sends what piled up as one
task at most every FLUSH_SECONDS, so neither the broker nor the database is waited on
while an agent waits for its answer, and a busy instance sends one small task a second
instead of one per read. Counts are a usage statistic: what is pending when a process is
killed outright is lost (a normal exit sends it).
"""

from __future__ import annotations

import atexit
import logging
import os
import threading
import time
from collections import Counter

from django.conf import settings

log = logging.getLogger(__name__)
FLUSH_SECONDS = 1.0
# Beyond this many distinct memories waiting (the broker away for long), reads are no
# longer counted rather than letting the process grow.
MAX_PENDING = 50_000


def send_to_worker(counts: dict[str, int]) -> None:
    from memories.tasks import record_access

    record_access.apply_async(args=[counts], retry=False)


class AccessLog:
    def __init__(
        self, send=send_to_worker, *, inline: bool | None = None, every: float = FLUSH_SECONDS
    ):
        self._send = send
        self._every = every
        # Inline: every add sends at once (when tasks run eagerly, as in unit tests).
        self._inline = inline
        self._reset()
        atexit.register(self.flush)

    @property
    def inline(self) -> bool:
        return settings.CELERY_TASK_ALWAYS_EAGER if self._inline is None else self._inline

    def _reset(self) -> None:
        self._pid = os.getpid()
        self._lock = threading.Lock()
        self._pending: Counter = Counter()
        self._thread: threading.Thread | None = None

    def add(self, memory_ids) -> None:
        if os.getpid() != self._pid:  # forked (a worker pool): the parent's thread is not here
            self._reset()
        with self._lock:
            if len(self._pending) < MAX_PENDING:
                self._pending.update(str(memory_id) for memory_id in memory_ids)
            if self._thread is None and not self.inline:
                self._thread = threading.Thread(target=self._run, name="access-counts", daemon=True)
                self._thread.start()
        if self.inline:
            self.flush()

    def _run(self) -> None:
        while True:
            time.sleep(self._every)
            self.flush()

    def flush(self) -> None:
        with self._lock:
            counts, self._pending = dict(self._pending), Counter()
        if not counts:
            return
        try:
            self._send(counts)
        except Exception:  # counts are best effort; the next reads are counted again
            log.warning("could not queue access counts for %d memories", len(counts), exc_info=True)


access_log = AccessLog()
