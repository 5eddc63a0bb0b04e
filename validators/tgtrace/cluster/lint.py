"""Lint one capture on a Dask cluster, with the findings of one process.

Why Dask distributed: it is an existing engine that already runs on
Kubernetes (dask-kubernetes), HPC schedulers (dask-jobqueue) and managed
services, retries the tasks of a worker that is lost, and moves Python
objects between workers; its file layer, fsspec, reads the same paths and
URLs (``s3://``, ``gs://``, ``file://``, globs) on every worker. Both are an
optional extra: a one-machine install does not carry them.

The run, partitioned by trace and not by file:

1. workers read byte ranges of the inputs (``loaders.ranges``), each in one
   pass into one trace graph as one process reads its input, find the
   range's connected pieces of traces from that graph's index (``pieces.split``)
   and deal the hashes of their subjects and outward links into partitions by
   hash (``pieces.keys``), lint the whole graph there, keeping its results by
   piece (``api.check_parts``), and drop it: a worker holds one range's graph at
   a time, and of a line-format range not even its text
   (``ranges.RangeText.release``);
2. pieces whose nodes meet across ranges are found where the ranges are: one
   task per partition meets the hashes of every range and returns only the
   edges between pieces (``pieces.meet``);
   the client gathers each piece's size and those edges and joins the pieces
   (``pieces.join``), so what it holds grows with the pieces (about the traces)
   and what crosses ranges, not with the entities; an input error is raised
   here, with its part and line;
   descriptions that several ranges repeat (agents, knowledge-graph entities, labels) join
   nothing when that is exact (``pieces.eligible``): their statements, each triple once, are
   given to every lint task instead, and linted once on their own for their own findings;
3. a group whose pieces all lie in one range is a trace (or traces joined by shared entities)
   whole inside its range: its results are those its range kept, where that range states every
   broadcast description its traces read as every range states it (``_inexact``); nothing of
   it travels, and only its results (or, for ``tg-trace list``, its rows) come back. A range
   whose finding fell on a node it does not describe kept its graph instead, and lints its
   interior again with the descriptions lent to it, the rest set aside (``_interior``);
4. the other groups, the seams (and the groups a range could not lint as one process does), are
   dealt to buckets by size; each range's seam pieces are read again from its input, checked
   against what was linted, and taken per bucket where they lie (as N-Quads text, ``_take``), and
   each bucket's task fetches its pieces, rebuilds whole traces with their (part, line) and lints
   them; seams alone are parsed twice;
5. the results merge into one report (``api.report_of``); for ``tg-trace list`` only the rows
   travel back. Every trace is linted with the same engine and Settings as one process.

Every task is a pure function of its inputs, so the tasks of a worker lost
mid-run are rerun from their inputs and no finding is lost or counted twice.
"""

from __future__ import annotations

import heapq
import multiprocessing
import os
import resource
import ssl
import sys
import threading
from array import array
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from functools import partial
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import pyoxigraph as ox

from ..ground import graph as tg
from ..ground.graph import TraceGraph
from ..ground.locations import StatementPlaces
from ..ground.model import Report
from ..ground.network import loopback
from ..inputs.loaders import InputError
from ..run.lint import InputResult, PartResults, check_graph, check_parts, packaged_engine, report_of
from ..run.settings import Settings, SettingsError
from ..tracemodel.traces import TRUSTGRAPH
from ..views.traces import Listing, capture_views, merged_listing, outside_row, unplaced
from . import ranges
from .pieces import (
    STRUCTURAL,
    Piece,
    eligible,
    escapes,
    graph_of,
    hashes,
    interpreter_hashes,
    join,
    keys,
    meet,
    members,
    run_starts,
    split,
)

try:
    import dask
    import psutil  # Dask's own dependency: this process's memory
    from dask.sizeof import sizeof
    from distributed import Client, LocalCluster
    from distributed.security import Security
    from distributed.system import MEMORY_LIMIT  # the machine's memory, or its container's limit
    from distributed.utils import get_mp_context
except ImportError:  # the optional extra is not installed
    dask = psutil = Client = LocalCluster = Security = sizeof = get_mp_context = None  # type: ignore[assignment,misc]
    MEMORY_LIMIT = 0

if TYPE_CHECKING:
    from distributed import Future

INSTALL = "pip install 'trustgraph-ontology[cluster]'"
# Triples of whole traces linted as one graph by a lint task: bounds a worker's memory.
BATCH_TRIPLES = 250_000
# Seam triples a bucket lints at least: a few thousand are linted in less time than their tasks
# cost (fetching a range's seams for a bucket, about 2 ms of the client's, scheduler's and workers' time).
SEAM_TRIPLES = 50_000
# Bytes of a line-format input per range: enough ranges to keep every worker busy, few enough to
# keep the summaries and tasks few.
MAX_CHUNK = 64 << 20
MIN_CHUNK = 1 << 20


class Parsed:
    """What a parse task leaves on its worker: the range's statements and lines, where the runs
    of each subject's statements start, its pieces, their hashes dealt into the partitions that
    meet them (``pieces.keys``), and, linted where it was read, the results
    of every piece, kept by piece until the join tells which are whole traces. The range's graph
    is dropped once linted, so a worker holds one range's graph at a time; it is kept (``graph``)
    only where a finding falls on a node no statement of the range describes, which only the
    graph can place. The tasks that need the range run where it lies."""

    __slots__ = ("got", "graph", "starts", "statements", "pieces", "keyed", "linted", "rows")

    def __init__(self, got: ranges.RangeQuads, graph: TraceGraph | None, starts: array, pieces: list[Piece],
                 keyed: list, linted: PartResults | None = None, rows: list | None = None) -> None:
        self.got, self.graph, self.starts, self.pieces, self.keyed = got, graph, starts, pieces, keyed
        self.statements = len(got.quads)
        self.linted, self.rows = linted, rows

    def text_of(self, piece: Piece) -> tuple[bytes, list]:
        """(the statements of a piece as N-Quads text, in input order, the line of each within the range)."""
        got = self.got
        at = list(members(piece, self.starts, self.statements))
        return got.text(at), [got.lines[i] for i in at]


