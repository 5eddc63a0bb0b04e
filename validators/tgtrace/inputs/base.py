"""What every loader produces: an Input, and how it finds the lines of its triples.

An :class:`Input` is a name for reports, a way to iterate its quads, and a
:class:`~tgtrace.ground.locations.Locator` the trace graph carries so that a finding's
line is found without going back to the loader.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import IO, Any

import pyoxigraph as ox

from ..ground import graph as tg
from ..ground.errors import TgTraceError
from ..ground.escaping import message, printable
from ..ground.graph import ReadTerms, TraceGraph, collector_paused
from ..ground.locations import KnownLines, Locator, syntax_message
from ..tracemodel.traces import TRUSTGRAPH
from .lenient import Suspicion, escapes_surrogates, suspicion
from .positions import SYNTAXES, locate

RDF_FORMATS = {
    "nquads": ox.RdfFormat.N_QUADS,
    "ntriples": ox.RdfFormat.N_TRIPLES,
    "turtle": ox.RdfFormat.TURTLE,
    "trig": ox.RdfFormat.TRIG,
    "jsonld": ox.RdfFormat.JSON_LD,
    "rdfxml": ox.RdfFormat.RDF_XML,
}
LINE_FORMATS = {"nquads", "ntriples"}
# Whether a format carries the graph each statement was written in (None: a JSON-LD document names
# graphs or not, and carries them when it names one). TrustGraph's wire triples do: a triple
# without "g" is in the default graph.
CARRIES_GRAPHS: dict[str, bool | None] = {
    "nquads": True, "trig": True, "jsonld": None, "turtle": False, "ntriples": False, "rdfxml": False,
    "wire": True, "jsonl": True, "frames": True, "envelopes": True, "triples": True, "dump": True,
    "kgcore": True, "tgx": False, "objects": True,
}
# Input.graph_names when the format decides.
BY_FORMAT = "format"
FORMAT_NAMES = {"nquads": "N-Quads", "ntriples": "N-Triples", "turtle": "Turtle", "trig": "TriG", "jsonld": "JSON-LD",
                "rdfxml": "RDF/XML", "wire": "TrustGraph wire JSON", "jsonl": "explain stream (JSONL)",
                "objects": "Python objects", "frames": "TrustGraph export frames (JSONL)",
                "envelopes": "TrustGraph socket response envelopes (JSONL)",
                "triples": "TrustGraph triples query output (JSONL)", "dump": "tg-dump-msgpack output (JSONL)",
                "kgcore": "TrustGraph knowledge core (msgpack)", "tgx": "TrustGraph workspace export (.tgx)"}


class InputError(TgTraceError):
    """Unreadable input: one line naming the file, the line and what is wrong. The name and the
    problem (a parser's message quotes the input) are escaped and bounded here, once."""

    def __init__(self, name: str, line: int | None, problem: str) -> None:
        self.name, self.line, self.problem = name, line, problem
        where = f"{printable(name)}:{line}" if line else printable(name)
        super().__init__(f"{where}: {message(problem)}")

    def __reduce__(self) -> tuple[type[InputError], tuple[str, int | None, str]]:
        # Raised in -j worker processes: it must cross back to the parent intact.
        return (InputError, (self.name, self.line, self.problem))


def no_triples(name: str, fmt: str) -> InputError:
    """The error of an input from which no triple was read."""
    return InputError(name, None, f"holds no triples ({FORMAT_NAMES.get(fmt, fmt)} read)")


@dataclass
class Input:
    """One input ready to lint."""

    name: str
    format: str
    _quads: Callable[[], Iterator[ox.Quad]]
    # Lines of triples, known up front for formats parsed here (wire JSON).
    _lines: dict[tuple, int | None] | None = None
    text: bytes | None = None
    path: Path | None = None
    size: int = 0
    extra: dict = field(default_factory=dict)
    # Called with the number of bytes read so far, where the format is streamed from disk.
    progress: Callable[[int], None] | None = None
    # For explain streams: the events, one (line, quads) at a time, so traces can be linted as they end.
    events: Callable[[], Iterator[tuple[int, list]]] | None = None
    # What the format lost on the way out of TrustGraph (a losses.Loss), when it is known to lose anything.
    loss: Any = None
    # The locator of a format that finds its own places (a member inside an archive).
    custom_locator: Callable[[], Locator] | None = None
    # Opens the input's text, where it is not the file's bytes (a compressed file's, decompressed).
    opener: Callable[..., Any] | None = None
    # The quads as pyoxigraph's lenient parser reads them, where what it skips can be checked
    # afterwards (``lenient.py``: N-Quads and N-Triples, from a file or bytes).
    _lenient_quads: Callable[[], Iterator[ox.Quad]] | None = None
    # Whether the input carries graph names, where its format alone does not say (an rdflib Graph
    # does not, a Dataset does; a workspace export's graphs are put back by class, not read).
    graph_names: bool | None | str = BY_FORMAT
    # The text of an input held as quads (a pull), as the command that writes them would write it:
    # what the excerpts of its findings are read from, made only when it has findings.
    rendered: Callable[[], bytes] | None = None

    @property
    def carries_graphs(self) -> bool | None:
        """Whether the input says which named graph each statement was written in (None: when it
        names a graph at all, as a JSON-LD document may)."""
        if self.graph_names != BY_FORMAT:
            return self.graph_names  # type: ignore[return-value]  # BY_FORMAT is the only str
        return CARRIES_GRAPHS.get(self.format, False)

    def quads(self) -> Iterator[ox.Quad]:
        """The quads; iterate them inside ``with input.reading():`` to get InputError for bad input."""
        return self._quads()

    def lenient_quads(self) -> Iterator[ox.Quad] | None:
        """The quads as the lenient parser reads them, or None: read only through :class:`Reading`,
        which checks what that parser skips."""
        return self._lenient_quads() if self._lenient_quads is not None else None

    @contextmanager
    def reading(self) -> Iterator[None]:
        """Turns the parser's errors into an InputError naming this input (and the line)."""
        try:
            yield
        except SyntaxError as exc:
            raise InputError(self.name, exc.lineno, _remote_context(exc) or syntax_message(exc)) from None
        except (ValueError, OSError) as exc:
            raise InputError(self.name, None, _remote_context(exc) or str(exc) or type(exc).__name__) from None
        except MemoryError:
            # pyoxigraph's parsers stop at a token (a literal, an IRI) longer than their buffer.
            raise InputError(self.name, None, "a single token (literal or IRI) is too long to parse "
                                              "(pyoxigraph reads at most 16 MiB per token)") from None
        except RecursionError:
            raise InputError(self.name, None, "nested too deeply to parse") from None

    def graph(self) -> TraceGraph:
        """The input as a trace graph, carrying what it takes to find a triple's line."""
        graph = TraceGraph(self.name, self.locator(), TRUSTGRAPH)
        reading = Reading(graph)
        reading.read(self)
        reading.finish()
        if not graph.statements:
            # A gate that passes an empty capture (or the error page saved in its place) is worse than none.
            raise self.no_triples()
        return graph

    def no_triples(self) -> InputError:
        return no_triples(self.name, self.format)

    def locator(self) -> Locator:
        if self.custom_locator is not None:
            return self.custom_locator()
        if self._lines is not None:
            return KnownLines(self._lines)
        if self.format in LINE_FORMATS:
            return _LineLocator(self.text, self.path, self.format, self.opener)
        return _TextLocator(self.text, self.path, self.format, self.opener)


# What pyoxigraph's JSON-LD parser says of a @context (or @import) naming a URL: it has no loader,
# by design (nothing is fetched while parsing), so the message is the project's own.
_NO_LOADER = "LoadDocumentCallback"
REMOTE_CONTEXT = ("names a remote context (a URL as JSON-LD @context or @import): tg-trace fetches nothing while "
                  "parsing; inline the context (its JSON object in place of the URL) and lint again")


def _remote_context(exc: Exception) -> str | None:
    return REMOTE_CONTEXT if _NO_LOADER in str(exc) else None


class Reading:
    """Inputs read into one graph, each one that can be read leniently so (``lenient.py``).

    Call :meth:`finish` once every input is read: it checks the distinct terms of the whole graph
    once, and where one may be wrong reads the lenient inputs again strictly, in order, so that the
    first bad one is refused with the strict parser's message and line. Any error while reading
    does the same first, so an input's error is the one reading all of them strictly would give.
    """

    def __init__(self, graph: TraceGraph) -> None:
        self._graph = graph
        self._lenient: list[Input] = []
        self._read = ReadTerms()  # the lenient inputs' terms

    def read(self, item: Input) -> int:
        """Read one input into the graph; returns how many statements it held."""
        quads = item.lenient_quads()
        graphs = item.carries_graphs
        try:
            if quads is None:
                with item.reading():
                    if graphs is None:
                        return self._read_naming_graphs(item.quads())
                    return self._graph.add_quads(item.quads(), graphs=graphs)
            count = self._graph.add_quads(quads, self._read, graphs=bool(graphs))
        except InputError:
            self.finish()
            raise
        except Exception:  # the lenient parser stopped: the strict one says where, and why
            self.finish()
            _read_strictly(item)
            with item.reading():
                raise
        self._lenient.append(item)
        return count

    def _read_naming_graphs(self, quads: Iterable[ox.Quad]) -> int:
        """Quads of a document that may name graphs or not (JSON-LD): read with their graphs, which
        are forgotten again when the document named none (its statements' graphs are not known)."""
        graph = self._graph
        fresh: set = set()
        named = False

        def noted() -> Iterator[ox.Quad]:
            nonlocal named
            for quad in quads:
                if not named:
                    named = type(quad.graph_name) is ox.NamedNode
                    node = tg.key(quad.subject)
                    if not graph.graphs_of(node):
                        fresh.add(node)
                yield quad

        count = graph.add_quads(noted(), graphs=True)
        if not named:
            graph.forget_graphs(fresh)
        return count

    def finish(self) -> None:
        """Refuse, as strict reading would, any input read leniently that it would refuse."""
        if not self._lenient:
            return
        with collector_paused():  # the walk allocates; the collector would walk the whole index
            found = suspicion(self._read)
        if found is not Suspicion.NONE:
            for item in self._lenient:
                if found is Suspicion.TERMS or escapes_surrogates(item.text if item.text is not None else item.path):
                    _read_strictly(item)
        self._lenient, self._read = [], ReadTerms()  # checked: the terms are not kept


def _read_strictly(item: Input) -> None:
    with item.reading():
        deque(item.quads(), maxlen=0)


class _LineLocator(Locator):
    """N-Quads and N-Triples: one statement on each line (usually), subject first.

    Called only for triples that findings name, so a clean run never pays for
    line bookkeeping. When every line holds one statement, the statement
    numbers the graph recorded for the runs of each subject are lines, and
    only the runs of the subjects named are read again; otherwise the file is
    scanned line by line (never held whole).
    """

    def __init__(self, text: bytes | None, path: Path | None, fmt: str,
                 opener: Callable[..., Any] | None = None) -> None:
        self.text, self.path, self.format, self.opener = text, path, fmt, opener

    def _open(self) -> IO[bytes]:
        return self.opener() if self.opener is not None else open(self.path, "rb")  # type: ignore[arg-type]  # a path or an opener is given

    def lines(self, wanted: set[tuple], runs: dict, statements: int) -> dict[tuple, int]:
        if not runs:
            pass  # no statement numbers recorded (a part read whole elsewhere): the lines are scanned
        elif self.text is None and (self.path is not None or self.opener is not None):
            # One pass over the file: the runs named are read on the way, the lines after the
            # last of them only counted.
            with self._open() as handle:
                found, read = self._in_runs(wanted, runs, handle)
                if read is not None and read + _lines_left(handle) == statements:
                    return found
        elif self._line_count() == statements:
            with self._line_iterator() as lines:
                return self._in_runs(wanted, runs, lines)[0]
        with self._line_iterator() as lines:
            return _locate_line_based(lines, wanted, self.format)

    def _line_count(self) -> int | None:
        """Lines of the input, the last one counted even without a newline."""
        if self.text is not None:
            data = self.text
            return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
        if self.path is None and self.opener is None:
            return None
        with self._open() as handle:
            return _lines_left(handle)

    @contextmanager
    def _line_iterator(self) -> Iterator[Iterator[bytes]]:
        """The input's lines, from a file object when on disk so that skipping lines runs in C."""
        if self.text is not None:
            yield iter(self.text.split(b"\n"))
        elif self.path is not None or self.opener is not None:
            with self._open() as handle:
                yield handle
        else:
            yield iter(())

    def _in_runs(self, wanted: set[tuple], runs: dict, lines: Iterator[bytes]) -> tuple[dict[tuple, int], int | None]:
        """A subject's line is the first of its first run; a triple's is found by reading its
        subject's runs from ``lines``. Also returns how many lines were read (None when the
        input ended before a run: its statement numbers are not lines)."""
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
            return found, 0
        rdf_format = RDF_FORMATS[self.format]
        number, raw = 0, None  # the last line read, and its number
        for start, subject in sorted(((n, s) for s in exact for n in runs[s]), key=lambda run: run[0]):
            keys = exact[subject]
            if start < number:
                continue  # a guard: runs of different subjects never overlap
            if start > number:
                raw = next(islice(lines, start - number - 1, None), None)
                number = start
                if raw is None:
                    return found, None
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
        return found, (number if raw is not None else number - 1)


def _lines_left(handle: IO[bytes]) -> int:
    """The lines from a binary file's position to its end, the last counted even without a newline."""
    count, last = 0, b"\n"
    while chunk := handle.read(1 << 20):
        count += chunk.count(b"\n")
        last = chunk[-1:]
    return count + (0 if last == b"\n" else 1)


class _TextLocator(Locator):
    """Turtle, TriG, JSON-LD and RDF/XML can spread a triple over many lines and abbreviate
    IRIs. In the first three a triple is found where it is written (``positions.py``: its
    predicate's line, a subject's first line); what that cannot tell, and RDF/XML, gets the
    first line that spells the subject out."""

    def __init__(self, text: bytes | None, path: Path | None, fmt: str,
                 opener: Callable[..., Any] | None = None) -> None:
        self.text, self.path, self.format, self.opener = text, path, fmt, opener

    def lines(self, wanted: set[tuple], runs: dict, statements: int) -> dict[tuple, int]:
        if self.text is None and self.opener is not None:
            with self.opener() as handle:
                data = handle.read()
        else:
            data = self.text if self.text is not None else (self.path.read_bytes() if self.path is not None else None)
        if data is None:
            return {}
        found = locate(data, self.format, wanted) if self.format in SYNTAXES else {}
        rest = wanted - found.keys()
        if rest:
            found.update(_locate_by_subject_text(data, rest))
        return found


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


def _ntriples_token(term: ox.NamedNode | ox.BlankNode | ox.Triple) -> str:
    if isinstance(term, ox.NamedNode):
        return f"<{term.value}>"
    return str(term)


def _locate_by_subject_text(data: bytes, wanted: set[tuple]) -> dict[tuple, int]:
    """The first line that spells each wanted triple's subject out: as an IRI or a string (a
    whole token, not the start of a longer IRI), else as its bare text."""
    text = data.decode("utf-8", "replace")
    found = {}
    for key in wanted:
        subject = key[0]
        needle = subject.value if isinstance(subject, ox.NamedNode) else str(subject)
        for form in (f"<{needle}>", f'"{needle}"', needle):
            pos = text.find(form)
            if pos >= 0:
                break
        if pos >= 0:
            found[key] = text.count("\n", 0, pos) + 1
    return found
