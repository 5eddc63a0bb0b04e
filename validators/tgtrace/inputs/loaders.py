"""Turn every supported input into trace graphs.

Only this package knows input formats. Each input becomes an :class:`Input`
(``base.py``) that builds its trace graph. pyoxigraph does the parsing: it is the only Python RDF parser that
holds RDF 1.2 triple terms and it never fetches a JSON-LD context (none is
registered). It does expand the entities an XML DTD declares: RDF/XML that
declares one is refused before it is parsed. Its parsers recurse: an input is
measured before it is parsed, and one nesting deeper than the reading's
``InputBounds.depth`` is refused (``depth.py``).
"""

from __future__ import annotations

import errno
import io
import json
import os
import re
import select
import stat
import sys
from collections.abc import Callable, Iterable, Iterator
from functools import partial
from pathlib import Path
from typing import IO, Any

import pyoxigraph as ox

from ..ground.limits import DEFAULT_BOUNDS, InputBounds
from . import depth
from .base import LINE_FORMATS, RDF_FORMATS, Input, InputError
from .compressed import (
    COMPRESSED_SUFFIXES,
    binary_kind,
    compression_of,
    expanded_bytes,
    inner_name,
    is_tar,
    not_a_trace,
    open_expanded,
    refuse_zstd,
)
from .objects import from_object
from .trustgraph import (
    MSGPACK_SUFFIXES,
    SET_KINDS,
    STREAM_KINDS,
    TGX_SUFFIXES,
    exported_nquads_input,
    is_exported_nquads,
    is_msgpack_core,
    line_kind,
    line_quads,
    msgpack_input,
    tgx_input,
)
from .wire import WireError, element_lines, is_jsonld_document, is_wire_document, wire_lines

INPUT_FORMATS = ("wire", "jsonl", *RDF_FORMATS, "kgcore", "tgx")

_EXTENSIONS = {
    ".nq": "nquads",
    ".nt": "ntriples",
    ".ttl": "turtle",
    ".trig": "trig",
    ".jsonld": "jsonld",
    ".rdf": "rdfxml",
    ".owl": "rdfxml",
    ".xml": "rdfxml",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": None,  # wire format or JSON-LD: decided by content
    **{suffix: "kgcore" for suffix in MSGPACK_SUFFIXES},
    **{suffix: "tgx" for suffix in TGX_SUFFIXES},
}
SUFFIXES = tuple(_EXTENSIONS)
NO_TRACE_FILES = (f"directory holds no trace files ({', '.join(SUFFIXES)}; each also compressed: "
                  f"{', '.join(COMPRESSED_SUFFIXES)})")


def is_trace_file(name: str) -> bool:
    """Whether a directory's file is read as a trace: by its suffix, compressed or not
    (``capture.nq.gz``), never a hidden file."""
    base = Path(name).name.lower()
    if base.startswith("."):
        return False
    stem, suffix = os.path.splitext(base)
    if suffix in COMPRESSED_SUFFIXES:
        suffix = os.path.splitext(stem)[1]
    return suffix in SUFFIXES


def _sniff(name: str, data: bytes) -> str:
    suffix = Path(name).suffix.lower()
    fmt = _EXTENSIONS.get(suffix)
    if fmt:
        return fmt
    if is_msgpack_core(data):
        return "kgcore"
    head = data.lstrip()[:1]
    if head in (b"[", b"{"):
        first_line = data.lstrip().split(b"\n", 1)[0].strip()
        if first_line[-1:] in (b"}", b"]") and b"\n" in data.strip() and _one_json_value(first_line):
            return "jsonl"
        return "json"
    if head == b"<" and data.lstrip()[:5] in (b"<?xml", b"<rdf:"):
        return "rdfxml"
    if b"@prefix" in data[:4096] or b"PREFIX" in data[:4096]:
        return "trig" if b"GRAPH" in data or b"{" in data else "turtle"
    sample = [ln for ln in _text_head(data, 65536).split(b"\n") if ln.strip() and not ln.lstrip().startswith(b"#")]
    if sample:
        terms = sample[0].rstrip().rstrip(b".").split()
        return "nquads" if len(terms) >= 4 else "ntriples"
    return "nquads"


