"""Lint a flow's traces as TrustGraph writes them: the live export, grouped into traces.

Each frame of the export is one message of the flow's triples-store queue (one explain event
of a service). The explainability graphs are kept, the extracted knowledge is not
(``gateway.parse_frame``); triples join the trace of every node they link to, as in an explain
stream (``stream.py``). A trace is linted once it is complete (each root Question has its
terminal answer, every derivation points inside the trace) and nothing more has arrived for it
for a quiet period: a late event of a complete trace is then still part of it. A trace that
stays incomplete for the trace timeout is linted as it is and reported as never completed. A
linted trace is released, so memory holds only the traces in flight.

Memory stays bounded whatever the traffic (``limits``): a repeated triple is held once; a trace
is linted as it is, and released, once its first event is ``trace_max_age`` seconds old or it
holds ``trace_max_triples`` triples, however much keeps arriving for it; and when the traces in
flight hold more than ``max_held`` triples in all (checked as a frame's triples are added, a slice
at a time, not once the whole frame is in), the oldest are linted as they are, together, with a
notice, until they hold less. A frame larger than the connection's maximum is refused by the
socket unread; the export cannot skip one frame, so the watch reconnects, says so and counts it.
Traces due at once (complete, or given up) are linted together, one graph for all of them: a
burst of a hundred thousand small groups costs one lint, not a hundred thousand.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import signal
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pyoxigraph as ox

from ..ground.errors import TgTraceError
from ..ground.graph import TraceGraph
from ..ground.limits import (
    MAX_HELD_TRIPLES,
    QUIET_PERIOD,
    STREAM_MEMORY,
    TRACE_MAX_AGE,
    TRACE_MAX_TRIPLES,
    TRACE_TIMEOUT,
)
from ..ground.locations import KnownLines, Locator
from ..ground.model import Finding, Severity
from ..inputs.gateway import Connection, Export, GatewayError, Oversized, Unreachable, check_flow
from ..inputs.stream import CHAIN, Component, Earlier, StreamLinter, _complete, quad_keys
from ..tracemodel.traces import TRUSTGRAPH
from .lint import check_graph, fresh_result
from .settings import Settings

# Seconds a stopped watch may take to finish what it is doing before it is abandoned.
GRACE = 2.0
# Reconnection waits grow from the first to the last, then stay there.
BACKOFF = (0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0)
# Why a trace was linted: complete, or as it was at one of the bounds.
COMPLETE, TIMED_OUT, AGED, GREW, CROWDED = "complete", "timeout", "age", "triples", "held"
# A frame's triples are added this many at a time, the total bound checked after each slice.
_SLICE = 10_000
# Roots a notice names before it says how many more.
_NAMED = 5


class _FrameLines(Locator):
    """The lines of a watched trace's triples (each its frame's line in the recording, kept as the
    value of its quad), made into a table only for the triples findings name: a held triple costs
    no table entry of its own."""

    def __init__(self, components: list[Component]) -> None:
        self.components = components

    def lines(self, wanted: set[tuple], runs: dict, statements: int) -> dict:
        known: dict[tuple, int | None] = {}
        for component in self.components:
            for quad, line in component.quads.items():
                known.setdefault((quad.subject, quad.predicate, quad.object), line)
        return KnownLines(known).lines(wanted, runs, statements)


@dataclass(slots=True)
class _State:
    first: float  # the first event of the trace (of the earliest of the traces it joined)
    last: float  # its last event
    judged: bool = False  # completeness judged since the last event


class LiveTraces(StreamLinter):
    """Traces in flight. ``add`` frames as they come; ``due`` gives each trace once it is ready,
    ``crowded`` the oldest while the traces hold more than a bound."""

    def __init__(self, name: str, remember: int = STREAM_MEMORY) -> None:
        super().__init__(name, remember)
        self._state: dict[Component, _State] = {}
        # A graph of several traces -> them (until judged: ``judged``).
        self._together: weakref.WeakKeyDictionary[TraceGraph, list[Component]] = weakref.WeakKeyDictionary()

    def add(self, line: int, quads: list, now: float) -> None:
        owner, state = self.owner, self._state
        for quad in quads:
            if self._released_of and self.repeated(quad):
                continue  # a redelivered event of a trace already linted
            keys = quad_keys(quad)
            if self._released_of:
                self.reopen(keys)
            joined = {c for c in (owner.get(k) for k in keys) if c is not None}
            first = min((state[c].first for c in joined if c in state), default=now)
            component = self._join(keys)
            for gone in joined:
                if gone is not component:
                    state.pop(gone, None)
            if quad not in component.quads:
                component.quads[quad] = line  # its line: no (s, p, o) table beside it (_FrameLines)
                self.held += 1
            found = state.get(component)
            if found is None:
                state[component] = _State(first, now)
            else:
                found.first, found.last, found.judged = min(found.first, first), now, False
        self.peak = max(self.peak, self.held)

    # A watched quad's line is its value (_FrameLines).
    def _line_of(self, component: Component, quad: ox.Quad) -> int | None:
        return component.quads[quad]

    def _put(self, component: Component, quad: ox.Quad, line: int | None) -> None:
        component.quads[quad] = line

    def _alive(self, component: Component) -> bool:
        # A component merged into another is no longer the owner of its nodes.
        return bool(component.nodes) and self.owner.get(next(iter(component.nodes))) is component

    def _graph(self, component: Component) -> TraceGraph:
        return self._merged([component])

    def _merged(self, components: list[Component]) -> TraceGraph:
        """One graph of the quads of ``components``, with their lines and the named graphs they were
        written in; what was reported of them before is the graph's ``earlier``."""
        graph = TraceGraph(self.name, _FrameLines(components), TRUSTGRAPH)
        graph.add_quads((quad for component in components for quad in component.quads), graphs=True)
        if len(components) == 1:
            self._earlier[graph] = components[0].earlier
        else:
            together = Earlier()
            for component in components:
                together.merge(component.earlier)
            self._earlier[graph] = together
            self._together[graph] = components
        return graph

    def judged(self, graph: TraceGraph) -> None:
        """After ``graph`` was judged: each trace linted together with others keeps what was
        reported of them (its own triples counted), so that a late event for it reports only what
        is new."""
        components = self._together.pop(graph, None)
        if components is None:
            return
        together = self._earlier[graph]
        for component in components:
            component.earlier.reported = together.reported
            component.earlier.triples = len(component.quads)

    def _take(self, component: Component) -> TraceGraph:
        del self._state[component]
        graph = self._graph(component)
        self._release(component)
        return graph

    def _due(self, now: float, quiet: float, timeout: float, max_age: float,
             max_triples: int) -> Iterator[tuple[Component, str, TraceGraph | None]]:
        """(component, why, its graph where it was made to judge it) of each trace due, in the
        order the traces came; each is no longer in flight (released by the caller)."""
        for component, state in list(self._state.items()):
            if not self._alive(component):
                del self._state[component]
                continue
            if len(component.quads) >= max_triples:
                del self._state[component]
                yield component, GREW, None
                continue
            if now - state.first >= max_age:
                del self._state[component]
                yield component, AGED, None
                continue
            idle = now - state.last
            if idle < quiet or (state.judged and idle < timeout):
                continue
            graph = self._graph(component)
            complete = _finished(graph)
            if complete or idle >= timeout:
                del self._state[component]
                yield component, COMPLETE if complete else TIMED_OUT, graph
            else:
                state.judged = True

    def due(self, now: float, quiet: float, timeout: float, max_age: float = TRACE_MAX_AGE,
            max_triples: int = TRACE_MAX_TRIPLES) -> Iterator[tuple[TraceGraph, str]]:
        """(graph, why) of each trace quiet for ``quiet`` seconds and complete, quiet for
        ``timeout`` seconds and still incomplete, or at a bound (its first event ``max_age``
        seconds old, or ``max_triples`` held); each is released."""
        for component, why, graph in self._due(now, quiet, timeout, max_age, max_triples):
            self._release(component)
            yield (graph if graph is not None else self._graph(component)), why

    def due_together(self, now: float, quiet: float, timeout: float, max_age: float = TRACE_MAX_AGE,
                     max_triples: int = TRACE_MAX_TRIPLES) -> Iterator[tuple[TraceGraph, str, int]]:
        """As :meth:`due`, each trace at a bound on its own, but the complete traces in one graph
        and those given up in another: (graph, why, how many traces it holds)."""
        together: dict[str, list[Component]] = {COMPLETE: [], TIMED_OUT: []}
        for component, why, _ in self._due(now, quiet, timeout, max_age, max_triples):
            if why in together:
                together[why].append(component)
                continue
            self._release(component)
            yield self._graph(component), why, 1
        for why, components in together.items():
            if components:
                graph = self._merged(components)
                for component in components:
                    self._release(component)
                yield graph, why, len(components)

    def _oldest(self, max_held: int) -> Iterator[Component]:
        """The oldest traces (by their first event), each out of flight, while more than
        ``max_held`` triples are held (each counted off as it is yielded)."""
        if self.held <= max_held:
            return
        held = self.held
        for component in sorted((c for c in self._state if self._alive(c)), key=lambda c: self._state[c].first):
            if held <= max_held:
                return
            del self._state[component]
            held -= len(component.quads)
            yield component

    def crowded(self, max_held: int) -> Iterator[TraceGraph]:
        """The oldest traces (by their first event), each released, while more than ``max_held``
        triples are held."""
        for component in self._oldest(max_held):
            graph = self._graph(component)
            self._release(component)
            yield graph

    def crowded_together(self, max_held: int) -> tuple[TraceGraph, int] | None:
        """The oldest traces, released while more than ``max_held`` triples are held, as one graph
        (and how many traces it holds); None when no more are held than that."""
        components = list(self._oldest(max_held))
        if not components:
            return None
        graph = self._merged(components)
        for component in components:
            self._release(component)
        return graph, len(components)

    @property
    def open(self) -> int:
        return sum(1 for c in self._state if self._alive(c))


