"""Lint an explain stream trace by trace, holding only the traces still open.

Events of different traces arrive interleaved. Each event's entities join the
component of every entity they link to (derivations, Thoughts, selections);
a component is linted and dropped as soon as every root Question in it has
reached its terminal answer and every derivation it holds points inside it.
What is still open at the end of the stream is linted then. Memory is
therefore bounded by the traces open at once, not by the stream's length. An
event that arrives after its trace was closed starts a new component, so its
links back into the closed trace are reported as dangling.
"""

from __future__ import annotations

from typing import Iterator

import pyoxigraph as ox

from .engines import fast
from .namespaces import PROV_WAS_DERIVED_FROM, RDF_TYPE, TG
from .traces import OWNING_LINKS, TraceIndex

LINKS = {PROV_WAS_DERIVED_FROM, *OWNING_LINKS}
ANSWERS = {TG + "Conclusion", TG + "Synthesis"}


class Component:
    __slots__ = ("quads", "lines", "nodes")

    def __init__(self) -> None:
        self.quads: list = []
        self.lines: dict = {}
        self.nodes: set = set()


class StreamLinter:
    """Feeds events in; yields (index, lines) of each trace group once it is complete."""

    def __init__(self) -> None:
        self.owner: dict = {}  # node key -> Component
        self.held = 0
        self.peak = 0

    def feed(self, line: int, quads: list) -> Iterator[tuple]:
        touched: list[Component] = []
        answers = False
        for quad in quads:
            keys = [fast.node_key(quad.subject)]
            predicate = quad.predicate.value
            if predicate in LINKS and isinstance(quad.object, (ox.NamedNode, ox.BlankNode)):
                keys.append(fast.node_key(quad.object))
            if predicate == RDF_TYPE and isinstance(quad.object, ox.NamedNode) and quad.object.value in ANSWERS:
                answers = True
            component = self._join(keys)
            component.quads.append(quad)
            component.lines.setdefault((quad.subject, quad.predicate, quad.object), line)
            if component not in touched:
                touched.append(component)
        self.held += len(quads)
        self.peak = max(self.peak, self.held)
        if answers:
            for component in touched:
                if component.nodes and self.owner.get(next(iter(component.nodes))) is component:
                    index = fast.build_index(component.quads)
                    if _complete(index):
                        yield self._release(component, index)

    def finish(self) -> Iterator[tuple]:
        """Everything still open, as one group."""
        remaining = {id(c): c for c in self.owner.values()}
        for component in remaining.values():
            yield self._release(component, fast.build_index(component.quads))

    def _join(self, keys: list) -> Component:
        components = []
        for key in keys:
            component = self.owner.get(key)
            if component is not None and component not in components:
                components.append(component)
        if not components:
            target = Component()
        else:
            # Merge the smaller components into the largest.
            components.sort(key=lambda c: len(c.quads), reverse=True)
            target = components[0]
            for other in components[1:]:
                target.quads.extend(other.quads)
                for key, value in other.lines.items():
                    target.lines.setdefault(key, value)
                for node in other.nodes:
                    self.owner[node] = target
                target.nodes |= other.nodes
        for key in keys:
            if key not in target.nodes:
                target.nodes.add(key)
                self.owner[key] = target
        return target

    def _release(self, component: Component, index) -> tuple:
        for node in component.nodes:
            if self.owner.get(node) is component:
                del self.owner[node]
        self.held -= len(component.quads)
        return index, component.lines, len(component.quads)


def _complete(index) -> bool:
    """Every root Question has its terminal answer and every derivation points inside."""
    trace_index = TraceIndex(index)
    roots = trace_index.roots()
    if not roots:
        return False
    for props in index.out.values():
        for target in props.get(fast.DERIVED, ()):
            if target not in index.out:
                return False
    return all(fast._terminal_answers(index, root) for root in roots)
