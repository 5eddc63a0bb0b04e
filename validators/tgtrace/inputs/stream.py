"""Group an explain stream into traces, holding only the traces still open.

Events of different traces arrive interleaved. Each event's entities join the
component of every entity they link to (derivations, generations, Thoughts,
selections); a component is released as a trace graph as soon as every root
Question in it has reached its terminal answer and every derivation (or
generation) it holds points inside it. What is still open at the end of the
stream is released then. Memory is therefore bounded by the traces open at once, not by the stream's length. An
event that arrives after its trace was released starts a new component, so
its links back into the released trace are reported as dangling.
"""

from __future__ import annotations

from collections.abc import Iterator

import pyoxigraph as ox

from ..ground.graph import TraceGraph, key
from ..ground.locations import KnownLines
from ..ground.namespaces import RDF_TYPE
from ..tracemodel.traces import ANSWERS, CHAIN, LINKS, TRUSTGRAPH, terminal_answers


class Component:
    __slots__ = ("quads", "lines", "nodes")

    def __init__(self) -> None:
        self.quads: dict = {}  # each quad once, in the order it came (a repeated event adds nothing)
        self.lines: dict = {}
        self.nodes: set = set()


class StreamLinter:
    """Feeds events in; yields the trace graph of each group of traces once it is complete."""

    def __init__(self, name: str = "<stream>") -> None:
        self.name = name
        self.owner: dict = {}  # node key -> Component
        self.held = 0
        self.peak = 0

    def feed(self, line: int, quads: list) -> Iterator[TraceGraph]:
        touched: list[Component] = []
        answers = False
        for quad in quads:
            keys = [key(quad.subject)]
            predicate = quad.predicate.value
            if predicate in LINKS and isinstance(quad.object, (ox.NamedNode, ox.BlankNode)):
                keys.append(key(quad.object))
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
        """Everything still open, as one group each."""
        remaining = {id(c): c for c in self.owner.values()}
        for component in remaining.values():
            self._release(component)
            yield self._graph(component)

    def _graph(self, component: Component) -> TraceGraph:
        graph = TraceGraph(self.name, KnownLines(component.lines), TRUSTGRAPH)
        graph.add_quads(component.quads, graphs=True)
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
