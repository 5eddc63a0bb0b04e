"""Files read and written safely: outputs never over an input, never half-written; the files
tg-trace reads besides its inputs (configuration, baseline, shapes) guarded as inputs are."""

from __future__ import annotations

import codecs
import contextlib
import errno
import os
import stat
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path

from .errors import TgTraceError


class OutputError(TgTraceError, OSError):
    """An output file that cannot or must not be written; the message names it."""


def refuse_inputs(outputs: dict[str, str | None], input_files: Iterable[str]) -> None:
    """Raise when an output file (flag -> path) is one of the input files: a report must
    not overwrite the trace it is about."""
    for flag, target in outputs.items():
        if not target or target == "-" or not os.path.exists(target):
            continue
        for source in input_files:
            try:
                same = os.path.samefile(source, target)
            except OSError:
                continue
            if same:
                raise OutputError(f"{target}: {flag} names an input file; refusing to overwrite it")


def git_root(start: Path) -> Path | None:
    """The repository ``start`` lies in: the nearest folder from ``start`` up holding ``.git``
    (a folder, or a file in a worktree), or None outside any repository."""
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return None


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_atomic(path: str | os.PathLike, text: str | bytes, append: bool = False) -> None:
    """Write ``text`` to ``path`` through a temporary file renamed over it, so a reader sees
    the old content or the new, never a part; ``append`` keeps what the file held. Bytes (a
    PNG) are written as they are."""
    binary = isinstance(text, bytes)
    target = Path(path)
    if target.exists() and not target.is_file():
        # A device or pipe (/dev/stdout, a FIFO): written in place, never replaced.
        try:
            with open(target, ("a" if append else "w") + ("b" if binary else ""),
                      encoding=None if binary else "utf-8") as out:
                out.write(text)
        except OSError as exc:
            raise OutputError(f"{path}: cannot write: {exc.strerror or exc}") from None
        return
    try:
        before = (b"" if binary else "") if not (append and target.exists()) else \
            (target.read_bytes() if binary else target.read_text(encoding="utf-8"))
        handle, temporary = tempfile.mkstemp(dir=target.parent or ".", prefix=f".{target.name}.", suffix=".tmp")
        try:
            with os.fdopen(handle, "wb" if binary else "w", encoding=None if binary else "utf-8") as out:
                out.write(before + text)  # type: ignore[operator]  # both bytes or both str
            # mkstemp makes the file private; the result gets the mode a plain open() would.
            os.chmod(temporary, target.stat().st_mode & 0o7777 if target.exists() else 0o666 & ~_umask())
            os.replace(temporary, target)
        except BaseException:
            os.unlink(temporary)
            raise
    except UnicodeDecodeError:
        raise OutputError(f"{path}: cannot append to it: it is not UTF-8 text") from None
    except OSError as exc:
        raise OutputError(f"{path}: cannot write: {exc.strerror or exc}") from None


class Appended:
    """A file appended to line by line, guarded as an output is and more, for it grows for days
    (``tg-trace watch --record``): opened without following a symbolic link, refused unless it is
    a regular file, and, when it holds anything, unless its content passes ``accepts`` (its first
    and last lines; the whole of it as UTF-8) and it ends with a line break. A line that cannot be
    written whole (a full disk, a file size limit) is taken back, so the file stays what it was,
    and the write is an :class:`OutputError`."""

    def __init__(self, path: str, accepts: Callable[[bytes], bool], what: str) -> None:
        self.path, self.what = path, what
        try:
            descriptor = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW | os.O_NONBLOCK
                                 | getattr(os, "O_CLOEXEC", 0), 0o666)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise OutputError(f"{path}: {what} is a symbolic link; refusing to write through it") from None
            raise OutputError(f"{path}: {what} cannot be written ({exc.strerror or exc})") from None
        self._fd = descriptor
        try:
            info = os.fstat(descriptor)
            if not stat.S_ISREG(info.st_mode):
                kind = ("a FIFO" if stat.S_ISFIFO(info.st_mode) else "a device"
                        if stat.S_ISCHR(info.st_mode) or stat.S_ISBLK(info.st_mode) else "not a regular file")
                raise OutputError(f"{path}: {what} is {kind}, not a file; refusing to write to it")
            os.set_blocking(descriptor, True)
            self.lines = self._check(accepts) if info.st_size else 0
            self.size = os.lseek(descriptor, 0, os.SEEK_END)
        except BaseException:
            os.close(descriptor)
            raise

    def _check(self, accepts: Callable[[bytes], bool]) -> int:
        """The lines the file holds, once its content is found to be what it should be."""
        decoder = codecs.getincrementaldecoder("utf-8")()
        os.lseek(self._fd, 0, os.SEEK_SET)
        lines, first, tail = 0, None, b""
        try:
            while chunk := os.read(self._fd, 1 << 20):
                decoder.decode(chunk)
                lines += chunk.count(b"\n")
                if first is None:
                    tail += chunk
                    if b"\n" in tail or len(tail) > _LINE_CHECKED:
                        first, tail = tail.split(b"\n", 1)[0][:_LINE_CHECKED], b""
            decoder.decode(b"", final=True)
        except UnicodeDecodeError:
            raise OutputError(f"{self.path}: {self.what} holds something that is not UTF-8 text; refusing to "
                              "append to it") from None
        if first is None:
            first = tail
        os.lseek(self._fd, max(0, os.lseek(self._fd, 0, os.SEEK_END) - _LINE_CHECKED), os.SEEK_SET)
        last = os.read(self._fd, _LINE_CHECKED)
        if not last.endswith(b"\n"):
            raise OutputError(f"{self.path}: {self.what} ends in a cut line; refusing to append to it")
        final = last[:-1].rsplit(b"\n", 1)[-1]
        if not (accepts(first) and accepts(final)):
            raise OutputError(f"{self.path}: {self.what} is not {accepts.__doc__ or 'what it should be'}; "
                              "refusing to append to it")
        return lines

    def append(self, pieces: str | Iterable[str]) -> None:
        """Append the pieces of text (a line, or lines) as they come, a megabyte at a time."""
        if isinstance(pieces, str):
            pieces = (pieces,)
        pending: list[bytes] = []
        size = written = lines = 0
        try:
            for piece in pieces:
                data = piece.encode("utf-8")
                pending.append(data)
                size += len(data)
                lines += data.count(b"\n")
                if size >= _BLOCK:
                    written += self._write(b"".join(pending))
                    pending, size = [], 0
            written += self._write(b"".join(pending))
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.ftruncate(self._fd, self.size)  # the part written taken back: no cut line
            raise OutputError(f"{self.path}: {self.what} cannot be written ({exc.strerror or exc}); "
                              "it holds every line before this one") from None
        self.size += written
        self.lines += lines

    def _write(self, data: bytes) -> int:
        done = 0
        while done < len(data):
            done += os.write(self._fd, data[done:])
        return done

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


_BLOCK = 1 << 20
# The longest first or last line of an existing recording judged (an explain event is far shorter).
_LINE_CHECKED = 64 << 20