def quads_input(name: str, quads: list[ox.Quad]) -> Input:
    """Quads read elsewhere (a pull from a running TrustGraph), as an input named ``name``, each
    triple placed at its number in the list: the line ``tg-trace pull`` writes it on."""
    lines: dict[tuple, int | None] = {}
    for number, quad in enumerate(quads, start=1):
        lines.setdefault((quad.subject, quad.predicate, quad.object), number)
    return Input(name, "nquads", lambda: iter(quads), _lines=lines, size=len(quads),
                 rendered=lambda: ox.serialize(quads, format=ox.RdfFormat.N_QUADS) or b"")


def _parse_json(name: str, data: bytes | str, line: int | None = None) -> Any:
    try:
        return json.loads(data)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        where = line if line is not None else getattr(exc, "lineno", None)
        # The position's line is the message's line; its column is kept (the message alone,
        # "Unterminated string starting at", says nothing without it).
        problem = f"{exc.msg}: column {exc.colno}" if isinstance(exc, json.JSONDecodeError) else str(exc)
        raise InputError(name, where, f"invalid JSON: {problem}") from None
    except ValueError as exc:  # an integer longer than Python converts (4300 digits)
        raise InputError(name, line, f"invalid JSON: {str(exc).split(';')[0]}") from None
    except RecursionError:
        raise InputError(name, line, "JSON nested too deeply") from None


def _json_input(name: str, data: bytes, path: Path | None, declared: str | None,
                bounds: InputBounds = DEFAULT_BOUNDS) -> Input:
    document = _parse_json(name, data)
    if declared == "jsonld" or (declared is None and is_jsonld_document(document)):
        del document
        depth.check_json(name, data, bounds.depth)
        return _rdf_input(name, "jsonld", data, path)
    messages = _gateway_messages(document)
    if declared is None and messages is not None:
        return _messages_input(name, data, path, document, messages, bounds)
    if declared is None and not is_wire_document(document):
        raise InputError(name, None, "is JSON but neither TrustGraph wire JSON (triples with s, p and o, or explain "
                                     "events) nor JSON-LD (objects with @id, @graph or @context)")
    try:
        quads, lines = wire_lines(name, data, document, bounds.depth)
    except WireError as exc:
        raise InputError(name, exc.line, exc.problem) from None
    return Input(name, "wire", lambda: iter(quads), _lines=lines, text=data, path=path, size=len(data))


_MESSAGE_KINDS = ("frames", "envelopes", "dump")


def _gateway_messages(document: object) -> tuple[str, list] | None:
    """(kind, messages) of a JSON document that is one export frame, envelope or core record, or a
    list of them (a client that saved what it received as one array); None for anything else."""
    kind = line_kind(document)
    if kind in _MESSAGE_KINDS:
        return kind, [document]
    if isinstance(document, list):
        # The first item that says, past those that do not (an auth frame).
        kind = next((k for k in map(line_kind, document[:_KIND_LINES]) if k is not None), None)
        if kind in _MESSAGE_KINDS:
            return kind, document
    return None


def _messages_input(name: str, data: bytes, path: Path | None, document: object,
                    messages: tuple[str, list], bounds: InputBounds = DEFAULT_BOUNDS) -> Input:
    kind, items = messages
    starts = element_lines(data.decode("utf-8")) if items is document else [1]
    quads: list[ox.Quad] = []
    lines: dict[tuple, int | None] = {}
    for index, message in enumerate(items):
        line = starts[index] if index < len(starts) else None
        try:
            batch = line_quads(message, bounds.depth) or []
        except WireError as exc:
            raise InputError(name, line, f"item {index + 1}: {exc.problem}") from None
        for quad in batch:
            lines.setdefault((quad.subject, quad.predicate, quad.object), line)
        quads.extend(batch)
    return Input(name, kind, lambda: iter(quads), _lines=lines, text=data, path=path, size=len(data))


