"""The fast engine: the shapes, compiled once into Python checks over an index.

SHACL Core constraints are read from the shapes graph and interpreted
generically, so a Core rule means exactly what its shape says. The few rules
that need SHACL-SPARQL have a Python implementation here, registered under the
IRI of their SPARQL constraint; tests run this engine and pySHACL on the same
traces and require the same (rule, focus) pairs.

Speed comes from the index's shape: IRIs and blank nodes are interned Python
strings (blank nodes as "_:id"), literals and triple terms stay pyoxigraph
objects, and the cyclic garbage collector is paused while an input is linted
(it would otherwise rescan the growing index again and again).
"""

from __future__ import annotations

import gc
import json
import re
import sys
from collections import defaultdict
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache
from typing import Callable, Iterable, Iterator

import pyoxigraph as ox
import rdflib

from ..enumerations import permitted_reasons, termination_reasons
from ..namespaces import OWL, PROV, RDF, RDF_TYPE, SH, TG, TGL, TGSH, XSD

# Interned, so the index compares predicates by identity.
DERIVED = sys.intern(PROV + "wasDerivedFrom")
RDF_TYPE = sys.intern(RDF_TYPE)
STATEMENT = RDF + "Statement"
# Links that hang a sub-entity (a Thought, an EdgeSelection, a ChunkSelection) under its owner.
OWNING = frozenset(sys.intern(TG + name) for name in ("thought", "selectedEdge", "selectedChunk"))
_DECLARATION_KINDS = frozenset({OWL + "Class", OWL + "ObjectProperty", OWL + "DatatypeProperty",
                                OWL + "AnnotationProperty", OWL + "NamedIndividual"})
_Literal, _Triple, _NamedNode, _BlankNode = ox.Literal, ox.Triple, ox.NamedNode, ox.BlankNode
_intern = sys.intern


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


def node_key(term) -> object:
    """The index's form of a pyoxigraph term."""
    kind = type(term)
    if kind is _NamedNode:
        return _intern(term.value)
    if kind is _BlankNode:
        return "_:" + term.value
    return term  # Literal or Triple


def to_term(node):
    """The pyoxigraph term of an index node."""
    if type(node) is str:
        return _BlankNode(node[2:]) if node.startswith("_:") else _NamedNode(node)
    return node


def is_iri(node) -> bool:
    return type(node) is str and not node.startswith("_:")


# ---------------------------------------------------------------------------
# The index: what the rules read.
# ---------------------------------------------------------------------------

class Index:
    """Subject -> predicate -> objects, with asserted types split out."""

    def __init__(self) -> None:
        self.out: dict = {}
        self.types: dict = {}
        self._children: dict = defaultdict(list)  # object of prov:wasDerivedFrom -> subjects
        # Sub-entities (Thoughts, selections) -> the entities that own them.
        self.owners: dict = defaultdict(list)
        # (types, predicates) of each kind of node -> how many nodes are of that kind.
        self.kinds: dict = {}
        self._facts: dict = {}
        # For line numbers: subject -> the number of its first quad, and for a subject whose
        # triples are not all together, the numbers of the quads that start its later runs.
        self.first_quad: dict = {}
        self.later_runs: dict = {}
        self.quads_read = 0

    def add(self, s, p: str, o) -> None:
        """Add one triple already in index form (add_quads inlines this for pyoxigraph quads)."""
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
        if p == DERIVED:
            self._children[o].append(s)
        elif p in OWNING and type(o) is str:
            self.owners[o].append(s)
        if p == RDF_TYPE and type(o) is str:
            kinds = self.types.get(s)
            if kinds is None:
                self.types[s] = {o}
            else:
                kinds.add(o)

    def add_quads(self, quads: Iterable) -> int:
        """Add pyoxigraph quads; returns how many were read."""
        out, types, intern, children, owners = self.out, self.types, _intern, self._children, self.owners
        first, later = self.first_quad, self.later_runs
        count = start = self.quads_read  # numbered across calls, as the lines of one input
        last_subject = None
        props: dict = {}
        with collector_paused():
            for s, p, o, _ in quads:
                count += 1
                # Emitters write an entity's triples together: reuse the last subject's slot.
                kind = type(s)
                key = s.value if kind is _NamedNode else "_:" + s.value if kind is _BlankNode else s
                if key != last_subject:
                    last_subject = key = intern(key) if kind is _NamedNode else key
                    props = out.get(key)
                    if props is None:
                        props = out[key] = {}
                        first[key] = count
                    else:
                        later.setdefault(key, []).append(count)
                else:
                    key = last_subject
                p = intern(p.value)
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
                if p is DERIVED:
                    children[o].append(key)
                elif p in OWNING:
                    if kind is _NamedNode:
                        owners[o].append(key)
                elif p is RDF_TYPE and kind is _NamedNode:
                    kinds = types.get(key)
                    if kinds is None:
                        types[key] = {o}
                    else:
                        kinds.add(o)
        self.quads_read = count
        return count - start

    def runs(self, node) -> list:
        """Numbers of the quads that start the runs of node's triples."""
        start = self.first_quad.get(node)
        return ([start] if start is not None else []) + self.later_runs.get(node, [])

    def types_of(self, node) -> set:
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

    def fact(self, name: str, compute: Callable):
        """A whole-index fact (the nodes on cycles, ...), computed once."""
        if name not in self._facts:
            self._facts[name] = compute(self)
        return self._facts[name]


