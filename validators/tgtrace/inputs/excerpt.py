"""The source excerpt of a finding: the input line that holds its triple, and where on that line
the term at fault is written (an N-Quads token, a string of the wire JSON, a Turtle, TriG or
JSON-LD term as it is written there: a prefixed name, ``a``, a literal in any of its forms).

Read after the run, from the files the findings name: each file once, up to the last line asked
for, so the cost is one pass over the files that have findings (and, for Turtle, TriG and
JSON-LD, one walk of ``positions.py`` over their text to that line). A compressed file's lines are
its decompressed text's, as its findings' lines are. Input that was no file is read from the text
the run kept of it (``held``: standard input's); Python objects have no excerpt.
"""

from __future__ import annotations

import io
import json
import os
import re
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .base import InputError
from .compressed import COMPRESSED_SUFFIXES, binary_kind, compression_of, open_expanded
from .positions import Span, Written, written

if TYPE_CHECKING:
    from ..ground.model import Finding

# Names a loader gives input that did not come from a file.
_NOT_A_FILE = {None, "", "-", "<stdin>", "<input>"}


# A triple of pretty-printed wire JSON spans up to 16 lines from the one a finding names (indented by 2): the term
# at fault is looked for this many lines on.
SPAN = 20


@dataclass(frozen=True)
class Excerpt:
    """Source lines from the finding's line to the one that holds the term at fault, and the span
    [start, end) of the term on the last of them."""

    lines: tuple[tuple[int, str], ...]
    start: int
    end: int


def _ntriples_literal(value: str) -> str:
    escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")
    return f'"{escaped}"'


def _written_forms(term: str) -> list[str]:
    """How a term (an IRI or a literal's text, as findings name them) may be written on a line:
    an N-Quads IRI or literal, a JSON string (escaped as Python's json or as TrustGraph writes it),
    then the bare text."""
    forms = [f"<{term}>", _ntriples_literal(term), json.dumps(term), json.dumps(term, ensure_ascii=False), term]
    return list(dict.fromkeys(f for f in forms if f))


@contextmanager
def _text_of(file: str) -> Iterator[io.BufferedReader | None]:
    """The file's text as a binary file object (a compressed file's decompressed), or None when it
    is not text (a knowledge core's msgpack, an archive): its "lines" are records or members, with
    nothing to show."""
    with open(file, "rb") as handle:
        kind = compression_of(handle.read(8))
        handle.seek(0)
        stream = open_expanded(file, kind, Path(file)) if kind is not None else handle
        with stream:
            head = stream.peek(8192)[:8192] if kind is not None else handle.read(8192)
            if kind is None:
                handle.seek(0)
            yield None if binary_kind(head) else stream


@contextmanager
def _source(file: str, held: Mapping[str, bytes]) -> Iterator[io.BufferedReader | None]:
    """The text of a file, or of an input that was no file from what the run kept of it."""
    if file in held:
        text = held[file]
        yield None if binary_kind(text[:8192]) else io.BufferedReader(io.BytesIO(text))
        return
    with _text_of(file) as handle:
        yield handle


def names_no_file(name: str | None) -> bool:
    """Whether ``name`` is what a loader calls input that came from no file (standard input): the
    excerpts of its findings are read from the text the run kept of it."""
    return name in _NOT_A_FILE


def _readable(file: str | None, held: Mapping[str, bytes]) -> bool:
    return file is not None and (file in held or (file not in _NOT_A_FILE and os.path.isfile(file)))


def source_lines(wanted: Iterable[tuple[str | None, int | None]], span: int = 1,
                 held: Mapping[str, bytes] | None = None) -> dict[tuple[str, int], str]:
    """The text of each (file, line) asked for, and of the ``span - 1`` lines after it, that can
    be read (a file's, or the text ``held`` of an input that was no file); each read once."""
    held = held or {}
    by_file: dict[str, set[int]] = {}
    for file, line in wanted:
        if line and _readable(file, held):
            by_file.setdefault(str(file), set()).update(range(int(line), int(line) + span))
    found: dict[tuple[str, int], str] = {}
    for file, lines in by_file.items():
        last = max(lines)
        try:
            with _source(file, held) as handle:
                for number, raw in enumerate(handle or (), start=1):
                    if number in lines:
                        found[(file, number)] = raw.decode("utf-8", errors="replace").rstrip("\r\n")
                    if number >= last:
                        break
        except (OSError, InputError):
            continue  # gone, unreadable or damaged since the run: the finding is shown without its excerpt
    return found


