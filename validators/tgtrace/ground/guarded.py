"""Reading the files tg-trace reads besides its inputs (configuration, baseline, shapes) as
guardedly as an input: regular files only, of bounded size, and nested no deeper than an input may
be (:func:`nested_line`, which the inputs' own measures share)."""

from __future__ import annotations

import operator
import os
import re
import stat
from collections.abc import Callable
from itertools import accumulate, count

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
        # Sized by the file, not the bound: a read of ``limit + 1`` allocates the whole bound first
        # (64 MiB for a shapes file of kilobytes). One byte more than the bound still tells a file that
        # grew while read.
        data = handle.read(min(info.st_size, limit) + 1)
        if len(data) <= limit and len(data) == min(info.st_size, limit) + 1:
            data += handle.read(limit + 1 - len(data))
    if len(data) > limit:
        raise GuardedReadError(f"is larger than {limit:,} bytes")
    return data


def deepest(marks: bytes, opening: bytes, closing: bytes) -> int:
    """The greatest nesting a sequence of one-byte marks reaches (a byte of ``opening`` opens, one of
    ``closing`` closes; any other is ignored), in C: each opening counts 2 and each closing 0, so the
    running sum less the position is the depth."""
    kept = marks.translate(_COUNTED.get((opening, closing)) or _counted(opening, closing),
                           bytes(b for b in range(256) if b not in opening and b not in closing))
    if not kept:
        return 0
    return max(0, max(map(operator.sub, accumulate(kept), count(1))))


_COUNTED: dict[tuple[bytes, bytes], bytes] = {}


def _counted(opening: bytes, closing: bytes) -> bytes:
    table = _COUNTED[(opening, closing)] = bytes(2 if b in opening else 0 if b in closing else 1 for b in range(256))
    return table


def nested_line(text: bytes, aside: re.Pattern[bytes], opening: bytes, closing: bytes, bound: int) -> int | None:
    """The line at which the one-byte brackets of ``text`` (``opening`` and ``closing``), outside what
    ``aside`` matches (strings, comments), first nest deeper than ``bound``; None when they never do.
    Measured in C (a substitution, a translation, a running sum); only a text nested too deep is walked
    again, token by token, for the line."""
    if sum(text.count(bytes([b])) for b in opening) <= bound:
        return None
    if deepest(aside.sub(b" ", text), opening, closing) <= bound:
        return None
    marks = b"".join(re.escape(bytes([b])) for b in opening + closing)
    return walked_line(text, re.compile(aside.pattern + b"|(?P<mark>[" + marks + b"])", aside.flags), bound,
                       lambda token: 1 if token in opening else -1)


def walked_line(text: bytes, tokens: re.Pattern[bytes], bound: int,
                step: Callable[[bytes], int] | None = None) -> int | None:
    """The line at which the marks ``tokens`` finds (its group ``mark``, or ``start`` and ``end``;
    anything else it matches is set aside) first nest deeper than ``bound``, walked a token at a
    time; ``step`` says how a ``mark`` moves the depth."""
    depth = 0
    for match in tokens.finditer(text):
        kind = match.lastgroup
        if kind is None:
            continue
        depth += step(match.group()) if step is not None and kind == "mark" else 1 if kind == "start" else -1
        if depth > bound:
            return text.count(b"\n", 0, match.start()) + 1
    return None