_EMPTY: frozenset = frozenset()
_FOCUS = object()  # stands for "the focus node" in a plan shared by many nodes
_NONE: tuple = ()
_STATEMENT_TYPES = frozenset({STATEMENT})


# ---------------------------------------------------------------------------
# Compiling the shapes.
# ---------------------------------------------------------------------------

@dataclass
class Path:
    predicates: tuple[str, ...]

    def values(self, index: Index, node):
        if len(self.predicates) == 1:
            return index.values(node, self.predicates[0])
        seen: list = []
        for predicate in self.predicates:
            for value in index.values(node, predicate):
                if value not in seen:
                    seen.append(value)
        return seen

    @property
    def report_path(self) -> str | None:
        return self.predicates[0] if len(self.predicates) == 1 else None


@dataclass
class Shape:
    iri: str
    code: str | None = None
    path: Path | None = None
    value_checks: list = field(default_factory=list)  # test(index, value) -> conforms
    count_checks: list = field(default_factory=list)  # test(count) -> conforms
    list_checks: list = field(default_factory=list)  # test(index, values) -> conforms
    properties: list = field(default_factory=list)
    sparql: list = field(default_factory=list)  # (code, implementation)
    target_classes: set = field(default_factory=set)
    target_subjects_of: set = field(default_factory=set)
    target_all_nodes: bool = False
    # Raw parameters by constraint name, for the specialised checks below.
    spec: dict = field(default_factory=dict)


def _from_rdflib(term):
    if isinstance(term, rdflib.URIRef):
        return _intern(str(term))
    if isinstance(term, rdflib.Literal):
        if term.language:
            return _Literal(str(term), language=term.language)
        if term.datatype is not None:
            return _Literal(str(term), datatype=_NamedNode(str(term.datatype)))
        return _Literal(str(term))
    raise ValueError(f"unsupported term in shapes: {term!r}")


