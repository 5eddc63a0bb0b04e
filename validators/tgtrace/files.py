"""Files read and written safely: outputs never over an input, never half-written; the files
tg-trace reads besides its inputs (configuration, baseline, shapes) guarded as inputs are."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from .errors import TgTraceError


class OutputError(TgTraceError, OSError):
    """An output file that cannot or must not be written; the message names it."""


def refuse_inputs(outputs: dict[str, str | None], input_files) -> None:
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
