"""The trace graph: what every rule reads, built once per input by a loader.

One module owns the graph's form: how terms are keyed (IRIs as interned
strings, blank nodes as "_:id", literals and triple terms as pyoxigraph
objects), the index (subject -> predicate -> objects, asserted types, the
inverse of derivation and ownership links), where each statement came from
(statement numbers and lines, carried from the loader), and the walks over
derivations: ancestors, descendants, cycles, and which trace (root Question)
each node belongs to.

Speed comes from the index's shape: keys compare by identity where they can,
and the cyclic garbage collector is paused while a graph is built and checked
(it would otherwise rescan the growing index again and again).
"""

from __future__ import annotations

import gc
import sys
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import pyoxigraph as ox
import rdflib

from .namespaces import PROV, RDF, RDFS, TG, XSD_STRING

DERIVED = sys.intern(PROV + "wasDerivedFrom")
RDF_TYPE = sys.intern(RDF + "type")
SUBCLASS = sys.intern(RDFS + "subClassOf")
STATEMENT = RDF + "Statement"
QUESTION = TG + "Question"
# Links that hang a sub-entity (a Thought, an EdgeSelection, a ChunkSelection) under its owner.
GENERATED = sys.intern(PROV + "wasGeneratedBy")
OWNING = frozenset(sys.intern(TG + name) for name in ("thought", "selectedEdge", "selectedChunk"))
_HANGING = OWNING | {GENERATED}

_Literal, _Triple, _NamedNode, _BlankNode = ox.Literal, ox.Triple, ox.NamedNode, ox.BlankNode
_intern = sys.intern
_EMPTY: frozenset = frozenset()
_NONE: tuple = ()
_STATEMENT_TYPES = frozenset({STATEMENT})

# What a predicate's triples add to the graph besides subject -> predicate -> objects.
_PLAIN, _DERIVES, _OWNS, _TYPES = "plain", "derives", "owns", "types"


def _predicate_role(predicate: str) -> tuple[str, str]:
    role = _DERIVES if predicate is DERIVED else _OWNS if predicate in OWNING else \
        _TYPES if predicate is RDF_TYPE else _PLAIN
    return predicate, role


# ---------------------------------------------------------------------------
# Terms: the graph's keys, pyoxigraph terms, rdflib terms, and how reports name them.
# ---------------------------------------------------------------------------

def key(term) -> object:
    """The graph's key of a pyoxigraph term."""
    kind = type(term)
    if kind is _NamedNode:
        return _intern(term.value)
    if kind is _BlankNode:
        return "_:" + term.value
    return term  # Literal or Triple


def term(node):
    """The pyoxigraph term of a key."""
    if type(node) is str:
        return _BlankNode(node[2:]) if node.startswith("_:") else _NamedNode(node)
    return node


def is_iri(node) -> bool:
    return type(node) is str and not node.startswith("_:")


def is_blank(node) -> bool:
    return (type(node) is str and node.startswith("_:")) or type(node) is _Triple


def from_rdflib(value):
    """The pyoxigraph term of an rdflib term (plain and xsd:string literals alike)."""
    if isinstance(value, rdflib.URIRef):
        return _NamedNode(str(value))
    if isinstance(value, rdflib.BNode):
        return _BlankNode(str(value))
    if isinstance(value, rdflib.Literal):
        if value.language:
            return _Literal(str(value), language=value.language)
        if value.datatype is not None and str(value.datatype) != XSD_STRING:
            return _Literal(str(value), datatype=_NamedNode(str(value.datatype)))
        return _Literal(str(value))
    raise TypeError(f"cannot convert an rdflib {type(value).__name__}")


def key_from_rdflib(value):
    return key(from_rdflib(value))


