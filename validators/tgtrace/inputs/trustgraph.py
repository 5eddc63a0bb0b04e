"""What TrustGraph's own gateway and tools write, read without TrustGraph.

- export frames, ``{"metadata": {"id", "root", "collection"}, "triples": [wire triples]}``, one per
  message of ``/api/v1/flow/{flow}/export/triples`` (trustgraph-flow ``gateway/dispatch/serialize.py``);
- response envelopes of ``/api/v1/socket``, ``{"id", "response": {...}, "complete"}``, of which only
  explain messages (and the ``triples`` service's batches) carry triples;
- ``tg-query-graph --format jsonl``: one wire triple per line, in the store's order;
- knowledge cores from ``tg-get-kg-core``: a msgpack stream of ``("t", {"m": {...}, "t": [wire triples]})``
  records (graph embeddings and library records carry no triples); ``tg-dump-msgpack`` prints each
  record as one JSON array per line;
- ``.tgx`` bundles from ``tg-export-workspace``: a gzipped tar whose ``knowledge/<collection>/triples.nq``
  members hold N-Quads. Members are read from the archive as a stream, never extracted to disk.

The recognisers (:func:`is_export_frame`, :func:`is_response_envelope`, :func:`frame_quads`,
:func:`envelope_quads`, :func:`record_quads`, :func:`line_quads`) take one decoded message each, so a
client of the live gateway can call them on what it receives.
"""

from __future__ import annotations

import io
import re
import tarfile
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path, PurePosixPath
from typing import IO, Any

import msgpack  # the reference implementation of msgpack, with limits on every length it reads
import pyoxigraph as ox

from ..ground.limits import DEFAULT_BOUNDS, MAX_DEPTH, MAX_EXPANSION, InputBounds
from ..ground.locations import Locator, syntax_message
from ..ground.namespaces import RDF_TYPE
from ..tracemodel.traces import RETRIEVAL_CLASSES, SOURCE_CLASSES
from ..tracemodel.traces import RETRIEVAL_GRAPH as RETRIEVAL
from ..tracemodel.traces import SOURCE_GRAPH as SOURCE
from .base import Input, InputError, _locate_line_based
from .compressed import budget_of
from .depth import check_lines
from .losses import loss_of
from .wire import WIRE_KEYS, WireError, events_to_quads, triple_to_quads, triples_to_quads

# Kinds of JSON lines judged as a stream (events as emitted) and as a set (a dump in the store's order).
STREAM_KINDS = {"events", "frames", "envelopes"}
SET_KINDS = {"triples", "dump"}


def is_export_frame(message: Any) -> bool:
    """A message of the export endpoint (or of a client's stream of them): it has ``metadata``."""
    return isinstance(message, dict) and "metadata" in message and "explain_triples" not in message


def is_response_envelope(message: Any) -> bool:
    """A response of the socket endpoint: ``{"id", "response" | "error", "complete"}``."""
    return isinstance(message, dict) and "id" in message and bool({"response", "error", "complete"} & message.keys())


def frame_quads(frame: dict, depth: int = MAX_DEPTH) -> list[ox.Quad]:
    """The quads of an export frame; WireError for a frame without a list of triples."""
    triples = frame.get("triples")
    if not isinstance(triples, list):
        problem = "has no 'triples'" if "triples" not in frame else f"has 'triples' of type {type(triples).__name__}"
        raise WireError(None, f"an export frame {problem}, not a list of triples")
    return triples_to_quads(triples, None, depth)


def envelope_quads(envelope: dict, depth: int = MAX_DEPTH) -> list[ox.Quad] | None:
    """The quads of a response envelope's explain message (or a ``triples`` batch); None for answer
    chunks, thoughts, errors and every other message, which carry no trace."""
    if "response" not in envelope:
        return None  # an error, or a bare completion
    response = envelope["response"]
    if isinstance(response, list):  # the triples service streams batches of wire triples
        return triples_to_quads(response, None, depth)
    if not isinstance(response, dict):
        raise WireError(None, f"an envelope's 'response' must be an object, not {type(response).__name__}")
    if "explain_triples" in response:
        return events_to_quads([response], depth)
    return None


