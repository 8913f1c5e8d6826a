"""The lite profile's embedded broker: kombu's filesystem transport, made safe to publish to
while a worker polls.

kombu creates a message file and then writes it, while its consumer lists the folder,
moves each matching file away and parses it without taking the file's lock. A worker
polling between the create and the write read an empty message, failed to parse it and
stopped ("Unrecoverable error: JSONDecodeError"), and that message was gone. Here a
message is written under a name the consumer ignores and renamed into place: the rename is
atomic within a folder, so the consumer sees a whole message or none.
"""

import contextlib
import logging
import os
import uuid
from queue import Empty
from time import monotonic

from kombu.transport import filesystem
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps

logger = logging.getLogger(__name__)

# The consumer takes only names whose text after the first dot is "<queue>.msg".
PARTIAL_SUFFIX = ".partial"


class Channel(filesystem.Channel):
    def _put(self, queue, payload, **kwargs):
        name = f"{round(monotonic() * 1000)}_{uuid.uuid4()}.{queue}.msg"
        final = os.path.join(self.data_folder_out, name)
        partial = final + PARTIAL_SUFFIX
        try:
            with open(partial, "wb") as message:
                message.write(str_to_bytes(dumps(payload)))
            os.replace(partial, final)
        except OSError as exc:
            with contextlib.suppress(OSError):  # nothing was created, or it is gone already
                os.unlink(partial)
            raise filesystem.ChannelError(f"Cannot add file {final!r} to directory") from exc

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
