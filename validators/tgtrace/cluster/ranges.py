"""Inputs cut into byte ranges, for a cluster: what is read where, and a range's quads with their lines.

N-Quads, N-Triples and explain streams (JSONL) hold one statement or event per
line, so they are cut at line boundaries into ranges that workers parse on
their own; a range holds the lines that start inside it. Other formats are
read whole, one range per file. Inputs are named by path or URL and read
through fsspec (local paths, ``file://``, ``memory://``, ``s3://``, ``gs://``,
globs): fsspec is the file layer Dask itself uses, so a worker reads its range
straight from object storage and nothing passes through the client.

Lines of a range are numbered from 1; the client adds the lines of the ranges
before it once every range has said how many it holds.
"""

from __future__ import annotations

import os
import zlib
from array import array
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field
from itertools import accumulate
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

import pyoxigraph as ox

from ..inputs.base import FORMAT_NAMES, RDF_FORMATS, InputError
from ..inputs.loaders import BOM, NO_TRACE_FILES, from_bytes, is_trace_file, jsonl_events

if TYPE_CHECKING:
    from fsspec import AbstractFileSystem

try:
    import fsspec
except ImportError:  # the cluster extra is not installed: the cluster module says how to install it
    fsspec = None

# Formats a range may cut at any line boundary.
SPLITTABLE = {"nquads": "nquads", "ntriples": "ntriples", "jsonl": "jsonl"}
_BY_SUFFIX = {".nq": "nquads", ".nt": "ntriples", ".jsonl": "jsonl", ".ndjson": "jsonl"}


@dataclass(frozen=True)
class Range:
    """Bytes [start, end) of the input ``url``, the ``part``-th input; whole files have end None."""

    url: str
    part: int
    start: int
    end: int | None
    format: str | None  # splittable format, or None: read whole, format from the name and content


# Bytes of a released range read again at once, each checked against what was linted.
_BLOCK = 1 << 20
# Bytes of a page of the line index: the index holds how many lines end before each page (8 bytes
# a page, not a line, made in C), and a page's lines are found in it only when one of them is
# asked for. Splitting the whole range into lines instead cost more than a tenth of reading it.
_PAGE = 1 << 16