def _jsonl_input(name: str, data: bytes | None, path: Path | None, opener: Callable | None = None,
                 bounds: InputBounds = DEFAULT_BOUNDS) -> Input:
    """JSON lines: an explain stream, export frames or response envelopes (judged as a stream, trace by
    trace as each completes), or a dump of triples (query output, a core's records: judged as a set,
    since their order is the store's, not the emitter's). Read lazily."""

    def read_lines() -> Iterator[bytes]:
        if opener is not None:
            return _opened_lines(opener)
        return iter(data.split(b"\n")) if data is not None else _file_lines(path)  # type: ignore[arg-type]  # path is given when data is not

    def events() -> Iterator[tuple[int, list[ox.Quad]]]:
        read = 0
        for number, batch in jsonl_events(name, read_lines(), bounds.depth):
            read += len(batch)
            yield number, batch
        if not read:
            raise InputError(name, None, "holds no triples (no explain event, export frame, explain envelope, "
                                         "core record or wire triple with triples)")

    def quads() -> Iterator[ox.Quad]:
        for number, batch in events():
            for quad in batch:
                item._lines.setdefault((quad.subject, quad.predicate, quad.object), number)  # type: ignore[union-attr]  # made with _lines={}
            yield from batch

    kind = _jsonl_kind(name, read_lines())
    size = len(data) if data is not None else (path.stat().st_size if path else 0)
    fmt = kind if kind in SET_KINDS or kind in STREAM_KINDS - {"events"} else "jsonl"
    item = Input(name, fmt, quads, _lines={}, text=data, path=path, size=size, opener=opener)
    if kind not in SET_KINDS:
        item.events = events
    return item


# Lines read to learn what a JSON-lines file holds, past lines that do not say (auth frames).
_KIND_LINES = 1000


def _jsonl_kind(name: str, lines: Iterable[bytes]) -> str | None:
    """What the first line that says holds: events, frames, envelopes, triples or dump."""
    try:
        for number, raw in enumerate(lines, start=1):
            if number > _KIND_LINES:
                break
            raw = raw.removeprefix(BOM) if number == 1 else raw
            if not raw.strip():
                continue
            kind = line_kind(_parse_json(name, raw, number))
            if kind is not None:
                return kind
        return None
    finally:
        getattr(lines, "close", lambda: None)()


def _one_json_value(line: bytes) -> bool:
    try:
        json.loads(line)
    except ValueError:
        return False
    return True


def jsonl_events(name: str, lines: Iterable[bytes], nesting: int = DEFAULT_BOUNDS.depth
                 ) -> Iterator[tuple[int, list[ox.Quad]]]:
    """(line, quads) of each line that carries triples, of any kind (numbered from 1); a triple
    term nested deeper than ``nesting`` is refused."""
    for number, raw in enumerate(lines, start=1):
        if number == 1:
            raw = raw.removeprefix(BOM)
        if not raw.strip():
            continue
        message = _parse_json(name, raw, number)
        try:
            batch = line_quads(message, nesting)
        except WireError as exc:
            raise InputError(name, number, exc.problem) from None
        if batch is not None:
            yield number, batch


def _file_lines(path: Path) -> Iterator[bytes]:
    with open(path, "rb") as handle:
        yield from handle


def _opened_lines(opener: Callable) -> Iterator[bytes]:
    with opener() as handle:
        yield from handle


