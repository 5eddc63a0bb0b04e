"""Turn every supported input into quads of pyoxigraph terms.

Only this package knows input formats. Each input becomes an :class:`Input`:
a name for reports, a way to iterate its quads, and a way to find the line of
a triple. pyoxigraph does the parsing: it is the only Python RDF parser that
holds RDF 1.2 triple terms, it never fetches a JSON-LD context (none is
registered) and it does not expand XML entities.
"""

from __future__ import annotations

import io
import json
from contextlib import contextmanager
import os
import sys
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Callable, Iterable, Iterator

import pyoxigraph as ox

from .wire import WireError, events_to_quads, is_wire_document, triples_to_quads, wire_lines

RDF_FORMATS = {
    "nquads": ox.RdfFormat.N_QUADS,
    "ntriples": ox.RdfFormat.N_TRIPLES,
    "turtle": ox.RdfFormat.TURTLE,
    "trig": ox.RdfFormat.TRIG,
    "jsonld": ox.RdfFormat.JSON_LD,
    "rdfxml": ox.RdfFormat.RDF_XML,
}
INPUT_FORMATS = ("wire", "jsonl", *RDF_FORMATS)
LINE_FORMATS = {"nquads", "ntriples"}

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
}
SUFFIXES = tuple(_EXTENSIONS)


class InputError(Exception):
    """Unreadable input: one line naming the file, the line and what is wrong."""

    def __init__(self, name: str, line: int | None, problem: str):
        self.name, self.line, self.problem = name, line, problem
        where = f"{name}:{line}" if line else name
        super().__init__(f"{where}: {problem}")