def record_quads(record: Any, depth: int = MAX_DEPTH) -> list[ox.Quad] | None:
    """The quads of a knowledge-core record ``["t", {"m", "t"}]``; None for other record types."""
    if not isinstance(record, (list, tuple)) or len(record) != 2 or not isinstance(record[0], str):
        raise WireError(None, "a knowledge core record must be a pair [type, body]")
    kind, body = record
    if kind != "t":
        return None  # graph embeddings ("ge"), library metadata ("lm") and blobs ("lb")
    if not isinstance(body, dict) or not isinstance(body.get("t"), list):
        raise WireError(None, "a triples record ('t') needs a body with a list 't' of triples")
    return triples_to_quads(body["t"], None, depth)


# What tg-get-kg-core writes: triples, graph embeddings, library metadata and library blobs.
RECORD_TYPES = ("t", "ge", "lm", "lb")


def line_kind(message: Any) -> str | None:
    """What one JSON line is: events, frames, envelopes, triples or dump (None: it does not say)."""
    if isinstance(message, list):
        return "dump" if len(message) == 2 and message[0] in RECORD_TYPES else None
    if not isinstance(message, dict):
        return None
    if "explain_triples" in message or "message_type" in message:
        return "events"
    if is_export_frame(message):
        return "frames"
    if is_response_envelope(message):
        return "envelopes"
    if WIRE_KEYS & message.keys():
        return "triples"
    return None


def line_quads(message: Any, depth: int = MAX_DEPTH) -> list[ox.Quad] | None:
    """The quads of one JSON line of any kind; None for a line that carries no triples. Triple
    terms may nest ``depth`` deep."""
    kind = line_kind(message)
    if kind == "events":
        return events_to_quads([message], depth) if "explain_triples" in message else None
    if kind == "frames":
        return frame_quads(message, depth)
    if kind == "envelopes":
        return envelope_quads(message, depth)
    if kind == "triples":
        return triple_to_quads(message, None, depth)
    if kind == "dump":
        return record_quads(message, depth)
    if isinstance(message, dict):
        return None  # other messages on the same socket (auth, acknowledgements) carry no triples
    raise WireError(None, "expected one JSON object (or a knowledge core record [type, body]) per line")


# ---------------------------------------------------------------------------
# Knowledge cores (msgpack).
# ---------------------------------------------------------------------------

MSGPACK_SUFFIXES = (".msgpack", ".mpk", ".core")
# tg-get-kg-core packs each record as a 2-tuple: a fixarray(2) then its type, a short string.
_MSGPACK_HEADS = (b"\x92\xa1t", b"\x92\xa2ge", b"\x92\xa2lm", b"\x92\xa2lb")
# No single record of a knowledge core (one explain step, or one batch of triples) comes near this.
MAX_RECORD_BYTES = 64 << 20


def is_msgpack_core(head: bytes) -> bool:
    return head.startswith(_MSGPACK_HEADS)


def _msgpack_problem(exc: Exception) -> str:
    if isinstance(exc, msgpack.StackError):
        return "nested too deeply"
    if isinstance(exc, msgpack.BufferFull) or "exceeds max" in str(exc):
        return f"a record longer than {MAX_RECORD_BYTES} bytes"
    if isinstance(exc, msgpack.FormatError):
        return "a byte no msgpack value starts with"
    return str(exc).splitlines()[0][:80] if str(exc) else type(exc).__name__


def msgpack_input(name: str, path: Path | None = None, data: bytes | None = None,
                  nesting: int = MAX_DEPTH) -> Input:
    """A knowledge core, streamed record by record; a finding's line is its record's number."""

    def quads() -> Iterator[ox.Quad]:
        handle = open(path, "rb") if data is None else None  # type: ignore[arg-type]  # path is given when data is not
        try:
            unpacker = msgpack.Unpacker(handle, raw=False, max_buffer_size=MAX_RECORD_BYTES,
                                        strict_map_key=True)
            if data is not None:
                unpacker.feed(data)
            number = 0
            end = 0  # where the last whole record ends
            while True:
                try:
                    record = unpacker.unpack()
                except msgpack.OutOfData:
                    break
                except (msgpack.ExtraData, msgpack.FormatError, msgpack.StackError, msgpack.BufferFull,
                        ValueError, TypeError) as exc:
                    raise InputError(name, number + 1, f"record {number + 1} is not msgpack "
                                                       f"({_msgpack_problem(exc)})") from None
                number += 1
                end = unpacker.tell()
                try:
                    batch = record_quads(record, nesting)
                except WireError as exc:
                    raise InputError(name, number, f"record {number}: {exc.problem}") from None
                for quad in batch or ():
                    item._lines.setdefault((quad.subject, quad.predicate, quad.object), number)  # type: ignore[union-attr]  # made with _lines={}
                    yield quad
            total = len(data) if data is not None else path.stat().st_size  # type: ignore[union-attr]  # path is given when data is not
            # The unpacker may have read into a record it could not finish: what counts is where the
            # last whole one ended.
            if end != total:
                raise InputError(name, number + 1, f"is truncated: record {number + 1} ends before its last "
                                                   f"byte ({total - end} bytes left over)")
        finally:
            if handle is not None:
                handle.close()

    size = len(data) if data is not None else path.stat().st_size  # type: ignore[union-attr]  # path is given when data is not
    item = Input(name, "kgcore", quads, _lines={}, path=path, size=size)
    return item