def _named(roots: list[str], count: int) -> str:
    """What a notice names of ``count`` traces linted together: "trace R", "traces R, S and 3
    more" (the first few roots), or the groups of explain events without a Question."""
    if not roots:
        return ("a group of explain events without a Question" if count == 1
                else f"{count:,} groups of explain events without a Question")
    shown = ", ".join(roots[:_NAMED])
    more = count - min(len(roots), _NAMED)
    return ("traces " if count > 1 else "trace ") + shown + (f" and {more:,} more" if more > 0 else "")


def _finished(graph: TraceGraph) -> bool:
    """A query trace: :func:`stream._complete`. Extraction provenance has no Question: it is
    complete once every derivation points inside it."""
    if graph.roots():
        return _complete(graph)
    return all(target in graph.out for props in graph.out.values() for predicate in CHAIN
               for target in props.get(predicate, ()))


@dataclass
class Tally:
    """What a watch saw, for its summary."""

    frames: int = 0
    linted: int = 0
    clean: int = 0
    incomplete: int = 0
    # Traces linted as they were at a bound (age, triples, or the triples held in all).
    bounded: int = 0
    # Frames larger than the maximum, refused unread.
    oversized: int = 0
    counts: dict = field(default_factory=lambda: {s: 0 for s in Severity})
    worst: Severity | None = None
    # The error that ended the watch after it started (a recording that cannot be written).
    failure: TgTraceError | None = None

    def failed(self, fail_on: Severity | None) -> bool:
        return fail_on is not None and self.worst is not None and self.worst >= fail_on


