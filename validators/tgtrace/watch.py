"""Lint a flow's traces as TrustGraph writes them: the live export, grouped into traces.

Each frame of the export is one message of the flow's triples-store queue (one explain event
of a service). The explainability graphs are kept, the extracted knowledge is not
(``gateway.Frame``); triples join the trace of every node they link to, as in an explain
stream (``stream.py``). A trace
is linted once it is complete (each root Question has its terminal answer, every derivation
points inside the trace) and nothing more has arrived for it for a quiet period: a late event
of a complete trace is then still part of it. A trace that stays incomplete for the trace
timeout is linted as it is and reported as never completed. A linted trace is released, so
memory holds only the traces in flight.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import signal
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pyoxigraph as ox

from .api import check_graph
from .gateway import Connection, Export, GatewayError, Unreachable, check_flow
from .graph import TraceGraph, key
from .model import Finding, Severity
from .settings import Settings
from .stream import CHAIN, LINKS, StreamLinter, _complete

# Seconds a stopped watch may take to finish what it is doing before it is abandoned.
GRACE = 2.0
# Reconnection waits grow from the first to the last, then stay there.
BACKOFF = (0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0)


class LiveTraces(StreamLinter):
    """Traces in flight. ``add`` frames as they come; ``due`` gives each trace once it is ready."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        # component -> [last arrival, completeness already judged since then]
        self._touched: dict = {}

    def add(self, line: int, quads: list, now: float) -> None:
        for quad in quads:
            keys = [key(quad.subject)]
            if quad.predicate.value in LINKS and isinstance(quad.object, (ox.NamedNode, ox.BlankNode)):
                keys.append(key(quad.object))
            component = self._join(keys)
            component.quads.append(quad)
            component.lines.setdefault((quad.subject, quad.predicate, quad.object), line)
            self._touched[component] = [now, False]
        self.held += len(quads)
        self.peak = max(self.peak, self.held)

    def _alive(self, component) -> bool:
        # A component merged into another is no longer the owner of its nodes.
        return bool(component.nodes) and self.owner.get(next(iter(component.nodes))) is component

    def due(self, now: float, quiet: float, timeout: float) -> Iterator[tuple[TraceGraph, bool]]:
        """(graph, complete) of each trace quiet for ``quiet`` seconds and complete, or quiet
        for ``timeout`` seconds and still incomplete; both are released."""
        for component, state in list(self._touched.items()):
            if not self._alive(component):
                del self._touched[component]
                continue
            idle = now - state[0]
            if idle < quiet or (state[1] and idle < timeout):
                continue
            graph = self._graph(component)
            complete = _finished(graph)
            if complete or idle >= timeout:
                del self._touched[component]
                self._release(component)
                yield graph, complete
            else:
                state[1] = True

    @property
    def open(self) -> int:
        return sum(1 for c in self._touched if self._alive(c))


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
    counts: dict = field(default_factory=lambda: {s: 0 for s in Severity})
    worst: Severity | None = None

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
    quiet: float = 5.0
    timeout: float = 600.0
    record: Any = None  # a text file the kept frames are appended to, as an explain stream
    metrics: Any = None  # a formats.metrics.Metrics to count frames, traces and findings in
    name: str = "<export>"
    # Lines the recording held before this watch appended to it: findings name the lines of the file.
    recorded: int = 0
    tally: Tally = field(default_factory=Tally)

    def __post_init__(self) -> None:
        self.traces: dict[str, LiveTraces] = {}
        self._line = self.recorded

    async def run(self, stop: asyncio.Event) -> Tally:
        await check_flow(self.connection)
        export = Export(self.connection)
        await export.open()
        self.notice(f"{self.connection.shown}: watching flow {self.connection.flow!r} of workspace "
                    f"{self.connection.workspace!r}" + (f", collection {self.collection!r}" if self.collection else ""))
        queue: asyncio.Queue = asyncio.Queue(maxsize=64)
        tick = min(1.0, max(0.05, min(self.quiet, self.timeout) / 4))
        loop = asyncio.get_running_loop()
        reader = asyncio.create_task(_read(export, queue))
        try:
            while not stop.is_set():
                try:
                    item = await asyncio.wait_for(queue.get(), tick)
                except TimeoutError:
                    item = None
                if isinstance(item, Unreachable):
                    await export.close()
                    if not await self._reconnect(export, stop, str(item)):
                        break
                    reader = asyncio.create_task(_read(export, queue))
                elif isinstance(item, BaseException):
                    raise item
                elif item is not None:
                    self._frame(item, loop.time())
                self._lint_due(loop.time())
        finally:
            reader.cancel()
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
                # A restarted gateway accepts the export's socket before it knows the flow again, and
                # then closes it: the flow is asked for first.
                await check_flow(self.connection)
                await export.open()
            except GatewayError:
                continue
            self.notice(f"{self.connection.shown}: reconnected")
            return True
        return False

    def _frame(self, frame, now: float) -> None:
        self.tally.frames += 1
        if self.metrics is not None:
            self.metrics.frame()
        if self.collection is not None and frame.collection != self.collection:
            return
        frame = frame.explainability()
        if not frame.triples:
            return
        quads = frame.quads(self.connection.shown)
        if self.record is not None:
            self.record.write(json.dumps(frame.explain_event(), ensure_ascii=False) + "\n")
            self.record.flush()
        self._line += 1
        traces = self.traces.get(frame.collection)
        if traces is None:
            # Findings name the recording (whose lines they give), else the flow and collection.
            name = (self.name if self.record is not None
                    else f"<flow {self.connection.flow} collection {frame.collection}>")
            traces = self.traces[frame.collection] = LiveTraces(name)
        traces.add(self._line, quads, now)

    def _lint_due(self, now: float) -> None:
        for traces in self.traces.values():
            for graph, complete in traces.due(now, self.quiet, self.timeout):
                result = check_graph(graph, self.settings)
                self.tally.linted += 1
                if not complete:
                    self.tally.incomplete += 1
                    roots = ", ".join(sorted(result.traces)) or "a group of explain events without a Question"
                    self.notice(f"{traces.name}: trace {roots} never completed: no final answer, or a derivation "
                                f"left pointing outside it, {self.timeout:g} seconds after its last event")
                if not result.findings:
                    self.tally.clean += 1
                if self.metrics is not None:
                    self.metrics.trace(clean=not result.findings, complete=complete)
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


async def _read(export: Export, queue: asyncio.Queue) -> None:
    try:
        async for frame in export.frames():
            await queue.put(frame)
    except GatewayError as exc:
        await queue.put(exc)


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