if sizeof is not None:
    # What a parsed range holds, as memory measured it: about 460 bytes a quad while it keeps its
    # text and graph, about 24 once linted and released (its pieces, their hashes and results,
    # where each subject's statements start). Dask's scheduler weighs moving a task's inputs against running it where
    # they lie, and its memory limits count what a worker holds; left to its default it sees a
    # few dozen bytes, and moved whole graphs between workers, pickled object by object.
    @sizeof.register(Parsed)
    def _range_size(parsed: Parsed) -> int:
        return (460 if parsed.graph is not None else 24) * parsed.statements


def available() -> bool:
    return Client is not None and ranges.fsspec is not None


# Schemes whose connections Dask encrypts and authenticates with its TLS settings.
SECURE_SCHEMES = ("tls", "wss")
TRUST_FLAG = "--trust-network"
TLS_SETTINGS = "distributed.comm.tls.ca-file, .client.cert and .client.key"


def require(address: str, trust_network: bool = False) -> None:
    """A one-line usage error when the cluster extra is missing, the address is malformed, or the
    address would hand this process to whoever reaches it.

    The client unpickles what workers send back, and a plain Dask scheduler lets any process that
    reaches it join as a worker: over plain tcp:// everyone on the network can run code here. So a
    scheduler off this machine is reached over TLS (Dask's certificates, mutual: only holders of a
    certificate the CA signed join), unless the user says the network is trusted."""
    if not available():
        raise SettingsError(f"--cluster needs Dask and fsspec: {INSTALL}")
    if address.startswith("local:"):
        count = address.removeprefix("local:")
        if not count.isdigit() or int(count) < 1:
            raise SettingsError(f"--cluster {address}: expected local:N with N worker processes, N at least 1")
        return
    scheme, separator, rest = address.partition("://")
    if not separator or not rest:
        raise SettingsError(f"--cluster {address}: expected a scheduler address (tls://host:8786) or local:N")
    if scheme in SECURE_SCHEMES:
        security = Security()
        if not (security.tls_ca_file and security.tls_client_cert):  # type: ignore[attr-defined]  # set from the config
            raise SettingsError(f"--cluster {address}: a TLS scheduler needs Dask's TLS settings ({TLS_SETTINGS}, "
                                f"or DASK_DISTRIBUTED__COMM__TLS__CA_FILE and the like)")
        return
    host = urlsplit(f"//{rest}").hostname or ""
    if not trust_network and not loopback(host):
        raise SettingsError(f"--cluster {address}: a plain {scheme}:// scheduler on another machine is neither "
                            f"encrypted nor authenticated, so anyone who reaches it can run code in this process; "
                            f"use tls:// with Dask's TLS settings, or pass {TRUST_FLAG} if the network is trusted")


# A local cluster is started for one run, and nobody watches its dashboard: its workers do not
# sample their task's stack every 10 ms for the dashboard's profile, and its servers (the
# scheduler, each nanny, each worker) measure their event loop and the machine less often.
# Idle, each process spent about 2% of a core on these.
LOCAL_CONFIG = {
    # A task waits for the worker that holds its range: running it elsewhere would first move
    # the range there.
    "distributed.scheduler.work-stealing": False,
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "500ms",
    "distributed.admin.system-monitor.interval": "2s",
}


def connect(address: str, trust_network: bool = False, prepare: Callable[[], object] | None = None) -> Any:
    """A client of the scheduler at ``address``, or of a new local cluster of N worker processes.
    ``prepare`` (no arguments) is what every worker would do first, run here when the workers
    are forked from this process, so that they share it rather than each doing it again."""
    require(address, trust_network)
    if address.startswith("local:"):
        # Loopback only: nothing off this machine joins.
        workers = int(address.removeprefix("local:"))
        method = _start_method(workers)
        if method == "fork" and prepare is not None:
            prepare()
        with dask.config.set({**LOCAL_CONFIG,
                              **({"distributed.worker.multiprocessing-method": method} if method else {})}):
            if method == "forkserver":
                get_mp_context().set_forkserver_preload(["__main__", __name__])
            # Dask's HTTP server (health and metrics) on loopback and a random port, the dashboard off:
            # ":0" would serve the cluster's identity, workers and metrics on every interface.
            with _environment_kept():
                cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                                       dashboard_address="127.0.0.1:0", scheduler_kwargs={"dashboard": False})
        return Client(cluster)
    try:
        # Security() is Dask's configuration (file or DASK_ environment variables): the TLS
        # certificates of a tls:// address.
        return Client(address, timeout="30s", security=Security())
    except (OSError, TimeoutError, ssl.SSLError) as exc:
        raise SettingsError(f"--cluster {address}: cannot reach the scheduler ({exc})") from None


@contextmanager
def _environment_kept() -> Iterator[None]:
    """This process's environment as it was before the block. Dask's nannies write what their
    workers start with into the caller's own (MALLOC_TRIM_THRESHOLD_, PYTHONHASHSEED, the thread
    counts of numerical libraries): left there, it reaches every process the caller starts after
    (glibc then trims the heap at every 64 KB freed, and a tg-trace run takes three times its CPU)."""
    kept = dict(os.environ)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(kept)