def to_rdflib(node):
    """The rdflib term of a key or pyoxigraph term (triple terms have no rdflib form: None)."""
    if type(node) is str:
        return rdflib.BNode(node[2:]) if node.startswith("_:") else rdflib.URIRef(node)
    if isinstance(node, _NamedNode):
        return rdflib.URIRef(node.value)
    if isinstance(node, _BlankNode):
        return rdflib.BNode(node.value)
    if isinstance(node, _Literal):
        if node.language:
            return rdflib.Literal(node.value, lang=node.language)
        if node.datatype.value == XSD_STRING:
            # rdflib keeps plain literals untyped; so must we, or sh:in misfires.
            return rdflib.Literal(node.value)
        # The lexical form as written: rdflib would otherwise rewrite "1"^^xsd:boolean as
        # true and an ill-formed "none" as false, hiding the term a finding is about.
        return rdflib.Literal(node.value, datatype=rdflib.URIRef(node.datatype.value), normalize=False)
    return None


def name(node) -> str:
    """How a node is named in reports: keys, pyoxigraph terms and rdflib terms alike."""
    if isinstance(node, str):
        return node
    if isinstance(node, _NamedNode):
        return node.value
    if isinstance(node, _BlankNode):
        return f"_:{node.value}"
    if isinstance(node, _Literal):
        return node.value
    if isinstance(node, _Triple):
        return f"<<( {node.subject} {node.predicate} {node.object} )>>"
    return str(node)


def syntax_message(exc: SyntaxError) -> str:
    """What a pyoxigraph parse error says, without the position it prefixes (callers print the
    line their own way)."""
    message = str(exc.msg if hasattr(exc, "msg") else exc)
    if message.startswith("Parser error") and ": " in message:
        message = message.split(": ", 1)[1]
    return message


@contextmanager
def collector_paused():
    """Pause the cyclic garbage collector: the index holds millions of objects and no
    cycles, and each of the collector's full passes would walk all of them again."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


# ---------------------------------------------------------------------------
# Where statements came from.
# ---------------------------------------------------------------------------

class Locator:
    """Finds the line of a triple of the input; each loader gives the graph its own.

    ``line(subject, predicate, object, runs, statements)`` gets pyoxigraph terms
    (predicate and object None for "the subject's first line"), the statement
    numbers that start the runs of the subject's triples and how many
    statements were read. The default knows nothing.
    """

    # Whether the graph holds several files (the parts of one capture).
    spans_parts = False

    def lines(self, wanted: set[tuple], runs: dict, statements: int) -> dict[tuple, int]:
        return {}

    def places(self, wanted: set[tuple], runs: dict, statements: int, name: str) -> dict[tuple, tuple[str, int]]:
        """(file, line) of each wanted triple: the graph's own file, unless the graph spans parts."""
        return {k: (name, line) for k, line in self.lines(wanted, runs, statements).items()}


class KnownLines(Locator):
    """Lines recorded while the input was read (formats parsed here: wire JSON, JSONL)."""

    def __init__(self, lines: dict[tuple, int | None] | None = None):
        self.known: dict[tuple, int | None] = lines if lines is not None else {}

    def lines(self, wanted, runs, statements):
        found = {k: self.known[k] for k in wanted if k in self.known}
        subjects = {k[0] for k in wanted if k[1] is None}
        if subjects:
            first: dict = {}
            for (s, _, _), line in self.known.items():
                if s in subjects and line is not None and (s not in first or line < first[s]):
                    first[s] = line
            found.update({(s, None, None): line for s, line in first.items()})
        return found


class Parts(Locator):
    """The parts of one capture read into one graph, one after the other: each part's
    statements are numbered on from the last part's, and each part keeps its own locator.
    A triple's place is the first part (in input order) that finds it, at its line there."""

    spans_parts = True

    def __init__(self) -> None:
        self.parts: list[tuple[str, Locator, int, int]] = []  # name, locator, first statement - 1, count

    def add(self, name: str, locator: Locator, start: int, count: int) -> None:
        self.parts.append((name, locator, start, count))

    def places(self, wanted, runs, statements, name):
        found: dict = {}
        for part, locator, start, count in self.parts:
            # Only the runs that start inside this part, renumbered as the part's own statements.
            own = {s: [n - start for n in numbers if start < n <= start + count] for s, numbers in runs.items()}
            asked = {k for k in wanted if k not in found and own.get(k[0])}
            if asked:
                for k, line in locator.lines(asked, own, count).items():
                    found.setdefault(k, (part, line))
        return found


