"""The example traces under examples/, read with pyoxigraph, and written back as Turtle.

pyoxigraph is used because it is the parser that keeps the RDF 1.2 triple
terms TrustGraph puts in ``tg:edge`` and ``tg:contains``; rdflib would lose them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import pyoxigraph as ox
from tgtrace.ground.namespaces import PROV, RDF_TYPE, RDFS, TG
from tgtrace.tracemodel.naming import within_session

DERIVED = PROV + "wasDerivedFrom"
GENERATED = PROV + "wasGeneratedBy"  # how releases before 2.2.13 link several steps
CHAIN_LINKS = (DERIVED, GENERATED)
PROV_ENTITY = PROV + "Entity"



def _is_provenance_type(term) -> bool:
    return isinstance(term, ox.NamedNode) and term.value.startswith((TG, PROV))


@dataclass(eq=False)  # identity: one object per example file
class Trace:
    """One example file: its quads in file order, and the entities they describe."""

    path: Path
    quads: list = field(repr=False)

    @classmethod
    def load(cls, path: Path) -> Trace:
        return cls(path=path, quads=list(ox.parse(path=str(path), format=ox.RdfFormat.N_QUADS)))

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def stem(self) -> str:
        return self.path.stem

    @cached_property
    def graphs(self) -> list[str]:
        seen = []
        for quad in self.quads:
            name = "" if isinstance(quad.graph_name, ox.DefaultGraph) else quad.graph_name.value
            if name not in seen:
                seen.append(name)
        return seen

    @cached_property
    def types(self) -> dict[str, list[str]]:
        """Entity IRI -> asserted types, entities in the order they were emitted.

        Only statements in a named graph describe trace entities; the default
        graph holds extracted knowledge.
        """
        found: dict[str, list[str]] = {}
        for quad in self.quads:
            if quad.predicate.value != RDF_TYPE:
                continue
            # In the default graph only provenance types count: the Document's
            # description sits there, beside the knowledge extracted from it.
            if isinstance(quad.graph_name, ox.DefaultGraph) and not _is_provenance_type(quad.object):
                continue
            if isinstance(quad.subject, ox.NamedNode) and isinstance(quad.object, ox.NamedNode):
                found.setdefault(quad.subject.value, [])
                if quad.object.value not in found[quad.subject.value]:
                    found[quad.subject.value].append(quad.object.value)
        return found

    @cached_property
    def chain_order(self) -> list[str]:
        """Entities with each one after those it derives from (or is linked from), else in emission order."""
        emitted = list(self.types)
        before: dict[str, set[str]] = {node: set() for node in emitted}
        for s, p, o in self.links:
            if p in CHAIN_LINKS:
                before[s].add(o)  # a derived (or generated) entity comes after its source
            else:
                before[o].add(s)  # a detail comes after the entity that points to it
        ordered: list[str] = []
        placed: set[str] = set()
        while len(ordered) < len(emitted):
            ready = [n for n in emitted if n not in placed and before[n] <= placed]
            # A cycle (which a rule reports) must not hang the page: take the next in emission order.
            node = ready[0] if ready else next(n for n in emitted if n not in placed)
            ordered.append(node)
            placed.add(node)
        return ordered

    def instances(self, cls: str) -> list[str]:
        return [node for node, types in self.types.items() if cls in types]

    def has_type(self, cls: str) -> bool:
        return any(cls in types for types in self.types.values())

    @cached_property
    def links(self) -> list[tuple[str, str, str]]:
        """(subject, predicate, object) between two entities of this trace, in file order."""
        found = []
        for quad in self.quads:
            if not isinstance(quad.object, ox.NamedNode):
                continue
            if quad.predicate.value == RDF_TYPE:
                continue
            s, o = quad.subject, quad.object
            # A link to itself (a Thought's tg:document is its own IRI) says nothing about the chain.
            if s == o:
                continue
            if isinstance(s, ox.NamedNode) and s.value in self.types and o.value in self.types:
                edge = (s.value, quad.predicate.value, o.value)
                if edge not in found:
                    found.append(edge)
        return found

    def label(self, node: str) -> str | None:
        for quad in self.quads:
            if getattr(quad.subject, "value", None) == node and quad.predicate.value == RDFS + "label" and isinstance(quad.object, ox.Literal):
                return quad.object.value
        return None

    def producer(self, node: str) -> str | None:
        """The component that generated an entity: its activity's prov:wasAssociatedWith agent."""
        for s, p, activity in self.links:
            if s == node and p == PROV + "wasGeneratedBy":
                for s2, p2, agent in self.links:
                    if s2 == activity and p2 == PROV + "wasAssociatedWith":
                        return self.label(agent) or within_session(agent)
        return None

    def parents(self, node: str) -> list[str]:
        return [o for s, p, o in self.links if s == node and p == DERIVED]

    @cached_property
    def roots(self) -> list[str]:
        """Questions that derive from nothing: where a trace starts."""
        return [n for n in self.instances(TG + "Question") if not self.parents(n)]

    def triples_about(self, nodes, graph: str | None = None) -> list:
        """The triples whose subject is one of ``nodes``, in file order."""
        wanted = {ox.NamedNode(n) for n in nodes}
        out = []
        for quad in self.quads:
            if quad.subject in wanted and (graph is None or self._graph_name(quad) == graph):
                out.append(quad.triple)
        return out

    def graph_triples(self, graph: str) -> list:
        return [q.triple for q in self.quads if self._graph_name(q) == graph]

    @staticmethod
    def _graph_name(quad) -> str:
        return "" if isinstance(quad.graph_name, ox.DefaultGraph) else quad.graph_name.value


def load_examples(folder: Path) -> list[Trace]:
    """Every N-Quads example, by name. N-Quads is read because it keeps graphs and triple terms."""
    return [Trace.load(path) for path in sorted(folder.glob("*.nq"))]


def first_explain_event(folder: Path, question_type: str) -> tuple[str, dict] | None:
    """The first explain event, in any recording, that adds a Question of ``question_type``."""
    for path in sorted(folder.glob("*.jsonl")):
        with path.open(encoding="utf-8") as handle:
            for line in handle:
                if not line.strip():
                    continue
                event = json.loads(line)
                if event.get("message_type") != "explain":
                    continue
                types = {
                    t["o"].get("i")
                    for t in event.get("explain_triples", [])
                    if t.get("p", {}).get("i") == RDF_TYPE
                }
                if question_type in types:
                    return path.name, event
    return None