def _start_method(workers: int) -> str | None:
    """How a local cluster of ``workers`` starts them, each ready to run with Dask and the linter
    imported: a spawned worker imports both again (about 0.7 s of CPU each, a sixth of linting a
    million triples).

    On Linux, forked from this process while it is small beside a worker's share of the memory
    and runs no thread but its own, as the command line does. A forked worker counts the memory
    it shares with this process as its own, and Dask's memory limits act on that. A thread of the
    caller's (a web server's, a test runner's) may hold a lock at the fork that the child would
    wait on forever; Dask's nannies fork from its event loop's thread, started after this
    choice, while the other threads are the main one, waiting for the cluster, and Dask's and
    multiprocessing's own, each waiting on a queue, which multiprocessing makes anew in a child,
    as Python does its import and logging locks. Forking from here rather than from a fork
    server saves, at a million triples on two workers, 0.8 s of CPU and 0.6 s of wall time (the
    server's own imports of Dask and the linter, and each child's preparation).

    Elsewhere, from a large process or one running other threads, forked from a fork server that
    imported both once (not on Windows, which has none: spawned)."""
    methods = multiprocessing.get_all_start_methods()
    if sys.platform.startswith("linux") and "fork" in methods and threading.active_count() == 1:
        share = MEMORY_LIMIT / max(1, workers)  # what Dask gives each local worker
        if psutil.Process().memory_info().rss * 8 <= share:
            return "fork"
    return "forkserver" if "forkserver" in methods else None


# ---------------------------------------------------------------- tasks run on workers


def _parse(r: ranges.Range, names: list, settings: Settings, listing: bool, partitions: int,
           salt: int | None) -> Parsed:
    """A range read in one pass into one trace graph, its pieces found from that graph and their
    hashes dealt into ``partitions``, and the graph linted there, as one process lints it, its
    results kept by piece (the rows of its traces too, for ``tg-trace list``); then the graph is
    dropped. ``salt`` (``_salt``): nodes are hashed with the interpreter's own hash."""
    if salt is not None and _probe() != salt:
        # Its hashes would never meet the other ranges': a worker that joined mid-run, started apart.
        raise SettingsError("--cluster: a worker that hashes text unlike the others joined during the run: lint again")
    # A range's graph is millions of objects and no cycles: the collector's passes would walk
    # them again and again (a quarter of the parse). It is dropped with the frame of
    # ``_parsed``, before the collector runs again.
    with tg.collector_paused():
        return _parsed(r, names, settings, listing, partitions, hashes if salt is None else interpreter_hashes)


def _parsed(r: ranges.Range, names: list, settings: Settings, listing: bool, partitions: int,
            hashed: Callable[[Iterable[tg.Node]], array]) -> Parsed:
    graph = TraceGraph(names[r.part], model=TRUSTGRAPH)
    got = ranges.read(r, names[r.part], graph.add_quads)
    if got.error is not None:
        return Parsed(got, None, array("Q"), [], keys([], partitions))
    starts = run_starts(graph)
    pieces = split(graph, starts, hashed)
    keyed = keys(pieces, partitions)
    part_of = {node: number for number, piece in enumerate(pieces) for node in piece.nodes}
    # Lines within the range: the client adds the lines before it once every range has said
    # how many it holds. A finding on a node no statement describes names the capture's first
    # part, as one process names it.
    graph.relocate(StatementPlaces(names, got.quads, _RangePlaces(r.part, 0, got.lines), starts), names[0])
    linted = check_parts(graph, settings, part_of, names[r.part])
    if linted is None:
        return Parsed(got, graph, starts, pieces, keyed)
    rows = None
    if listing:
        # A root's name is its key.
        views = capture_views(graph, [finding for _, finding in linted.findings])
        # A view that places a lost step of another piece (a seam's, perhaps) is built again
        # where that piece's group is whole, as lint judges it.
        if any(view.trace not in part_of or any(step.orphan and part_of.get(step.node) != part_of[view.trace]
                                                for step in view.all_steps()) for view in views):
            return Parsed(got, graph, starts, pieces, keyed)
        rows = [(part_of[view.trace], view.summary()) for view in views]
    for piece in pieces:
        piece.nodes = ()  # only the graph's keys, dropped with it
    got.release()  # read again from the input for what travels (``_take``)
    return Parsed(got, None, starts, pieces, keyed, linted, rows)


# Text whose hash tells whether a process hashes text as this one does (Python salts str's hash
# per interpreter, and a forked process keeps its parent's salt).
PROBE = "tgtrace: the salt of str's hash"


def _probe() -> int:
    return hash(PROBE)


def _salt(client: Client) -> int | None:
    """This process's hash of ``PROBE`` when every worker hashes text as this process does (each
    forked from it, as a local cluster's are): the ranges' nodes are then hashed with the
    interpreter's own hash, which a graph's keys have cached; else None, and with blake2b."""
    mine = _probe()
    return mine if all(theirs == mine for theirs in client.run(_probe).values()) else None


def _summary(parsed: Parsed) -> RangeSummary:
    """What the client needs of a range (``RangeSummary``)."""
    got, pieces = parsed.got, parsed.pieces
    return RangeSummary(got.line_count, got.error, got.whole, len(got.quads), array("I", (p.size for p in pieces)),
                        any(p.axioms for p in pieces), parsed.graph is not None)


def _share(parsed: Parsed, partition: int) -> array:
    return parsed.keyed[partition]


def _escapes(parsed: Parsed, broadcast: frozenset, uniform: frozenset) -> tuple:
    """``escapes``, with the pieces ``_inexact`` gives should ``broadcast`` be final: most often
    it is, and one task answers both."""
    leaving, chosen = escapes(parsed.pieces, broadcast)
    return leaving, chosen, _inexact(parsed, broadcast, uniform)


def _inexact(parsed: Parsed, broadcast: frozenset, uniform: frozenset) -> list[int]:
    """The pieces of a range, linted where it was read, whose results may not be one process's,
    to be linted again, whole, with the broadcast descriptions beside them: those that link,
    directly or through the descriptions here, to a subject of ``broadcast`` this range does not
    describe, or does not describe as every range does (``uniform`` are those that every range
    describes with the same triples). A range that kept its graph is linted with the
    descriptions lent to it: none of its pieces."""
    if parsed.linted is None:
        return []
    pieces = parsed.pieces
    lent = [p for p in pieces if p.described and p.subjects[0] in broadcast]
    short = broadcast - {p.subjects[0] for p in lent if p.subjects[0] in uniform}
    if not short:
        return []
    while True:  # a description here that links to one that is short is short too
        more = {p.subjects[0] for p in lent if p.subjects[0] not in short and not short.isdisjoint(p.links)}
        if not more:
            break
        short |= more
    return [n for n, p in enumerate(pieces) if not (p.described and p.subjects[0] in broadcast)
            and not short.isdisjoint(p.links)]