def _rdf_input(name: str, fmt: str, data: bytes | None, path: Path | None, opener: Callable | None = None,
               bounds: InputBounds = DEFAULT_BOUNDS) -> Input:
    """An RDF input; from ``opener`` (a decompressed line format) it is measured as the parser
    reads it, else it is measured by the caller before this."""
    rdf_format = RDF_FORMATS[fmt]

    def parse(lenient: bool = False) -> Iterator[ox.Quad]:
        if opener is not None:
            return _parse_opened(name, opener, rdf_format, item.progress, bounds.depth)
        if path is not None and data is None:
            if item.progress is not None:
                return _parse_counting(path, rdf_format, item.progress, lenient)
            return ox.parse(path=str(path), format=rdf_format, base_iri=None, lenient=lenient)
        return ox.parse(data, format=rdf_format, lenient=lenient)

    size = len(data) if data is not None else (path.stat().st_size if path else 0)
    # Only the line formats' lenient reading is known to the letter (lenient.py); a compressed
    # input is read once, strictly, rather than decompressed to be scanned first.
    checkable = fmt in LINE_FORMATS and opener is None
    item = Input(name, fmt, parse, text=data, path=path, size=size, opener=opener,
                 _lenient_quads=partial(parse, lenient=True) if checkable else None)
    return item


def _parse_opened(name: str, opener: Callable, rdf_format: ox.RdfFormat,
                  progress: Callable[[int], None] | None, nesting: int) -> Iterator[ox.Quad]:
    with opener(progress) as handle:
        yield from ox.parse(depth.Screened(name, handle, nesting), format=rdf_format)  # type: ignore[arg-type]  # reads as a file does


class _CountingReader:
    """A file pyoxigraph reads through, reporting how far it got."""

    def __init__(self, handle: IO[bytes], report: Callable[[int], None]) -> None:
        self.handle, self.report, self.done = handle, report, 0

    def read(self, size: int = -1) -> bytes:
        data = self.handle.read(size)
        self.done += len(data)
        self.report(self.done)
        return data


def _parse_counting(path: Path, rdf_format: ox.RdfFormat, report: Callable[[int], None],
                    lenient: bool = False) -> Iterator[ox.Quad]:
    with open(path, "rb") as handle:
        yield from ox.parse(_CountingReader(handle, report), format=rdf_format,  # type: ignore[arg-type]  # reads as a file does
                            lenient=lenient)


BOM = b"\xef\xbb\xbf"
# Standard input is read whole (it cannot be parsed twice); this bounds it. Files are streamed.
MAX_STDIN_BYTES = 1 << 30
# Seconds standard input may stay silent before its first byte (a pipe whose writer never writes).
STDIN_TIMEOUT = 120.0


def from_bytes(name: str, data: bytes, input_format: str | None = None, path: Path | None = None,
               limit: int | None = None, bounds: InputBounds = DEFAULT_BOUNDS) -> Input:
    """An input held in memory; compressed bytes are decompressed whole, to at most ``limit`` bytes
    (standard input's bound)."""
    data = data.removeprefix(BOM)  # a UTF-8 byte order mark some editors write
    if not data or data.isspace():  # not strip(): it would copy the whole input
        raise InputError(name, None, "is empty: holds no triples")
    kind = compression_of(data[:8]) if input_format != "tgx" else None
    if kind is not None:
        return _compressed_input(name, kind, data=data, input_format=input_format, limit=limit, bounds=bounds)
    return _from_text(name, data, input_format or _sniff(name, data), path, bounds)


def _from_text(name: str, data: bytes, fmt: str, path: Path | None = None,
               bounds: InputBounds = DEFAULT_BOUNDS) -> Input:
    """An input held in memory, its format known; content that is not text is refused by name."""
    if fmt not in ("kgcore", "tgx") and (what := binary_kind(_text_head(data))):
        raise not_a_trace(name, what)
    if fmt in ("json", "wire"):
        return _json_input(name, data, path, "wire" if fmt == "wire" else None, bounds)
    if fmt == "jsonl":
        return _jsonl_input(name, data, path, bounds=bounds)
    if fmt == "kgcore":
        return msgpack_input(name, path if path is not None and data is None else None, data, nesting=bounds.depth)
    if fmt == "tgx":
        return tgx_input(name, None, data, bounds=bounds)
    if fmt not in RDF_FORMATS:
        raise InputError(name, None, f"unknown input format {fmt!r} (choose from {', '.join(INPUT_FORMATS)})")
    if fmt == "rdfxml":
        _refuse_dtd(name, data)
    if fmt == "nquads" and is_exported_nquads(_text_head(data, 1 << 16)):
        return exported_nquads_input(name, None, data, nesting=bounds.depth)
    depth.check(name, fmt, data, bounds.depth)
    return _rdf_input(name, fmt, data, path, bounds=bounds)