class Compiler:
    def __init__(self, graph: rdflib.Graph):
        self.g = graph
        self.sh = rdflib.Namespace(SH)
        self.shapes: dict[str, Shape] = {}

    def value(self, node, name):
        return self.g.value(node, self.sh[name])

    def items(self, node) -> list:
        return list(rdflib.collection.Collection(self.g, node)) if node is not None else []

    def shape(self, node) -> Shape:
        key = str(node)
        if key in self.shapes:
            return self.shapes[key]
        shape = self.shapes[key] = Shape(iri=key)
        g, sh = self.g, self.sh
        code = g.value(node, rdflib.URIRef(TGL + "code"))
        shape.code = str(code) if code is not None else None
        path = self.value(node, "path")
        if path is not None:
            shape.path = self.path(path)
        shape.target_classes = {str(c) for c in g.objects(node, sh.targetClass)}
        shape.target_subjects_of = {str(p) for p in g.objects(node, sh.targetSubjectsOf)}
        for target in g.objects(node, sh.target):
            if (target, rdflib.RDF.type, sh.SPARQLTarget) in g:
                # SPARQL targets here only narrow the nodes for pySHACL's sake: the constraint
                # itself decides, so checking every node gives the same results.
                shape.target_all_nodes = True
        self.constraints(node, shape)
        for prop in g.objects(node, sh.property):
            shape.properties.append(self.shape(prop))
        for constraint in g.objects(node, sh.sparql):
            implementation = SPARQL_RULES.get(str(constraint))
            if implementation is None:
                raise ValueError(f"the fast engine has no implementation of {constraint}")
            shape.sparql.append((str(g.value(constraint, rdflib.URIRef(TGL + "code"))), implementation))
        return shape

    def path(self, node) -> Path:
        if isinstance(node, rdflib.URIRef):
            return Path((_intern(str(node)),))
        alternatives = self.value(node, "alternativePath")
        if alternatives is not None:
            return Path(tuple(_intern(str(p)) for p in self.items(alternatives)))
        raise ValueError(f"the fast engine does not support the path {node}")

    def constraints(self, node, shape: Shape) -> None:
        g, sh = self.g, self.sh
        spec = shape.spec
        for name in ("minCount", "maxCount"):
            value = self.value(node, name)
            if value is not None:
                spec[name] = int(value)
        spec["class"] = [_intern(str(c)) for c in g.objects(node, sh["class"])]
        spec["nodeKind"] = [str(k) for k in g.objects(node, sh.nodeKind)]
        spec["or"] = [[self.shape(m) for m in self.items(a)] for a in g.objects(node, sh["or"])]
        spec["node"] = [self.shape(o) for o in g.objects(node, sh.node)]
        spec["others"] = [p for p in g.predicates(node)
                          if p in (sh.hasValue, sh["in"], sh.pattern, sh.xone, sh["not"], sh.qualifiedValueShape)]
        spec["in"] = [frozenset(_from_rdflib(m) for m in self.items(members)) for members in g.objects(node, sh["in"])]
        spec["pattern"] = [re.compile(str(pattern)) for pattern in g.objects(node, sh.pattern)]
        for minimum in g.objects(node, sh.minCount):
            shape.count_checks.append(lambda c, n=int(minimum): c >= n)
        for maximum in g.objects(node, sh.maxCount):
            shape.count_checks.append(lambda c, n=int(maximum): c <= n)
        for required in g.objects(node, sh.hasValue):
            shape.list_checks.append(lambda index, values, t=_from_rdflib(required): t in values)
        for allowed in spec["in"]:
            shape.value_checks.append(lambda index, v, a=allowed: v in a)
        for regex in spec["pattern"]:
            shape.value_checks.append(lambda index, v, r=regex: _pattern_ok(r, v))
        for kind in g.objects(node, sh.nodeKind):
            shape.value_checks.append(lambda index, v, t=_NODE_KINDS[str(kind)]: t(v))
        for cls in g.objects(node, sh["class"]):
            shape.value_checks.append(lambda index, v, c=_intern(str(cls)): c in index.types_of(v))
        for other in g.objects(node, sh.node):
            nested = self.shape(other)
            shape.value_checks.append(lambda index, v, s=nested: conforms(s, index, v))
        for alternatives in g.objects(node, sh["or"]):
            options = [self.shape(m) for m in self.items(alternatives)]
            shape.value_checks.append(lambda index, v, o=options: any(conforms(s, index, v) for s in o))
        for alternatives in g.objects(node, sh.xone):
            options = [self.shape(m) for m in self.items(alternatives)]
            shape.value_checks.append(lambda index, v, o=options: sum(conforms(s, index, v) for s in o) == 1)
        for negated in g.objects(node, sh["not"]):
            nested = self.shape(negated)
            shape.value_checks.append(lambda index, v, s=nested: not conforms(s, index, v))
        qualified = self.value(node, "qualifiedValueShape")
        if qualified is not None:
            nested = self.shape(qualified)
            low = self.value(node, "qualifiedMinCount")
            high = self.value(node, "qualifiedMaxCount")

            def qualified_ok(index, values, s=nested, low=low, high=high):
                count = sum(1 for v in values if conforms(s, index, v))
                return (low is None or count >= int(low)) and (high is None or count <= int(high))

            shape.list_checks.append(qualified_ok)
        known = {sh.minCount, sh.maxCount, sh.hasValue, sh["in"], sh.pattern, sh.nodeKind, sh["class"],
                 sh.node, sh["or"], sh.xone, sh["not"], sh.qualifiedValueShape, sh.qualifiedMinCount,
                 sh.qualifiedMaxCount, sh.path, sh.property, sh.sparql, sh.targetClass,
                 sh.targetSubjectsOf, sh.target, sh.severity, sh.message, sh.description, sh.prefixes,
                 sh.declare, sh.name, sh.order, sh.group, sh.deactivated}
        for predicate in set(g.predicates(node)):
            if str(predicate).startswith(SH) and predicate not in known:
                raise ValueError(f"the fast engine does not support {predicate} (on {node})")


