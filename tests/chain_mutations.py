"""Every single mutation of every example trace that can make a trace wrong rather than incomplete.

For each example (every pattern, sub-traces and sub-agents included) this enumerates:

- ``repoint``: one ``prov:wasDerivedFrom`` link pointed at another entity of the same file;
- ``excise``: one entity removed, what derived from it pointed at what it derived from;
- ``add-mixin`` / ``remove-mixin``: a mixin (tg:Answer, tg:ToolUse, tg:Reflection, tg:Error)
  asserted on an entity that lacks it, or one asserted removed;
- ``pattern``: a PatternDecision's ``tg:pattern`` changed to each other pattern;
- ``reason``: a ``tg:terminationReason`` changed to each other reason the ontology lists.

Each mutant describes itself by the kinds of the entities it touches (``Analysis``, ``Synthesis``,
...), so that the structures a real release writes can be named by kind in
``tests/test_chain_mutations.py``.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import pyoxigraph as ox

TG = "https://trustgraph.ai/ns/"
PROV = "http://www.w3.org/ns/prov#"
RDF_TYPE = ox.NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")
DERIVED = ox.NamedNode(PROV + "wasDerivedFrom")
MIXINS = ("Answer", "ToolUse", "Reflection", "Error")
PATTERNS = ("react", "plan-then-execute", "supervisor")
REASONS = ("final-answer", "plan-complete", "subagents-complete", "max-iterations", "error")
# Links that hang a sub-entity under its owner: an excised entity's are removed with it.
OWNING = {TG + "thought", TG + "selectedEdge", TG + "selectedChunk"}
# The kinds a mutant is described by, most specific first (a Question by its subtype).
KINDS = ("GraphRagQuestion", "DocRagQuestion", "AgentQuestion", "PatternDecision", "Grounding", "Exploration",
         "Focus", "Synthesis", "Analysis", "Thought", "Observation", "Conclusion", "Plan", "StepResult",
         "Decomposition", "Finding", "EdgeSelection", "ChunkSelection", "Document", "Page", "Section", "Chunk",
         "Image", "Subgraph")


def kind(types: set[str]) -> str:
    """The kind of an entity: its first type of KINDS, else the last segment of a type."""
    for name in KINDS:
        if TG + name in types:
            return name
    return "untyped" if not types else sorted(t.rsplit("/", 1)[-1].rsplit("#", 1)[-1] for t in types)[0]


@dataclass
class Trace:
    """An example file as quads, with what the mutants are described by."""

    path: Path
    quads: list
    types: dict = field(default_factory=dict)  # subject -> set of type IRIs
    parents: dict = field(default_factory=dict)  # subject -> [objects of prov:wasDerivedFrom]
    children: dict = field(default_factory=dict)  # object -> [subjects of prov:wasDerivedFrom]

    @classmethod
    def read(cls, path: Path) -> Trace:
        trace = cls(path, list(ox.parse(path=str(path), format=ox.RdfFormat.N_QUADS)))
        types, parents, children = defaultdict(set), defaultdict(list), defaultdict(list)
        for q in trace.quads:
            if q.predicate == RDF_TYPE:
                types[q.subject].add(q.object.value)
            elif q.predicate == DERIVED:
                parents[q.subject].append(q.object)
                children[q.object].append(q.subject)
        trace.types, trace.parents, trace.children = dict(types), dict(parents), dict(children)
        return trace

    def kind(self, node) -> str:
        return kind(self.types.get(node, set()))

    def answered(self) -> bool:
        """Whether the file holds an answer to its root Question (a Conclusion, or a Synthesis nothing
        derives from)."""
        return any(TG + "Conclusion" in t or (TG + "Synthesis" in t and not self.children.get(n))
                   for n, t in self.types.items())

    def nearest_questions(self, node, kinds=("Question",)) -> set:
        """The Questions of these kinds first met going up from node (its sub-trace's or sub-agent's,
        else the root)."""
        found, seen, stack = set(), set(), list(self.parents.get(node, ()))
        while stack:
            current = stack.pop()
            if current in seen:
                continue
            seen.add(current)
            if any(TG + k in self.types.get(current, ()) for k in kinds):
                found.add(current)
            else:
                stack.extend(self.parents.get(current, ()))
        return found

    def starters(self, node, kinds=("Question",)) -> set:
        """The steps that started the sub-traces (or, with kinds ("AgentQuestion",), the sub-agents)
        node belongs to: what the nearest Questions of those kinds above it derive from."""
        return {p for q in self.nearest_questions(node, kinds) for p in self.parents.get(q, ())}

    @property
    def entities(self) -> list:
        """The typed entities of the file (steps, sub-entities, extracted content), in input order."""
        return [n for n, t in self.types.items() if any(x.startswith(TG) for x in t)]


@dataclass(frozen=True)
class Mutant:
    example: str
    operation: str  # repoint | excise | add-mixin | remove-mixin | pattern | reason
    subject: str  # the kind of the entity changed
    detail: tuple  # per operation: (new target kind, old target kind), (mixin,), (old value, new value), ...
    focus: str  # the IRI of the entity changed
    target: str  # what it changed to: the new link target's IRI, the mixin, the value
    quads: tuple = field(repr=False, compare=False, hash=False)
    facts: frozenset = field(default=frozenset(), compare=False, hash=False)  # what the allowances read

    def __str__(self) -> str:
        return f"{self.example}: {self.operation} {self.subject} {' '.join(map(str, self.detail))} ({self.focus} -> {self.target})"


# A table of mutations, one branch each: read as a list, not as logic.
def mutants(path: Path) -> list[Mutant]:  # noqa: C901, PLR0912
    trace = Trace.read(path)
    quads, types = trace.quads, trace.types
    name = path.name
    graph = quads[0].graph_name
    found: list[Mutant] = []

    def add(operation, subject, detail, target, mutated, facts=()):
        found.append(Mutant(name, operation, trace.kind(subject), tuple(detail), subject.value, str(target),
                            tuple(mutated), frozenset(facts)))

    entities = trace.entities
    for q in quads:
        if q.predicate != DERIVED:
            continue
        for target in entities:
            if target in (q.subject, q.object):
                continue
            moved = ox.Quad(q.subject, DERIVED, target, q.graph_name)
            if moved in quads:
                continue
            facts = set()
            if target in trace.starters(q.object):
                facts.add("to the step that started the old target's sub-trace")
            if target in trace.starters(q.object, ("AgentQuestion",)):
                facts.add("to the step that started the old target's sub-agent")
            add("repoint", q.subject, (trace.kind(target), trace.kind(q.object)), target.value,
                [moved if x == q else x for x in quads], facts)
    for node in entities:
        parents = trace.parents.get(node)
        if not parents:
            continue
        mutated = []
        for q in quads:
            if q.subject == node or (q.object == node and q.predicate.value in OWNING):
                continue
            if q.object == node and q.predicate == DERIVED:
                mutated.extend(ox.Quad(q.subject, DERIVED, p, q.graph_name) for p in parents)
                continue
            mutated.append(q)
        facts = set()
        if not trace.children.get(node):
            facts.add("nothing derives from it")
        facts.update(f"followed by {trace.kind(c)}" for c in trace.children.get(node, ()))
        if not trace.answered():
            facts.add("the trace has no answer")
        facts.update(f"under a {trace.kind(q)}" for q in trace.nearest_questions(node))
        add("excise", node, tuple(sorted({trace.kind(p) for p in parents})), "", mutated, facts)
    for node in entities:
        for mixin in MIXINS:
            iri = TG + mixin
            if iri in types[node]:
                add("remove-mixin", node, (mixin,), mixin,
                    [x for x in quads if not (x.subject == node and x.predicate == RDF_TYPE and x.object.value == iri)])
            else:
                add("add-mixin", node, (mixin,), mixin, quads + [ox.Quad(node, RDF_TYPE, ox.NamedNode(iri), graph)])
    for q in quads:
        if q.predicate.value == TG + "pattern":
            for value in PATTERNS:
                if value != q.object.value:
                    add("pattern", q.subject, (q.object.value, value), value,
                        [ox.Quad(q.subject, q.predicate, ox.Literal(value), q.graph_name) if x == q else x
                         for x in quads])
        elif q.predicate.value == TG + "terminationReason":
            facts = set()
            if any(trace.kind(p) in ("AgentQuestion", "PatternDecision") for p in trace.parents.get(q.subject, ())):
                facts.add("no iteration ran")
            for value in REASONS:
                if value != q.object.value:
                    add("reason", q.subject, (q.object.value, value), value,
                        [ox.Quad(q.subject, q.predicate, ox.Literal(value), q.graph_name) if x == q else x
                         for x in quads], facts)
    return found