_BLANK = re.compile(rb"\s*")


def _text_head(data: bytes, size: int = 0) -> bytes:
    """The first bytes of text past its leading blank space (a capture may start with blank lines),
    found without copying the text."""
    size = size or _HEAD
    head = data[:size]
    if head.isspace():
        start = _BLANK.match(data).end()  # type: ignore[union-attr]  # \s* always matches
        head = data[start:start + size]
    return head


def from_path(path: Path, input_format: str | None = None, bounds: InputBounds = DEFAULT_BOUNDS) -> Input:
    name = str(path)
    try:
        _regular_file(path)
        declared = input_format or _EXTENSIONS.get(path.suffix.lower()) or ""
        if declared != "tgx":
            head = _read_head(path, _HEAD)
            kind = compression_of(head)
            if kind is not None:
                return _compressed_input(name, kind, path=path, input_format=input_format, bounds=bounds)
            if declared != "kgcore" and not (not declared and is_msgpack_core(head)) and (what := binary_kind(head)):
                raise not_a_trace(name, what)
        if declared == "rdfxml":
            _refuse_dtd(name, path)
        if declared in RDF_FORMATS and _starts_with_bom(path):
            declared = ""  # read whole, so that the mark can be dropped
        if declared == "nquads" and is_exported_nquads(_read_head(path, 1 << 16)):
            return exported_nquads_input(name, path, nesting=bounds.depth)
        if declared in RDF_FORMATS:
            # Large RDF files are streamed by pyoxigraph straight from disk, once measured.
            depth.check(name, declared, path, bounds.depth)
            return _rdf_input(name, declared, None, path, bounds=bounds)
        if declared == "jsonl":
            path.stat()  # an unreadable file fails here, with its name
            return _jsonl_input(name, None, path, bounds=bounds)
        if not declared:
            head = _read_head(path, 8)
            declared = "kgcore" if is_msgpack_core(head) else ""
        if declared == "kgcore":
            return msgpack_input(name, path, nesting=bounds.depth)
        if declared == "tgx":
            return tgx_input(name, path, bounds=bounds)
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(name, None, exc.strerror or str(exc)) from None
    return from_bytes(name, data, input_format, path, bounds=bounds)


# Bytes read to tell text from binary content, and compressed content's format.
_HEAD = 8192
_SNIFF = 1 << 20