_LAST = 1 << 62


class StatementPlaces(Locator):
    """(part, line) of each statement, recorded while the parts were read (the traces a cluster
    lints): the graph's n-th statement is ``quads[n - 1]``, read at ``places[n - 1]`` (part
    index, line). Nothing is indexed while the graph is built: only the runs of the subjects a
    finding names are read again, as the line formats' locator does. A triple's place is its
    first in input order; a subject's is its earliest known line."""

    spans_parts = True

    def __init__(self, names: list[str], quads, places) -> None:
        self.names, self.quads, self.places_of = names, quads, places

    def places(self, wanted, runs, statements, name):
        quads, places = self.quads, self.places_of
        found: dict = {}
        for k in wanted:
            subject, predicate, obj = k
            best = None  # (rank, place): the earliest statement first among equals
            for start in runs.get(subject, ()):
                n = start - 1
                while n < len(quads) and quads[n].subject == subject:
                    quad = quads[n]
                    if predicate is None or (quad.predicate == predicate and quad.object == obj):
                        part, line = places[n]
                        # Statements come in input order, where an unknown line sorts first; a
                        # subject's place is its earliest known line (an unknown one last).
                        rank = (part, (line or 0) if predicate is not None else (line or _LAST))
                        if best is None or rank < best[0]:
                            best = (rank, places[n])
                    n += 1
            if best is not None:
                found[k] = (self.names[best[1][0]], best[1][1])
        return found


# ---------------------------------------------------------------------------
# The graph.
# ---------------------------------------------------------------------------