@dataclass
class Input:
    """One input ready to lint."""

    name: str
    format: str
    _quads: Callable[[], Iterator[ox.Quad]]
    # Lines of triples, known up front for formats parsed here (wire JSON).
    _lines: dict[tuple, int] | None = None
    text: bytes | None = None
    path: Path | None = None
    size: int = 0
    extra: dict = field(default_factory=dict)
    # Called with the number of bytes read so far, where the format is streamed from disk.
    progress: Callable[[int], None] | None = None
    # For explain streams: the events, one (line, quads) at a time, so traces can be linted as they end.
    events: Callable[[], Iterator[tuple[int, list]]] | None = None

    def quads(self) -> Iterator[ox.Quad]:
        """The quads; iterate them inside ``with input.reading():`` to get InputError for bad input."""
        return self._quads()

    @contextmanager
    def reading(self):
        """Turns the parser's errors into an InputError naming this input (and the line)."""
        try:
            yield
        except SyntaxError as exc:
            raise InputError(self.name, exc.lineno, _syntax_message(exc)) from None
        except (ValueError, OSError) as exc:
            raise InputError(self.name, None, str(exc)) from None

    def locate(self, wanted: Iterable[tuple], runs: dict | None = None,
               statements: int | None = None) -> dict[tuple, int]:
        """Line of each wanted (subject, predicate, object) triple; best effort.

        Called only for triples that findings name, so a clean run never pays
        for line bookkeeping. ``runs`` maps a subject to the numbers of the
        statements (out of ``statements`` parsed) that start a run of its
        triples: in an N-Quads file with one statement on every line those
        numbers are lines, and only the runs of the subjects named are read again.
        """
        wanted = set(wanted)
        if self._lines is not None:
            found = {key: self._lines[key] for key in wanted if key in self._lines}
            subjects = {key[0] for key in wanted if key[1] is None}
            if subjects:
                first: dict = {}
                for (s, _, _), line in self._lines.items():
                    if s in subjects and line is not None and (s not in first or line < first[s]):
                        first[s] = line
                found.update({(s, None, None): line for s, line in first.items()})
            return found
        if self.format in LINE_FORMATS:
            if runs is not None and statements is not None and self._line_count() == statements:
                return self._locate_in_runs(wanted, runs)
            with self._line_iterator() as lines:  # line by line: a large file is never held whole
                return _locate_line_based(lines, wanted, self.format)
        data = self._bytes()
        if data is None:
            return {}
        return _locate_by_subject_text(data, wanted)

    def _line_count(self) -> int | None:
        """Lines of a line-based input, the last one counted even without a newline."""
        if self.text is not None:
            data = self.text
            return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
        if self.path is None:
            return None
        count, last = 0, b"\n"
        with open(self.path, "rb") as handle:
            while chunk := handle.read(1 << 20):
                count += chunk.count(b"\n")
                last = chunk[-1:]
        return count + (0 if last == b"\n" else 1)

    @contextmanager
    def _line_iterator(self):
        """The input's lines, from a file object when on disk so that skipping lines runs in C."""
        if self.text is not None:
            yield iter(self.text.split(b"\n"))
        elif self.path is not None:
            with open(self.path, "rb") as handle:
                yield handle
        else:
            yield iter(())

    def _locate_in_runs(self, wanted: set[tuple], runs: dict) -> dict[tuple, int]:
        """Lines when every line holds one statement: a subject's line is the first of its
        first run, and a triple's is found by reading the runs of its subject's lines."""
        found: dict[tuple, int] = {}
        exact: dict = {}
        for key in wanted:
            starts = runs.get(key[0])
            if not starts:
                continue
            found[(key[0], None, None)] = min(starts)
            if key[1] is not None:
                exact.setdefault(key[0], set()).add(key)
        if not exact:
            return found
        rdf_format = RDF_FORMATS[self.format]
        with self._line_iterator() as lines:
            number, raw = 0, None  # the last line read, and its number
            for start, subject in sorted(((n, s) for s in exact for n in runs[s]), key=lambda run: run[0]):
                keys = exact[subject]
                if start < number:
                    continue  # a guard: runs of different subjects never overlap
                if start > number:
                    raw = next(islice(lines, start - number - 1, None), None)
                    number = start
                head = _ntriples_token(subject).encode() + b" "
                while raw is not None and raw.startswith(head):
                    try:
                        quad = next(iter(ox.parse(raw, format=rdf_format)))
                    except (SyntaxError, StopIteration, ValueError):
                        quad = None
                    if quad is not None:
                        triple = (quad.subject, quad.predicate, quad.object)
                        if triple in keys and triple not in found:
                            found[triple] = number
                    raw = next(lines, None)
                    number += 1
        return found

    def _bytes(self) -> bytes | None:
        if self.text is not None:
            return self.text
        if self.path is not None:
            return self.path.read_bytes()
        return None


def _syntax_message(exc: SyntaxError) -> str:
    message = str(exc.msg if hasattr(exc, "msg") else exc)
    # pyoxigraph prefixes the position, which the caller already prints.
    for marker in (": ",):
        if message.startswith("Parser error") and marker in message:
            message = message.split(marker, 1)[1]
    return message


def _locate_line_based(lines: Iterable[bytes], wanted: set[tuple], fmt: str) -> dict[tuple, int]:
    """Lines of wanted triples, and of each (subject, None, None): the subject's first line."""
    tokens: dict[bytes, list[tuple]] = {}
    for key in wanted:
        tokens.setdefault(_ntriples_token(key[0]).encode(), []).append(key)
    exact = {key for key in wanted if key[1] is not None}
    found: dict[tuple, int] = {}
    rdf_format = RDF_FORMATS[fmt]
    for number, raw in enumerate(lines, start=1):
        # N-Quads and N-Triples put one statement on a line, subject first.
        head = raw.split(None, 1)
        keys = tokens.get(head[0]) if head else None
        if not keys:
            continue
        subject_key = (keys[0][0], None, None)
        if subject_key not in found:
            found[subject_key] = number
        if exact.isdisjoint(keys):
            continue
        try:
            quad = next(iter(ox.parse(raw, format=rdf_format)))
        except (SyntaxError, StopIteration, ValueError):
            continue
        triple = (quad.subject, quad.predicate, quad.object)
        if triple in exact and triple not in found:
            found[triple] = number
    return found


