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
        self.index = index
        self.questions = {node for node, kinds in index.types.items() if QUESTION in kinds}
        # Derivations and owning links (Thought, selections) as the index recorded them.
        self.owners = index.owners
        self._roots: dict = {}

    def parents(self, node):
        yield from self.index.values(node, PROV_WAS_DERIVED_FROM)
        owners = self.owners.get(node)
        if owners:
            yield from owners

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
                for parent in self.parents(current):
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
    if isinstance(node, (ox.Triple, ox.Literal)):
        return node.value if isinstance(node, ox.Literal) else f"<<( {node.subject} {node.predicate} {node.object} )>>"
    return str(node)