def _pattern_ok(regex, value) -> bool:
    kind = type(value)
    if kind is str:
        # SHACL: sh:pattern fails on blank nodes (triple terms are blank nodes there).
        return not value.startswith("_:") and regex.search(value) is not None
    if kind is _Literal:
        return regex.search(value.value) is not None
    return False


_NODE_KINDS: dict[str, Callable] = {
    SH + "IRI": is_iri,
    SH + "Literal": lambda v: type(v) is _Literal,
    SH + "BlankNode": lambda v: (type(v) is str and v.startswith("_:")) or type(v) is _Triple,
    SH + "BlankNodeOrIRI": lambda v: type(v) is not _Literal,
    SH + "BlankNodeOrLiteral": lambda v: not is_iri(v),
    SH + "IRIOrLiteral": lambda v: is_iri(v) or type(v) is _Literal,
}


def conforms(shape: Shape, index: Index, node) -> bool:
    """Does node conform to shape (for shapes nested in sh:node, sh:or, ...)?"""
    for _ in _own_violations(shape, index, node):
        return False
    for prop in shape.properties:
        for _ in _own_violations(prop, index, node):
            return False
    return True


def _own_violations(shape: Shape, index: Index, focus) -> Iterator[tuple]:
    """(path, value) of each violation of shape's own constraints at focus."""
    if shape.path is None:
        for test in shape.value_checks:
            if not test(index, focus):
                yield None, focus
        return
    yield from _violations_of(shape, index, shape.path.values(index, focus))


# ---------------------------------------------------------------------------
# SHACL-SPARQL constraints, implemented over the index.
# ---------------------------------------------------------------------------

SPARQL_RULES: dict[str, Callable] = {}
# Rules that read only a node's own types and predicates: (index, types, predicates) -> hits.
# They are decided once per kind of node rather than once per node.
STATIC_RULES: set = set()


def sparql_rule(local_name: str, static: bool = False):
    def register(function):
        SPARQL_RULES[TGSH + local_name] = function
        if static:
            STATIC_RULES.add(function)
        return function

    return register


def _ancestors(index: Index, node) -> set:
    seen: set = set()
    stack = list(index.values(node, DERIVED))
    while stack:
        current = stack.pop()
        if current not in seen:
            seen.add(current)
            stack.extend(index.values(current, DERIVED))
    return seen


def _descendants(index: Index, node) -> set:
    seen: set = set()
    stack = list(index.children(node))
    while stack:
        current = stack.pop()
        if current not in seen:
            seen.add(current)
            stack.extend(index.children(current))
    return seen


