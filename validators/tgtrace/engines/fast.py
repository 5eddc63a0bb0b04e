"""The fast engine: the shapes, compiled once into Python checks over an index.

SHACL Core constraints are read from the shapes graph and interpreted
generically, so a Core rule means exactly what its shape says. The few rules
that need SHACL-SPARQL have a Python implementation here, registered under the
IRI of their SPARQL constraint; tests run this engine and pySHACL on the same
traces and require the same (rule, focus) pairs.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from dataclasses import dataclass, field
from functools import cache
from typing import Callable, Iterable, Iterator

import pyoxigraph as ox
import rdflib

from ..namespaces import OWL, PROV, RDF, RDF_TYPE, SH, TG, TGL, TGSH, XSD

DERIVED = PROV + "wasDerivedFrom"
STATEMENT = RDF + "Statement"
_DECLARATION_KINDS = {OWL + "Class", OWL + "ObjectProperty", OWL + "DatatypeProperty",
                      OWL + "AnnotationProperty", OWL + "NamedIndividual"}


# ---------------------------------------------------------------------------
# The index: what the rules read.
# ---------------------------------------------------------------------------

class Index:
    """Subject -> predicate -> objects, with asserted types split out."""

    __slots__ = ("out", "types", "derived_by")

    def __init__(self) -> None:
        self.out: dict = {}
        self.types: dict = {}
        self.derived_by: dict | None = None

    def add(self, s, p: str, o) -> None:
        props = self.out.get(s)
        if props is None:
            props = self.out[s] = {}
        values = props.get(p)
        if values is None:
            props[p] = [o]
        elif o not in values:
            values.append(o)
        else:
            return
        if p == RDF_TYPE and type(o) is ox.NamedNode:
            kinds = self.types.get(s)
            if kinds is None:
                self.types[s] = {o.value}
            else:
                kinds.add(o.value)

    def types_of(self, node) -> set:
        if type(node) is ox.Triple:
            return {STATEMENT}  # a triple term stands for an rdf:Statement
        return self.types.get(node, _EMPTY)

    def values(self, node, predicate: str) -> list:
        props = self.out.get(node)
        if props is None:
            return _NONE
        return props.get(predicate, _NONE)

    def children(self, node) -> list:
        """Nodes that derive from node."""
        if self.derived_by is None:
            derived_by: dict = defaultdict(list)
            for s, props in self.out.items():
                for o in props.get(DERIVED, ()):
                    derived_by[o].append(s)
            self.derived_by = derived_by
        return self.derived_by.get(node, _NONE)


_EMPTY: set = frozenset()
_NONE: list = ()


# ---------------------------------------------------------------------------
# Compiling the shapes.
# ---------------------------------------------------------------------------

@dataclass
class Path:
    predicates: tuple[str, ...]
    inverse: bool = False

    def values(self, index: Index, node) -> list:
        if self.inverse:
            raise NotImplementedError("inverse paths are not used by the shapes")
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
    # Value-level checks: (component name, test(index, value) -> bool conforming)
    value_checks: list = field(default_factory=list)
    # Count-level checks: (component, test(count) -> bool)
    count_checks: list = field(default_factory=list)
    # Checks on the whole value list: (component, test(index, values) -> bool)
    list_checks: list = field(default_factory=list)
    properties: list = field(default_factory=list)
    sparql: list = field(default_factory=list)
    target_classes: set = field(default_factory=set)
    target_subjects_of: set = field(default_factory=set)
    target_all_nodes: bool = False


def _ox(term):
    if isinstance(term, rdflib.URIRef):
        return ox.NamedNode(str(term))
    if isinstance(term, rdflib.Literal):
        if term.language:
            return ox.Literal(str(term), language=term.language)
        if term.datatype is not None:
            return ox.Literal(str(term), datatype=ox.NamedNode(str(term.datatype)))
        return ox.Literal(str(term))
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
        code = self.g.value(node, rdflib.URIRef(TGL + "code"))
        shape.code = str(code) if code is not None else None
        g, sh = self.g, self.sh
        path = self.value(node, "path")
        if path is not None:
            shape.path = self.path(path)
        shape.target_classes = {str(c) for c in g.objects(node, sh.targetClass)}
        shape.target_subjects_of = {str(p) for p in g.objects(node, sh.targetSubjectsOf)}
        for target in g.objects(node, sh.target):
            if (target, rdflib.RDF.type, sh.SPARQLTarget) in g:
                shape.target_all_nodes = True  # the only SPARQL target used: every described node
        self.constraints(node, shape)
        for prop in g.objects(node, sh.property):
            shape.properties.append(self.shape(prop))
        for constraint in g.objects(node, sh.sparql):
            code = g.value(constraint, rdflib.URIRef(TGL + "code"))
            implementation = SPARQL_RULES.get(str(constraint))
            if implementation is None:
                raise ValueError(f"the fast engine has no implementation of {constraint}")
            shape.sparql.append((str(code), implementation))
        return shape

    def path(self, node) -> Path:
        if isinstance(node, rdflib.URIRef):
            return Path((str(node),))
        alternatives = self.value(node, "alternativePath")
        if alternatives is not None:
            return Path(tuple(str(p) for p in self.items(alternatives)))
        inverse = self.value(node, "inversePath")
        if inverse is not None:
            return Path((str(inverse),), inverse=True)
        raise ValueError(f"unsupported path {node}")

    def constraints(self, node, shape: Shape) -> None:
        g, sh = self.g, self.sh
        for minimum in g.objects(node, sh.minCount):
            n = int(minimum)
            shape.count_checks.append(("MinCount", lambda c, n=n: c >= n))
        for maximum in g.objects(node, sh.maxCount):
            n = int(maximum)
            shape.count_checks.append(("MaxCount", lambda c, n=n: c <= n))
        for required in g.objects(node, sh.hasValue):
            term = _ox(required)
            shape.list_checks.append(("HasValue", lambda index, values, t=term: t in values))
        for members in g.objects(node, sh["in"]):
            allowed = frozenset(_ox(m) for m in self.items(members))
            shape.value_checks.append(("In", lambda index, v, a=allowed: v in a))
        for pattern in g.objects(node, sh.pattern):
            regex = re.compile(str(pattern))
            shape.value_checks.append(("Pattern", lambda index, v, r=regex: _pattern_ok(r, v)))
        for kind in g.objects(node, sh.nodeKind):
            test = _NODE_KINDS[str(kind)]
            shape.value_checks.append(("NodeKind", lambda index, v, t=test: t(v)))
        for cls in g.objects(node, sh["class"]):
            name = str(cls)
            shape.value_checks.append(("Class", lambda index, v, c=name: c in index.types_of(v)))
        for other in g.objects(node, sh.node):
            nested = self.shape(other)
            shape.value_checks.append(("Node", lambda index, v, s=nested: conforms(s, index, v)))
        for alternatives in g.objects(node, sh["or"]):
            options = [self.shape(m) for m in self.items(alternatives)]
            shape.value_checks.append(
                ("Or", lambda index, v, o=options: any(conforms(s, index, v) for s in o)))
        for alternatives in g.objects(node, sh.xone):
            options = [self.shape(m) for m in self.items(alternatives)]
            shape.value_checks.append(
                ("Xone", lambda index, v, o=options: sum(conforms(s, index, v) for s in o) == 1))
        for negated in g.objects(node, sh["not"]):
            nested = self.shape(negated)
            shape.value_checks.append(("Not", lambda index, v, s=nested: not conforms(s, index, v)))
        qualified = self.value(node, "qualifiedValueShape")
        if qualified is not None:
            nested = self.shape(qualified)
            low = self.value(node, "qualifiedMinCount")
            high = self.value(node, "qualifiedMaxCount")

            def qualified_ok(index, values, s=nested, low=low, high=high):
                count = sum(1 for v in values if conforms(s, index, v))
                return (low is None or count >= int(low)) and (high is None or count <= int(high))

            shape.list_checks.append(("QualifiedValueShape", qualified_ok))


def _pattern_ok(regex, value) -> bool:
    if type(value) is ox.BlankNode or type(value) is ox.Triple:
        return False  # SHACL: sh:pattern fails on blank nodes (triple terms are blank nodes there)
    return regex.search(value.value) is not None


_NODE_KINDS: dict[str, Callable] = {
    SH + "IRI": lambda v: type(v) is ox.NamedNode,
    SH + "Literal": lambda v: type(v) is ox.Literal,
    SH + "BlankNode": lambda v: type(v) in (ox.BlankNode, ox.Triple),
    SH + "BlankNodeOrIRI": lambda v: type(v) is not ox.Literal,
    SH + "BlankNodeOrLiteral": lambda v: type(v) is not ox.NamedNode,
    SH + "IRIOrLiteral": lambda v: type(v) in (ox.NamedNode, ox.Literal),
}


def conforms(shape: Shape, index: Index, node) -> bool:
    """Does node conform to shape (used for shapes nested in sh:node, sh:or, ...)?"""
    for _ in _violations(shape, index, node):
        return False
    return True


def _violations(shape: Shape, index: Index, focus) -> Iterator[tuple]:
    """(path, value) of each violation of shape's own constraints at focus."""
    if shape.path is not None:
        values = shape.path.values(index, focus)
        path = shape.path.report_path
        for _, test in shape.count_checks:
            if not test(len(values)):
                yield path, None
        for _, test in shape.list_checks:
            if not test(index, values):
                yield path, None
        for _, test in shape.value_checks:
            for value in values:
                if not test(index, value):
                    yield path, value
        for prop in shape.properties:  # nested property shapes of a property shape: unused
            yield from _violations(prop, index, focus)
    else:
        for _, test in shape.value_checks:
            if not test(index, focus):
                yield None, focus
        for prop in shape.properties:
            for hit in _violations(prop, index, focus):
                yield hit
                return