def _described(parsed: Parsed, chosen: list[int]) -> tuple:
    """The statements of this range's broadcast descriptions (pieces ``chosen``, each one
    subject), each triple once, at its first line here: (N-Quads text, lines within the range).
    Emitters repeat a description in every trace that names it: its statements are read in
    input order only until as many as its distinct triples (the piece knows how many) are met,
    a statement written as one before passed over unparsed; what is kept is parsed in one go."""
    got = parsed.got
    quads: list = []
    lines: list = []
    with tg.collector_paused():
        for number in chosen:
            piece = parsed.pieces[number]
            distinct = piece.distinct
            at = got.unrepeated(members(piece, parsed.starts, parsed.statements), distinct)
            read = list(ox.parse(got.text(at), format=ox.RdfFormat.N_QUADS))
            if len({(q.predicate, q.object) for q in read}) < distinct:  # a triple written two ways
                at = got.unrepeated(members(piece, parsed.starts, parsed.statements))
                read = list(ox.parse(got.text(at), format=ox.RdfFormat.N_QUADS))
            seen: set = set()
            for n, quad in zip(at, read):
                triple = (quad.predicate, quad.object)
                if triple not in seen:
                    seen.add(triple)
                    quads.append(quad)
                    lines.append(got.lines[n])
        return ox.serialize(quads, format=ox.RdfFormat.N_QUADS) or b"", lines


def _description(taken: list, origins: list) -> tuple:
    """Every broadcast description of the capture (what ``_take`` gave of each range that holds
    some, ranges in input order), each triple once at its first place in input
    order (the ranges come in input order): (N-Quads text, (part, line) of each quad). Where a
    triple is repeated, one process places it at its first statement too, and reads the same
    distinct triples in the same order."""
    seen: set = set()
    quads, places = [], []
    with tg.collector_paused():
        for (text, lines), (part, offset) in ((took[0], origin) for took, origin in zip(taken, origins)):
            for quad, line in zip(ox.parse(text, format=ox.RdfFormat.N_QUADS, lenient=True), lines):
                triple = (quad.subject, quad.predicate, quad.object)
                if triple not in seen:
                    seen.add(triple)
                    quads.append(quad)
                    places.append((part, None if line is None else line + offset))
        return ox.serialize(quads, format=ox.RdfFormat.N_QUADS), places


def _borrowed(description: tuple[bytes, list] | None) -> tuple[list, list, frozenset]:
    """(quads, places, subjects) of the broadcast descriptions a task reads beside its traces."""
    if description is None:
        return [], [], frozenset()
    text, places = description
    quads = list(ox.parse(text, format=ox.RdfFormat.N_QUADS, lenient=True))
    return quads, places, frozenset(tg.key(q.subject) for q in quads)


def _take(parsed: Parsed, chosen: list[int], seams: dict) -> tuple:
    """What travels from a range, taken from its input, read again once for both: (its
    broadcast descriptions (``_described``), its seam pieces per bucket: the (N-Quads text, lines
    within the range, group) of each; ``seams`` maps a piece's number in the range to its
    (bucket, group)). Text, one line per quad in order, as written in the input: it is about half
    the bytes of pickled pyoxigraph quads, and the receiving end parses it in Rust rather than
    object by object."""
    with parsed.got.held(), tg.collector_paused():
        bucketed: dict = defaultdict(list)
        for number, (bucket, group) in seams.items():
            text, lines = parsed.text_of(parsed.pieces[number])
            bucketed[bucket].append((text, lines, group))
        return _described(parsed, chosen) if chosen else None, dict(bucketed)


def _pick(taken: tuple, bucket: int) -> list:
    return taken[1].get(bucket, [])


def _graphs(shares: list, origins: list, names: list, borrowed: tuple) -> Iterator[tuple]:
    """Whole traces rebuilt from a bucket's pieces, with the part and line of each triple, in
    graphs of at most BATCH_TRIPLES triples (whole groups, never a group cut), each with the
    broadcast descriptions beside them: (graph, nodes lent to it, its own statements)."""
    groups: dict = defaultdict(lambda: ([], []))
    for share, (part, offset) in zip(shares, origins):
        for text, lines, group in share:
            held = groups[group]
            # Written by the serialiser from valid terms: nothing to validate again.
            held[0].extend(ox.parse(text, format=ox.RdfFormat.N_QUADS, lenient=True))
            held[1].extend((part, None if line is None else line + offset) for line in lines)
    described, places_of, lent = borrowed
    batch_quads: list = []
    batch_places: list = []
    for group in sorted(groups):
        quads, places = groups[group]
        if batch_quads and len(batch_quads) + len(quads) > BATCH_TRIPLES:
            yield graph_of(names[0], names, batch_quads + described, batch_places + places_of), lent, len(batch_quads)
            batch_quads, batch_places = [], []
        batch_quads.extend(quads)
        batch_places.extend(places)
    if batch_quads:
        yield graph_of(names[0], names, batch_quads + described, batch_places + places_of), lent, len(batch_quads)


class _Followed(Sequence):
    """A range's own statements (or their places) followed by those of the descriptions lent to
    its graph."""

    def __init__(self, own: Sequence, lent: list) -> None:
        self.own, self.lent = own, lent

    def __len__(self) -> int:
        return len(self.own) + len(self.lent)

    def __getitem__(self, n: int) -> object:  # type: ignore[override]  # read by position, never sliced
        own = self.own
        return own[n] if n < len(own) else self.lent[n - len(own)]


