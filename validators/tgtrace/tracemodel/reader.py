"""TrustGraph 2.11.1's trace reader, emulated over a trace graph (tgl:ReachedByReaderConstraintComponent,
family "reader").

The entities of each trace that trustgraph.api.explainability.ExplainabilityClient of
trustgraph-base 2.11.1 returns, computed once per graph by following the reader's own steps:

- detect_session_type: "agent" in the root's IRI -> agent, else "question" -> graphrag, else
  "docrag" -> docrag; otherwise the first of the first 5 entities deriving from the root that is
  an Analysis, Decomposition or Plan (agent) or an Exploration (graphrag); graphrag by default.
- fetch_entity: the first 100 triples of the entity, typed by ExplainEntity.from_triples's
  dispatch (its order of isinstance tests: a Grounding that is also an Exploration is a Grounding).
  An IRI not starting with http://, https:// or urn: is sent as a literal by build_term, and an
  entity without triples is None: neither is ever returned.
- fetch_graphrag_trace / fetch_docrag_trace: Question, then at each step the first of the first
  10 entities deriving from the previous one that has the step's type (break after the first):
  Grounding, Exploration, Focus (GraphRAG only, with the EdgeSelections its first 100 triples name
  by tg:selectedEdge that have triples), Synthesis. A Focus between Exploration and Synthesis
  (reranked DocRAG) ends a DocRAG trace at the Exploration.
- fetch_agent_trace / _follow_provenance_chain: from the Question, the first 20 entities deriving
  from each followed one, 50 levels deep: Analysis, Observation, Decomposition, Finding, Plan and
  StepResult are kept and followed; a GraphRAG or DocRAG Question is kept with its sub-trace and
  followed from the sub-trace's Synthesis; Conclusion and Synthesis are kept and end the branch;
  anything else (PatternDecision, Thought, an agent Question of a supervisor's sub-agent, ...) is
  dropped with all that derives from it.

The reader receives triples in the store's order, which TrustGraph does not define; the limits
(100, 20, 10, 5) and the first-match breaks are applied here in term order (N-Triples text of
predicate and object, of the subject for derivations). The graph's named graphs are dropped by the
loaders: the reader's graph (urn:graph:retrieval) is taken to hold the whole trace.

The entities checked: the IRIs with triples of their own that belong to a root Question's trace
(what derives from the root, and what the trace owns through tg:thought, tg:selectedEdge and
tg:selectedChunk or, in old releases, links with prov:wasGeneratedBy), the root included. Each
one no root's reading reaches is reported.
"""

from __future__ import annotations

import pyoxigraph as ox

from ..ground.graph import Node, TraceGraph, is_iri
from ..ground.namespaces import RDF_TYPE, TG
from .traces import is_root_question

_Literal = ox.Literal

_READER_DEPTH = 50  # fetch_agent_trace's max_depth
_READER_QUESTION_TYPES = {TG + "GraphRagQuestion": "graph-rag", TG + "DocRagQuestion": "document-rag",
                          TG + "AgentQuestion": "agent"}
# ExplainEntity.from_triples after the Question test, in order; "observation" is an Observation
# that is no Reflection, and is tested before "reflection".
_READER_DISPATCH = (("grounding", "Grounding"), ("exploration", "Exploration"), ("focus", "Focus"),
                    ("decomposition", "Decomposition"), ("finding", "Finding"), ("plan", "Plan"),
                    ("step-result", "StepResult"), ("synthesis", "Synthesis"), ("observation", "Observation"),
                    ("reflection", "Reflection"), ("analysis", "Analysis"), ("conclusion", "Conclusion"))
_READER_STEPS = frozenset({"analysis", "observation", "decomposition", "finding", "plan", "step-result"})
_READER_ANSWERS = frozenset({"conclusion", "synthesis"})
_SELECTED_EDGE = TG + "selectedEdge"


def _wire_text(node: Node) -> str | None:
    """What extract_term_value makes of a term: an IRI's text, a literal's value, a triple as a
    dict (here None), a blank node as its dict's repr (never a type or a fetchable IRI)."""
    if type(node) is str:
        return None if node.startswith("_:") else node
    if type(node) is _Literal:
        return node.value
    return None


def _wire_order(node: Node) -> str:
    """A term's N-Triples text: the order the limits and first matches are taken in."""
    if type(node) is str:
        return "<" + node + ">" if is_iri(node) else node
    return str(node)


def _queryable(text: object) -> bool:
    """build_term sends these as IRIs; any other string becomes a literal and matches no subject."""
    return type(text) is str and bool(text) and text.startswith(("http://", "https://", "urn:"))


