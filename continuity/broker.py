"""The lite profile's embedded broker: kombu's filesystem transport, made safe to publish to
while a worker polls.

kombu creates a message file and then writes it, while its consumer lists the folder,
moves each matching file away and parses it without taking the file's lock. A worker
polling between the create and the write read an empty message, failed to parse it and
stopped ("Unrecoverable error: JSONDecodeError"), and that message was gone. Here a
message is written under a name the consumer ignores and renamed into place: the rename is
atomic within a folder, so the consumer sees a whole message or none.

The exchange tables in the control folder had the same flaw: a process declaring a queue
truncated the table and then wrote it, so a process publishing at that moment read an
empty table and failed to parse it, or routed the message nowhere. A table is changed
here under a lock of its own and replaced by a rename, so a reader always finds a whole
table.

Within one process, kombu records a binding in memory before it writes the table, and a
second thread that finds the binding recorded publishes at once: before the table exists,
its message was routed nowhere, silently. Binding is one step per process here.
"""

import contextlib
import logging
import os
import threading
import uuid
from queue import Empty
from time import monotonic

from kombu.transport import filesystem, virtual
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps

logger = logging.getLogger(__name__)

# The consumer takes only names whose text after the first dot is "<queue>.msg".
PARTIAL_SUFFIX = ".partial"

# One binding at a time per process: kombu's in-memory record and the table on disk change
# together.
BINDING = threading.Lock()


def write_whole(path, data: bytes) -> None:
    """Write `data` to `path` so that a reader sees the old file or the new one, never a part."""
    partial = f"{path}{PARTIAL_SUFFIX}.{uuid.uuid4().hex}"
    try:
        with open(partial, "wb") as file:
            file.write(data)
        os.replace(partial, path)
    except OSError:
        with contextlib.suppress(OSError):  # nothing was created, or it is gone already
            os.unlink(partial)
        raise


class Channel(filesystem.Channel):
    def _put(self, queue, payload, **kwargs):
        name = f"{round(monotonic() * 1000)}_{uuid.uuid4()}.{queue}.msg"
        final = os.path.join(self.data_folder_out, name)
        try:
            write_whole(final, str_to_bytes(dumps(payload)))
        except OSError as exc:
            raise filesystem.ChannelError(f"Cannot add file {final!r} to directory") from exc

    @contextlib.contextmanager
    def _table_change(self, exchange):
        """Hold the exchange's own lock and yield its table, to be changed in place and
        written back whole."""
        table_file = self._exchange_file(exchange)
        self.control_folder.mkdir(exist_ok=True)
        try:
            with open(f"{table_file}.lock", "ab") as guard:
                filesystem.lock(guard, filesystem.LOCK_EX)
                try:
                    table = self.get_table(exchange)
                    before = list(table)
                    yield table
                    if table != before:
                        write_whole(table_file, str_to_bytes(dumps(table)))
                finally:
                    filesystem.unlock(guard)
        except OSError as exc:
            raise filesystem.ChannelError(f"Cannot change {table_file}") from exc

    def queue_bind(self, *args, **kwargs):
        with BINDING:
            return super().queue_bind(*args, **kwargs)

    def _queue_bind(self, exchange, routing_key, pattern, queue):
        binding = filesystem.exchange_queue_t(routing_key or "", pattern or "", queue or "")
        with self._table_change(exchange) as table:
            if binding not in table:
                table.insert(0, binding)

    def _delete(self, queue, exchange, routing_key, pattern, *args, **kwargs):
        virtual.Channel._delete(self, queue, exchange, routing_key, pattern, *args, **kwargs)
        binding = filesystem.exchange_queue_t(routing_key or "", pattern or "", queue or "")
        with self._table_change(exchange) as table:
            if binding in table:
                table.remove(binding)

    def _get(self, queue):
        try:
            return super()._get(queue)
        except ValueError:
            # A message that cannot be parsed (written by an older release, or cut short by
            # a full disk) is dropped with a log line instead of stopping the worker.
            logger.error("Dropped an unreadable message from queue %s", queue)
            raise Empty() from None


class Transport(filesystem.Transport):
    Channel = Channel