class TraceGraph:
    """Subject -> predicate -> objects, asserted types split out, with its walks."""

    def __init__(self, name: str = "<input>", locator: Locator | None = None) -> None:
        self.name = name
        self.locator = locator or Locator()
        self.out: dict = {}
        self.types: dict = {}
        self._children: dict = defaultdict(list)  # object of prov:wasDerivedFrom -> subjects
        # Sub-entities (Thoughts, selections) -> the entities that own them.
        self.owners: dict = defaultdict(list)
        self._inverse: dict | None = None
        self._superclasses: dict | None = None
        self._facts: dict = {}
        # For line numbers: subject -> the number of its first statement, and for a subject whose
        # triples are not all together, the numbers of the statements that start its later runs.
        self.first_statement: dict = {}
        self.later_runs: dict = {}
        self.statements = 0
        self._questions: set | None = None

    # -------------------------------------------------------------- building

    def add(self, s, p: str, o) -> None:
        """Add one triple already in key form (add_quads inlines this for pyoxigraph quads)."""
        props = self.out.get(s)
        if props is None:
            props = self.out[s] = {}
        values = props.get(p)
        if values is None:
            props[p] = [o]
        elif o in values:
            return
        else:
            values.append(o)
        self._invalidate()
        _, role = _predicate_role(_intern(p))
        if role is _DERIVES:
            self._children[o].append(s)
        elif role is _OWNS and type(o) is str:
            self.owners[o].append(s)
        elif role is _TYPES and type(o) is str:
            kinds = self.types.get(s)
            if kinds is None:
                self.types[s] = {o}
            else:
                kinds.add(o)

    def _invalidate(self) -> None:
        self._inverse = self._superclasses = self._questions = None
        if self._facts:
            self._facts = {}

    def add_quads(self, quads: Iterable) -> int:
        """Add pyoxigraph quads (graph names are dropped); returns how many were read."""
        out, types, intern, children, owners = self.out, self.types, _intern, self._children, self.owners
        first, later = self.first_statement, self.later_runs
        count = start = self.statements  # numbered across calls, as the lines of one input
        last_term = k = None
        props: Any = {}
        # A capture uses a few dozen predicates: each one's key, and what its triples add besides
        # the index, is worked out once per call instead of once per quad.
        predicates: dict = {}
        self._invalidate()
        with collector_paused():
            for quad in quads:
                count += 1
                # Emitters write an entity's triples together: comparing the subject term with the
                # last one is cheaper than making its key, so a key is made once per run.
                s = quad.subject
                if s != last_term:
                    last_term = s
                    kind = type(s)
                    k = intern(s.value) if kind is _NamedNode else "_:" + s.value if kind is _BlankNode else s
                    props = out.get(k)
                    if props is None:
                        props = out[k] = {}
                        first[k] = count
                    else:
                        later.setdefault(k, []).append(count)
                p = quad.predicate
                known = predicates.get(p)
                if known is None:
                    known = predicates[p] = _predicate_role(intern(p.value))
                p, role = known
                o = quad.object
                kind = type(o)
                if kind is _NamedNode:
                    o = intern(o.value)
                elif kind is _BlankNode:
                    o = "_:" + o.value
                values = props.get(p)
                if values is None:
                    props[p] = [o]
                elif o in values:
                    continue
                else:
                    values.append(o)
                if role is not _PLAIN:
                    if role is _DERIVES:
                        children[o].append(k)
                    elif kind is _NamedNode:
                        if role is _OWNS:
                            owners[o].append(k)
                        else:
                            kinds = types.get(k)
                            if kinds is None:
                                types[k] = {o}
                            else:
                                kinds.add(o)
        self.statements = count
        return count - start

    # --------------------------------------------------------------- reading

    def types_of(self, node) -> set | frozenset:
        if type(node) is _Triple:
            return _STATEMENT_TYPES  # a triple term stands for an rdf:Statement
        return self.types.get(node, _EMPTY)

    def values(self, node, predicate: str):
        props = self.out.get(node)
        if props is None:
            return _NONE
        return props.get(predicate, _NONE)

    def children(self, node):
        """Nodes that derive from node."""
        return self._children.get(node, _NONE)

    def subjects(self, predicate: str, node):
        """Subjects of (?, predicate, node): the inverse index, built on first use."""
        if predicate is DERIVED or predicate == DERIVED:
            return self._children.get(node, _NONE)
        if self._inverse is None:
            inverse: dict = {}
            for s, props in self.out.items():
                for p, objects in props.items():
                    for o in objects:
                        inverse.setdefault((p, o), []).append(s)
            self._inverse = inverse
        return self._inverse.get((predicate, node), _NONE)

    def objects_of(self, predicate: str) -> list:
        """Every object of predicate, in order of first use."""
        seen: dict = {}
        for props in self.out.values():
            for o in props.get(predicate, _NONE):
                seen.setdefault(o, None)
        return list(seen)

    def instances(self, cls: str) -> list:
        """Nodes typed cls or a subclass of it (rdfs:subClassOf in the graph)."""
        classes = {cls} | self.subclasses(cls)
        return [n for n, kinds in self.types.items() if kinds & classes]

    def subclasses(self, cls: str) -> set:
        if SUBCLASS not in self._predicates():
            return set()
        found, stack = set(), [cls]
        while stack:
            for sub in self.subjects(SUBCLASS, stack.pop()):
                if sub not in found:
                    found.add(sub)
                    stack.append(sub)
        return found

    def has_class(self, node, cls: str) -> bool:
        """SHACL's class membership: rdf:type/rdfs:subClassOf* reaches cls."""
        kinds = self.types_of(node)
        if cls in kinds:
            return True
        if not kinds or SUBCLASS not in self._predicates():
            return False
        seen, stack = set(), list(kinds)
        while stack:
            current = stack.pop()
            if current == cls:
                return True
            if current not in seen:
                seen.add(current)
                stack.extend(self.values(current, SUBCLASS))
        return False

    def _predicates(self) -> set:
        return self.fact("predicates", lambda g: {p for _, predicates in g.kinds() for p in predicates})

    def fact(self, name: str, compute: Callable):
        """A whole-graph fact (the nodes on cycles, ...), computed once."""
        if name not in self._facts:
            self._facts[name] = compute(self)
        return self._facts[name]

    def kinds(self) -> dict:
        """(asserted types, predicates) -> the nodes of that kind, in input order (computed once).
        A capture has a few hundred kinds at most: what a node's types and predicates alone
        decide is decided once per kind, and a walk that wants only some kinds of node skips
        the others whole."""
        return self.fact("kinds", _group_kinds)

    def triples(self) -> Iterator[tuple]:
        for s, props in self.out.items():
            for p, objects in props.items():
                for o in objects:
                    yield s, p, o

    # ----------------------------------------------------------------- walks

    def ancestors(self, node) -> set:
        seen: set = set()
        stack = list(self.values(node, DERIVED))
        while stack:
            current = stack.pop()
            if current not in seen:
                seen.add(current)
                stack.extend(self.values(current, DERIVED))
        return seen

    def descendants(self, node) -> set:
        children = self._children
        seen: set = set()
        stack = list(children.get(node, _NONE))
        while stack:
            current = stack.pop()
            if current not in seen:
                seen.add(current)
                below = children.get(current)
                if below:
                    stack.extend(below)
        return seen

    def on_cycles(self) -> set:
        """Nodes that reach themselves through prov:wasDerivedFrom (computed once)."""
        return self.fact("cycles", _nodes_on_cycles)

    # ---------------------------------------------------------------- traces

    @property
    def questions(self) -> set:
        if self._questions is None:
            self._questions = {node for node, kinds in self.types.items() if QUESTION in kinds}
        return self._questions

    def parents(self, node):
        """What node hangs under: what it derives from, and the entities that own it."""
        yield from self.values(node, DERIVED)
        owners = self.owners.get(node)
        if owners:
            yield from owners

    def owned(self, node):
        """The sub-entities node owns (its Thought, its edge and chunk selections)."""
        props = self.out.get(node)
        if props:
            for predicate in OWNING:
                for value in props.get(predicate, _NONE):
                    if type(value) is str:
                        yield value

    def _traces(self) -> tuple[set, list, dict]:
        """(Questions with a Question above them, the trace roots, node -> its trace's root),
        computed once and in time linear in the graph, however long its chains and cycles."""
        questions, out, children = self.questions, self.out, self._children
        # Only Questions are ever asked whether a Question is above them: walk up from each, which
        # stops at the first Question met (a root has nothing above it), instead of walking down
        # from every Question over whole traces.
        below: set = set()
        for question in questions:
            seen: set = set()
            stack = list(out[question].get(DERIVED, _NONE)) if question in out else []
            while stack:
                node = stack.pop()
                if node in questions:
                    below.add(question)
                    break
                if node not in seen:
                    seen.add(node)
                    props = out.get(node)
                    if props:
                        parents = props.get(DERIVED)
                        if parents:
                            stack.extend(parents)
        roots = sorted(q for q in questions if q not in below)
        # What hangs under a node besides what derives from it: the sub-entities it owns, and
        # (releases up to 2.2.12) the steps prov:wasGeneratedBy it: read from the kinds of node
        # that have either.
        hung: dict = {}
        for (_, predicates), nodes in self.kinds().items():
            if _HANGING.isdisjoint(predicates):
                continue
            owning = [p for p in predicates if p in OWNING]
            generated = GENERATED in predicates
            for node in nodes:
                props = out[node]
                for predicate in owning:
                    owned = [v for v in props[predicate] if type(v) is str]
                    if owned:
                        hung.setdefault(node, []).extend(owned)
                if generated:
                    for source in props[GENERATED]:
                        hung.setdefault(source, []).append(node)
        # One lookup per node while spreading: what derives from it and what hangs under it, together.
        under = children
        if hung:
            under = dict(children)
            for node, extra in hung.items():
                under[node] = [*under.get(node, _NONE), *extra]
        member: dict = {}

        def spread(root) -> None:
            stack = [root]
            while stack:
                node = stack.pop()
                if node in member:
                    continue
                member[node] = root
                next_nodes = under.get(node)
                if next_nodes:
                    stack.extend(next_nodes)

        for root in roots:
            spread(root)
        # A Question on a derivation cycle has a Question above it (itself), so it is no root; a
        # cycle with no root above it is still a trace, named by its first Question.
        for question in sorted(questions):
            if question not in member:
                roots.append(question)
                spread(question)
        return below, sorted(roots), member

    def roots(self) -> list:
        """One Question per trace: those that derive, transitively, from no other Question."""
        return self.fact("traces", TraceGraph._traces)[1]

    def root_of(self, node):
        """The root Question of the trace node belongs to, else None."""
        return self.fact("traces", TraceGraph._traces)[2].get(node)

    def trace_members(self) -> dict:
        """Every node of a trace -> its trace's root Question (what root_of reads)."""
        return self.fact("traces", TraceGraph._traces)[2]

    def has_question_above(self, question) -> bool:
        """A Question derives, transitively, from a Question (itself included, through a cycle);
        known for Questions only."""
        return question in self.fact("traces", TraceGraph._traces)[0]

    # ----------------------------------------------------------------- lines

    def runs(self, node) -> list:
        """Numbers of the statements that start the runs of node's triples."""
        start = self.first_statement.get(node)
        return ([start] if start is not None else []) + self.later_runs.get(node, [])

    def lines(self, wanted: Iterable[tuple]) -> dict[tuple, int]:
        """Line of each wanted (subject, predicate, object) of pyoxigraph terms; predicate and
        object None for the subject's first line. Best effort: what the loader can tell."""
        wanted = set(wanted)
        if not wanted:
            return {}
        runs = {s: self.runs(key(s)) for s, _, _ in wanted}
        return self.locator.lines(wanted, runs, self.statements)

    def places(self, wanted: Iterable[tuple]) -> dict[tuple, tuple[str, int]]:
        """(file, line) of each wanted triple, as :meth:`lines`; the file is the graph's own
        unless it holds the parts of one capture."""
        wanted = set(wanted)
        if not wanted:
            return {}
        runs = {s: self.runs(key(s)) for s, _, _ in wanted}
        return self.locator.places(wanted, runs, self.statements, self.name)