class RangeText:
    """A range's bytes, kept rather than its parsed quads (a quad object costs several times its
    line), read by line number (from 1). Once ``release``d, only the blocks of the lines asked
    for are read again from the input, within ``held``, each checked against what was read."""

    def __init__(self, data: bytes, source: Range | None = None, name: str = "", origin: int = 0,
                 before: array | None = None) -> None:
        self.data: bytes | None = data
        self.source, self.name = source, name
        self.origin = origin  # where the bytes start in the input
        # Newlines before each page, then in all: counted once, by the reader when it has them.
        self._before = newlines_by_page(data) if before is None else before
        self._pages: dict[int, array] = {}  # page -> where each newline in it lies, once asked for
        self._checks = array("I")  # CRC-32 of each block of the bytes, once released
        self._size = len(data)
        self._handle = None
        self._blocks: dict[int, bytes] = {}

    def release(self) -> None:
        """Drop the bytes: a worker then keeps, of each range it has read, a count of lines a
        page and a checksum a megabyte (a few bytes in ten thousand) instead of its text."""
        data = self.data
        if data is None or self.source is None:
            return
        self._pages = {}
        view = memoryview(data)
        self._checks = array("I", (zlib.crc32(view[at:at + _BLOCK]) for at in range(0, len(data), _BLOCK)))
        self.data = None

    @contextmanager
    def held(self) -> Iterator[None]:
        """Within the block, lines of a released range are read again from the input, each block
        of it once; a block that no longer holds what was linted (the input rewritten since) is an
        input error."""
        if self.data is not None or self.source is None:
            yield
            return
        fs, path = _filesystem(self.source.url)
        with fs.open(path, "rb") as self._handle:
            try:
                yield
            finally:
                self._handle = None
                self._blocks = {}
                self._pages = {}

    def _newlines(self, page: int) -> array:
        """Where each newline of a page lies within it."""
        found = self._pages.get(page)
        if found is None:
            start = page * _PAGE
            end = min(start + _PAGE, self._size)
            text = self.data[start:end] if self.data is not None else self._read_again(start, end)
            found = array("I")
            at = text.find(b"\n")
            while at >= 0:
                found.append(at)
                at = text.find(b"\n", at + 1)
            self._pages[page] = found
        return found

    def _newline(self, count: int) -> int:
        """Where the ``count``-th newline (from 1) of the range lies."""
        before = self._before
        page = bisect_left(before, count) - 1  # before[page] < count <= before[page + 1]
        return page * _PAGE + self._newlines(page)[count - before[page] - 1]

    def _read_again(self, start: int, end: int) -> bytes:
        """Bytes [start, end) of a released range, from the blocks that hold them, each read once."""
        assert self._handle is not None, "a released range is read within held()"
        found = []
        for block in range(start // _BLOCK, (end - 1) // _BLOCK + 1):
            read = self._blocks.get(block)
            if read is None:
                self._handle.seek(self.origin + block * _BLOCK)
                read = self._handle.read(min(_BLOCK, self._size - block * _BLOCK))
                if zlib.crc32(read) != self._checks[block]:
                    raise InputError(self.name, None, "changed while it was being linted: lint it again")
                self._blocks[block] = read
            found.append(read)
        first = (start // _BLOCK) * _BLOCK
        return b"".join(found)[start - first:end - first]

    def line(self, number: int) -> bytes:
        """Line ``number`` (from 1) of the range, as written (no newline)."""
        data = self.data
        start = self._newline(number - 1) + 1 if number > 1 else 0
        end = self._newline(number) if number <= self._before[-1] else self._size  # the last line may lack one
        return data[start:end] if data is not None else self._read_again(start, end) if end > start else b""


def newlines_by_page(data: bytes) -> array:
    """How many newlines lie before each page of ``data``, and in all (the last entry)."""
    return array("Q", accumulate((data.count(b"\n", at, at + _PAGE) for at in range(0, len(data), _PAGE)),
                                 initial=0))


class LineStatements(RangeText, Sequence):
    """The statements of an N-Quads or N-Triples range: the n-th statement (from 0) is on line
    ``lines[n]``, parsed again only when asked for (the few a finding names, a range's seams)."""

    def __init__(self, data: bytes, fmt: str, lines: Sequence[int], source: Range | None = None,
                 name: str = "", origin: int = 0, before: array | None = None) -> None:
        super().__init__(data, source, name, origin, before)
        # The format by name: a parsed range may be moved to another worker, pickled, and
        # pyoxigraph's format objects do not pickle.
        self.format, self.lines = fmt, lines

    def __len__(self) -> int:
        return len(self.lines)

    def line_of(self, n: int) -> bytes:
        """The line of the n-th statement, as written (no newline)."""
        return self.line(self.lines[n])

    def __getitem__(self, n: int) -> ox.Quad:  # type: ignore[override]  # read by position, never sliced
        return next(iter(ox.parse(self.line_of(n), format=RDF_FORMATS[self.format])))

    def text(self, positions: Iterable[int]) -> bytes:
        """The statements at ``positions`` as N-Quads text, one a line, in that order: their lines
        as written (N-Triples is N-Quads without graph names), nothing parsed or serialised."""
        return b"".join(self.line_of(n) + b"\n" for n in positions)


class EventStatements(RangeText, Sequence):
    """The statements of a JSONL range: the n-th (from 0) is the ``within[n]``-th quad of the
    event on line ``lines[n]``, whose JSON is parsed again when one of them is asked for."""

    def __init__(self, data: bytes, lines: Sequence[int], within: Sequence[int], source: Range | None = None,
                 name: str = "", origin: int = 0, before: array | None = None) -> None:
        super().__init__(data, source, name, origin, before)
        self.lines, self.within = lines, within
        self._last: tuple[int, list] = (0, [])  # the event read last: a run of statements shares one

    def __len__(self) -> int:
        return len(self.lines)

    def __getitem__(self, n: int) -> ox.Quad:  # type: ignore[override]  # read by position, never sliced
        number = self.lines[n]
        if self._last[0] != number:
            self._last = (number, next(jsonl_events(self.name, [self.line(number)]), (0, []))[1])
        return self._last[1][self.within[n]]

    def __getstate__(self) -> dict:
        return {**self.__dict__, "_last": (0, [])}  # a parsed event is read again, not pickled


@dataclass
class RangeQuads:
    """What a range holds: its quads (a list, or a line format's ``RangeText``) with the line
    of each (numbered within the range), how many lines it has, and the first input error met (its
    line within the range)."""

    quads: Sequence = field(default_factory=list)
    lines: Sequence[int | None] = field(default_factory=list)
    line_count: int = 0
    error: tuple[int | None, str] | None = None
    # Whether lines are the file's own (a file read whole): no offset is added to them.
    whole: bool = False

    def unrepeated(self, positions: Iterable[int], enough: int | None = None) -> list[int]:
        """``positions`` without those whose statement is written as one before (emitters repeat a
        description word for word in every trace that names it), read without parsing; only until
        ``enough`` are kept, when given."""
        quads = self.quads
        seen: set = set()
        kept: list[int] = []
        line_of = quads.line_of if isinstance(quads, LineStatements) else None
        written: bytes | tuple
        for n in positions:
            if line_of is not None:
                written = line_of(n)
            else:
                quad = quads[n]
                written = (quad.subject, quad.predicate, quad.object)
            if written not in seen:
                seen.add(written)
                kept.append(n)
                if len(kept) == enough:
                    break
        return kept

    def held(self) -> AbstractContextManager:
        """A block within which a released range's bytes are read again (``RangeText.held``)."""
        quads = self.quads
        return quads.held() if isinstance(quads, RangeText) else nullcontext()

    def release(self) -> None:
        if isinstance(self.quads, RangeText):
            self.quads.release()

    def text(self, positions: Iterable[int]) -> bytes:
        """The statements at ``positions`` (from 0), in that order, as N-Quads text."""
        quads = self.quads
        if isinstance(quads, LineStatements):
            return quads.text(positions)
        return ox.serialize([quads[n] for n in positions], format=ox.RdfFormat.N_QUADS) or b""


def _filesystem(url: str) -> tuple[AbstractFileSystem, str]:
    fs, path = fsspec.core.url_to_fs(url)
    return fs, path


def _named(protocol: str, path: str, given: str) -> str:
    """How a found file is named in reports: a local path as one process names it (relative
    when the argument was), a URL with its protocol."""
    if protocol in ("file", "local"):
        return path if os.path.isabs(given) or "://" in given else os.path.relpath(path)
    return f"{protocol}://{path}" if protocol == "memory" else f"{protocol}://{path.lstrip('/')}"


def expand(arguments: list[str]) -> list[tuple[str, str, int]]:
    """(url, name, size) of each input file the arguments name: files, directories (their trace
    files) and globs, in a stable order. Only metadata is read here."""
    found: list[tuple[str, str, int]] = []
    for argument in arguments:
        fs, path = _filesystem(argument)
        protocol = fs.protocol if isinstance(fs.protocol, str) else fs.protocol[0]
        if fs.isdir(path):
            paths = sorted(p for p in fs.find(path) if is_trace_file(PurePosixPath(p).name))
            if not paths:
                raise InputError(argument, None, NO_TRACE_FILES)
        elif any(c in path for c in "*?["):
            paths = sorted(fs.glob(path))
            if not paths:
                raise InputError(argument, None, "no file matches this pattern")
        elif fs.exists(path):
            paths = [path]
        else:
            raise InputError(argument, None, "no such file or directory")
        for p in paths:
            url = p if protocol in ("file", "local") else f"{protocol}://{p}"
            name = argument if p == path else _named(protocol, p, argument)
            size = fs.size(p)
            if not size:
                raise InputError(name, None, "is empty: holds no triples")
            found.append((url, name, size))
    return found


def plan(files: list[tuple[str, str, int]], input_format: str | None, chunk: int) -> list[Range]:
    """The ranges of the files: line formats cut into ranges of equal size near ``chunk`` bytes
    (from three quarters of it to one and a half, a smaller file whole), others whole. A file a
    little over ``chunk`` is one range, not one and a sliver: every range costs a few tasks."""
    ranges = []
    for part, (url, _, size) in enumerate(files):
        fmt = input_format if input_format in SPLITTABLE else None if input_format else \
            _BY_SUFFIX.get(PurePosixPath(url).suffix.lower())
        if fmt is None:
            ranges.append(Range(url, part, 0, None, input_format))
            continue
        count = max(1, round(size / max(chunk, 1)))
        step = -(-size // count) or 1
        for start in range(0, size, step):
            ranges.append(Range(url, part, start, min(start + step, size), fmt))
    return ranges


def _range_bytes(url: str, start: int, end: int) -> tuple[int, bytes]:
    """The lines that start in [start, end), and where they start: a line that runs past the end
    is read whole."""
    fs, path = _filesystem(url)
    with fs.open(path, "rb") as handle:
        if start > 0:
            handle.seek(start - 1)
            handle.readline()  # the end of the line that started before the range
        position = handle.tell()
        if position >= end:
            return position, b""
        data = handle.read(end - position)
        if data and not data.endswith(b"\n"):
            data += handle.readline()
    return position, data


def read(r: Range, name: str, into: Callable[[Iterable], int]) -> RangeQuads:
    """The quads of one range, each with its line, given to ``into`` (a graph's ``add_quads``)
    in input order as they are parsed; an input error is recorded, not raised (what ``into`` was
    given by then is to be dropped). ``into`` returns how many quads it was given."""
    got = RangeQuads()
    try:
        if r.end is None:
            _read_whole(r, name, got)
            into(got.quads)
            return got
        origin, data = _range_bytes(r.url, r.start, r.end)
        if r.start == 0 and data.startswith(BOM):
            origin, data = origin + len(BOM), data[len(BOM):]
        # Counted once, by page: the line index of what is kept of the range (``RangeText``).
        before = newlines_by_page(data)
        got.line_count = before[-1] + (1 if data and not data.endswith(b"\n") else 0)
        if r.format == "jsonl":
            quads: list = []
            lines = array("I")
            within = array("I")
            for number, batch in jsonl_events(name, data.split(b"\n")):
                quads.extend(batch)
                lines.extend([number] * len(batch))
                within.extend(range(len(batch)))
            into(quads)
            got.quads, got.lines = EventStatements(data, lines, within, r, name, origin, before), lines
        else:
            _read_lines(data, r, origin, name, got, into, before)
    except InputError as exc:
        got.error = (exc.line, exc.problem)
    return got


def _read_lines(data: bytes, r: Range, origin: int, name: str, got: RangeQuads,
                into: Callable[[Iterable], int], before: array) -> None:
    """N-Quads or N-Triples: parsed at once, straight into ``into`` (no quad is held); when every
    statement line holds one statement, the n-th quad is on the n-th such line, else each line
    is parsed again on its own to learn its statements' lines."""
    fmt: str = r.format  # type: ignore[assignment]  # a range with an end has a format
    rdf_format = RDF_FORMATS[fmt]
    if not data or data.isspace():  # isspace stops at the first other byte; strip would copy the range
        return
    holder = from_bytes(name, data, fmt)
    with holder.reading():
        count = into(ox.parse(data, format=rdf_format))
    # The parser refuses a second statement on a line, so as many quads as lines means one on
    # every line: the n-th quad is on line n, known without a scan line by line (a third of the parse).
    if count == got.line_count:
        got.quads = LineStatements(data, fmt, range(1, count + 1), r, name, origin, before)
        got.lines = got.quads.lines
        return
    raw = data.split(b"\n")
    statements = array("I", (n for n, line in enumerate(raw, start=1)
                                if line.strip() and not line.lstrip().startswith(b"#")))
    if len(statements) == count:
        got.quads = LineStatements(data, fmt, statements, r, name, origin, before)
        got.lines = statements
        return
    quads, lines = [], []
    for number, line in enumerate(raw, start=1):
        for quad in ox.parse(line, format=rdf_format) if line.strip() else ():
            quads.append(quad)
            lines.append(number)
    got.quads, got.lines = quads, lines


def _read_whole(r: Range, name: str, got: RangeQuads) -> None:
    """A file of a format not cut into ranges: loaded as one process loads it, lines from its locator."""
    got.whole = True
    fs, path = _filesystem(r.url)
    with fs.open(path, "rb") as handle:
        data = handle.read()
    item = from_bytes(name, data, r.format)
    if item.loss is not None and item.loss.lossy:
        # Its notice and the rules it silences are the single process's to apply, not the cluster's.
        raise InputError(name, None, f"is a {item.loss.name}, which loses what some rules need: lint it "
                                     "without --cluster")
    with item.reading():
        quads = list(item.quads())
    if not quads:
        raise item.no_triples()
    locator = item.locator()
    subjects = {(q.subject, None, None) for q in quads}
    # Formats parsed here know each triple's line; the others only where a subject is spelt out.
    exact = {(q.subject, q.predicate, q.object) for q in quads} if item._lines is not None else set()
    found = locator.lines(subjects | exact, {}, len(quads))
    got.quads = quads
    got.lines = [found.get((q.subject, q.predicate, q.object)) or found.get((q.subject, None, None)) for q in quads]
    got.line_count = data.count(b"\n") + 1


def no_triples(name: str, fmt: str | None) -> InputError:
    """The error of a part from which no triple was read, worded as one process words it."""
    if fmt == "jsonl":
        return InputError(name, None, "holds no triples (no explain event with triples, no wire triple)")
    return InputError(name, None, f"holds no triples ({FORMAT_NAMES.get(fmt or '', fmt)} read)")
