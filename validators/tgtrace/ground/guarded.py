"""Reading the files tg-trace reads besides its inputs (configuration, baseline, shapes) as
guardedly as an input: regular files only, of bounded size."""

from __future__ import annotations

import os
import stat

from .errors import TgTraceError


class GuardedReadError(TgTraceError, OSError):
    """A file that must not be read as it is (a FIFO, a device, too large); the message says why."""


# Bounds on the files tg-trace reads besides its inputs: far above any real one, far below memory.
CONFIG_LIMIT = 1 << 20
BASELINE_LIMIT = 256 << 20
SHAPES_LIMIT = 64 << 20


def read_guarded(path: str | os.PathLike, limit: int) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes, read as an input is: a FIFO would
    block forever and a device (/dev/zero) never ends, so both are refused. Opened without
    blocking and checked on the open descriptor, so a file swapped after a check is still caught.
    Raises GuardedReadError (what is wrong) or OSError (cannot be read)."""
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    with os.fdopen(descriptor, "rb") as handle:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            kind = ("a FIFO" if stat.S_ISFIFO(info.st_mode) else "a directory" if stat.S_ISDIR(info.st_mode)
                    else "a device" if stat.S_ISCHR(info.st_mode) or stat.S_ISBLK(info.st_mode)
                    else "not a regular file")
            raise GuardedReadError(f"is {kind}, not a file")
        data = handle.read(limit + 1)  # a file that grows while read is still bounded
    if len(data) > limit:
        raise GuardedReadError(f"is larger than {limit:,} bytes")
    return data