# ---------------------------------------------------------------------------
# Workspace exports (.tgx).
# ---------------------------------------------------------------------------

TGX_SUFFIXES = (".tgx",)
# Bomb defences, as for every compressed input (the reading's expansion, limits.MAX_EXPANSION): a gzip
# stream expands about 1000 times at most; N-Quads compress about 10-30 times.
MAX_TGX_MEMBERS = 100_000
# A PAX or GNU extended header (a long name, a few attributes) is far smaller; tarfile reads one
# whole into memory before the member it describes, so its size is checked before it is read.
MAX_TGX_EXTENDED_HEADER = 1 << 20
RETRIEVAL_GRAPH = ox.NamedNode(RETRIEVAL)
SOURCE_GRAPH = ox.NamedNode(SOURCE)


def is_gzip(head: bytes) -> bool:
    return head.startswith(b"\x1f\x8b")


def _knowledge_member(name: str, member: tarfile.TarInfo) -> bool:
    """Whether a member holds triples; a member whose path could leave the bundle is refused."""
    path = PurePosixPath(member.name)
    if not member.name.isprintable():
        # Its name would reach the report as a finding's file.
        raise InputError(name, None, f"bundle member {member.name!r} has control characters in its name: refused")
    if path.is_absolute() or ".." in path.parts:
        raise InputError(name, None, f"bundle member {member.name!r} has a path outside the bundle: refused")
    if len(path.parts) == 3 and path.parts[0] == "knowledge" and path.name == "triples.nq":
        if not member.isfile():
            raise InputError(name, None, f"bundle member {member.name!r} is not a regular file: refused")
        return True
    return False


class _Budget:
    """The bundle may not expand beyond what N-Quads compress to: every member's declared size is
    counted before a byte of it is decompressed (members skipped included, which the stream still
    inflates), so a bomb is refused before it costs time."""

    def __init__(self, name: str, compressed: int, expansion: int = MAX_EXPANSION) -> None:
        self.name, self.expansion, self.left = name, expansion, budget_of(compressed, expansion)

    def spend(self, member: tarfile.TarInfo) -> None:
        self.left -= member.size
        if self.left < 0:
            raise InputError(self.name, None, f"expands more than {self.expansion} times its size (member "
                                              f"{member.name!r}): a decompression bomb, refused; raise "
                                              "--max-expansion if it is genuine")


def _lines(name: str, handle: IO[bytes]) -> Iterator[bytes]:
    """A member's lines, read a megabyte at a time (readline on a tar stream is ten times slower);
    a line is never held beyond MAX_LINE_BYTES, and a damaged archive is an input error."""
    rest = b""
    try:
        while chunk := handle.read(_PIECE):
            lines = (rest + chunk).split(b"\n")
            rest = lines.pop()
            if len(rest) > MAX_LINE_BYTES:
                raise InputError(name, None, f"a bundle member has a line longer than {MAX_LINE_BYTES} bytes: "
                                             "refused")
            for line in lines:
                yield line + b"\n"
    except (tarfile.TarError, EOFError, OSError, zlib.error) as exc:
        raise InputError(name, None, f"is not a readable .tgx bundle (gzipped tar): {exc}") from None
    if rest:
        yield rest