def _compressed_input(name: str, kind: str, path: Path | None = None, data: bytes | None = None,
                      input_format: str | None = None, limit: int | None = None,
                      bounds: InputBounds = DEFAULT_BOUNDS) -> Input:
    """A gzip, bzip2 or xz file (or bytes): line formats and explain streams read through the
    decompressor as a stream, with the lines of the decompressed text (a line format measured as
    the parser reads it); a gzipped tar is a workspace bundle; other formats are decompressed whole."""
    if kind == "zstd":
        raise refuse_zstd(name)

    def opener(progress: Callable[[int], None] | None = None) -> io.BufferedReader:
        return open_expanded(name, kind, path, data, progress, bounds.expansion)

    with opener() as stream:
        head = _head_past_blanks(stream)
    marked, head = head.startswith(BOM), head.removeprefix(BOM)
    if not head or head.isspace():
        raise InputError(name, None, f"is {kind}-compressed and empty: holds no triples")
    if is_tar(head):
        if kind == "gzip" and input_format in (None, "tgx"):
            return tgx_input(name, path, data, bounds=bounds)
        raise not_a_trace(name, "a tar archive (a workspace export is a gzipped tar, .tgx)", kind)
    inner = inner_name(name, kind)
    fmt = input_format or _EXTENSIONS.get(Path(inner).suffix.lower()) or _sniff(inner, head)
    if fmt not in ("kgcore",) and (what := binary_kind(head)):
        raise not_a_trace(name, what, kind)
    if fmt == "rdfxml":
        with opener() as stream:
            line = _dtd_line_in(stream)
        if line is not None:
            raise _dtd_error(name, line)
    if fmt in LINE_FORMATS and is_exported_nquads(head[:1 << 16]):
        return exported_nquads_input(name, opener=opener, nesting=bounds.depth)
    if fmt in LINE_FORMATS and not marked:  # with a byte order mark, read whole so that it is dropped
        return _rdf_input(name, fmt, None, path, opener, bounds)
    if fmt == "jsonl":
        return _jsonl_input(name, None, path, opener, bounds)
    # Any other syntax is measured (depth.py) and parsed from the text held whole.
    hint = "; raise --max-stdin-size" if limit is not None else ""
    expanded = (expanded_bytes(name, kind, data, limit, hint, bounds.expansion) if data is not None
                else _read_expanded(opener))
    return _from_text(name, expanded.removeprefix(BOM), fmt, bounds=bounds)


def _head_past_blanks(stream: IO[bytes]) -> bytes:
    """The first bytes of a decompressed stream that tell what it holds: _SNIFF of them, from the
    first that is not blank space (a capture may start with blank lines; reading past them costs
    no memory, and the budget bounds how far)."""
    head = stream.read(_SNIFF)
    while head and head.isspace():
        head = stream.read(_SNIFF)
    if head and head[:1].isspace():
        head = head.lstrip() + stream.read(_SNIFF - len(head.lstrip()))
    return head


def _read_expanded(opener: Callable) -> bytes:
    with opener() as stream:
        return stream.read()


def _regular_file(path: Path) -> None:
    """Only regular files are read from a path: a FIFO would block and a device never ends."""
    info = path.stat()
    if not stat.S_ISREG(info.st_mode):
        kind = "a FIFO" if stat.S_ISFIFO(info.st_mode) else "a device" if stat.S_ISCHR(info.st_mode) or \
            stat.S_ISBLK(info.st_mode) else "a directory" if stat.S_ISDIR(info.st_mode) else "not a regular file"
        raise InputError(str(path), None, f"is {kind}, not a file; pipe it to standard input (-) to lint it")
    if info.st_size == 0:
        raise InputError(str(path), None, "is empty: holds no triples")


def _starts_with_bom(path: Path) -> bool:
    return _read_head(path, len(BOM)) == BOM


# A DTD or entity declaration, in any case: pyoxigraph's XML reader takes a DOCTYPE in any
# case and anywhere in the document (after the root element too) and expands its entities.
_DTD = re.compile(rb"<!(?:DOCTYPE|ENTITY)", re.IGNORECASE)
_DTD_CHUNK = 1 << 20


def _refuse_dtd(name: str, source: Path | bytes) -> None:
    """RDF/XML that declares a DTD or an entity anywhere is refused before parsing: entities
    would be expanded (a billion-laughs document grows to gigabytes). The whole input is
    scanned, a chunk at a time (a declaration in a comment or CDATA section is refused too:
    no RDF/XML trace needs one)."""
    if isinstance(source, bytes):
        found = _DTD.search(source)
        line = source.count(b"\n", 0, found.start()) + 1 if found else None
    else:
        line = _dtd_line(source)
    if line is not None:
        raise _dtd_error(name, line)


def _dtd_error(name: str, line: int) -> InputError:
    return InputError(name, line, "declares a DTD or an entity (<!DOCTYPE or <!ENTITY): refused, so that no "
                                  "entity is expanded")