# ---------------------------------------------------------------------------
# SHACL-SPARQL constraints, implemented over the index.
# ---------------------------------------------------------------------------

SPARQL_RULES: dict[str, Callable] = {}


def sparql_rule(local_name: str):
    def register(function):
        SPARQL_RULES[TGSH + local_name] = function
        return function

    return register


def _ancestors(index: Index, node) -> set:
    seen: set = set()
    stack = list(index.values(node, DERIVED))
    while stack:
        current = stack.pop()
        if current in seen:
            continue
        seen.add(current)
        stack.extend(index.values(current, DERIVED))
    return seen


def _descendants(index: Index, node) -> set:
    seen: set = set()
    stack = list(index.children(node))
    while stack:
        current = stack.pop()
        if current in seen:
            continue
        seen.add(current)
        stack.extend(index.children(current))
    return seen


@sparql_rule("derivation-cycle")
def derivation_cycle(index: Index, focus) -> Iterator:
    if focus in _ancestors(index, focus):
        yield None, None


def is_json(value) -> bool:
    try:
        json.loads(value)
    except ValueError:
        return False
    return True


@sparql_rule("arguments-json")
def arguments_json(index: Index, focus) -> Iterator:
    for value in index.values(focus, TG + "arguments"):
        if type(value) is not ox.Literal or not is_json(value.value):
            yield TG + "arguments", value


