"""Group an explain stream into traces, holding only the traces still open.

Events of different traces arrive interleaved. Each event's entities join the
component of every entity they link to (derivations, generations, Thoughts,
selections); a component is released as a trace graph as soon as every root
Question in it has reached its terminal answer and every derivation (or
generation) it holds points inside it. What is still open at the end of the
stream is released then. Memory is therefore bounded by the traces open at once, not by the stream's length.

A released trace is remembered, up to a bound of triples (``remember``; the oldest forgotten
first), so that what arrives for it later is judged against it: an event repeated as it was adds
nothing (no fault: a redelivery), and one that adds to a remembered trace (a late step, or a
second query written under the same session id) opens it again, and it is judged again, whole,
once it completes; its findings already reported are not reported twice (``reported``). An event
for a trace forgotten starts a new component, whose links back into it are reported as dangling.
A remembered trace is held packed (its quads as compressed N-Quads, with their lines), a small
part of what it held open, and unpacked when an event names one of its subjects again.
"""

from __future__ import annotations

import hashlib
import os
import weakref
import zlib
from array import array
from bisect import bisect_left
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import pyoxigraph as ox

from ..ground.graph import TraceGraph, key
from ..ground.limits import STREAM_MEMORY
from ..ground.locations import KnownLines
from ..ground.namespaces import RDF_TYPE
from ..tracemodel.traces import ANSWERS, CHAIN, LINKS, TRUSTGRAPH, terminal_answers


@dataclass
class Earlier:
    """What was reported of traces judged before, for a trace judged again once more arrived for
    it: the keys of its findings and what was counted of it (triples, terms, type sets), so that
    the second judgement reports and counts what is new."""

    reported: set = field(default_factory=set)
    triples: int = 0
    terms: Counter = field(default_factory=Counter)
    type_sets: Counter = field(default_factory=Counter)

    def merge(self, other: Earlier) -> None:
        self.reported |= other.reported
        self.triples += other.triples
        self.terms.update(other.terms)
        self.type_sets.update(other.type_sets)


class Component:
    __slots__ = ("quads", "lines", "nodes", "earlier")

    def __init__(self) -> None:
        self.quads: dict = {}  # each quad once, in the order it came (a repeated event adds nothing)
        self.lines: dict = {}
        self.nodes: set = set()
        # What was reported and counted of the traces it holds, when they were judged before.
        self.earlier = Earlier()


# A quad's line where none is known, in a packed trace's table of lines.
_NO_LINE = -1


# The key of the digests that tell a remembered trace's quads, drawn for the process: a peer that
# cannot know it cannot make a new quad pass for a remembered one.
_DIGEST_KEY = os.urandom(16)


def quad_digest(quad: ox.Quad) -> int:
    """A quad's keyed 64-bit digest (BLAKE2b of its N-Quads text)."""
    return int.from_bytes(hashlib.blake2b(str(quad).encode(), digest_size=8, key=_DIGEST_KEY).digest(), "little")


class Remembered:
    """A released trace as it is remembered: its quads as zlib-compressed N-Quads (pyoxigraph's
    serializer, which writes back what its parser reads, triple terms and blank node labels
    included), the line of each in the same order, and the sorted digests of its quads. Whether an
    event repeats one of its quads is read from the digests, so that events naming remembered
    traces in any order cost a lookup each; only a late step, which reopens its trace, has it
    unpacked."""

    __slots__ = ("packed", "lines", "digests", "nodes", "earlier", "size")

    def __init__(self, component: Component, line_of: Callable[[Component, ox.Quad], int | None]) -> None:
        quads = list(component.quads)
        self.packed = zlib.compress(ox.serialize(quads, format=ox.RdfFormat.N_QUADS) or b"", 1)
        self.lines = array("q", (_NO_LINE if (line := line_of(component, quad)) is None else line for quad in quads))
        self.digests = array("Q", sorted(quad_digest(quad) for quad in quads))
        self.nodes = tuple(component.nodes)
        self.earlier = component.earlier
        self.size = len(quads)

    def quads(self) -> list:
        return list(ox.parse(zlib.decompress(self.packed), format=ox.RdfFormat.N_QUADS))

    def holds(self, quad: ox.Quad) -> bool:
        """Whether the trace holds ``quad`` (but for a collision of keyed 64-bit digests, about one
        in 10^19 a remembered quad)."""
        digest = quad_digest(quad)
        at = bisect_left(self.digests, digest)
        return at < len(self.digests) and self.digests[at] == digest


def quad_keys(quad: ox.Quad) -> list:
    """The nodes a quad joins: its subject, and what a link of a trace points to."""
    keys = [key(quad.subject)]
    if quad.predicate.value in LINKS and isinstance(quad.object, (ox.NamedNode, ox.BlankNode)):
        keys.append(key(quad.object))
    return keys