def _dtd_line(path: Path) -> int | None:
    """The line of the first DTD or entity declaration of a file, read a chunk at a time."""
    with open(path, "rb") as handle:
        return _dtd_line_in(handle)


def _dtd_line_in(handle: IO[bytes]) -> int | None:
    overlap = len(b"<!DOCTYPE") - 1  # a declaration cut by a chunk's end is found in the next
    lines, tail = 0, b""
    while chunk := handle.read(_DTD_CHUNK):
        window = tail + chunk
        found = _DTD.search(window)
        if found:
            return lines + window.count(b"\n", 0, found.start()) + 1
        tail = window[-overlap:]
        lines += window.count(b"\n") - tail.count(b"\n")
    return None


def _read_head(path: Path, size: int) -> bytes:
    with open(path, "rb") as handle:
        return handle.read(size)


def read_stdin(limit: int = MAX_STDIN_BYTES, timeout: float = STDIN_TIMEOUT) -> bytes:
    """Standard input, read in chunks up to ``limit`` bytes (a runaway producer is stopped);
    a terminal is refused and a pipe that sends nothing for ``timeout`` seconds is given up."""
    chunks, total = [], 0
    stream = sys.stdin.buffer
    if sys.stdin.isatty():
        raise InputError("<stdin>", None, "is a terminal: pipe a trace in, or name a file")
    if timeout and hasattr(stream, "fileno"):
        try:
            ready, _, _ = select.select([stream], [], [], timeout)
        except (OSError, ValueError):  # not a selectable stream (a test's replacement): just read
            ready = [stream]
        if not ready:
            raise InputError("<stdin>", None, f"sent nothing in {timeout:g} seconds; raise --stdin-timeout "
                                              "for a slow producer")
    while chunk := stream.read(1 << 20):
        total += len(chunk)
        if total > limit:
            raise InputError("<stdin>", None, f"is longer than {limit} bytes; write it to a file, or raise "
                                              "--max-stdin-size")
        chunks.append(chunk)
    return b"".join(chunks)


def expand_paths(arguments: Iterable[str]) -> list[str]:
    """Files named, and the trace files inside directories named, in a stable order."""
    found: list[str] = []
    for argument in arguments:
        if argument == "-":
            found.append(argument)
            continue
        path = Path(argument)
        if path.is_dir():
            matched = sorted(str(p) for p in path.rglob("*") if p.is_file() and is_trace_file(p.name))
            if not matched:
                raise InputError(argument, None, NO_TRACE_FILES)
            found.extend(matched)
        else:
            try:
                path.stat()
            except OSError as exc:
                problem = "is a symbolic link loop" if exc.errno == errno.ELOOP else (exc.strerror or str(exc)).lower()
                raise InputError(argument, None, problem) from None
            found.append(argument)
    return found


def load(source: object, input_format: str | None = None, stdin_limit: int = MAX_STDIN_BYTES,
         stdin_timeout: float = STDIN_TIMEOUT, bounds: InputBounds = DEFAULT_BOUNDS) -> list[Input]:
    """Every Input a source holds: a path, '-', a file object, a graph, a list of triples, or an
    Input made already (``quads_input``); each read within ``bounds`` (how deep it may nest, how
    far a compressed one may expand)."""
    if isinstance(source, Input):
        return [source]
    if isinstance(source, (str, os.PathLike)):
        if str(source) == "-":
            return [from_bytes("<stdin>", read_stdin(stdin_limit, stdin_timeout), input_format, limit=stdin_limit,
                               bounds=bounds)]
        return [from_path(Path(p), input_format, bounds) for p in expand_paths([str(source)])]
    if isinstance(source, (io.IOBase,)) or hasattr(source, "read"):
        data = source.read()
        if isinstance(data, str):
            data = data.encode("utf-8")
        name = getattr(source, "name", None)
        name = name if isinstance(name, str) else "<stream>"
        return [from_bytes(name, data, input_format, bounds=bounds)]
    return [from_object(source, bounds.depth)]