# ---------------------------------------------------------------------------
# Answers: what a trace ends in.
# ---------------------------------------------------------------------------

def is_root_question(graph: TraceGraph, node) -> bool:
    """A Question that derives from no Question, itself included (through a cycle), as the SPARQL says."""
    return node in graph.questions and not graph.has_question_above(node)


_AGENT_QUESTION, _CONCLUSION, _SYNTHESIS = TG + "AgentQuestion", TG + "Conclusion", TG + "Synthesis"
_TERMINAL_KINDS = frozenset((_CONCLUSION, _SYNTHESIS))
_AGENT_STEPS = (TG + "StepResult", TG + "Finding")


def _agent_synthesis(graph: TraceGraph, node) -> bool:
    return any(s in graph.types_of(v) for v in graph.values(node, DERIVED) for s in _AGENT_STEPS)


def terminal_answers(graph: TraceGraph, root) -> set:
    """The answers of the root's own kind that nothing derives from (found once per root)."""
    memo = graph.fact("terminal answers", lambda graph: {})
    found = memo.get(root)
    if found is None:
        found = memo[root] = _find_terminal_answers(graph, root)
    return found


def _find_terminal_answers(graph: TraceGraph, root) -> set:
    agent = _AGENT_QUESTION in graph.types_of(root)
    children, types = graph._children, graph.types
    found = set()
    for node in graph.descendants(root):
        if children.get(node):
            continue
        kinds = types.get(node)
        if not kinds or kinds.isdisjoint(_TERMINAL_KINDS):
            continue
        if agent:
            if _CONCLUSION in kinds and not _sub_agent_answer(graph, node, root):
                found.add(node)
            elif _SYNTHESIS in kinds and _agent_synthesis(graph, node):
                found.add(node)
        elif _SYNTHESIS in kinds and not _agent_synthesis(graph, node):
            found.add(node)
    return found