_PIECE = 1 << 20
# pyoxigraph reads at most 16 MiB per token; a line of one quad never needs more than a few.
MAX_LINE_BYTES = 64 << 20


def _guarded_headers(name: str, budget: _Budget) -> type[tarfile.TarInfo]:
    """tarfile's header reader, refusing an extended header (PAX, GNU long name or link) larger than
    MAX_TGX_EXTENDED_HEADER, and a sparse member, before tarfile reads it; each one's size counts
    against the bundle's budget too."""

    class GuardedInfo(tarfile.TarInfo):
        def _proc_member(self, tarfile_: tarfile.TarFile) -> tarfile.TarInfo:
            if self.type in _EXTENDED_HEADERS:
                if self.size > MAX_TGX_EXTENDED_HEADER:
                    raise InputError(name, None, f"declares an extended tar header of {self.size:,} bytes (at most "
                                                 f"{MAX_TGX_EXTENDED_HEADER:,} are read): a decompression bomb, refused")
                budget.spend(self)
            elif self.type == tarfile.GNUTYPE_SPARSE:
                raise InputError(name, None, "holds a sparse member, which no workspace export writes: refused")
            return super()._proc_member(tarfile_)  # type: ignore[misc]  # the documented hook typeshed leaves out

    return GuardedInfo


_EXTENDED_HEADERS = (tarfile.XHDTYPE, tarfile.XGLTYPE, tarfile.SOLARIS_XHDTYPE, tarfile.GNUTYPE_LONGNAME,
                     tarfile.GNUTYPE_LONGLINK)


def _members(name: str, source: IO[bytes], compressed: int,
             expansion: int = MAX_EXPANSION) -> Iterator[tuple[str, Iterator[bytes]]]:
    """(member name, its lines) of each knowledge member, read in one pass over the archive."""
    budget = _Budget(name, compressed, expansion)
    try:
        with tarfile.open(fileobj=source, mode="r|gz", tarinfo=_guarded_headers(name, budget)) as archive:
            for count, member in enumerate(archive, start=1):
                if count > MAX_TGX_MEMBERS:
                    raise InputError(name, None, f"holds more than {MAX_TGX_MEMBERS} members: refused")
                budget.spend(member)
                if _knowledge_member(name, member):
                    yield member.name, _lines(name, archive.extractfile(member))  # type: ignore[arg-type]  # a file
    except (tarfile.TarError, EOFError, OSError, zlib.error) as exc:
        raise InputError(name, None, f"is not a readable .tgx bundle (gzipped tar): {exc}") from None


def _graph_of(quads: list[ox.Quad]) -> dict:
    """The named graph of each subject whose asserted class says where TrustGraph writes it."""
    graphs: dict = {}
    for quad in quads:
        if quad.predicate.value == RDF_TYPE and isinstance(quad.object, ox.NamedNode):
            if quad.object.value in RETRIEVAL_CLASSES:
                graphs[quad.subject] = RETRIEVAL_GRAPH
            elif quad.object.value in SOURCE_CLASSES:
                graphs.setdefault(quad.subject, SOURCE_GRAPH)
    return graphs


def _restored(quads: list[ox.Quad]) -> Iterator[ox.Quad]:
    """The quads of the exporter's N-Quads, each trace entity's back in the graph its class says."""
    graphs = _graph_of(quads)
    for quad in quads:
        graph = graphs.get(quad.subject)
        yield ox.Quad(quad.subject, quad.predicate, quad.object, graph) if graph else quad


class _MemberLocator(Locator):
    """Lines inside the bundle's members, found again only for the triples findings name."""

    spans_parts = True

    def __init__(self, name: str, opener: Callable[[], IO[bytes]], compressed: int, members: list[str]) -> None:
        self.name, self.opener, self.compressed, self.members = name, opener, compressed, members

    def places(self, wanted: set[tuple], runs: dict, statements: int, name: str) -> dict[tuple, tuple[str, int]]:
        found: dict = {}
        with self.opener() as source:
            for member, lines in _members(self.name, source, self.compressed):
                left = {k for k in wanted if k not in found}
                if not left:
                    break
                for key, line in _locate_line_based(lines, left, "nquads").items():
                    found.setdefault(key, (f"{self.name}:{member}", line))
        return found

    def lines(self, wanted: set[tuple], runs: dict, statements: int) -> dict[tuple, int]:
        return {k: line for k, (_, line) in self.places(wanted, runs, statements, self.name).items()}