def _ntriples_token(term) -> str:
    if isinstance(term, ox.NamedNode):
        return f"<{term.value}>"
    return str(term)


def _locate_by_subject_text(data: bytes, wanted: set[tuple]) -> dict[tuple, int]:
    # Turtle, TriG, JSON-LD and RDF/XML can spread a triple over many lines and
    # abbreviate IRIs; the first line that spells the subject out is close enough.
    text = data.decode("utf-8", "replace")
    found = {}
    for key in wanted:
        subject = key[0]
        needle = subject.value if isinstance(subject, ox.NamedNode) else str(subject)
        pos = text.find(needle)
        if pos >= 0:
            found[key] = text.count("\n", 0, pos) + 1
    return found


def _sniff(name: str, data: bytes) -> str:
    suffix = Path(name).suffix.lower()
    fmt = _EXTENSIONS.get(suffix)
    if fmt:
        return fmt
    head = data.lstrip()[:1]
    if head in (b"[", b"{"):
        first_line = data.lstrip().split(b"\n", 1)[0].strip()
        if head == b"{" and first_line.endswith(b"}") and b"\n" in data.strip():
            return "jsonl"
        return "json"
    if head == b"<" and data.lstrip()[:5] in (b"<?xml", b"<rdf:"):
        return "rdfxml"
    if b"@prefix" in data[:4096] or b"PREFIX" in data[:4096]:
        return "trig" if b"GRAPH" in data or b"{" in data else "turtle"
    sample = [ln for ln in data[:65536].split(b"\n") if ln.strip() and not ln.lstrip().startswith(b"#")]
    if sample:
        terms = sample[0].rstrip().rstrip(b".").split()
        return "nquads" if len(terms) >= 4 else "ntriples"
    return "nquads"


def _json_input(name: str, data: bytes, path: Path | None, declared: str | None) -> Input:
    try:
        document = json.loads(data)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        line = getattr(exc, "lineno", None)
        raise InputError(name, line, f"invalid JSON: {getattr(exc, 'msg', exc)}") from None
    if declared == "jsonld" or (declared is None and not is_wire_document(document)):
        return _rdf_input(name, "jsonld", data, path)
    try:
        quads, lines = wire_lines(name, data, document)
    except WireError as exc:
        raise InputError(name, exc.line, exc.problem) from None
    return Input(name, "wire", lambda: iter(quads), _lines=lines, text=data, path=path, size=len(data))


def _jsonl_input(name: str, data: bytes | None, path: Path | None) -> Input:
    """An explain stream: one JSON event (or wire triple) per line, read lazily."""

    def events() -> Iterator[tuple[int, list[ox.Quad]]]:
        lines = data.split(b"\n") if data is not None else _file_lines(path)
        for number, raw in enumerate(lines, start=1):
            if not raw.strip():
                continue
            try:
                event = json.loads(raw)
            except (json.JSONDecodeError, UnicodeDecodeError) as exc:
                raise InputError(name, number, f"invalid JSON: {getattr(exc, 'msg', exc)}") from None
            try:
                if isinstance(event, dict) and "explain_triples" in event:
                    yield number, events_to_quads([event])
                elif isinstance(event, dict) and {"s", "p", "o"} <= event.keys():
                    yield number, triples_to_quads([event])
                elif not isinstance(event, dict):
                    raise WireError(None, "expected one JSON object per line")
                # other message types on the same stream carry no triples
            except WireError as exc:
                raise InputError(name, number, exc.problem) from None

    def quads() -> Iterator[ox.Quad]:
        for number, batch in events():
            for quad in batch:
                item._lines.setdefault((quad.subject, quad.predicate, quad.object), number)
            yield from batch

    size = len(data) if data is not None else (path.stat().st_size if path else 0)
    item = Input(name, "jsonl", quads, _lines={}, text=data, path=path, size=size)
    item.events = events
    return item


