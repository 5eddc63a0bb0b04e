"""Compressed and binary input, told apart by their first bytes.

Large captures travel compressed: a gzip, bzip2 or xz file is read through the standard library's
decompressor as a stream, never decompressed to disk or held whole unless its format must be, and
a finding's line is the line of the decompressed text. A stream of several members (``cat a.gz
b.gz``, pigz, pbzip2) is read member by member, in the same few buffers. What a stream makes is
counted as it is made: at no point may it have made more than ``expansion`` times the compressed
bytes read of it (:data:`~tgtrace.ground.limits.MAX_EXPANSION` by default, ``--max-expansion``; at
least :data:`MIN_BUDGET` bytes of input are counted, and never more than :data:`MAX_EXPANDED_BYTES`
made): past that it is a decompression bomb, refused a few megabytes into it, whatever its size.
zstd has no decoder in the standard library before Python 3.14 and none among the dependencies:
it is named and refused. Anything else that is not text is named as binary, rather than handed
to a parser whose message would quote its first byte.
"""

from __future__ import annotations

import bz2
import io
import lzma
import re
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from ..ground.limits import MAX_EXPANSION
from .base import InputError

# Bomb defences, shared with the workspace bundle (a gzipped tar): a gzip stream expands about 1000
# times at most, bzip2 and xz far more; the ratio allowed is the reading's (limits.MAX_EXPANSION).
MIN_BUDGET = 1 << 16  # the input counted at least this large: a small file may still expand to 12.5 MiB
MAX_EXPANDED_BYTES = 1 << 36  # 64 GiB, whatever the ratio
# xz declares the dictionary its decoder allocates: xz -9 needs 64 MiB.
MAX_XZ_MEMORY = 256 << 20
_CHUNK = 1 << 20  # what the decompressed stream is read in
# What the compressed input is read in: the budget grows by this much at a time, so a bomb has made
# at most the ratio times this beyond what it may before it is caught.
_READ = 1 << 16

# First bytes of each compression (its magic number) and the suffix its tools give a file.
COMPRESSIONS = {
    "gzip": (b"\x1f\x8b", ".gz"),
    "bzip2": (b"BZh", ".bz2"),
    "xz": (b"\xfd7zXZ\x00", ".xz"),
    "zstd": (b"\x28\xb5\x2f\xfd", ".zst"),
}
COMPRESSED_SUFFIXES = tuple(suffix for _, suffix in COMPRESSIONS.values())

# Binary content a trace is mistaken for most often, by its first bytes (a tar by its header's magic).
_KNOWN_BINARY = (
    (b"\x7fELF", "an ELF executable"),
    (b"PK\x03\x04", "a zip archive"),
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"%PDF", "a PDF document"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
    (b"SQLite format 3\x00", "an SQLite database"),
    (b"PAR1", "a Parquet file"),
)
_HEAD = 8192


_ODD_SHARE = 0.1
# Not UTF-8 (decoded as U+FFFD), or a control character text does not use (tab, line feeds and form feed are).
_ODD = re.compile("[\ufffd\x00-\x08\x0b\x0e-\x1f\x7f]")


def _odd_share(head: bytes) -> float:
    """The share of characters that are not UTF-8 or are control characters text does not use."""
    if not head:
        return 0.0
    text = head.decode("utf-8", errors="replace")
    return len(_ODD.findall(text)) / len(text)


def compression_of(head: bytes) -> str | None:
    """gzip, bzip2, xz or zstd, by the first bytes; None for anything else."""
    return next((kind for kind, (magic, _) in COMPRESSIONS.items() if head.startswith(magic)), None)


def inner_name(name: str, kind: str) -> str:
    """The name the decompressed file would have: ``capture.nq.gz`` -> ``capture.nq``."""
    suffix = COMPRESSIONS[kind][1]
    return name[:-len(suffix)] if name.lower().endswith(suffix) else name


def is_tar(head: bytes) -> bool:
    """Whether decompressed bytes start a POSIX tar archive (its header's magic at 257)."""
    return head[257:262] == b"ustar"


def binary_kind(head: bytes) -> str | None:
    """What the first bytes of content are when they are not text: a known kind of file, UTF-16
    text, or binary content; None for text (UTF-8, a character cut at the end of ``head`` allowed)."""
    head = head[:_HEAD]
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "UTF-16 text (tg-trace reads UTF-8)"
    if is_tar(head):
        return "a tar archive"
    known = next((what for magic, what in _KNOWN_BINARY if head.startswith(magic)), None)
    # A NUL, as git and grep judge, or mostly bytes text does not hold: a stray control character or
    # a Latin-1 byte in a literal is text, and the parser names its line.
    if known is None and b"\x00" not in head and _odd_share(head) <= _ODD_SHARE:
        return None
    first = " ".join(f"{byte:02x}" for byte in head[:8])
    return f"{known or 'binary content'} (first bytes {first})"


def not_a_trace(name: str, what: str, kind: str | None = None) -> InputError:
    """The error of content that is no trace: binary content, named as what it is."""
    within = f"{kind}-compressed: " if kind else ""
    return InputError(name, None, f"is {within}{what}, not a trace in any format tg-trace reads")


def refuse_zstd(name: str) -> InputError:
    return InputError(name, None, "is zstd-compressed, which tg-trace cannot read (no zstd decoder in Python's "
                                  "standard library before 3.14); decompress it (zstd -d) and lint the result, or "
                                  "recompress it with gzip, bzip2 or xz")