def tgx_input(name: str, path: Path | None = None, data: bytes | None = None,
              bounds: InputBounds = DEFAULT_BOUNDS) -> Input:
    """A workspace bundle: the N-Quads of each collection, read from the archive (never extracted),
    each trace entity put back in the named graph its class says; the loss is the table's."""
    def opener() -> IO[bytes]:
        return open(path, "rb") if data is None else io.BytesIO(data)  # type: ignore[arg-type]  # path is given when data is not

    compressed = len(data) if data is not None else path.stat().st_size  # type: ignore[union-attr]  # path is given when data is not
    members: list[str] = []

    def quads() -> Iterator[ox.Quad]:
        with opener() as source:
            for member, lines in _members(name, source, compressed, bounds.expansion):
                members.append(member)
                yield from _restored(_parse_member(f"{name}:{member}", lines, bounds.depth))
        if not members:
            raise InputError(name, None, "holds no knowledge (no knowledge/<collection>/triples.nq member; "
                                         "exported with --config-only?)")

    # The exporter writes every quad in its collection's graph: the graphs put back by class are
    # not what the emitter wrote, so they are not judged.
    return Input(name, "tgx", quads, path=path, size=compressed, loss=loss_of("tgx"), graph_names=False,
                 custom_locator=lambda: _MemberLocator(name, opener, compressed, members))


# TrustGraph's workspace exporter puts every quad of a collection in this graph, and nothing else
# writes it: a first quad there marks a bundle's triples.nq taken out and read alone.
_EXPORTED_GRAPH = re.compile(rb"^[^#\n].*<urn:trustgraph:collection:[^>\s]*>\s*\.\s*$", re.MULTILINE)


def is_exported_nquads(head: bytes) -> bool:
    """Whether N-Quads (their first lines) are a workspace bundle's triples.nq, read without the bundle."""
    first = next((ln for ln in head.split(b"\n") if ln.strip() and not ln.lstrip().startswith(b"#")), b"")
    return bool(_EXPORTED_GRAPH.match(first.strip()))


def exported_nquads_input(name: str, path: Path | None = None, data: bytes | None = None,
                          opener: Callable[[], IO[bytes]] | None = None, nesting: int = MAX_DEPTH) -> Input:
    """A bundle's triples.nq read alone (or through ``opener``, its text decompressed): judged as the
    bundle is, with the same loss and restoration."""
    def quads() -> Iterator[ox.Quad]:
        if data is not None:
            lines: Iterator[bytes] = iter(data.splitlines(keepends=True))
            read = _parse_member(name, lines, nesting)
        else:
            with opener() if opener is not None else open(path, "rb") as handle:  # type: ignore[arg-type]  # path is given when data is not
                read = _parse_member(name, iter(handle), nesting)
        yield from _restored(read)

    size = len(data) if data is not None else path.stat().st_size if path is not None else 0
    return Input(name, "nquads", quads, text=data, path=path, size=size, loss=loss_of("tgx"), opener=opener,
                 graph_names=False)


_BATCH_LINES = 10_000


def _parse_member(where: str, lines: Iterator[bytes], nesting: int = MAX_DEPTH) -> list[ox.Quad]:
    """A member's quads, parsed a batch of lines at a time (one parser call per line costs 10 times
    more), each batch measured (depth.py) before it is parsed."""
    read: list[ox.Quad] = []
    batch: list[bytes] = []
    first = 1
    for number, raw in enumerate(lines, start=1):
        batch.append(raw if raw.endswith(b"\n") else raw + b"\n")
        if len(batch) == _BATCH_LINES:
            read.extend(_parse_batch(where, batch, first, nesting))
            batch, first = [], number + 1
    if batch:
        read.extend(_parse_batch(where, batch, first, nesting))
    return read


def _parse_batch(where: str, batch: list[bytes], first: int, nesting: int) -> list[ox.Quad]:
    text = b"".join(batch)
    check_lines(where, text, nesting, first)
    try:
        return list(ox.parse(text, format=ox.RdfFormat.N_QUADS))
    except SyntaxError as exc:
        line = first + exc.lineno - 1 if exc.lineno else None
        raise InputError(where, line, syntax_message(exc)) from None