def _file_lines(path: Path) -> Iterator[bytes]:
    with open(path, "rb") as handle:
        yield from handle


def _rdf_input(name: str, fmt: str, data: bytes | None, path: Path | None) -> Input:
    rdf_format = RDF_FORMATS[fmt]

    def parse() -> Iterator[ox.Quad]:
        if path is not None and data is None:
            if item.progress is not None:
                return _parse_counting(path, rdf_format, item.progress)
            return ox.parse(path=str(path), format=rdf_format, base_iri=None)
        return ox.parse(data, format=rdf_format)

    size = len(data) if data is not None else (path.stat().st_size if path else 0)
    item = Input(name, fmt, parse, text=data, path=path, size=size)
    return item


class _CountingReader:
    """A file pyoxigraph reads through, reporting how far it got."""

    def __init__(self, handle, report: Callable[[int], None]):
        self.handle, self.report, self.done = handle, report, 0

    def read(self, size: int = -1) -> bytes:
        data = self.handle.read(size)
        self.done += len(data)
        self.report(self.done)
        return data


def _parse_counting(path: Path, rdf_format, report: Callable[[int], None]) -> Iterator[ox.Quad]:
    with open(path, "rb") as handle:
        yield from ox.parse(_CountingReader(handle, report), format=rdf_format)


def from_bytes(name: str, data: bytes, input_format: str | None = None, path: Path | None = None) -> Input:
    fmt = input_format or _sniff(name, data)
    if fmt in ("json", "wire"):
        return _json_input(name, data, path, "wire" if fmt == "wire" else None)
    if fmt == "jsonl":
        return _jsonl_input(name, data, path)
    if fmt not in RDF_FORMATS:
        raise InputError(name, None, f"unknown input format {fmt!r} (choose from {', '.join(INPUT_FORMATS)})")
    return _rdf_input(name, fmt, data, path)


def from_path(path: Path, input_format: str | None = None) -> Input:
    name = str(path)
    try:
        declared = input_format or _EXTENSIONS.get(path.suffix.lower()) or ""
        if declared in RDF_FORMATS:
            # Large RDF files are streamed by pyoxigraph straight from disk.
            return _rdf_input(name, declared, None, path)
        if declared == "jsonl":
            path.stat()  # an unreadable file fails here, with its name
            return _jsonl_input(name, None, path)
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(name, None, exc.strerror or str(exc)) from None
    return from_bytes(name, data, input_format, path)


def expand_paths(arguments: Iterable[str]) -> list[str]:
    """Files named, and the trace files inside directories named, in a stable order."""
    found: list[str] = []
    for argument in arguments:
        if argument == "-":
            found.append(argument)
            continue
        path = Path(argument)
        if path.is_dir():
            matched = sorted(
                str(p)
                for p in path.rglob("*")
                if p.is_file() and p.suffix.lower() in SUFFIXES and not p.name.startswith(".")
            )
            if not matched:
                raise InputError(argument, None, "directory holds no trace files (" + ", ".join(SUFFIXES) + ")")
            found.extend(matched)
        elif path.exists():
            found.append(argument)
        else:
            raise InputError(argument, None, "no such file or directory")
    return found


def load(source, input_format: str | None = None) -> list[Input]:
    """Every Input a source holds: a path, '-', a file object, a graph, or a list of triples."""
    from .objects import from_object

    if isinstance(source, (str, os.PathLike)):
        if str(source) == "-":
            return [from_bytes("<stdin>", sys.stdin.buffer.read(), input_format)]
        return [from_path(Path(p), input_format) if p != "-" else load("-", input_format)[0]
                for p in expand_paths([str(source)])]
    if isinstance(source, (io.IOBase,)) or hasattr(source, "read"):
        data = source.read()
        if isinstance(data, str):
            data = data.encode("utf-8")
        name = getattr(source, "name", None)
        name = name if isinstance(name, str) else "<stream>"
        return [from_bytes(name, data, input_format)]
    return [from_object(source)]