def _step(index: Index, node) -> int | None:
    for value in index.values(node, TG + "stepNumber"):
        text = value.value if type(value) is ox.Literal else ""
        # xsd:integer(STR(?n)) accepts an optional sign and digits only.
        if re.fullmatch(r"[+-]?[0-9]+", text):
            return int(text)
    return None


@sparql_rule("analysis-order")
def analysis_order(index: Index, focus) -> Iterator:
    ANALYSIS = TG + "Analysis"
    step = _step(index, focus)
    for value in index.values(focus, DERIVED):
        branching = any(other != focus and ANALYSIS in index.types_of(other)
                        for other in index.children(value))
        kinds = index.types_of(value)
        wrong_start = step is not None and step != 1 and (
            TG + "Question" in kinds or TG + "PatternDecision" in kinds)
        wrong_previous = False
        if step is not None and TG + "Observation" in kinds:
            ancestors = _ancestors(index, value)
            analyses = [a for a in ancestors if ANALYSIS in index.types_of(a)]
            for previous in analyses:
                between = any(b != previous and previous in _ancestors(index, b) for b in analyses)
                if between:
                    continue
                for m in index.values(previous, TG + "stepNumber"):
                    number = _step_value(m)
                    if number is not None and number != step - 1:
                        wrong_previous = True
        if branching or wrong_start or wrong_previous:
            yield None, value


def _step_value(term) -> int | None:
    text = term.value if type(term) is ox.Literal else ""
    return int(text) if re.fullmatch(r"[+-]?[0-9]+", text) else None


def _is_root_question(index: Index, node) -> bool:
    QUESTION = TG + "Question"
    if QUESTION not in index.types_of(node):
        return False
    return not any(QUESTION in index.types_of(a) for a in _ancestors(index, node))


def _agent_synthesis(index: Index, node) -> bool:
    steps = {TG + "StepResult", TG + "Finding"}
    return any(steps & index.types_of(v) for v in index.values(node, DERIVED))


def _terminal_answers(index: Index, root) -> set:
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
        count = len(_terminal_answers(index, focus))
        if count > 1:
            yield None, ox.Literal(str(count), datatype=ox.NamedNode(XSD + "integer"))


@sparql_rule("no-answer")
def no_answer(index: Index, focus) -> Iterator:
    if _is_root_question(index, focus) and not _terminal_answers(index, focus):
        yield None, None