class _RangePlaces(Sequence):
    """(part, line in the part) of each of a range's own statements, from its lines within the
    range, ``offset`` lines after the part's start."""

    def __init__(self, part: int, offset: int, lines: Sequence) -> None:
        self.part, self.offset, self.lines = part, offset, lines

    def __len__(self) -> int:
        return len(self.lines)

    def __getitem__(self, n: int) -> tuple[int, int | None]:  # type: ignore[override]  # never sliced
        line = self.lines[n]
        return self.part, None if line is None else line + self.offset


def _interior(parsed: Parsed, interior: array, origin: tuple, names: list, borrowed: tuple) -> tuple:
    """The range's graph made ready to lint its whole traces (its groups whose pieces all lie in
    it; ``interior`` is the group of each piece, -1 for a piece that is not) where it was read:
    (graph, the nodes it holds only to be read, its interior's statements). The graph already
    holds the interior as one process reads it; it is given the place of each statement and the
    broadcast descriptions (after its own statements: a graph's order of subjects changes no
    finding). What else it holds (the seams' pieces here, the descriptions) is set aside: never
    reported or counted, as it is not linked to the interior but through what was lent."""
    got, graph = parsed.got, parsed.graph
    assert graph is not None  # a range with pieces has a graph
    part, offset = origin
    described, places_of, lent = borrowed
    aside = set(lent)
    triples = 0
    elsewhere = []
    for piece, group in zip(parsed.pieces, interior):
        if group >= 0:
            triples += piece.size
        else:
            aside.update(piece.nodes)
            elsewhere.append(piece)
    # Nodes the pieces set aside link to and no statement here describes: a rule that judges the
    # node a link names (sh:targetObjectsOf) would judge one here without its description. Each is
    # judged where those pieces are linted whole: with its statements, when another range holds
    # them; else, described nowhere, once there, even when the interior links to it too (an
    # interior piece linking to a node another range describes would have joined that range's
    # piece, and be no interior).
    out = graph.out
    aside.update(o for piece in elsewhere for s in piece.nodes for p, objects in out[s].items()
                 if p is not tg.RDF_TYPE for o in objects if type(o) is str and o not in out)
    # A finding on a node no statement describes has no line: one process names the capture's
    # first part for it, whichever part links to the node.
    own = _RangePlaces(part, offset, got.lines)
    if described:
        graph.add_quads(described)
        graph.relocate(StatementPlaces(names, _Followed(got.quads, described), _Followed(own, places_of),
                                       run_starts(graph)), names[0])
    else:
        graph.relocate(StatementPlaces(names, got.quads, own, parsed.starts), names[0])
    return graph, frozenset(aside), triples


def _results(graphs: Iterator[tuple], settings: Settings) -> list:
    """The results of whole traces, linted as one process lints them; the nodes set aside in
    each graph (the broadcast descriptions beside them, a range's seams) are read, never
    reported or counted (their own tasks do)."""
    results = []
    with tg.collector_paused():
        for graph, aside, triples in graphs:
            result = check_graph(graph, settings, aside)
            result.triples = triples
            if aside:
                result.traces = {root: part for root, part in result.traces.items() if root not in aside}
                result.trace_models = {root: model for root, model in result.trace_models.items()
                                       if root not in aside}
            results.append(result)
    return results


def _rows(graphs: Iterator[tuple], settings: Settings) -> list[dict]:
    """The `tg-trace list` rows of whole traces: only the rows travel back."""
    rows: list = []
    with tg.collector_paused():
        for graph, aside, _ in graphs:
            findings = check_graph(graph, settings, aside).findings
            # A root's name is its key: its trace is listed here unless it is set aside.
            only = (lambda root, aside=aside: root not in aside) if aside else None
            views = capture_views(graph, findings, only, aside or frozenset())
            rows.extend(view.summary() for view in views)
            outside = unplaced(findings, views) if only is None else {}
            if outside:
                rows.append(outside_row(outside))
    return rows


def _do_bucket(shares: list, origins: list, names: list, settings: Settings,
               what: Callable[[Iterator[tuple], Settings], list], description: tuple[bytes, list] | None) -> list:
    """What ``what`` (_results or _rows) gives for a bucket's whole traces, made of seam pieces."""
    return what(_graphs(shares, origins, names, _borrowed(description)), settings)


def _do_range(parsed: Parsed, taken: tuple | None, interior: array, origin: tuple, names: list, settings: Settings,
              what: Callable[[Iterator[tuple], Settings], list], description: tuple[bytes, list] | None) -> list:
    """What ``what`` gives for a range's interior traces (its pieces whose group ``interior``
    gives, -1 for the others), from the results kept when the range was linted where it was read:
    nothing of them travels. ``taken`` (what travels from the range, or None) is only waited for:
    a range that kept its graph changes it here, so every other task that reads the range has run."""
    del taken
    linted = parsed.linted
    if linted is None:  # the graph kept: linted again, with the descriptions lent to it
        with tg.collector_paused():
            ready = _interior(parsed, interior, origin, names, _borrowed(description))
        # The last task to read the range: Dask drops it, graph and all, once this returns.
        return what(iter([ready]), settings)
    kept = {n for n, group in enumerate(interior) if group >= 0}
    if parsed.rows is not None:
        return [row for part, row in parsed.rows if part in kept]
    result = linted.result(kept, sum(piece.size for piece, group in zip(parsed.pieces, interior) if group >= 0))
    offset = origin[1]
    if offset:  # lines within the range, now within its part
        result.findings = [finding if finding.line is None else replace(finding, line=finding.line + offset)
                           for finding in result.findings]
    return [result]


def _do_description(description: tuple[bytes, list], statements: int, names: list, settings: Settings,
                    what: Callable[[Iterator[tuple], Settings], list]) -> list:
    """What ``what`` gives for the broadcast descriptions themselves, linted once: their own
    findings and counts, with every statement of them the capture holds (``statements``)."""
    quads, places, _ = _borrowed(description)
    return what(iter([(graph_of(names[0], names, quads, places), frozenset(), statements)]), settings)


