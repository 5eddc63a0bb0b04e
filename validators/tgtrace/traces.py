"""Find the traces: each root Question and every entity derived from it.

A root Question derives, directly or through other entities, from no other
Question; sub-traces (a GraphRAG call inside an agent step, a supervisor's
sub-agents) therefore belong to the trace of the Question above them.
"""

from __future__ import annotations

import pyoxigraph as ox

from .namespaces import PROV_WAS_DERIVED_FROM, TG

QUESTION = TG + "Question"
# Links that hang a sub-entity under the entity that owns it, besides derivation.
OWNING_LINKS = (TG + "thought", TG + "selectedEdge", TG + "selectedChunk")


class TraceIndex:
    """Which trace (root Question) each node of a fast-engine index belongs to."""

    def __init__(self, index) -> None:
        self.parents: dict = {}
        self.questions: set = set()
        for node, kinds in index.types.items():
            if QUESTION in kinds:
                self.questions.add(node)
        for node, props in index.out.items():
            derived = props.get(PROV_WAS_DERIVED_FROM)
            if derived:
                self.parents.setdefault(node, set()).update(derived)
            for link in OWNING_LINKS:
                for owned in props.get(link, ()):
                    if type(owned) is str:
                        self.parents.setdefault(owned, set()).add(node)
        self._roots: dict = {}

    def roots(self) -> list:
        """Questions that derive, transitively, from no other Question."""
        return sorted(q for q in self.questions if self.root_of(q) == q)

    def root_of(self, node):
        """The top-most Question above node (node itself if it is a root), else None."""
        cache = self._roots
        if node in cache:
            return cache[node]
        seen = {node}
        frontier = [node]
        best = node if node in self.questions else None
        while frontier:
            following = []
            for current in frontier:
                for parent in self.parents.get(current, ()):
                    if parent not in seen:
                        seen.add(parent)
                        following.append(parent)
                        if parent in self.questions:
                            best = parent  # a later (higher) level wins
            frontier = following
        cache[node] = best
        return best


def iri(node) -> str:
    """How a node is named in reports: pyoxigraph terms and fast-index strings alike."""
    if isinstance(node, str):
        return node
    if isinstance(node, ox.NamedNode):
        return node.value
    if isinstance(node, ox.BlankNode):
        return f"_:{node.value}"
    if isinstance(node, ox.Triple):
        return f"<<( {_nt(node.subject)} {_nt(node.predicate)} {_nt(node.object)} )>>"
    if isinstance(node, ox.Literal):
        return node.value
    return str(node)


def _nt(term) -> str:
    return str(term)