def budget_of(compressed: int, expansion: int = MAX_EXPANSION) -> int:
    """Bytes a stream may have made once ``compressed`` bytes of it are read."""
    return min(MAX_EXPANDED_BYTES, max(compressed, MIN_BUDGET) * expansion)


def _decompressor(kind: str) -> Any:  # zlib's, bz2's or lzma's: their attributes differ, read by kind
    if kind == "gzip":
        return zlib.decompressobj(wbits=31)
    if kind == "bzip2":
        return bz2.BZ2Decompressor()
    return lzma.LZMADecompressor(format=lzma.FORMAT_XZ, memlimit=MAX_XZ_MEMORY)


_ERRORS = (zlib.error, OSError, lzma.LZMAError, EOFError, ValueError)


class _Expanding(io.RawIOBase):
    """The decompressed bytes of a stream of one or more concatenated members (pigz, pbzip2 and
    ``cat a.gz b.gz`` write several), counted against the budget as they are made: at any point
    at most ``expansion`` times what was read of the input (at least MIN_BUDGET of it)."""

    def __init__(self, name: str, raw: IO[bytes], kind: str, expansion: int = MAX_EXPANSION,
                 progress: Callable[[int], None] | None = None) -> None:
        self.name, self.raw, self.kind, self.expansion, self.progress = name, raw, kind, expansion, progress
        self.made = self.read_in = 0
        self.pending = b""  # compressed bytes not yet given to the decompressor
        self.decompressor = _decompressor(kind)
        self.ended = False

    def readable(self) -> bool:
        return True

    def _more(self) -> bytes:
        chunk = self.raw.read(_READ)
        self.read_in += len(chunk)
        if self.progress is not None:
            self.progress(self.read_in)
        return chunk

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]  # BufferedReader's memoryview
        size = len(buffer)
        while not self.ended:
            made = self._step(size)
            if made:
                self.made += len(made)
                if self.made > budget_of(self.read_in, self.expansion):
                    raise InputError(self.name, None, f"expands more than {self.expansion} times what was read "
                                                      f"of it ({self.made:,} bytes of {self.kind} from "
                                                      f"{self.read_in:,}): a decompression bomb, refused; "
                                                      "decompress it yourself if it is genuine, or raise "
                                                      "--max-expansion")
                buffer[:len(made)] = made
                return len(made)
        return 0

    def _step(self, size: int) -> bytes:
        """Some decompressed bytes (perhaps none), or the end marked."""
        decompressor = self.decompressor
        try:
            if decompressor.eof:
                # What follows the member is its unused_data alone: zlib also leaves it in
                # unconsumed_tail when the member's end came after an output limit, and both
                # together would hold the rest of the input twice (doubling at every member).
                rest = self._next_member(decompressor.unused_data)
                if rest is None:
                    self.ended = True
                    return b""
                self.decompressor = decompressor = _decompressor(self.kind)
                self.pending = rest
            if self.kind == "gzip":
                data = self.pending or self._more()
                made = decompressor.decompress(data, size)  # b"" drains what a full buffer held back
                self.pending = b"" if decompressor.eof else decompressor.unconsumed_tail
                if not data and not made and not decompressor.eof:
                    raise self._truncated()
                return made
            if decompressor.needs_input:
                data = self.pending or self._more()
                self.pending = b""
                if not data:
                    raise self._truncated()
                return decompressor.decompress(data, size)
            return decompressor.decompress(b"", size)
        except InputError:
            raise
        except _ERRORS as exc:
            raise InputError(self.name, None, f"is damaged {self.kind}: {exc}") from None

    def _truncated(self) -> InputError:
        return InputError(self.name, None, f"is truncated: its {self.kind} stream ends before its end marker")

    def _next_member(self, rest: bytes) -> bytes | None:
        """The bytes that start the next member after one ended; None at the end of the input
        (zero padding, which some tools write after the last member, included)."""
        magic = COMPRESSIONS[self.kind][0]
        while True:
            rest = rest.lstrip(b"\x00")
            if len(rest) >= len(magic):
                break
            chunk = self._more()
            if not chunk:
                if rest:
                    break
                return None
            rest += chunk
        if not rest.startswith(magic):
            raise InputError(self.name, None, f"is damaged {self.kind}: bytes follow the end of its stream that "
                                              f"are not {self.kind}")
        return rest

    def close(self) -> None:
        try:
            self.raw.close()
        finally:
            super().close()


def open_expanded(name: str, kind: str, path: Path | None = None, data: bytes | None = None,
                  progress: Callable[[int], None] | None = None,
                  expansion: int = MAX_EXPANSION) -> io.BufferedReader:
    """The decompressed text of a file (or of bytes), as a binary file object that reads lines in C;
    its errors are InputErrors naming ``name``."""
    if kind == "zstd":
        raise refuse_zstd(name)
    raw = open(path, "rb") if data is None else io.BytesIO(data)  # type: ignore[arg-type]  # path is given when data is not
    return io.BufferedReader(_Expanding(name, raw, kind, expansion, progress), _CHUNK)


def expanded_bytes(name: str, kind: str, data: bytes, limit: int | None = None, hint: str = "",
                   expansion: int = MAX_EXPANSION) -> bytes:
    """Compressed bytes decompressed whole (the input is held whole already), at most ``limit`` of them."""
    with open_expanded(name, kind, data=data, expansion=expansion) as stream:
        expanded = stream.read(limit + 1) if limit is not None else stream.read()
    if limit is not None and len(expanded) > limit:
        raise InputError(name, None, f"expands to more than {limit:,} bytes{hint}")
    return expanded