@dataclass
class Watch:
    """One watch of a flow: where, what to keep, how to lint, and where to say what it finds."""

    connection: Connection
    settings: Settings
    found: Callable[[Finding], None]  # each finding, as it is found
    notice: Callable[[str], None]  # a one-line notice for a person (stderr)
    collection: str | None = None
    quiet: float = QUIET_PERIOD
    timeout: float = TRACE_TIMEOUT
    trace_max_age: float = TRACE_MAX_AGE
    trace_max_triples: int = TRACE_MAX_TRIPLES
    max_held: int = MAX_HELD_TRIPLES
    # Triples of the traces linted that each collection's reader remembers (stream.StreamLinter).
    stream_memory: int = STREAM_MEMORY
    record: Any = None  # a files.Appended the kept frames are appended to, as an explain stream
    metrics: Any = None  # a formats.metrics.Metrics to count frames, traces and findings in
    name: str = "<export>"
    # Lines the recording held before this watch appended to it: findings name the lines of the file.
    recorded: int = 0
    tally: Tally = field(default_factory=Tally)

    def __post_init__(self) -> None:
        self.traces: dict[str, LiveTraces] = {}
        self._line = self.recorded

    async def _open(self, export: Export) -> None:
        """The flow checked and the export opened, within the connection's deadline."""
        try:
            async with asyncio.timeout(self.connection.deadline):
                # A restarted gateway accepts the export's socket before it knows the flow again, and
                # then closes it: the flow is asked for first.
                await check_flow(self.connection)
                await export.open()
        except TimeoutError:
            await export.close()
            raise Unreachable(self.connection.shown, f"did not let the watch start in {self.connection.deadline:g} "
                              "seconds (--deadline)") from None

    async def run(self, stop: asyncio.Event) -> Tally:
        export = Export(self.connection)
        await self._open(export)
        self.notice(f"{self.connection.shown}: watching flow {self.connection.flow!r} of workspace "
                    f"{self.connection.workspace!r}" + (f", collection {self.collection!r}" if self.collection else ""))
        tick = min(1.0, max(0.05, min(self.quiet, self.timeout) / 4))
        loop = asyncio.get_running_loop()
        scan = loop.time() + tick
        try:
            while not stop.is_set() and self.tally.failure is None:
                try:
                    raw = await export.next(max(0.0, scan - loop.time()))
                except Oversized as exc:
                    self.tally.frames += 1
                    self.tally.oversized += 1
                    await export.close()
                    if not await self._reconnect(export, stop, f"{exc.one_line()}: skipped"):
                        break
                    continue
                except Unreachable as exc:
                    await export.close()
                    if not await self._reconnect(export, stop, exc.one_line()):
                        break
                    continue
                if raw is not None:
                    self._frame(export, raw, loop.time())
                if loop.time() >= scan:
                    self._lint_due(loop.time())
                    scan = loop.time() + tick
        finally:
            await export.close()
        return self.tally

    async def _reconnect(self, export: Export, stop: asyncio.Event, why: str) -> bool:
        self.notice(f"{why}; reconnecting")
        for attempt in itertools.count():
            delay = BACKOFF[min(attempt, len(BACKOFF) - 1)]
            try:
                await asyncio.wait_for(stop.wait(), delay)
                return False
            except TimeoutError:
                pass
            try:
                await self._open(export)
            except GatewayError:
                continue
            self.notice(f"{self.connection.shown}: reconnected")
            return True
        return False

    def _frame(self, export: Export, raw: bytes, now: float) -> None:
        self.tally.frames += 1
        if self.metrics is not None:
            self.metrics.frame()
        frame = export.frame(raw)
        if (self.collection is not None and frame.collection != self.collection) or not frame.quads:
            return
        if self.record is not None:
            try:
                self.record.append(frame.explain_event())
            except TgTraceError as exc:
                self.tally.failure = exc  # the recording cannot be written: the watch ends with its summary
                return
        self._line += 1
        traces = self.traces.get(frame.collection)
        if traces is None:
            # Findings name the recording (whose lines they give), else the flow and collection.
            name = (self.name if self.record is not None
                    else f"<flow {self.connection.flow} collection {frame.collection}>")
            traces = self.traces[frame.collection] = LiveTraces(name, self.stream_memory)
        quads = frame.quads
        for start in range(0, len(quads), _SLICE):  # a large frame is never held whole beyond the bound
            traces.add(self._line, quads[start:start + _SLICE], now)
            if traces.held > self.max_held or self._held() > self.max_held:
                self._lint_crowded()

    def _held(self) -> int:
        return sum(traces.held for traces in self.traces.values())

    def _lint_crowded(self) -> None:
        # The collection holding the most gives up its oldest traces first, together.
        while self._held() > self.max_held:
            traces = max(self.traces.values(), key=lambda t: t.held)
            room = traces.held - (self._held() - self.max_held)
            crowded = traces.crowded_together(max(room, 0))
            if crowded is None:
                return
            self._lint(traces, crowded[0], CROWDED, crowded[1])

    def _lint_due(self, now: float) -> None:
        for traces in self.traces.values():
            for graph, why, count in traces.due_together(now, self.quiet, self.timeout, self.trace_max_age,
                                                         self.trace_max_triples):
                self._lint(traces, graph, why, count)

    def _lint(self, traces: LiveTraces, graph: TraceGraph, why: str, count: int = 1) -> None:
        """Lint ``graph``, which holds ``count`` traces (groups of explain events) linted together."""
        result = check_graph(graph, self.settings)
        result = fresh_result(result, traces.earlier(graph))
        traces.judged(graph)
        self.tally.linted += count
        complete = why == COMPLETE
        several = count > 1
        they, them = ("they", "them") if several else ("it", "it")
        what = _named(sorted(result.traces), count)
        if why == TIMED_OUT:
            self.tally.incomplete += count
            self.notice(f"{traces.name}: {what} never completed: no final answer, or a derivation left "
                        f"pointing outside {them}, {self.timeout:g} seconds after {'their' if several else 'its'} "
                        "last event")
        elif not complete:
            self.tally.bounded += count
            bound = {AGED: f"its first event is {self.trace_max_age:g} seconds old (--trace-max-age)",
                     GREW: f"it holds {self.trace_max_triples:,} triples (--trace-max-triples)",
                     CROWDED: f"the traces in flight hold more than {self.max_held:,} triples "
                              f"(--max-held-triples), and {they} {'are' if several else 'is'} the oldest"}[why]
            self.notice(f"{traces.name}: {what} linted as {they} {'are' if several else 'is'}: {bound}; what "
                        f"arrives for {them} later is linted as a trace of its own")
        # A trace is clean when no finding names it (a group without a Question: when none does).
        faulty = min(count, len({f.trace for f in result.findings}))
        self.tally.clean += count - faulty
        if self.metrics is not None:
            # Each trace counted once, with its own findings (a behaviour counts the traces showing it).
            by_trace: dict = {}
            for finding in result.findings:
                by_trace.setdefault(finding.trace, []).append(finding)
            shown = list(by_trace.values())
            for number in range(count):
                self.metrics.trace(clean=number >= faulty, complete=complete,
                                   findings=shown[number] if number < len(shown) else ())
        for finding in sorted(result.findings, key=lambda f: (f.line or 0, f.rule, f.focus)):
            self.tally.counts[finding.severity] += 1
            if self.tally.worst is None or finding.severity > self.tally.worst:
                self.tally.worst = finding.severity
            if self.metrics is not None:
                self.metrics.finding(finding)
            self.found(finding)

    @property
    def open(self) -> int:
        return sum(traces.open for traces in self.traces.values())


def run(watch: Watch) -> Tally:
    """Watch until SIGINT or SIGTERM; the tally of what was seen."""

    async def main() -> Tally:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for number in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(number, stop.set)
        running = asyncio.create_task(watch.run(stop))
        stopping = asyncio.create_task(stop.wait())
        try:
            await asyncio.wait({running, stopping}, return_when=asyncio.FIRST_COMPLETED)
            if not running.done():
                # The loop notices a stop within a tick; a connection attempt may hold it up to its
                # timeout, longer than a supervisor waits after SIGTERM: it is abandoned then.
                try:
                    await asyncio.wait_for(asyncio.shield(running), GRACE)
                except TimeoutError:
                    running.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await running
                    return watch.tally
            return running.result()
        finally:
            stopping.cancel()
            for number in (signal.SIGINT, signal.SIGTERM):
                loop.remove_signal_handler(number)

    return asyncio.run(main())