def peak_memory() -> int:
    """This process's peak resident memory, in bytes. Linux's VmHWM where there is one: the
    rusage figure survives fork and exec, so a process started by a large one reports its parent's."""
    try:
        with open("/proc/self/status", "rb") as status:
            for line in status:
                if line.startswith(b"VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # kilobytes on Linux


# ---------------------------------------------------------------- the client


def lint(*sources: str | os.PathLike[str], settings: Settings, client: Client | None = None, chunk: int | None = None,
         stats: dict | None = None) -> Report:
    """The report of ``sources`` (paths, URLs, globs) read as one capture, linted on the cluster
    ``settings.cluster`` (or on ``client``). Raises InputError as one process does."""
    names, batches = _on_cluster(sources, settings, client, chunk, stats, _results)
    results = [InputResult(name) for name in names]  # each part is a file of the report
    for batch in batches:
        results.extend(batch)
    return report_of(results, settings)


def listing(*sources: str | os.PathLike[str], settings: Settings, client: Client | None = None,
            chunk: int | None = None, stats: dict | None = None) -> Listing:
    """The `tg-trace list` rows of ``sources`` read as one capture, built on the cluster where
    their traces are linted, and the files read: one process's (``traceviews.listing`` with one_capture)."""
    names, batches = _on_cluster(sources, settings, client, chunk, stats, _rows)
    return merged_listing((row for batch in batches for row in batch), names)


def _on_cluster(sources: tuple[str | os.PathLike[str], ...], settings: Settings, client: Client | None,
                chunk: int | None, stats: dict | None, task: Callable[[Iterator[tuple], Settings], list]) -> tuple:
    """(names of the parts, what ``task`` (_results or _rows) gave for each batch of whole traces)."""
    if any(not isinstance(s, (str, os.PathLike)) or str(s) == "-" for s in sources):
        raise SettingsError("--cluster reads files and URLs, not standard input or objects")
    if not available():
        raise SettingsError(f"--cluster needs Dask and fsspec: {INSTALL}")
    files = ranges.expand([str(s) for s in sources])
    names = [name for _, name, _ in files]
    own = client is None
    if own:
        # The rules' engine, which every worker builds to lint its ranges (a tenth of a second of CPU).
        client = connect(settings.cluster, settings.trust_network,  # type: ignore[arg-type]  # set: this runs for --cluster
                         prepare=partial(packaged_engine, settings.codes))
    try:
        addresses = sorted(client.scheduler_info()["workers"])  # type: ignore[union-attr]  # connected when own
        workers = max(1, len(addresses))
        if chunk is None:
            total = sum(size for _, _, size in files)
            chunk = min(MAX_CHUNK, max(MIN_CHUNK, total // (4 * workers) + 1))
        plan = ranges.plan(files, settings.input_format, chunk)
        return names, _run(client, plan, names, settings, addresses, stats, task)  # type: ignore[arg-type]
    finally:
        if own:
            cluster = getattr(client, "cluster", None)
            client.close()  # type: ignore[union-attr]
            if cluster is not None:
                cluster.close()


def _may_broadcast(settings: Settings) -> bool:
    """Whether the rules read a description only through the traces that name it: no rule reads
    who links to a node except along what hangs a trace together (which never reaches a
    broadcast description), and no SPARQL query (which may read anything) runs. The reference
    engine (pySHACL) runs the project's own components through their SPARQL validators, whose
    reach is not the native components': it keeps the join."""
    if settings.engine != "fast":
        return False
    reach = packaged_engine(settings.codes).inverse_reach()
    return reach is not None and reach <= STRUCTURAL


def _homes(plan: list, addresses: list[str]) -> list[dict]:
    """Where each range's tasks run: ranges dealt to the workers by bytes, largest first to the
    least loaded. Every task that reads a range runs where it was read, decided before any runs:
    left to itself, Dask's scheduler may run one on an idle worker and move the range there
    first, pickled object by object (seconds for a large range). Loose: the tasks of a worker
    that is lost run elsewhere."""
    if not addresses:
        return [{} for _ in plan]
    load = [(0, number) for number in range(len(addresses))]
    homes: list[dict] = [{} for _ in plan]
    for index in sorted(range(len(plan)), key=lambda i: -((plan[i].end or 1 << 40) - plan[i].start)):
        r = plan[index]
        held, number = heapq.heappop(load)
        homes[index] = {"workers": [addresses[number]], "allow_other_workers": True}
        heapq.heappush(load, (held + (r.end or 1 << 40) - r.start, number))
    return homes


# What a range's pieces become, one byte a piece on the client (however many pieces).
LINTED_IN_GROUP = 0  # linted with its group: where it lies, or in a bucket of seams
BROADCAST = 1  # a description given to every trace that names it, in no group
TRAVELS = 2  # its range could not lint it as one process does: its group is dealt to a bucket
SEAM = -2  # the home of a group whose pieces lie in several ranges (or one that travels)
UNPLACED = -1  # the home of a group no piece has been placed in yet


@dataclass(frozen=True)
class RangeSummary:
    """What the client needs of a range: its lines, first error, whether its lines are its part's
    own (a whole file), its quads, the triples of each piece, whether it states class axioms
    (rdfs:subClassOf, which every trace's classes are read through), and whether it kept its graph
    to be linted again (``Parsed``)."""

    lines: int
    error: tuple[int | None, str] | None
    whole: bool
    quads: int
    sizes: array
    axioms: bool
    kept_graph: bool


@dataclass
class RangeWork:
    """One range on its way through the cluster: where its tasks run, its parse (a future), its
    summary, its place in the input, the pieces it lends as broadcast descriptions, the pieces it
    cannot lint as one process does, and the group each piece is linted in here (-1: elsewhere)."""

    plan: ranges.Range
    where: dict
    parsed: object = None
    summary: RangeSummary | None = None
    origin: tuple[int, int] = (0, 0)
    described: list[int] = field(default_factory=list)
    inexact: list[int] = field(default_factory=list)
    interior: array = field(default_factory=lambda: array("q"))
    taken: object = None

    @property
    def sizes(self) -> array:
        assert self.summary is not None  # gathered before any step reads it
        return self.summary.sizes


@dataclass
class Placement:
    """Where each group of pieces is linted, indexed by group (a group is numbered by one of its
    pieces): its triples and its range (``SEAM`` when it spans ranges), each piece's mark, and the
    triples of the broadcast descriptions."""

    sizes: array
    home: array
    marked: bytearray
    broadcast_triples: int


def _run(client: Client, plan: list, names: list[str], settings: Settings, addresses: list[str], stats: dict | None,
         task: Callable[[Iterator[tuple], Settings], list]) -> list:
    workers = max(1, len(addresses))
    work = [RangeWork(r, where) for r, where in zip(plan, _homes(plan, addresses))]
    # Every task is new: named at random rather than by a hash of its arguments (a range's
    # Settings, pieces, groups), which Dask would otherwise work out for each of them.
    submit = partial(client.submit, pure=False)
    # As many partitions as workers: each meets the hashes of every range, so more would add
    # tasks (a range's share of each) and no work.
    dealt, found, may_broadcast = _parse_ranges(client, submit, work, names, settings, task, workers)
    broadcast = _choose_broadcast(client, submit, work, found, may_broadcast)
    edges = client.gather([submit(meet, share, frozenset(broadcast)) for share in dealt])
    if stats is not None:
        # Hashes moved between workers to find the edges (never through the client).
        stats["keys_bytes"] = sum(client.nbytes([f.key for share in dealt for f in share],
                                                summary=False).values())
    del dealt, found
    summaries = [w.summary for w in work if w.summary is not None]
    groups = join([len(s.sizes) for s in summaries], edges)
    if any(s.axioms for s in summaries) and len(plan) > 1:
        # Class axioms (rdfs:subClassOf) are read by every trace, wherever they are stated, and
        # nothing links a trace to them but its types: the capture is linted as one graph, by
        # one task, as one process lints it.
        groups = array("q", bytes(8 * len(groups)))
    placement = _place(work, groups)
    seam_sizes = array("Q", (size if placement.home[g] == SEAM else 0 for g, size in enumerate(placement.sizes)))
    # Two buckets a worker, each of at least SEAM_TRIPLES, so that a bucket's work is worth its tasks.
    bucket_of = _deal(seam_sizes, max(1, min(workers * 2, sum(seam_sizes) // SEAM_TRIPLES)))
    picks = _take_seams(submit, work, groups, placement, bucket_of)
    done = client.gather(_submit_linting(submit, work, picks, placement, names, settings, task))
    if stats is not None:
        stats.update(ranges=len(plan), pieces=len(groups), groups=sum(1 for size in placement.sizes if size),
                     buckets=len(picks),
                     interior_triples=sum(size for w in work for size, g in zip(w.sizes, w.interior) if g >= 0),
                     seam_triples=sum(seam_sizes), broadcast_subjects=len(broadcast),
                     broadcast_triples=placement.broadcast_triples,
                     # What the client gathers to join the pieces: their sizes and the edges.
                     summary_bytes=sum(s.sizes.itemsize * len(s.sizes) for s in summaries)
                     + sum(e.itemsize * len(e) for e in edges),
                     # The seam pieces, moved from the worker that parsed them to the one that lints them.
                     shuffled_bytes=sum(client.nbytes([f.key for shares in picks.values() for f, _ in shares],
                                                      summary=False).values()),
                     worker_peak_bytes=sorted(client.run(peak_memory).values()))
    return done


def _parse_ranges(client: Client, submit: Callable[..., Future], work: list[RangeWork], names: list[str],
                  settings: Settings, task: Callable[[Iterator[tuple], Settings], list],
                  partitions: int) -> tuple[list[list], list, Future]:
    """Parse every range where it runs, gather their summaries (raising the error one process would
    stop at), and deal each range's hashes to the partitions: (each partition's share of every
    range, the futures of the subjects each partition may broadcast, whether the rules allow a
    broadcast at all)."""
    salt = _salt(client)
    for w in work:
        w.parsed = submit(_parse, w.plan, names, settings, task is _rows, partitions, salt, **w.where)
    summarised = [submit(_summary, w.parsed, **w.where) for w in work]
    # Submitted with the summaries, so the partitions meet while the client checks for errors.
    dealt = [[submit(_share, w.parsed, p, **w.where) for w in work] for p in range(partitions)]
    found = [submit(eligible, share) for share in dealt]
    # Asked of a worker, which builds the rules' engine (once a process) to lint its ranges anyway.
    may_broadcast = submit(_may_broadcast, settings, **work[0].where)
    summaries: list[RangeSummary] = client.gather(summarised)
    plan = [w.plan for w in work]
    _raise_first_error(plan, names, summaries)
    for w, summary, offset in zip(work, summaries, _offsets(plan, summaries)):
        w.summary = summary
        w.origin = (w.plan.part, offset)
    return dealt, found, may_broadcast


def _choose_broadcast(client: Client, submit: Callable[..., Future], work: list[RangeWork], found: list,
                      may_broadcast: Future) -> set:
    """The subjects whose descriptions are broadcast, and each range's pieces that describe them
    (``RangeWork.described``) or that it cannot lint as one process does (``inexact``).

    Descriptions every range repeats (agents, knowledge-graph entities, vocabulary labels) are
    broadcast to every trace instead of joining every trace that names them into one seam.
    Exact when a trace reads them only forward (they hang in no trace, and the rules read no
    inverse of what they are linked by) and what they link to is broadcast too; class axioms
    are read by every trace, so a capture that states any keeps the join."""
    broadcast: set = set()
    # A range linted its traces with its own statements of the descriptions they name: that is
    # one process's reading only where it states every triple the capture states of them, which
    # holds where every range that describes one describes it alike (``uniform``).
    uniform: set = set()
    if may_broadcast.result() and not any(w.summary is not None and w.summary.axioms for w in work):
        for hashes, alike in client.gather(found):
            broadcast.update(hashes)
            uniform.update(alike)
    frozen_uniform = frozenset(uniform)
    while broadcast:  # drop the descriptions that link past the broadcast, until none does
        frozen = frozenset(broadcast)
        answers = client.gather([submit(_escapes, w.parsed, frozen, frozen_uniform, **w.where) for w in work])
        leaving = set().union(*(leaving for leaving, _, _ in answers))
        if not leaving:
            for w, (_, described, inexact) in zip(work, answers):
                w.described, w.inexact = described, inexact
            break
        broadcast -= leaving
    return broadcast


def _place(work: list[RangeWork], groups: array) -> Placement:
    """Mark each piece (numbered across ranges in order) and find each group's range and triples."""
    # Arrays, as the client holds one entry per piece, however many.
    sizes = array("Q", bytes(8 * len(groups)))
    home = array("i", [UNPLACED]) * len(groups)
    marked = bytearray(len(groups))
    first = 0
    for w in work:
        for n in w.described:
            marked[first + n] = BROADCAST
        for n in w.inexact:
            marked[first + n] = TRAVELS
        first += len(w.sizes)
    index = 0
    broadcast_triples = 0
    for number, w in enumerate(work):
        for size in w.sizes:
            mark = marked[index]
            if mark == BROADCAST:
                broadcast_triples += size
            else:
                g = groups[index]
                sizes[g] += size
                # A group whose pieces all lie in one range is linted there and never travels; the
                # others (the seams, and the groups a range could not lint) are dealt to buckets.
                if mark == TRAVELS:
                    home[g] = SEAM
                elif home[g] == UNPLACED:
                    home[g] = number
                elif home[g] != number:
                    home[g] = SEAM
            index += 1
    return Placement(sizes, home, marked, broadcast_triples)


def _take_seams(submit: Callable[..., Future], work: list[RangeWork], groups: array, placement: Placement,
                bucket_of: array) -> dict:
    """Each range's interior (``RangeWork.interior``: the group of each piece linted where it lies,
    else -1), and what is taken from its input again (``RangeWork.taken``): its seams, by bucket,
    and its broadcast descriptions. Returns bucket -> [(pick future, (part, offset))]."""
    home, marked = placement.home, placement.marked
    picks: dict = defaultdict(list)
    index = 0
    for w in work:
        count = len(w.sizes)
        range_groups = groups[index:index + count]
        w.interior = array("q", (g if home[g] >= 0 and marked[index + n] != BROADCAST else -1
                                 for n, g in enumerate(range_groups)))
        seams = {n: (bucket_of[g], g) for n, g in enumerate(range_groups)
                 if home[g] == SEAM and marked[index + n] != BROADCAST}
        index += count
        w.taken = submit(_take, w.parsed, w.described, seams, **w.where) if seams or w.described else None
        for bucket in sorted(set(bucket for bucket, _ in seams.values())):
            picks[bucket].append((submit(_pick, w.taken, bucket, **w.where), w.origin))
    return picks


def _submit_linting(submit: Callable[..., Future], work: list[RangeWork], picks: dict, placement: Placement,
                    names: list[str], settings: Settings, task: Callable[[Iterator[tuple], Settings], list]) -> list:
    """The linting tasks: what the descriptions gave, then each range's interior traces, then each
    bucket's seams."""
    description = None
    lending = [w for w in work if w.described]
    if lending:
        description = submit(_description, [w.taken for w in lending], [w.origin for w in lending])
    linting = []
    if description is not None:
        linting.append(submit(_do_description, description, placement.broadcast_triples, names, settings, task))
    for w in work:
        if any(g >= 0 for g in w.interior):
            # Only a range that kept its graph lints it again, with the descriptions lent to it.
            kept = w.summary is not None and w.summary.kept_graph
            linting.append(submit(_do_range, w.parsed, w.taken, w.interior, w.origin, names, settings, task,
                                  description if kept else None, **w.where))
        w.parsed = None  # the range's parse is the workers' now: the client holds no future of it
    linting.extend(submit(_do_bucket, [f for f, _ in shares], [o for _, o in shares], names, settings, task,
                          description)
                   for _, shares in sorted(picks.items()))
    return linting


def _raise_first_error(plan: list, names: list[str], summaries: list[RangeSummary]) -> None:
    """The error one process would stop at: parts in order, each part's first error (or its having no triple)."""
    by_part: dict = defaultdict(list)
    for r, summary in zip(plan, summaries):
        by_part[r.part].append((r, summary))
    for part in sorted(by_part):
        before = 0
        quads = 0
        for _r, summary in by_part[part]:
            if summary.error is not None:
                line, problem = summary.error
                raise InputError(names[part], None if line is None else line + (0 if summary.whole else before),
                                 problem)
            before += summary.lines
            quads += summary.quads
        if not quads:
            raise ranges.no_triples(names[part], by_part[part][0][0].format)


def _offsets(plan: list, summaries: list[RangeSummary]) -> list[int]:
    """Lines before each range in its part, in the order of the plan."""
    offsets: list[int] = []
    before: defaultdict = defaultdict(int)
    for r, summary in zip(plan, summaries):
        offsets.append(0 if summary.whole else before[r.part])
        before[r.part] += summary.lines
    return offsets


def _deal(sizes: array, buckets: int) -> array:
    """The bucket of each group (by its number; sizes of numbers that are no group are 0), largest
    first to the lightest bucket, so buckets hold about as many triples."""
    heap = [(0, b) for b in range(max(1, buckets))]
    bucket_of = array("I", bytes(4 * len(sizes)))
    # Stable: groups of one size go in the order of their numbers.
    for group in sorted((g for g, size in enumerate(sizes) if size), key=sizes.__getitem__, reverse=True):
        load, bucket = heapq.heappop(heap)
        bucket_of[group] = bucket
        heapq.heappush(heap, (load + sizes[group], bucket))
    return bucket_of