def _nodes_on_cycles(index: Index) -> set:
    """Nodes that reach themselves through prov:wasDerivedFrom (Tarjan's SCC, iteratively)."""
    on_cycle: set = set()
    number: dict = {}
    low: dict = {}
    stack: list = []
    on_stack: set = set()
    counter = 0
    for start, props in index.out.items():
        if start in number or DERIVED not in props:
            continue
        work = [(start, iter(props[DERIVED]))]
        number[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            advanced = False
            for succ in successors:
                if succ not in number:
                    number[succ] = low[succ] = counter
                    counter += 1
                    stack.append(succ)
                    on_stack.add(succ)
                    work.append((succ, iter(index.values(succ, DERIVED))))
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
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1 or node in index.values(node, DERIVED):
                    on_cycle.update(component)
    return on_cycle


@sparql_rule("derivation-cycle")
def derivation_cycle(index: Index, focus) -> Iterator:
    if focus in index.fact("cycles", _nodes_on_cycles):
        yield None, None


def is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


@sparql_rule("arguments-json")
def arguments_json(index: Index, focus) -> Iterator:
    for value in index.values(focus, TG + "arguments"):
        if type(value) is not _Literal or not is_json(value.value):
            yield TG + "arguments", value


_INTEGER = re.compile(r"[+-]?[0-9]+")


def _number(term) -> int | None:
    # SPARQL's xsd:integer(STR(?n)): an optional sign and digits.
    if type(term) is _Literal and _INTEGER.fullmatch(term.value):
        return int(term.value)
    return None


@sparql_rule("analysis-order")
def analysis_order(index: Index, focus) -> Iterator:
    analysis = TG + "Analysis"
    steps = [n for n in map(_number, index.values(focus, TG + "stepNumber")) if n is not None]
    for value in index.values(focus, DERIVED):
        kinds = index.types_of(value)
        branching = any(other != focus and analysis in index.types_of(other) for other in index.children(value))
        wrong_start = any(n != 1 for n in steps) and (TG + "Question" in kinds or TG + "PatternDecision" in kinds)
        wrong_previous = False
        if steps and TG + "Observation" in kinds:
            ancestors = _ancestors(index, value)
            analyses = [a for a in ancestors if analysis in index.types_of(a)]
            for previous in analyses:
                if any(b != previous and previous in _ancestors(index, b) for b in analyses):
                    continue  # not the nearest Analysis above the Observation
                for m in map(_number, index.values(previous, TG + "stepNumber")):
                    if m is not None and any(m != n - 1 for n in steps):
                        wrong_previous = True
        if branching or wrong_start or wrong_previous:
            yield None, value


def _iri_order(node) -> str:
    return node if type(node) is str else str(node)


def _is_root_question(index: Index, node) -> bool:
    question = TG + "Question"
    if question not in index.types_of(node):
        return False
    return not any(question in index.types_of(a) for a in _ancestors(index, node))


def _agent_synthesis(index: Index, node) -> bool:
    steps = (TG + "StepResult", TG + "Finding")
    return any(s in index.types_of(v) for v in index.values(node, DERIVED) for s in steps)


def _terminal_answers(index: Index, root) -> set:
    # S003 and S004 both ask for a root's terminal answers: found once per root.
    memo = index.fact("terminal answers", lambda index: {})
    found = memo.get(root)
    if found is None:
        found = memo[root] = _find_terminal_answers(index, root)
    return found


def _find_terminal_answers(index: Index, root) -> set:
    agent = TG + "AgentQuestion" in index.types_of(root)
    found = set()
    for node in _descendants(index, root):
        if index.children(node):
            continue
        kinds = index.types_of(node)
        if agent:
            if TG + "Conclusion" in kinds or (TG + "Synthesis" in kinds and _agent_synthesis(index, node)):
                found.add(node)
        elif TG + "Synthesis" in kinds and not _agent_synthesis(index, node):
            found.add(node)
    return found


@sparql_rule("terminal-answers")
def terminal_answers(index: Index, focus) -> Iterator:
    if _is_root_question(index, focus):
        # Every terminal answer after the first in IRI order, as the shape's SPARQL pairs them.
        for answer in sorted(_terminal_answers(index, focus), key=_iri_order)[1:]:
            yield None, answer


@sparql_rule("no-answer")
def no_answer(index: Index, focus) -> Iterator:
    if _is_root_question(index, focus) and not _terminal_answers(index, focus):
        yield None, None


def answer_pattern(index: Index, node) -> str | None:
    kinds = index.types_of(node)
    if TG + "Conclusion" in kinds:
        return "react"
    if TG + "Synthesis" in kinds:
        sources = [index.types_of(v) for v in index.values(node, DERIVED)]
        if any(TG + "StepResult" in k for k in sources):
            return "plan-then-execute"
        if any(TG + "Finding" in k for k in sources):
            return "supervisor"
    return None


@sparql_rule("termination-pattern")
def termination_pattern(index: Index, focus) -> Iterator:
    # The ontology's tg:permitsTerminationReason; tg-trace check verifies the shape's SPARQL agrees.
    allowed = permitted_reasons().get(answer_pattern(index, focus), ())
    known = termination_reasons()
    for value in index.values(focus, TG + "terminationReason"):
        text = value.value if type(value) is _Literal else (value if is_iri(value) else None)
        if text in known and text not in allowed:
            yield TG + "terminationReason", value


@sparql_rule("termination-missing")
def termination_missing(index: Index, focus) -> Iterator:
    kinds = index.types_of(focus)
    agent_answer = TG + "Conclusion" in kinds or (TG + "Synthesis" in kinds and _agent_synthesis(index, focus))
    if agent_answer and not index.values(focus, TG + "terminationReason"):
        yield None, None


_PROPERTY_KINDS = frozenset({OWL + "ObjectProperty", OWL + "DatatypeProperty", OWL + "AnnotationProperty"})


@sparql_rule("unknown-predicate", static=True)
def unknown_predicate(index: Index, kinds, predicates) -> Iterator:
    for predicate in predicates:
        if predicate.startswith(TG) and not (_PROPERTY_KINDS & index.types_of(predicate)):
            yield predicate, None


_TRUE = _Literal("true", datatype=_NamedNode(XSD + "boolean"))


@sparql_rule("deprecated-term", static=True)
def deprecated_term(index: Index, kinds, predicates) -> Iterator:
    terms = [v for v in sorted(kinds) if v.startswith(TG)] + [p for p in predicates if p.startswith(TG)]
    for term in dict.fromkeys(terms):
        if _TRUE in index.values(term, OWL + "deprecated"):
            yield None, term


# ---------------------------------------------------------------------------
# Running the rules.
# ---------------------------------------------------------------------------

@dataclass
class Program:
    """Compiled shapes, grouped by what selects their focus nodes."""

    by_class: dict = field(default_factory=lambda: defaultdict(list))
    by_subject_of: dict = field(default_factory=lambda: defaultdict(list))
    every_node: list = field(default_factory=list)
    declarations: list = field(default_factory=list)


@cache
def program() -> Program:
    from ..resources import shapes_graph
    from .shacl import declarations

    graph = shapes_graph()
    compiler = Compiler(graph)
    compiled = Program()
    for node in sorted(set(graph.subjects(rdflib.RDF.type, rdflib.URIRef(SH + "NodeShape"))), key=str):
        shape = compiler.shape(node)
        for cls in shape.target_classes:
            compiled.by_class[cls].append(shape)
        for predicate in shape.target_subjects_of:
            compiled.by_subject_of[predicate].append(shape)
        if shape.target_all_nodes:
            compiled.every_node.append(shape)
    for s, p, o in declarations():
        compiled.declarations.append((_from_rdflib(s), _intern(str(p)), _from_rdflib(o)))
    return compiled


def new_index() -> Index:
    index = Index()
    for s, p, o in program().declarations:
        index.add(s, p, o)
    return index


def build_index(quads: Iterable[ox.Quad]) -> Index:
    index = new_index()
    index.add_quads(quads)
    return index


def check_index(index: Index) -> list[tuple]:
    """(code, focus, path, value) of every violation, nodes as pyoxigraph terms."""
    plans: dict = {}
    counts = index.kinds = {}
    hits: list[tuple] = []
    append = hits.append
    types = index.types
    for node, props in index.out.items():
        kinds = types.get(node, _EMPTY)
        # Nodes of one kind share a plan: what their types and predicates alone decide is
        # decided once; only checks that read values run per node.
        signature = (frozenset(kinds), tuple(props))
        plan = plans.get(signature)
        if plan is None:
            plan = plans[signature] = _plan(index, signature[0], signature[1])
            counts[signature] = 0
        counts[signature] += 1
        static, dynamic = plan
        for code, path, value in static:
            append((code, node, path, node if value is _FOCUS else value))
        for run in dynamic:
            run(index, node, props, hits)
    return [(code, to_term(focus), path, to_term(value) if value is not None else None)
            for code, focus, path, value in hits]


def _plan(index: Index, kinds: frozenset, predicates: tuple) -> tuple[list, list]:
    compiled = program()
    chosen: dict = {}
    for cls in kinds:
        for shape in compiled.by_class.get(cls, ()):
            chosen[shape.iri] = shape
    for predicate in predicates:
        for shape in compiled.by_subject_of.get(predicate, ()):
            chosen[shape.iri] = shape
    if compiled.every_node:
        for shape in compiled.every_node:
            chosen[shape.iri] = shape
    static: list = []
    dynamic: list = []
    generated: list = []
    present = set(predicates)
    for key in sorted(chosen):
        shape = chosen[key]
        rules = ([shape] if shape.code is not None else []) + [p for p in shape.properties if p.code is not None]
        for rule in rules:
            path = rule.path
            if path is not None and (path.predicates == (RDF_TYPE,) or not present & set(path.predicates)):
                # The values are the node's types, or there are none: the same for every such node.
                values = sorted(kinds) if path.predicates == (RDF_TYPE,) else []
                static.extend((rule.code, p, v) for p, v in _violations_of(rule, index, values))
            elif path is None:
                dynamic.append(_node_runner(rule))
            else:
                generated.append(rule)
        for code, implementation in shape.sparql:
            if implementation in STATIC_RULES:
                # A static rule's value, when it binds none, is the focus: filled in per node.
                static.extend((code, p, v if v is not None else _FOCUS)
                              for p, v in implementation(index, kinds, predicates))
            else:
                dynamic.append(_sparql_runner(code, implementation))
    run = _generate(generated, present)
    if run is not None:
        dynamic.insert(0, run)
    return static, dynamic


def _violations_of(shape: Shape, index: Index, values) -> Iterator[tuple]:
    path = shape.path.report_path
    for test in shape.count_checks:
        if not test(len(values)):
            yield path, None
    for test in shape.list_checks:
        if not test(index, values):
            yield path, None
    for test in shape.value_checks:
        for value in values:
            if not test(index, value):
                yield path, value


def _types_test(shape: Shape) -> Callable | None:
    """A test on a value's asserted types alone, when that is all the shape checks."""
    spec = shape.spec
    if shape.path is None and not shape.properties and not shape.sparql and not spec.get("others") \
            and not spec.get("or") and not spec.get("node") and not spec.get("nodeKind") \
            and len(spec.get("class", ())) == 1:
        cls = spec["class"][0]
        return lambda kinds: cls in kinds
    if shape.path is None and len(shape.properties) == 1 and not shape.value_checks and not shape.sparql:
        prop = shape.properties[0]
        pspec = prop.spec
        if prop.path.predicates == (RDF_TYPE,) and not pspec.get("others") and not prop.value_checks \
                and not prop.properties:
            low, high = pspec.get("minCount", 0), pspec.get("maxCount")
            return lambda kinds: len(kinds) >= low and (high is None or len(kinds) <= high)
    return None


def _inline_test(shape: Shape, namespace: dict) -> str | None:
    """A Python expression over `v` standing for all of shape's value checks, if it has any."""
    if not shape.value_checks:
        return None
    spec = shape.spec
    common = len(spec["class"]) + len(spec["nodeKind"]) + len(spec["or"]) + len(spec["node"]) \
        + len(spec["in"]) + len(spec["pattern"])
    inlined = {SH + "in", SH + "pattern", SH + "hasValue"}  # sh:hasValue is a list check
    if any(str(p) not in inlined for p in spec.get("others", ())) or len(shape.value_checks) != common:
        name = f"t{len(namespace)}"
        namespace[name] = tuple(shape.value_checks)
        return f"all(f(index, v) for f in {name})"
    parts = []
    for allowed in spec["in"]:
        name = f"t{len(namespace)}"
        namespace[name] = allowed
        parts.append(f"v in {name}")
    for regex in spec["pattern"]:
        name = f"t{len(namespace)}"
        namespace[name] = regex
        parts.append(f"pattern_ok({name}, v)")
    for kind in spec["nodeKind"]:
        if kind == SH + "IRI":
            parts.append('(type(v) is str and not v.startswith("_:"))')
        elif kind == SH + "Literal":
            parts.append("type(v) is Literal")
        else:
            name = f"t{len(namespace)}"
            namespace[name] = _NODE_KINDS[kind]
            parts.append(f"{name}(v)")
    for cls in spec["class"]:
        name = f"t{len(namespace)}"
        namespace[name] = cls
        parts.append(f"{name} in types_of(v)")
    for options in spec["or"]:
        tests = [_types_test(o) for o in options]
        name = f"t{len(namespace)}"
        if None in tests:
            namespace[name] = tuple(options)
            parts.append(f"any(conforms(o, index, v) for o in {name})")
        else:
            namespace[name] = tuple(tests)
            parts.append(f"any(f(types_of(v)) for f in {name})")
    for nested in spec["node"]:
        test = _types_test(nested)
        name = f"t{len(namespace)}"
        if test is None:
            namespace[name] = nested
            parts.append(f"conforms({name}, index, v)")
        else:
            namespace[name] = test
            parts.append(f"{name}(types_of(v))")
    return " and ".join(parts)


def _generate(rules: list, present: set) -> Callable | None:
    """One Python function running every value-reading property rule of a kind of node."""
    key = tuple((rule.iri, tuple(p for p in rule.path.predicates if p in present)) for rule in rules)
    if key not in _GENERATED:
        _GENERATED[key] = _generate_code(rules, present)
    return _GENERATED[key]


_GENERATED: dict = {}


def _generate_code(rules: list, present: set) -> Callable | None:
    namespace: dict = {"Literal": _Literal, "conforms": conforms, "NONE": _NONE, "pattern_ok": _pattern_ok}
    lines = ["def run(index, node, props, hits):", "    types_of = index.types_of", "    append = hits.append"]
    for rule in rules:
        predicates = [p for p in rule.path.predicates if p in present]
        code, path = repr(rule.code), repr(rule.path.report_path)
        if len(predicates) == 1:
            lines.append(f"    values = props[{predicates[0]!r}]")
        else:
            lines.append(f"    values = list(dict.fromkeys(v for p in {tuple(predicates)!r} for v in props[p]))")
        for test in rule.count_checks:
            name = f"t{len(namespace)}"
            namespace[name] = test
            lines.append(f"    if not {name}(len(values)): append(({code}, node, {path}, None))")
        for test in rule.list_checks:
            name = f"t{len(namespace)}"
            namespace[name] = test
            lines.append(f"    if not {name}(index, values): append(({code}, node, {path}, None))")
        expression = _inline_test(rule, namespace)
        if expression:
            lines.append("    for v in values:")
            lines.append(f"        if not ({expression}): append(({code}, node, {path}, v))")
    if len(lines) == 3:
        return None
    exec(compile("\n".join(lines), "<tgtrace compiled shapes>", "exec"), namespace)
    return namespace["run"]


def _node_runner(shape: Shape) -> Callable:
    code = shape.code

    def run(index, node, props, hits):
        for path, value in _own_violations(shape, index, node):
            hits.append((code, node, path, value))

    return run


def _sparql_runner(code: str, implementation: Callable) -> Callable:
    def run(index, node, props, hits):
        for path, value in implementation(index, node):
            # SHACL-SPARQL: a result that binds no ?value reports the focus node as its value.
            hits.append((code, node, path, node if value is None else value))

    return run


def count_kinds(index: Index) -> None:
    """Fill index.kinds without checking (check_index fills it as it goes)."""
    counts: dict = {}
    types = index.types
    for node, props in index.out.items():
        signature = (frozenset(types.get(node, _EMPTY)), tuple(props))
        counts[signature] = counts.get(signature, 0) + 1
    index.kinds = counts


def check(quads: Iterable[ox.Quad]) -> list[tuple]:
    return check_index(build_index(quads))