def _sub_agent_answer(graph: TraceGraph, node, root) -> bool:
    """A Conclusion below another agent Question than the root: a supervisor's sub-agent answered
    it. (TrustGraph 2.11.1 derives a Finding from it, or, when it does not know the Conclusion,
    from the Decomposition: then nothing derives from it, and it is still not the trace's answer.)"""
    return any(a != root and _AGENT_QUESTION in graph.types_of(a) for a in graph.ancestors(node))


def answer_pattern(graph: TraceGraph, node) -> str | None:
    kinds = graph.types_of(node)
    if TG + "Conclusion" in kinds:
        return "react"
    if TG + "Synthesis" in kinds:
        sources = [graph.types_of(v) for v in graph.values(node, DERIVED)]
        if any(TG + "StepResult" in k for k in sources):
            return "plan-then-execute"
        if any(TG + "Finding" in k for k in sources):
            return "supervisor"
    return None


def _group_kinds(graph: TraceGraph) -> dict:
    groups: dict = {}
    types = graph.types
    for node, props in graph.out.items():
        signature = (frozenset(types.get(node, _EMPTY)), tuple(props))
        nodes = groups.get(signature)
        if nodes is None:
            groups[signature] = [node]
        else:
            nodes.append(node)
    return groups


def _nodes_on_cycles(graph: TraceGraph) -> set:
    """The nodes on prov:wasDerivedFrom cycles."""
    out, children = graph.out, graph._children
    # First peel off, parents first (Kahn's order), every node that derives only from nodes on no
    # cycle: in a capture that is all of them, at a few dictionary operations per node. What is
    # left lies on a cycle or derives from one, and Tarjan's algorithm tells the two apart.
    pending: dict = {}  # deriving node -> how many of its parents are not peeled yet
    for (_, predicates), nodes in graph.kinds().items():
        if DERIVED in predicates:
            for node in nodes:
                pending[node] = len(out[node][DERIVED])
    peeled = [parent for parent in children if parent not in pending]
    while peeled:
        for child in children.get(peeled.pop(), _NONE):
            left = pending[child] - 1
            if left:
                pending[child] = left
            else:
                del pending[child]
                peeled.append(child)
    if not pending:
        return set()
    empty = ()

    def parents(node):
        props = out.get(node)
        return props.get(DERIVED, empty) if props else empty

    return strong_components(pending, parents, numbered=False)[1]