TERMINATION_REASONS = ("final-answer", "plan-complete", "subagents-complete", "max-iterations", "error")
PATTERN_REASONS = {
    "react": {"final-answer", "max-iterations", "error"},
    "plan-then-execute": {"plan-complete", "error"},
    "supervisor": {"subagents-complete", "error"},
}


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
    pattern = answer_pattern(index, focus)
    allowed = PATTERN_REASONS.get(pattern, ())
    for value in index.values(focus, TG + "terminationReason"):
        text = value.value if type(value) is not ox.BlankNode and type(value) is not ox.Triple else None
        if text in TERMINATION_REASONS and text not in allowed:
            yield TG + "terminationReason", value


@sparql_rule("termination-missing")
def termination_missing(index: Index, focus) -> Iterator:
    kinds = index.types_of(focus)
    agent_answer = TG + "Conclusion" in kinds or (TG + "Synthesis" in kinds and _agent_synthesis(index, focus))
    if agent_answer and not index.values(focus, TG + "terminationReason"):
        yield None, None


def _tg_iri(term) -> bool:
    return type(term) is ox.NamedNode and term.value.startswith(TG)


@sparql_rule("unknown-class")
def unknown_class(index: Index, focus) -> Iterator:
    for value in index.values(focus, RDF_TYPE):
        if _tg_iri(value) and OWL + "Class" not in index.types_of(value):
            yield RDF_TYPE, value


_PROPERTY_KINDS = {OWL + "ObjectProperty", OWL + "DatatypeProperty", OWL + "AnnotationProperty"}


@sparql_rule("unknown-predicate")
def unknown_predicate(index: Index, focus) -> Iterator:
    for predicate in index.out.get(focus, {}):
        if predicate.startswith(TG) and not (_PROPERTY_KINDS & index.types_of(ox.NamedNode(predicate))):
            yield predicate, None


@sparql_rule("deprecated-term")
def deprecated_term(index: Index, focus) -> Iterator:
    deprecated = index.values  # readability below
    props = index.out.get(focus, {})
    terms = [v for v in props.get(RDF_TYPE, ()) if _tg_iri(v)]
    terms += [ox.NamedNode(p) for p in props if p.startswith(TG)]
    for term in terms:
        if _TRUE in deprecated(term, OWL + "deprecated"):
            yield None, term


_TRUE = ox.Literal("true", datatype=ox.NamedNode(XSD + "boolean"))


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
    for node in set(graph.subjects(rdflib.RDF.type, rdflib.URIRef(SH + "NodeShape"))):
        shape = compiler.shape(node)
        for cls in shape.target_classes:
            compiled.by_class[cls].append(shape)
        for predicate in shape.target_subjects_of:
            compiled.by_subject_of[predicate].append(shape)
        if shape.target_all_nodes:
            compiled.every_node.append(shape)
    for s, p, o in declarations():
        compiled.declarations.append((_ox(s), str(p), _ox(o)))
    return compiled


def new_index() -> Index:
    index = Index()
    for s, p, o in program().declarations:
        index.add(s, p, o)
    return index


def build_index(quads: Iterable[ox.Quad]) -> Index:
    index = new_index()
    add = index.add
    for quad in quads:
        add(quad.subject, quad.predicate.value, quad.object)
    return index


def _declared(index: Index, node) -> bool:
    return bool(_DECLARATION_KINDS & index.types_of(node))


def check_index(index: Index) -> list[tuple]:
    """(code, focus, path, value) of every violation."""
    compiled = program()
    by_class, by_subject_of = compiled.by_class, compiled.by_subject_of
    hits: list[tuple] = []
    for node, props in index.out.items():
        shapes: list[Shape] = []
        for cls in index.types.get(node, ()):
            shapes.extend(by_class.get(cls, ()))
        for predicate in props:
            shapes.extend(by_subject_of.get(predicate, ()))
        if compiled.every_node and not _declared(index, node):
            shapes.extend(compiled.every_node)
        seen = set()
        for shape in shapes:
            if shape.iri in seen:
                continue
            seen.add(shape.iri)
            _run(shape, index, node, hits)
    return hits


def _run(shape: Shape, index: Index, focus, hits: list) -> None:
    if shape.code is not None:
        for path, value in _own_violations(shape, index, focus):
            hits.append((shape.code, focus, path, value))
    for prop in shape.properties:
        if prop.code is None:
            continue
        for path, value in _own_violations(prop, index, focus):
            hits.append((prop.code, focus, path, value))
    for code, implementation in shape.sparql:
        for path, value in implementation(index, focus):
            hits.append((code, focus, path, value))


def _own_violations(shape: Shape, index: Index, focus) -> Iterator[tuple]:
    if shape.path is not None:
        yield from _violations(shape, index, focus)
    else:
        for _, test in shape.value_checks:
            if not test(index, focus):
                yield None, focus


def check(quads: Iterable[ox.Quad]) -> list[tuple]:
    return check_index(build_index(quads))