class _Reader:
    """ExplainabilityClient's walk over one graph."""

    def __init__(self, graph: TraceGraph) -> None:
        self.graph = graph
        self._fetched: dict = {}
        self._children: dict = {}

    def triples(self, node: Node) -> list:
        """fetch_entity's triples_query(s=node, limit=100): (predicate, object) pairs."""
        props = self.graph.out.get(node)
        if not props:
            return []
        pairs = [(p, o) for p, objects in props.items() for o in objects]
        if len(pairs) > 100:
            pairs = sorted(pairs, key=lambda po: ("<" + po[0] + ">", _wire_order(po[1])))[:100]
        return pairs

    def fetch(self, text: Node) -> tuple | None:
        """(kind, question type, triples) of fetch_entity(text), or None."""
        if text in self._fetched:
            return self._fetched[text]
        found: tuple | None = None
        if _queryable(text):
            pairs = self.triples(text)
            if pairs:
                types = {_wire_text(o) for p, o in pairs if p == RDF_TYPE}
                found = ("unknown", None, pairs)
                question = next((q for t, q in _READER_QUESTION_TYPES.items() if t in types), None)
                if question is not None:
                    found = ("question", question, pairs)
                else:
                    for kind, local in _READER_DISPATCH:
                        if TG + local in types and not (kind == "observation" and TG + "Reflection" in types):
                            found = (kind, None, pairs)
                            break
        self._fetched[text] = found
        return found

    def kind(self, text: Node) -> str | None:
        fetched = self.fetch(text)
        return fetched[0] if fetched is not None else None

    def derived(self, text: Node, limit: int) -> list:
        """triples_query(p=prov:wasDerivedFrom, o=text, limit=limit): the subjects' wire texts."""
        children = self._children.get(text)
        if children is None:
            children = self._children[text] = sorted(self.graph.children(text), key=_wire_order)
        return [_wire_text(c) for c in children[:limit]]

    def first(self, text: Node, kind: str) -> str | None:
        """The first of the first 10 entities deriving from text that is of kind, as the RAG
        traces pick each step (break after the first match)."""
        for child in self.derived(text, 10):
            if child and self.kind(child) == kind:
                return child
        return None

    def session_type(self, root: str) -> str:
        if "agent" in root:
            return "agent"
        if "question" in root:
            return "graphrag"
        if "docrag" in root:
            return "docrag"
        for child in self.derived(root, 5):
            kind = self.kind(child) if child else None
            if kind in ("analysis", "decomposition", "plan"):
                return "agent"
            if kind == "exploration":
                return "graphrag"
        return "graphrag"

    def rag_trace(self, question: Node, graphrag: bool) -> tuple[list, object]:
        """(entities returned, the Synthesis or None) of fetch_graphrag_trace / fetch_docrag_trace."""
        if self.kind(question) != "question":
            return [], None
        found = [question]
        grounding = self.first(question, "grounding")
        exploration = self.first(grounding, "exploration") if grounding else None
        last = exploration
        if exploration and graphrag:
            focus = self.first(exploration, "focus")
            if focus:
                found.append(focus)
                # fetch_focus_with_edges (the Focus was fetched: never None)
                for p, o in self.fetch(focus)[2]:  # type: ignore[index]
                    edge = _wire_text(o)
                    if p == _SELECTED_EDGE and isinstance(edge, str) and _queryable(edge) and self.triples(edge):
                        found.append(edge)
            last = focus
        found += [n for n in (grounding, exploration) if n]
        synthesis = self.first(last, "synthesis") if last else None
        if synthesis:
            found.append(synthesis)
        return found, synthesis

    def agent_trace(self, root: Node) -> set:
        if self.kind(root) != "question":
            return set()
        found = {root}
        # _follow_provenance_chain without its repeated visits: each followed entity once, at the
        # greatest depth left (breadth first: every step costs one level).
        best = {root: _READER_DEPTH}
        queue = [root]
        for current in queue:
            depth = best[current]
            if depth <= 0:
                continue
            for child in self.derived(current, 20):
                fetched = self.fetch(child) if child else None
                if fetched is None:
                    continue
                kind, question, _ = fetched
                follow = None
                if kind in _READER_STEPS:
                    found.add(child)
                    follow = child
                elif kind == "question" and question in ("graph-rag", "document-rag"):
                    entities, follow = self.rag_trace(child, question == "graph-rag")
                    found.update(entities)
                elif kind in _READER_ANSWERS:
                    found.add(child)
                if follow is not None and best.get(follow, -1) < depth - 1:
                    best[follow] = depth - 1
                    queue.append(follow)
        return found

    def read(self, root: Node) -> set:
        """The entities the reader returns for the session root (as tg-show-explain-trace reads it)."""
        if not is_iri(root):
            return set()
        session = self.session_type(root)  # type: ignore[arg-type]  # an IRI: a str
        if session == "agent":
            return self.agent_trace(root)
        return set(self.rag_trace(root, session == "graphrag")[0])


def reader_reached(graph: TraceGraph) -> set:
    """Every entity TrustGraph 2.11.1's reader returns, reading each root Question's trace."""
    def compute(graph: TraceGraph) -> set:
        reader = _Reader(graph)
        found: set = set()
        for root in graph.roots():
            if is_root_question(graph, root):
                found |= reader.read(root)
        return found
    return graph.fact("reader reached", compute, for_rules=True)


def reader_missed(graph: TraceGraph) -> set:
    """The entities of root Questions' traces (IRIs with triples of their own) the reader does not reach."""
    def compute(graph: TraceGraph) -> set:
        reached = reader_reached(graph)
        return {node for node in graph.out
                if is_iri(node) and node not in reached and (root := graph.root_of(node)) is not None
                and is_root_question(graph, root)}
    return graph.fact("reader missed", compute, for_rules=True)

