"""Opening what an import names on disk: regular files only, read with a byte cap.

A package directory, a JSONL export or a context-keeper store comes from somewhere else, so
a name in it may be a symlink to /dev/zero, a FIFO that never ends, or a device: reading one
with `read_bytes()` grew a process to 23 GB before the kernel killed it. Every import reads
through `open_regular` / `read_regular`: the final name is not followed if it is a symlink,
anything but a regular file is refused, and no more than the cap is ever read.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import BinaryIO

CHUNK = 1024 * 1024


class NotReadable(ValueError):
    """The name is not a regular file (the message says what it is instead)."""


class TooLarge(NotReadable):
    """The file holds more than the cap allows."""


def open_regular(path: Path | str) -> BinaryIO:
    """The file at `path` opened for reading, if it is a regular file (a symlink, directory,
    FIFO, socket or device is refused without being read)."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        descriptor = os.open(path, flags)
    except OSError as error:
        if os.path.islink(path):
            raise NotReadable("a symbolic link, not a regular file") from None
        raise NotReadable(error.strerror or str(error)) from None
    if not stat.S_ISREG(os.fstat(descriptor).st_mode):
        os.close(descriptor)
        raise NotReadable("not a regular file")
    os.set_blocking(descriptor, True)
    return os.fdopen(descriptor, "rb")


def read_capped(stream: BinaryIO, max_bytes: int) -> bytes:
    """At most `max_bytes` from `stream`; NotReadable when there is more."""
    parts, total = [], 0
    while True:
        chunk = stream.read(min(CHUNK, max_bytes + 1 - total))
        if not chunk:
            return b"".join(parts)
        total += len(chunk)
        if total > max_bytes:
            raise TooLarge(f"larger than {max_bytes:,} bytes")
        parts.append(chunk)


def read_regular(path: Path | str, max_bytes: int) -> bytes:
    with open_regular(path) as stream:
        return read_capped(stream, max_bytes)
