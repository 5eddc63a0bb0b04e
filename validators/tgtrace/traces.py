"""Find the traces in a set of quads: each root Question and what derives from it."""

from __future__ import annotations

from collections import defaultdict
from typing import Iterable

import pyoxigraph as ox

from .namespaces import PROV_WAS_DERIVED_FROM, RDF_TYPE, TG

QUESTION = TG + "Question"
# Links that hang a sub-entity under the entity that owns it, besides derivation.
OWNING_LINKS = {TG + "thought", TG + "selectedEdge", TG + "selectedChunk"}


class TraceIndex:
    """Which trace (root Question IRI) each node belongs to."""

    def __init__(self) -> None:
        self.parents: dict = defaultdict(set)  # node -> nodes it derives from / hangs under
        self.questions: set = set()

    def add(self, subject, predicate: str, obj) -> None:
        if predicate == PROV_WAS_DERIVED_FROM:
            self.parents[subject].add(obj)
        elif predicate in OWNING_LINKS and not isinstance(obj, ox.Literal):
            self.parents[obj].add(subject)
        elif predicate == RDF_TYPE and isinstance(obj, ox.NamedNode) and obj.value == QUESTION:
            self.questions.add(subject)

    def roots(self) -> list:
        """Questions that derive, transitively, from no other Question."""
        return sorted((q for q in self.questions if self.root_of(q) == q), key=str)

    def root_of(self, node):
        """The top-most Question above node, or None when none is above it."""
        cache = self._cache
        if node in cache:
            return cache[node]
        # Iterative walk up the links; the highest Question found wins.
        seen = {node}
        frontier = [node]
        best = node if node in self.questions else None
        depth_best = 0
        depth = 0
        while frontier:
            depth += 1
            nxt = []
            for current in frontier:
                for parent in self.parents.get(current, ()):
                    if parent in seen:
                        continue
                    seen.add(parent)
                    if parent in self.questions and depth >= depth_best:
                        best, depth_best = parent, depth
                    nxt.append(parent)
            frontier = nxt
        cache[node] = best
        return best

    @property
    def _cache(self) -> dict:
        cache = self.__dict__.get("_root_cache")
        if cache is None:
            cache = self.__dict__["_root_cache"] = {}
        return cache


def build(quads: Iterable[ox.Quad]) -> TraceIndex:
    index = TraceIndex()
    for quad in quads:
        index.add(quad.subject, quad.predicate.value, quad.object)
    return index


def iri(node) -> str:
    """How a node is named in reports."""
    if isinstance(node, ox.NamedNode):
        return node.value
    if isinstance(node, ox.BlankNode):
        return f"_:{node.value}"
    if isinstance(node, ox.Triple):
        return f"<<( {iri(node.subject)} {iri(node.predicate)} {iri(node.object)} )>>"
    if isinstance(node, ox.Literal):
        return node.value
    return str(node)