# The syntaxes whose terms are found where they are written, by the file's suffix.
_WRITTEN = {".ttl": "turtle", ".trig": "trig", ".jsonld": "jsonld"}


def _syntax(file: str, head: bytes) -> str | None:
    """Turtle, TriG or JSON-LD, by the file's name (a compressed file's inner name) and, for
    ``.json``, its content (JSON-LD's keywords; wire JSON has none)."""
    name = file.lower()
    for suffix in COMPRESSED_SUFFIXES:
        name = name.removesuffix(suffix)
    suffix = os.path.splitext(name)[1]
    if suffix == ".json":
        return "jsonld" if b'"@' in head else None
    return _WRITTEN.get(suffix)


def _statements(findings: list[Finding], held: Mapping[str, bytes]) -> dict[str, dict[int, list[Written]]]:
    """The statements written on the findings' lines, of each Turtle, TriG or JSON-LD file."""
    by_file: dict[str, dict[int, set[str]]] = {}
    for finding in findings:
        lines = by_file.setdefault(str(finding.file), {})
        lines.setdefault(int(finding.line), set()).add(finding.focus)  # type: ignore[arg-type]  # those with a line
    found: dict[str, dict[int, list[Written]]] = {}
    for file, lines in by_file.items():
        if not _readable(file, held):
            continue
        try:
            with _source(file, held) as handle:
                if handle is None:
                    continue
                syntax = _syntax(file, handle.peek(65536)[:65536])
                if syntax is not None:
                    found[file] = written(handle.read(), syntax, lines, SPAN)
        except (OSError, InputError):
            continue
    return found


def _written_span(finding: Finding, statements: list[Written]) -> Span | None:
    """Where the term at fault of a finding is written, among the statements of its line: its
    value, else its predicate, else its focus, as :func:`excerpts` looks for them."""
    focus, path = finding.focus, finding.path

    def about(statement: Written) -> bool:
        return statement.subject == focus or (statement.subject is None and focus.startswith("_:"))

    if finding.value is not None:
        value = finding.value if finding.value != focus else None
        if value is not None:
            span = next((w.spans[2] for w in statements if about(w) and w.object == value
                         and (path is None or w.predicate == path)), None)
            if span is not None:
                return span
        if path is not None:
            span = next((w.spans[1] for w in statements if about(w) and w.predicate == path), None)
            if span is not None:
                return span
    return next((w.spans[0] for w in statements if w.subject == focus and w.spans[0].line == finding.line), None)


def excerpts(findings: Iterable[Finding], held: Mapping[str, bytes] | None = None) -> dict:
    """Each finding (with a file and line) -> its :class:`Excerpt`, the term at fault located:
    its value, else its predicate, else its focus (the focus alone when the value is missing; a
    node-level rule names the focus as its value, and then the predicate is the term at fault)."""
    findings = [f for f in findings if f.line]
    held = held or {}
    lines = source_lines(((f.file, f.line) for f in findings), SPAN, held)
    statements = _statements(findings, held)
    out = {}
    for finding in findings:
        file, first = str(finding.file), int(finding.line)  # type: ignore[arg-type]  # those with a line
        if (file, first) not in lines:
            continue
        if file in statements:
            span = _written_span(finding, statements[file].get(first, []))
            numbers = range(first, span.line + 1) if span is not None else range(0)
            if span is not None and numbers and all((file, n) in lines for n in numbers):
                out[finding] = Excerpt(tuple((n, lines[(file, n)]) for n in numbers), span.start, span.end)
                continue
        value = finding.value if finding.value != finding.focus else None
        # A value that describes the fault (an invalid term) quotes the term as it was written.
        quoted = re.findall(r'"((?:[^"\\]|\\.)+)"', value or "")
        # A value that is missing is missing from the focus: the focus is marked.
        terms = (value, *quoted, finding.path, finding.focus) if finding.value is not None else (finding.focus,)
        shown = []
        for number in range(first, first + SPAN):
            text = lines.get((file, number))
            if text is None:
                break
            shown.append((number, text))
        # The best term found on any of the lines (the value before the predicate before the
        # focus), each first as a whole token (<iri>, "text"), its bare text last.
        hit = next(((index, start, start + len(form)) for term in terms if term for form in _written_forms(term)
                    for index, (_, text) in enumerate(shown) if (start := text.find(form)) != -1), None)
        if hit is not None:
            index, start, end = hit
            out[finding] = Excerpt(tuple(shown[:index + 1]), start, end)
        # A line that does not spell the term (Turtle's prefixed names) is not shown: it would
        # point at the wrong place.
    return out
