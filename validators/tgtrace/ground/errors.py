"""The one base of every error tg-trace reports to a person rather than treats as a bug.

An error a user can act on (unreadable input, a bad setting, an output that cannot be
written, ...) derives from :class:`TgTraceError` and carries the exit status the command
ends with. The command line needs no list of them: whatever is not a TgTraceError is an
internal error (exit 3). A subclass keeps a built-in base (ValueError, OSError, KeyError)
where callers catch it as one.
"""

from __future__ import annotations

from typing import ClassVar


class TgTraceError(Exception):
    """A problem with the command, its settings or its input: one line, and the exit status 2."""

    exit_code: ClassVar[int] = 2
    # Put before the message on the command line, where the message alone would not say what it is about.
    topic = ""

    def one_line(self) -> str:
        """What the command line prints (escaped there, as any text that may quote the input)."""
        return f"{self.topic}{self}"