def strong_components(starts: Iterable, successors: Callable[[object], Iterable],
                      numbered: bool = True) -> tuple[dict, set]:
    """Tarjan's strongly connected components of what the starts reach, iteratively (no
    recursion however long the chains): (node -> its component's number, empty unless
    numbered; the nodes on cycles). A component is numbered after every component it reaches,
    so reach only goes to smaller numbers. A node is on a cycle when its component has two
    nodes or more, or a loop."""
    component: dict = {}
    on_cycle: set = set()
    number: dict = {}
    low: dict = {}
    stack: list = []
    on_stack: set = set()
    counter = components = 0
    for start in starts:
        if start in number:
            continue
        work = [(start, iter(successors(start)))]
        number[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, following = work[-1]
            advanced = False
            for succ in following:
                if succ not in number:
                    number[succ] = low[succ] = counter
                    counter += 1
                    stack.append(succ)
                    on_stack.add(succ)
                    work.append((succ, iter(successors(succ))))
                    advanced = True
                    break
                if succ in on_stack:
                    low[node] = min(low[node], number[succ])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == number[node]:
                members = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    members.append(member)
                    if member == node:
                        break
                if numbered:
                    component.update(dict.fromkeys(members, components))
                    components += 1
                if len(members) > 1 or node in successors(node):
                    on_cycle.update(members)
    return component, on_cycle