class StreamLinter:
    """Feeds events in; yields the trace graph of each group of traces once it is complete."""

    def __init__(self, name: str = "<stream>", remember: int = STREAM_MEMORY) -> None:
        self.name = name
        self.owner: dict = {}  # node key -> Component
        self.held = 0
        self.peak = 0
        # Released components, oldest first, while they hold at most ``remember`` triples between
        # them, and the one each remembered node belongs to.
        self.remember = remember
        self._released: OrderedDict[int, Remembered] = OrderedDict()
        self._released_of: dict[object, Remembered] = {}
        self._remembered = 0
        self._earlier: weakref.WeakKeyDictionary[TraceGraph, Earlier] = weakref.WeakKeyDictionary()

    def earlier(self, graph: TraceGraph) -> Earlier:
        """What was reported and counted before of the traces ``graph`` holds (judged again after a
        late event): the caller leaves that out, and adds what it reports and counts now."""
        return self._earlier.setdefault(graph, Earlier())

    def repeated(self, quad: ox.Quad) -> bool:
        """Whether ``quad`` is one a remembered trace already holds (a redelivered event)."""
        released = self._released_of.get(key(quad.subject))
        return released is not None and released.holds(quad)

    def reopen(self, keys: list) -> None:
        """The remembered traces holding any of ``keys`` made open again, to take what arrives."""
        for k in keys:
            released = self._released_of.get(k)
            if released is None:
                continue
            del self._released[id(released)]
            self._remembered -= released.size
            component = self._unpack(released)
            for node in released.nodes:
                self._released_of.pop(node, None)
                self.owner[node] = component
            self.held += len(component.quads)

    # Where a quad's line is kept: here, a table of (subject, predicate, object) -> line beside the
    # quads; a watch keeps it as the quad's value (LiveTraces).
    def _line_of(self, component: Component, quad: ox.Quad) -> int | None:
        return component.lines.get((quad.subject, quad.predicate, quad.object))

    def _put(self, component: Component, quad: ox.Quad, line: int | None) -> None:
        component.quads[quad] = None
        if line is not None:
            component.lines.setdefault((quad.subject, quad.predicate, quad.object), line)

    def _unpack(self, released: Remembered) -> Component:
        component = Component()
        for quad, line in zip(released.quads(), released.lines):
            self._put(component, quad, None if line == _NO_LINE else line)
        component.nodes = set(released.nodes)
        component.earlier = released.earlier
        return component

    def feed(self, line: int, quads: list) -> Iterator[TraceGraph]:
        touched: list[Component] = []
        answers = False
        for quad in quads:
            if self._released_of and self.repeated(quad):
                continue
            keys = quad_keys(quad)
            if self._released_of:
                self.reopen(keys)
            predicate = quad.predicate.value
            if predicate == RDF_TYPE and isinstance(quad.object, ox.NamedNode) and quad.object.value in ANSWERS:
                answers = True
            component = self._join(keys)
            if quad not in component.quads:
                component.quads[quad] = None
                component.lines.setdefault((quad.subject, quad.predicate, quad.object), line)
                self.held += 1
            if component not in touched:
                touched.append(component)
        self.peak = max(self.peak, self.held)
        if answers:
            for component in touched:
                if component.nodes and self.owner.get(next(iter(component.nodes))) is component:
                    graph = self._graph(component)
                    if _complete(graph):
                        self._release(component)
                        yield graph

    def finish(self) -> Iterator[TraceGraph]:
        """Everything still open, as one group each (nothing is remembered: nothing follows)."""
        self.remember = 0
        remaining = {id(c): c for c in self.owner.values()}
        for component in remaining.values():
            self._release(component)
            yield self._graph(component)

    def _graph(self, component: Component) -> TraceGraph:
        graph = TraceGraph(self.name, KnownLines(component.lines), TRUSTGRAPH)
        graph.add_quads(component.quads, graphs=True)
        self._earlier[graph] = component.earlier
        return graph

    def _join(self, keys: list) -> Component:
        components = []
        for k in keys:
            component = self.owner.get(k)
            if component is not None and component not in components:
                components.append(component)
        if not components:
            target = Component()
        else:
            # Merge the smaller components into the largest.
            components.sort(key=lambda c: len(c.quads), reverse=True)
            target = components[0]
            for other in components[1:]:
                before = len(target.quads) + len(other.quads)
                target.quads.update(other.quads)
                self.held -= before - len(target.quads)
                for k, value in other.lines.items():
                    target.lines.setdefault(k, value)
                for node in other.nodes:
                    self.owner[node] = target
                target.nodes |= other.nodes
                target.earlier.merge(other.earlier)
        for k in keys:
            if k not in target.nodes:
                target.nodes.add(k)
                self.owner[k] = target
        return target

    def _release(self, component: Component) -> None:
        for node in component.nodes:
            if self.owner.get(node) is component:
                del self.owner[node]
        self.held -= len(component.quads)
        self._keep(component)

    def _keep(self, component: Component) -> None:
        """Remember a released component, forgetting the oldest past the bound."""
        if self.remember <= 0 or len(component.quads) > self.remember:
            return
        remembered = Remembered(component, self._line_of)
        self._released[id(remembered)] = remembered
        self._remembered += remembered.size
        for node in remembered.nodes:
            self._released_of[node] = remembered
        while self._remembered > self.remember:
            _, oldest = self._released.popitem(last=False)
            self._remembered -= oldest.size
            for node in oldest.nodes:
                if self._released_of.get(node) is oldest:
                    del self._released_of[node]


def _complete(graph: TraceGraph) -> bool:
    """Every root Question has its terminal answer and every derivation points inside."""
    roots = graph.roots()
    if not roots:
        return False
    for props in graph.out.values():
        for predicate in CHAIN:
            for target in props.get(predicate, ()):
                if target not in graph.out:
                    return False
    return all(terminal_answers(graph, root) for root in roots)
