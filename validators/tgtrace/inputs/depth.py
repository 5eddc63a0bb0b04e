"""How deep an input nests, measured before a parser sees it.

pyoxigraph's parsers recurse: thousands of nested JSON-LD objects or triple terms overflow their
stack (a segfault, with nothing on standard error), and nested RDF/XML elements and JSON-LD objects
take them quadratic time. So the nesting of each syntax is measured first, in time linear in the
input and in passes of C (regular expressions, ``bytes.count`` and ``translate``), and an input
that nests deeper than the reading's bound (:data:`~tgtrace.ground.limits.MAX_DEPTH`,
``--max-depth``) is refused with one line naming it and, where it is told cheaply, its line.

- N-Quads and N-Triples: a statement is a line and nests only through its object, so a line nests
  no deeper than it holds ``(`` (a triple term opens ``<<(``), found with ``find``; only a line
  holding more than the bound is read closely (its strings and IRIs set aside). Read a megabyte at
  a time (:class:`LineDepth`), so a file, bytes and a decompressed stream are all measured as they
  are read, for about a fiftieth of what parsing them costs.
- Turtle and TriG: an input holding no more ``<<`` than the bound cannot nest deeper; otherwise its
  strings, IRIs and comments are set aside and the rest's ``<<`` and ``>>`` counted.
- JSON-LD: its strings set aside, its brackets counted.
- RDF/XML: its comments, CDATA sections and processing instructions set aside, its start and end
  tags counted.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pyoxigraph as ox

from ..ground.errors import TgTraceError
from ..ground.guarded import deepest, nested_line, walked_line
from .base import InputError

TERMS, JSON_LD, XML = "triple terms within triple terms", "JSON-LD objects and arrays", "XML elements"
_CHUNK = 1 << 20
_OPEN = b"<<"
_TRIPLE = ox.Triple


def refusal(name: str, line: int | None, bound: int, what: str) -> InputError:
    return InputError(name, line, f"nests more than {bound} deep ({what}): refused before parsing; raise "
                                  "--max-depth if it is genuine")


# ---------------------------------------------------------------- N-Quads and N-Triples

# A triple term opens "<<(" in N-Quads and N-Triples (pyoxigraph reads no other form there), so a
# line nests no deeper than it holds "(": they are found with find (memchr, for a byte this rare),
# and only a line holding more than the bound is read closely.
_PAREN = b"("
# What a line of N-Quads holds that may hold "<<(" without opening a triple term: strings and IRIs.
_LINE_ASIDE = re.compile(rb'"(?:[^"\\\n]|\\.)*+"|<[^<>\n]*+>')


def _line_depth(line: bytes) -> int:
    """How deep one line of N-Quads nests: its "<<(" outside strings, IRIs and a comment."""
    return _LINE_ASIDE.sub(b" ", line).split(b"#", 1)[0].count(b"<<(")


def _parens(data: bytes, start: int, end: int, cap: int) -> int:
    """The "(" in ``data[start:end]``, counted up to one past ``cap``."""
    found = 0
    at = data.find(_PAREN, start, end)
    while at >= 0:
        found += 1
        if found > cap:
            break
        at = data.find(_PAREN, at + 1, end)
    return found


class _TooDeep(TgTraceError):
    """A line nests too deep; ``offset``: where it starts in the input (never shown: turned into
    the InputError of the input and its line where it is caught)."""

    def __init__(self, offset: int) -> None:
        super().__init__(f"nests too deep at byte {offset}")
        self.offset = offset


class LineDepth:
    """N-Quads or N-Triples fed a chunk at a time (:meth:`feed`); raises _TooDeep at the first
    line nesting deeper than ``bound``."""

    def __init__(self, bound: int) -> None:
        self.bound = bound
        self.offset = 0  # where the next chunk starts in the input
        self.carry: list[bytes] = []  # the line the last chunk ended inside, so far
        self.carried = 0  # its "(", up to one past the bound
        self.start = 0  # where it starts

    def feed(self, chunk: bytes) -> None:
        bound, find, size = self.bound, chunk.find, len(chunk)
        first = find(b"\n")
        if first < 0:  # the whole chunk lies inside one line
            if size:
                self.carry.append(chunk)
                self.carried = min(bound + 1, self.carried + _parens(chunk, 0, size, bound))
            self.offset += size
            return
        body = 0
        if self.carry:
            if self.carried + _parens(chunk, 0, first, bound) > bound:
                if _line_depth(b"".join(self.carry) + chunk[:first]) > bound:
                    raise _TooDeep(self.start)
            self.carry, self.carried, body = [], 0, first + 1
        last = chunk.rfind(b"\n")
        at, end, count = find(_PAREN, body, last), -1, 0
        while at >= 0:
            if at > end:  # the first "(" of another line
                end, count = find(b"\n", at), 0
            count += 1
            if count > bound:
                begin = chunk.rfind(b"\n", 0, at) + 1
                if _line_depth(chunk[begin:end]) > bound:
                    raise _TooDeep(self.offset + begin)
                at = end  # read closely: the rest of the line is known
            at = find(_PAREN, at + 1, last)
        if last + 1 < size:
            self.carry = [chunk[last + 1:]]
            self.carried = _parens(chunk, last + 1, size, bound)
            self.start = self.offset + last + 1
        self.offset += size

    def finish(self) -> None:
        """The last line, which no line break ended."""
        if self.carry:
            self.feed(b"\n")


def _refused(name: str, bound: int, line: int | None) -> InputError:
    return refusal(name, line, bound, TERMS)


def check_lines(name: str, source: bytes | Path, bound: int, first: int = 1) -> None:
    """Refuse N-Quads or N-Triples (bytes, or a file read a chunk at a time) that nest deeper than
    ``bound``; ``first``: the number of the first line (bytes cut from a larger input)."""
    screen = LineDepth(bound)
    try:
        if isinstance(source, bytes):
            if source.find(_PAREN) < 0:
                return
            for start in range(0, len(source), _CHUNK):
                screen.feed(source[start:start + _CHUNK])
        else:
            with open(source, "rb") as handle:
                while chunk := handle.read(_CHUNK):
                    screen.feed(chunk)
        screen.finish()
    except _TooDeep as exc:
        if isinstance(source, bytes):
            raise _refused(name, bound, first + source.count(b"\n", 0, exc.offset)) from None
        raise _refused(name, bound, _line_in_file(source, exc.offset)) from None


def _line_in_file(path: Path, offset: int) -> int:
    lines = 1
    with open(path, "rb") as handle:
        while offset > 0 and (chunk := handle.read(min(_CHUNK, offset))):
            lines += chunk.count(b"\n")
            offset -= len(chunk)
    return lines


class Screened:
    """A binary stream a parser reads, measured (:class:`LineDepth`) as it is read, so that no line
    nesting too deep reaches the parser (its line counted as it goes: the stream is read once)."""

    def __init__(self, name: str, handle: object, bound: int) -> None:
        self.name, self.bound, self.screen = name, bound, LineDepth(bound)
        self._read: Callable[[int], bytes] = handle.read  # type: ignore[attr-defined]  # a binary file
        self.lines = 0  # line breaks before the last chunk read

    def read(self, size: int = -1) -> bytes:
        data = self._read(size)
        start = self.screen.offset
        try:
            if data:
                self.screen.feed(data)
            else:
                self.screen.finish()
        except _TooDeep as exc:
            inside = data.count(b"\n", 0, exc.offset - start) if exc.offset >= start else 0
            raise _refused(self.name, self.bound, self.lines + inside + 1) from None
        self.lines += data.count(b"\n")
        return data


# ---------------------------------------------------------------- Turtle and TriG

# What Turtle and TriG hold that may hold "<", ">" or "#" without a triple term or a comment
# being there: long and short strings, IRIs, a name's escaped character; and comments.
_TURTLE_ASIDE = (rb'"""(?:[^"\\]|\\.|"(?!""))*+"""|\'\'\'(?:[^\'\\]|\\.|\'(?!\'\'))*+\'\'\''
                 rb'|"(?:[^"\\\n]|\\.)*+"|\'(?:[^\'\\\n]|\\.)*+\'|<[^<>"{}|^`\\\x00-\x20]*+>|\\.|#[^\n]*+')
_TURTLE_SET_ASIDE = re.compile(_TURTLE_ASIDE, re.S)
_TURTLE_TOKENS = re.compile(_TURTLE_ASIDE + rb"|(?P<start><<)|(?P<end>>>)", re.S)


def check_turtle(name: str, data: bytes, bound: int) -> None:
    """Refuse Turtle or TriG whose triple terms (and reified triples) nest deeper than ``bound``."""
    if data.count(_OPEN) <= bound:
        return
    # Left are the "<<" and ">>" of triple terms: marked one byte each, they are counted.
    marks = _TURTLE_SET_ASIDE.sub(b" ", data).replace(b"<<", b"\x01").replace(b">>", b"\x02")
    if deepest(marks, b"\x01", b"\x02") > bound:
        raise refusal(name, walked_line(data, _TURTLE_TOKENS, bound), bound, TERMS)


# ---------------------------------------------------------------- JSON-LD

_JSON_STRING = re.compile(rb'"(?:[^"\\]|\\.)*+"', re.S)


def check_json(name: str, data: bytes, bound: int) -> None:
    """Refuse JSON (JSON-LD) whose objects and arrays nest deeper than ``bound``."""
    line = nested_line(data, _JSON_STRING, b"[{", b"]}", bound)
    if line is not None:
        raise refusal(name, line, bound, JSON_LD)


# ---------------------------------------------------------------- RDF/XML

_XML_ASIDE = rb"<!--.*?-->|<!\[CDATA\[.*?\]\]>|<\?.*?\?>"
_XML_SET_ASIDE = re.compile(_XML_ASIDE, re.S)
# A tag: its attributes' values may hold ">" (not "<").
_TAG = rb"""<[^!?/<>](?:[^<>"']|"[^"]*+"|'[^']*+')*+"""
_XML_EMPTY = re.compile(_TAG + rb"(?<=/)>")
_XML_START = re.compile(_TAG + rb">")
_XML_END = re.compile(rb"</[^<>]*+>")
_XML_TOKENS = re.compile(_XML_ASIDE + rb"|" + _TAG + rb"(?<=/)>|(?P<start>" + _TAG + rb">)|(?P<end></[^<>]*+>)", re.S)
_MARKS = b"\x01\x02"


def check_xml(name: str, data: bytes, bound: int) -> None:
    """Refuse XML (RDF/XML) whose elements nest deeper than ``bound``."""
    if data.count(b"<") - data.count(b"</") <= bound:
        return
    rest = _XML_SET_ASIDE.sub(b" ", data.translate(None, _MARKS))
    rest = _XML_END.sub(b"\x02", _XML_START.sub(b"\x01", _XML_EMPTY.sub(b" ", rest)))
    if deepest(rest, b"\x01", b"\x02") > bound:
        raise refusal(name, walked_line(data, _XML_TOKENS, bound), bound, XML)


CHECKS: dict[str, Callable[[str, bytes, int], None]] = {
    "turtle": check_turtle, "trig": check_turtle, "jsonld": check_json, "rdfxml": check_xml,
}


def check(name: str, fmt: str, source: bytes | Path, bound: int) -> None:
    """Refuse an input of the RDF syntax ``fmt`` (bytes, or a file) that nests deeper than ``bound``."""
    if fmt in ("nquads", "ntriples"):
        check_lines(name, source, bound)
        return
    measure = CHECKS.get(fmt)
    if measure is None:
        return
    if isinstance(source, Path):
        if not _may_nest(source, _OPENINGS[fmt], bound):
            return
        source = source.read_bytes()
    measure(name, source, bound)


# What opens a level in each syntax: a file holding no more of them than the bound cannot nest deeper.
_OPENINGS = {"turtle": (_OPEN,), "trig": (_OPEN,), "jsonld": (b"[", b"{"), "rdfxml": (b"<",)}


def _may_nest(path: Path, openings: tuple[bytes, ...], bound: int) -> bool:
    """Whether a file holds more of ``openings`` than the bound, read a chunk at a time (one that
    holds fewer is not read whole); one more is counted at each chunk's end, where an opening of
    two bytes may be cut."""
    marks = 0
    with open(path, "rb") as handle:
        while chunk := handle.read(_CHUNK):
            marks += sum(map(chunk.count, openings)) + 1
            if marks > bound:
                return True
    return False


# ---------------------------------------------------------------- terms already made

def term_depth(term: object, bound: int) -> int:
    """How deep a pyoxigraph term's triple terms nest (0 for any other term), counted to one past
    ``bound`` at most: each step reads a term of a triple term, which pyoxigraph copies whole, so a
    term far deeper costs the bound's steps, each linear in it, never a walk of the whole."""
    found = 0
    pending = [(term, 1)]
    while pending:
        current, level = pending.pop()
        if type(current) is not _TRIPLE:
            continue
        found = max(found, level)
        if found > bound:
            return found
        pending += ((current.subject, level + 1), (current.object, level + 1))
    return found
