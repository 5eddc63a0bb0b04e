"""Native implementations of constraint components and target types, keyed by their IRIs.

Each SHACL Core component is implemented once here, and so is each of the
project's own components (declared as SHACL-SPARQL in shapes/components.ttl,
whose SPARQL the reference engine runs). No implementation names a rule:
rules are shapes that use these components with parameters.

A component is a function ``check(ctx, shape, focus, values, params)`` that
yields ``(value, path)`` for each validation result: ``value`` is the
result's sh:value (None for results without one, such as sh:minCount), and
``path`` is None (the shape's own path) or a predicate IRI the component
reports instead (as a SPARQL validator binding ?path does). ``values`` is the
list of value nodes (for a node shape, the focus alone). Components marked
``static`` depend only on the focus node's types and predicates, so the
engine decides them once per kind of node; ``value_tests`` gives a test of one
value for components that judge each value on its own, which the engine can
inline in generated code.
"""

from __future__ import annotations

import datetime
import json
import re
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from functools import cache
from collections.abc import Callable

import pyoxigraph as ox
import rdflib

from ..graph import (DERIVED, TraceGraph, answer_pattern, is_iri, is_root_question, key_from_rdflib,
                     terminal_answers, to_rdflib)
from ..generations import infer
from ..namespaces import RDF, SH, TG, TGL, XSD
from ..vocabulary import permitted_reasons, termination_reasons

_Literal, _Triple = ox.Literal, ox.Triple
LANG_STRING = RDF + "langString"
XSD_STRING = XSD + "string"
_BOOLEAN = rdflib.URIRef(XSD + "boolean")


@dataclass(frozen=True)
class Native:
    check: Callable
    static: bool = False  # decided by the focus node's types and predicates alone
    # A test of one value node (index, value) -> conforms, for components that judge values one by one.
    value_test: Callable | None = None
    # The component finds the values it reports itself (among the path's values, by construction of
    # its SPARQL): the engine need not walk the shape's path first.
    own_values: bool = False
    # (graph, params) -> the only focus nodes that can fail, so that the others are not visited.
    candidates: Callable | None = None


COMPONENTS: dict[str, Native] = {}
# Target types: IRI -> matches(graph, types, predicates, params) -> bool (decided per kind of node).
TARGET_TYPES: dict[str, Callable] = {}
# Target types decided per graph: IRI -> nodes(graph, params) -> the focus nodes.
TARGET_NODES: dict[str, Callable] = {}


def component(local: str, namespace: str = SH, static: bool = False, own_values: bool = False,
              candidates: Callable | None = None):
    def register(check):
        COMPONENTS[namespace + local] = Native(check, static, None, own_values, candidates)
        return check
    return register


def per_value(local: str, namespace: str = SH):
    """A component whose results are exactly the values failing a test built from the params."""
    def register(make_test):
        def check(ctx, shape, focus, values, params):
            test = make_test(ctx, params)
            for value in values:
                if not test(ctx.graph, value):
                    yield value, None
        COMPONENTS[namespace + local] = Native(check, False, make_test)
        return make_test
    return register


class Context:
    """What a component sees: the graph, and how to ask whether a node conforms to a shape."""

    def __init__(self, graph: TraceGraph, conforms: Callable):
        self.graph = graph
        self.conforms = conforms  # (shape, node) -> bool


def _param(params: dict, local: str, namespace: str = SH):
    return params.get(namespace + local)


def _true(term) -> bool:
    # SHACL switches a boolean parameter on with the literal true alone: "1"^^xsd:boolean,
    # the same value, is another term and leaves the constraint off (W3C uniqueLang-002).
    return isinstance(term, rdflib.Literal) and term.datatype == _BOOLEAN and str(term) == "true"


# ---------------------------------------------------------------- value types

def _no_constant(name: str):
    raise ValueError(f"{name} is not JSON")  # Python reads NaN and Infinity; RFC 8259 does not


def is_json(text: str) -> bool:
    try:
        json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        return False
    return True


def _lexical(value) -> str | None:
    """The string SHACL's string-based components read: a literal's form or an IRI; None for blank nodes."""
    if type(value) is _Literal:
        return value.value
    if is_iri(value):
        return value
    return None


# SPARQL's "<" (SPARQL 1.1, 17.3) is defined within these groups only: numbers of any
# numeric type, simple literals and xsd:string, booleans, and each date/time type with
# itself. Values from two groups, language-tagged strings, other datatypes, IRIs, blank
# nodes and ill-typed literals are not comparable, which the range and lessThan
# components report as a violation. rdflib's Literal ordering cannot stand in for this:
# it orders any two literals (by datatype IRI when it has nothing better).
_INTEGERS = {  # xsd:integer and its derived types, with their value ranges
    "integer": (None, None), "nonPositiveInteger": (None, 0), "negativeInteger": (None, -1),
    "long": (-2**63, 2**63 - 1), "int": (-2**31, 2**31 - 1), "short": (-2**15, 2**15 - 1),
    "byte": (-2**7, 2**7 - 1), "nonNegativeInteger": (0, None), "positiveInteger": (1, None),
    "unsignedLong": (0, 2**64 - 1), "unsignedInt": (0, 2**32 - 1), "unsignedShort": (0, 2**16 - 1),
    "unsignedByte": (0, 2**8 - 1)}
_INTEGERS = {XSD + name: bounds for name, bounds in _INTEGERS.items()}
_INTEGER_TEXT = re.compile(r"[+-]?[0-9]+")
_DECIMAL_TEXT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")
_FLOAT_TEXT = re.compile(r"(?:[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[+-]?INF|NaN)")
_TZ = r"(Z|[+-](?:(?:0[0-9]|1[0-3]):[0-5][0-9]|14:00))?"
_DATE_TEXT = re.compile(r"(-?[0-9]{4,})-([0-9]{2})-([0-9]{2})" + _TZ)
_TIME_TEXT = re.compile(r"([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]+)?" + _TZ)
_DATETIME_TEXT = re.compile(r"(-?[0-9]{4,})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]+)?" + _TZ)


def _offset(zone: str | None) -> int:
    """A timezone's offset in seconds."""
    if not zone or zone == "Z":
        return 0
    sign = -1 if zone[0] == "-" else 1
    return sign * (int(zone[1:3]) * 3600 + int(zone[4:6]) * 60)


def _seconds(hour: str, minute: str, second: str, fraction: str | None) -> Decimal | None:
    h, m, s = int(hour), int(minute), int(second)
    if m > 59 or s > 59 or h > 24 or (h == 24 and (m or s or (fraction and Decimal(fraction)))):
        return None
    return Decimal(h * 3600 + m * 60 + s) + (Decimal(fraction) if fraction else 0)


def _day(year: str, month: str, day: str) -> int | None:
    # Days as Python counts them; years outside 1..9999 are not compared.
    try:
        return date(int(year), int(month), int(day)).toordinal()
    except ValueError:
        return None


def _order_key(value) -> tuple | None:
    """(group, key): literals of one group are ordered by their keys; None when "<" is undefined."""
    if type(value) is not _Literal or value.language:
        return None
    datatype, text = value.datatype.value, value.value
    if datatype == XSD_STRING:
        return "string", text
    text = text.strip()  # the numeric and date/time types collapse whitespace
    if datatype in _INTEGERS:
        if not _INTEGER_TEXT.fullmatch(text):
            return None
        number, (low, high) = int(text), _INTEGERS[datatype]
        if (low is not None and number < low) or (high is not None and number > high):
            return None
        return "number", number
    if datatype == XSD + "decimal":
        return ("number", Decimal(text)) if _DECIMAL_TEXT.fullmatch(text) else None
    if datatype in (XSD + "double", XSD + "float"):
        if not _FLOAT_TEXT.fullmatch(text):
            return None
        double = float(text)
        return None if double != double else ("number", double)  # NaN compares with nothing
    if datatype == XSD + "boolean":
        return ("boolean", text in ("true", "1")) if text in ("true", "false", "1", "0") else None
    if datatype in (XSD + "dateTime", XSD + "dateTimeStamp"):
        match = _DATETIME_TEXT.fullmatch(text)
        if match is None or (datatype == XSD + "dateTimeStamp" and match[8] is None):
            return None
        day, seconds = _day(*match.group(1, 2, 3)), _seconds(*match.group(4, 5, 6, 7))
        if day is None or seconds is None:
            return None
        # With and without a timezone are not comparable (XPath's implicit timezone is not SPARQL's).
        return ("dateTime", match[8] is not None), day * 86400 + seconds - _offset(match[8])
    if datatype == XSD + "date":
        match = _DATE_TEXT.fullmatch(text)
        day = _day(*match.group(1, 2, 3)) if match else None
        return None if day is None or match is None else (("date", match[4] is not None), day * 86400 - _offset(match[4]))
    if datatype == XSD + "time":
        match = _TIME_TEXT.fullmatch(text)
        seconds = _seconds(*match.group(1, 2, 3, 4)) if match else None
        return None if seconds is None or match is None else (("time", match[5] is not None), seconds - _offset(match[5]))
    return None


def _compare(a, b) -> int | None:
    """-1, 0 or 1 by SPARQL's ordering of a and b, or None when they are not comparable."""
    left, right = _order_key(a), _order_key(b)
    if left is None or right is None or left[0] != right[0]:
        return None
    return (left[1] > right[1]) - (left[1] < right[1])


# ------------------------------------------------------- value type components

@per_value("ClassConstraintComponent")
def _class(ctx, params):
    cls = str(_param(params, "class"))
    return lambda graph, v: type(v) is not _Literal and graph.has_class(v, cls)


@per_value("DatatypeConstraintComponent")
def _datatype(ctx, params):
    datatype = str(_param(params, "datatype"))

    def test(graph, v):
        if type(v) is not _Literal:
            return False
        actual = LANG_STRING if v.language else v.datatype.value
        return actual == datatype and well_formed(to_rdflib(v))
    return test


# rdflib parses these datatypes leniently (a date is accepted as an xsd:dateTime), so the
# parsed value's Python type is checked too, as SHACL's "well-formed literal" asks.
_VALUE_TYPES = {
    XSD + "boolean": (bool,), XSD + "integer": (int,), XSD + "float": (float,),
    XSD + "double": (float,), XSD + "decimal": (Decimal,),
    XSD + "date": (datetime.date,), XSD + "time": (datetime.time,),
    XSD + "dateTime": (datetime.datetime,),
}


def well_formed(literal: rdflib.Literal) -> bool:
    if literal.ill_typed:
        return False
    types = _VALUE_TYPES.get(str(literal.datatype))
    if types is None:
        return True
    value = literal.value
    if isinstance(value, bool) and bool not in types:
        return False  # bool is an int to Python
    if isinstance(value, datetime.datetime) and datetime.datetime not in types:
        return False  # and a datetime is a date
    return isinstance(value, types)


def _blank_node(v) -> bool:
    return type(v) is str and v.startswith("_:")  # an RDF 1.2 triple term is of no node kind of SHACL 1.0


NODE_KINDS: dict[str, Callable] = {
    SH + "IRI": is_iri,
    SH + "Literal": lambda v: type(v) is _Literal,
    SH + "BlankNode": _blank_node,
    SH + "BlankNodeOrIRI": lambda v: type(v) is str,
    SH + "BlankNodeOrLiteral": lambda v: _blank_node(v) or type(v) is _Literal,
    SH + "IRIOrLiteral": lambda v: is_iri(v) or type(v) is _Literal,
}


@per_value("NodeKindConstraintComponent")
def _node_kind(ctx, params):
    kind = NODE_KINDS[str(_param(params, "nodeKind"))]
    return lambda graph, v: kind(v)


# ------------------------------------------------------ cardinality components

@component("MinCountConstraintComponent")
def _min_count(ctx, shape, focus, values, params):
    if len(values) < int(_param(params, "minCount")):
        yield None, None


@component("MaxCountConstraintComponent")
def _max_count(ctx, shape, focus, values, params):
    if len(values) > int(_param(params, "maxCount")):
        yield None, None


# ------------------------------------------------------------ range components

def _range(local: str, accept: Callable[[int], bool]):
    @per_value(local + "ConstraintComponent")
    def make(ctx, params):
        bound = _order_key(key_from_rdflib(_param(params, local[0].lower() + local[1:])))

        def test(graph, v):  # _compare with the bound's key read once
            key = _order_key(v)
            return bound is not None and key is not None and key[0] == bound[0] and \
                accept((key[1] > bound[1]) - (key[1] < bound[1]))
        return test


_range("MinExclusive", lambda order: order > 0)
_range("MinInclusive", lambda order: order >= 0)
_range("MaxExclusive", lambda order: order < 0)
_range("MaxInclusive", lambda order: order <= 0)


# ------------------------------------------------------- string-based components

@per_value("MinLengthConstraintComponent")
def _min_length(ctx, params):
    n = int(_param(params, "minLength"))
    return lambda graph, v: (text := _lexical(v)) is not None and len(text) >= n


@per_value("MaxLengthConstraintComponent")
def _max_length(ctx, params):
    n = int(_param(params, "maxLength"))
    return lambda graph, v: (text := _lexical(v)) is not None and len(text) <= n


_FLAGS = {"i": re.IGNORECASE, "m": re.MULTILINE, "s": re.DOTALL, "x": re.VERBOSE}


def compile_pattern(pattern, flags=None) -> re.Pattern:
    value = 0
    for flag in str(flags or ""):
        value |= _FLAGS.get(flag, 0)
    return re.compile(str(pattern), value)


def pattern_ok(regex: re.Pattern, value) -> bool:
    text = _lexical(value)  # SHACL: sh:pattern fails on blank nodes (and triple terms)
    return text is not None and regex.search(text) is not None


@per_value("PatternConstraintComponent")
def _pattern(ctx, params):
    regex = compile_pattern(_param(params, "pattern"), _param(params, "flags"))
    return lambda graph, v: pattern_ok(regex, v)


def _lang_matches(tag: str, range_: str) -> bool:
    # SPARQL langMatches: basic filtering (RFC 4647), "*" matches any tag.
    tag, range_ = tag.lower(), range_.lower()
    if range_ == "*":
        return bool(tag)
    return tag == range_ or tag.startswith(range_ + "-")


@per_value("LanguageInConstraintComponent")
def _language_in(ctx, params):
    ranges = [str(r) for r in _param(params, "languageIn")]
    return lambda graph, v: type(v) is _Literal and bool(v.language) and \
        any(_lang_matches(v.language, r) for r in ranges)  # type: ignore[arg-type]  # not empty: checked first


@component("UniqueLangConstraintComponent")
def _unique_lang(ctx, shape, focus, values, params):
    if not _true(_param(params, "uniqueLang")):
        return
    seen: dict[str, int] = {}
    for v in values:
        if type(v) is _Literal and v.language:
            tag = v.language.lower()
            seen[tag] = seen.get(tag, 0) + 1
    for _tag, count in seen.items():
        if count > 1:
            yield None, None


# ------------------------------------------------ property pair components

@component("EqualsConstraintComponent")
def _equals(ctx, shape, focus, values, params):
    other = list(ctx.graph.values(focus, str(_param(params, "equals"))))
    for v in values:
        if v not in other:
            yield v, None
    for v in other:
        if v not in values:
            yield v, None


@component("DisjointConstraintComponent")
def _disjoint(ctx, shape, focus, values, params):
    other = ctx.graph.values(focus, str(_param(params, "disjoint")))
    for v in values:
        if v in other:
            yield v, None


def _less(local: str, accept: Callable[[int], bool]):
    @component(local[0].upper() + local[1:] + "ConstraintComponent")
    def check(ctx, shape, focus, values, params):
        others = ctx.graph.values(focus, str(_param(params, local)))
        for v in values:
            for w in others:
                order = _compare(v, w)
                if order is None or not accept(order):
                    yield v, None


_less("lessThan", lambda order: order < 0)
_less("lessThanOrEquals", lambda order: order <= 0)


# ------------------------------------------------------- logical components

@per_value("NotConstraintComponent")
def _not(ctx, params):
    negated = _param(params, "not")
    return lambda graph, v: not ctx.conforms(negated, v)


# The tests below run for every value of every node a shape targets: plain loops, not a
# generator per call.

@per_value("AndConstraintComponent")
def _and(ctx, params):
    members, conforms = tuple(_param(params, "and")), ctx.conforms

    def test(graph, v):
        for shape in members:
            if not conforms(shape, v):
                return False
        return True
    return test


@per_value("OrConstraintComponent")
def _or(ctx, params):
    members, conforms = tuple(_param(params, "or")), ctx.conforms

    def test(graph, v):
        for shape in members:
            if conforms(shape, v):
                return True
        return False
    return test


@per_value("XoneConstraintComponent")
def _xone(ctx, params):
    members = _param(params, "xone")
    return lambda graph, v: sum(1 for s in members if ctx.conforms(s, v)) == 1


# ---------------------------------------------------- shape-based components

@per_value("NodeConstraintComponent")
def _node(ctx, params):
    nested = _param(params, "node")
    return lambda graph, v: ctx.conforms(nested, v)


@component("QualifiedValueShapeConstraintComponent")
def _qualified(ctx, shape, focus, values, params):
    nested = _param(params, "qualifiedValueShape")
    siblings = getattr(shape, "qualified_siblings", ()) if _true(_param(params, "qualifiedValueShapesDisjoint")) else ()
    count = sum(1 for v in values
                if ctx.conforms(nested, v) and not any(ctx.conforms(s, v) for s in siblings))
    low, high = _param(params, "qualifiedMinCount"), _param(params, "qualifiedMaxCount")
    if low is not None and count < int(low):
        yield None, SH + "QualifiedMinCountConstraintComponent"
    if high is not None and count > int(high):
        yield None, SH + "QualifiedMaxCountConstraintComponent"


# Qualified results name one of two components; the engine reads them from the path slot.
QUALIFIED_RESULT_COMPONENTS = {SH + "QualifiedMinCountConstraintComponent", SH + "QualifiedMaxCountConstraintComponent"}


# ------------------------------------------------------------ other components

@component("ClosedConstraintComponent")
def _closed(ctx, shape, focus, values, params):
    if not _true(_param(params, "closed")):
        return
    allowed = {p.path.iri for p in shape.properties if p.path is not None and p.path.iri}
    allowed |= {str(p) for p in _param(params, "ignoredProperties") or ()}
    for value in values:
        for predicate, objects in ctx.graph.out.get(value, {}).items():
            if predicate not in allowed:
                for o in objects:
                    yield o, predicate


@component("HasValueConstraintComponent")
def _has_value(ctx, shape, focus, values, params):
    if key_from_rdflib(_param(params, "hasValue")) not in values:
        yield None, None


@per_value("InConstraintComponent")
def _in(ctx, params):
    allowed = frozenset(key_from_rdflib(m) for m in _param(params, "in"))
    return lambda graph, v: v in allowed


# ===================================================================
# The project's components (shapes/components.ttl).
# ===================================================================

@component("AcyclicDerivationConstraintComponent", TGL, own_values=True,
           candidates=lambda graph, params: graph.on_cycles())
def _acyclic(ctx, shape, focus, values, params):
    if _true(_param(params, "acyclicDerivation", TGL)) and focus in ctx.graph.on_cycles():
        yield focus, None


@per_value("JSONTextConstraintComponent", TGL)
def _json_text(ctx, params):
    if not _true(_param(params, "jsonText", TGL)):
        return lambda graph, v: True
    return lambda graph, v: type(v) is _Literal and is_json(v.value)


_INTEGER = re.compile(r"[+-]?[0-9]+")


def _number(value) -> int | None:
    # SPARQL's xsd:integer(STR(?n)): an optional sign and digits.
    if type(value) is _Literal and _INTEGER.fullmatch(value.value):
        return int(value.value)
    return None


def _nearest_analyses(graph: TraceGraph, node) -> list:
    """The Analyses above node with no other Analysis between (the SPARQL's ?previous).

    Walking up stops at each Analysis, so a long ReAct loop costs one step per iteration; only
    when more than one Analysis is met first (branches) is each checked against the others."""
    analysis = TG + "Analysis"
    first: list = []
    seen: set = set()
    stack = list(graph.values(node, DERIVED))
    while stack:
        current = stack.pop()
        if current in seen:
            continue
        seen.add(current)
        if analysis in graph.types_of(current):
            first.append(current)
        else:
            stack.extend(graph.values(current, DERIVED))
    if len(first) < 2:
        return first
    return [a for a in first if not any(b != a and a in graph.ancestors(b) for b in first)]


@component("IterationOrderConstraintComponent", TGL, own_values=True)
def _iteration_order(ctx, shape, focus, values, params):
    # The out-of-order sources are the path's values (what the focus derives from directly),
    # found from the graph.
    if not _true(_param(params, "iterationOrder", TGL)):
        return
    graph = ctx.graph
    analysis = TG + "Analysis"
    steps = [n for n in map(_number, graph.values(focus, TG + "stepNumber")) if n is not None]
    for value in graph.values(focus, DERIVED):
        kinds = graph.types_of(value)
        branching = any(other != focus and analysis in graph.types_of(other) for other in graph.children(value))
        wrong_start = any(n != 1 for n in steps) and (TG + "Question" in kinds or TG + "PatternDecision" in kinds)
        wrong_previous = False
        if steps and TG + "Observation" in kinds:
            for previous in _nearest_analyses(graph, value):
                for m in map(_number, graph.values(previous, TG + "stepNumber")):
                    if m is not None and any(m != n - 1 for n in steps):
                        wrong_previous = True
        if branching or wrong_start or wrong_previous:
            yield value, None


def _iri_order(node) -> str:
    return node if type(node) is str else str(node)


def _root_questions(graph: TraceGraph) -> list:
    """The Questions that derive from no Question (computed once per graph)."""
    return graph.fact("root questions", lambda graph: [q for q in graph.questions if is_root_question(graph, q)])


# The three components below judge a root Question by a whole-trace fact. Their candidates are
# the roots that fail, found once per graph, so the other Questions cost nothing per node.

TARGET_NODES[TGL + "RootQuestionTarget"] = lambda graph, params: _root_questions(graph)


def _several_answers(graph: TraceGraph, params) -> set:
    if not _true(_param(params, "singleTerminalAnswer", TGL)):
        return set()
    return graph.fact("roots with several answers",
                      lambda graph: {q for q in _root_questions(graph) if len(terminal_answers(graph, q)) > 1})


@component("SingleTerminalAnswerConstraintComponent", TGL, own_values=True, candidates=_several_answers)
def _single_terminal_answer(ctx, shape, focus, values, params):
    # The terminal answers are among the path's values (the focus's descendants).
    if _true(_param(params, "singleTerminalAnswer", TGL)) and is_root_question(ctx.graph, focus):
        for answer in sorted(terminal_answers(ctx.graph, focus), key=_iri_order)[1:]:
            yield answer, None


def _unanswered(graph: TraceGraph, params) -> set:
    if not _true(_param(params, "terminalAnswerRequired", TGL)):
        return set()
    return graph.fact("roots without an answer",
                      lambda graph: {q for q in _root_questions(graph) if not terminal_answers(graph, q)})


@component("TerminalAnswerRequiredConstraintComponent", TGL, own_values=True, candidates=_unanswered)
def _terminal_answer_required(ctx, shape, focus, values, params):
    if _true(_param(params, "terminalAnswerRequired", TGL)) and is_root_question(ctx.graph, focus) \
            and not terminal_answers(ctx.graph, focus):
        yield focus, None


def _contradictory(graph: TraceGraph, params) -> set:
    if not _true(_param(params, "consistentTraceModel", TGL)):
        return set()
    def compute(graph):
        models = infer(graph)
        return {q for q in _root_questions(graph) if (model := models.get(q)) is not None and model.contradictory}
    return graph.fact("roots of contradictory models", compute)


@component("ConsistentTraceModelConstraintComponent", TGL, own_values=True, candidates=_contradictory)
def _consistent_trace_model(ctx, shape, focus, values, params):
    if _true(_param(params, "consistentTraceModel", TGL)) and is_root_question(ctx.graph, focus):
        inference = infer(ctx.graph).get(focus)
        if inference is not None and inference.contradictory:
            yield focus, None


@component("PermittedTerminationConstraintComponent", TGL)
def _permitted_termination(ctx, shape, focus, values, params):
    # The ontology's tg:permitsTerminationReason; tg-trace check verifies the SPARQL agrees.
    if not _true(_param(params, "permittedByPattern", TGL)):
        return
    allowed = permitted_reasons().get(answer_pattern(ctx.graph, focus), ())  # type: ignore[arg-type]  # None: none permitted
    known = termination_reasons()
    for value in values:
        text = value.value if type(value) is _Literal else (value if is_iri(value) else None)
        if text in known and text not in allowed:
            yield value, None


@cache
def _listed(text: str) -> frozenset[str]:
    """A parameter that lists IRIs separated by spaces (SPARQL cannot read a list of the shapes graph)."""
    return frozenset(text.split())


@component("DeclaredPredicatesConstraintComponent", TGL, static=True)
def _declared_predicates(ctx, shape, focus, predicates, params):
    namespace = str(_param(params, "declaredPredicatesIn", TGL))
    declared = _listed(str(_param(params, "declaredPredicates", TGL)))
    for predicate in predicates:
        if predicate.startswith(namespace) and predicate not in declared:
            yield focus, predicate


@component("NotDeprecatedConstraintComponent", TGL, static=True)
def _not_deprecated(ctx, shape, focus, predicates, params):
    namespace = str(_param(params, "notDeprecatedIn", TGL))
    deprecated = _listed(str(_param(params, "deprecatedPredicates", TGL)))
    for predicate in predicates:
        if predicate.startswith(namespace) and predicate in deprecated:
            yield focus, predicate


def _term_users(graph: TraceGraph, types, predicates, params) -> bool:
    return any(p.startswith(TG) for p in predicates)


TARGET_TYPES[TGL + "TermUsersTarget"] = _term_users


# ===================================================================
# TrustGraph 2.11.1's trace reader (tgl:ReachedByReaderConstraintComponent, family "reader").
# ===================================================================
#
# The entities of each trace that trustgraph.api.explainability.ExplainabilityClient of
# trustgraph-base 2.11.1 returns, computed once per graph by following the reader's own steps:
#
# - detect_session_type: "agent" in the root's IRI -> agent, else "question" -> graphrag, else
#   "docrag" -> docrag; otherwise the first of the first 5 entities deriving from the root that is
#   an Analysis, Decomposition or Plan (agent) or an Exploration (graphrag); graphrag by default.
# - fetch_entity: the first 100 triples of the entity, typed by ExplainEntity.from_triples's
#   dispatch (its order of isinstance tests: a Grounding that is also an Exploration is a Grounding).
#   An IRI not starting with http://, https:// or urn: is sent as a literal by build_term, and an
#   entity without triples is None: neither is ever returned.
# - fetch_graphrag_trace / fetch_docrag_trace: Question, then at each step the first of the first
#   10 entities deriving from the previous one that has the step's type (break after the first):
#   Grounding, Exploration, Focus (GraphRAG only, with the EdgeSelections its first 100 triples name
#   by tg:selectedEdge that have triples), Synthesis. A Focus between Exploration and Synthesis
#   (reranked DocRAG) ends a DocRAG trace at the Exploration.
# - fetch_agent_trace / _follow_provenance_chain: from the Question, the first 20 entities deriving
#   from each followed one, 50 levels deep: Analysis, Observation, Decomposition, Finding, Plan and
#   StepResult are kept and followed; a GraphRAG or DocRAG Question is kept with its sub-trace and
#   followed from the sub-trace's Synthesis; Conclusion and Synthesis are kept and end the branch;
#   anything else (PatternDecision, Thought, an agent Question of a supervisor's sub-agent, ...) is
#   dropped with all that derives from it.
#
# The reader receives triples in the store's order, which TrustGraph does not define; the limits
# (100, 20, 10, 5) and the first-match breaks are applied here in term order (N-Triples text of
# predicate and object, of the subject for derivations). The graph's named graphs are dropped by the
# loaders: the reader's graph (urn:graph:retrieval) is taken to hold the whole trace.
#
# The entities checked: the IRIs with triples of their own that belong to a root Question's trace
# (what derives from the root, and what the trace owns through tg:thought, tg:selectedEdge and
# tg:selectedChunk or, in old releases, links with prov:wasGeneratedBy), the root included. Each
# one no root's reading reaches is reported.

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
_RDF_TYPE = RDF + "type"


def _wire_text(node):
    """What extract_term_value makes of a term: an IRI's text, a literal's value, a triple as a
    dict (here None), a blank node as its dict's repr (never a type or a fetchable IRI)."""
    if type(node) is str:
        return None if node.startswith("_:") else node
    if type(node) is _Literal:
        return node.value
    return None


def _wire_order(node) -> str:
    """A term's N-Triples text: the order the limits and first matches are taken in."""
    if type(node) is str:
        return "<" + node + ">" if is_iri(node) else node
    return str(node)


def _queryable(text) -> bool:
    """build_term sends these as IRIs; any other string becomes a literal and matches no subject."""
    return type(text) is str and bool(text) and text.startswith(("http://", "https://", "urn:"))


class _Reader:
    """ExplainabilityClient's walk over one graph."""

    def __init__(self, graph: TraceGraph):
        self.graph = graph
        self._fetched: dict = {}
        self._children: dict = {}

    def triples(self, node) -> list:
        """fetch_entity's triples_query(s=node, limit=100): (predicate, object) pairs."""
        props = self.graph.out.get(node)
        if not props:
            return []
        pairs = [(p, o) for p, objects in props.items() for o in objects]
        if len(pairs) > 100:
            pairs = sorted(pairs, key=lambda po: ("<" + po[0] + ">", _wire_order(po[1])))[:100]
        return pairs

    def fetch(self, text):
        """(kind, question type, triples) of fetch_entity(text), or None."""
        if text in self._fetched:
            return self._fetched[text]
        found: tuple | None = None
        if _queryable(text):
            pairs = self.triples(text)
            if pairs:
                types = {_wire_text(o) for p, o in pairs if p == _RDF_TYPE}
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

    def kind(self, text):
        fetched = self.fetch(text)
        return fetched[0] if fetched is not None else None

    def derived(self, text, limit: int) -> list:
        """triples_query(p=prov:wasDerivedFrom, o=text, limit=limit): the subjects' wire texts."""
        children = self._children.get(text)
        if children is None:
            children = self._children[text] = sorted(self.graph.children(text), key=_wire_order)
        return [_wire_text(c) for c in children[:limit]]

    def first(self, text, kind: str):
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

    def rag_trace(self, question, graphrag: bool) -> tuple[list, object]:
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
                for p, o in self.fetch(focus)[2]:  # fetch_focus_with_edges
                    edge = _wire_text(o)
                    if p == _SELECTED_EDGE and isinstance(edge, str) and _queryable(edge) and self.triples(edge):
                        found.append(edge)
            last = focus
        found += [n for n in (grounding, exploration) if n]
        synthesis = self.first(last, "synthesis") if last else None
        if synthesis:
            found.append(synthesis)
        return found, synthesis

    def agent_trace(self, root) -> set:
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

    def read(self, root) -> set:
        """The entities the reader returns for the session root (as tg-show-explain-trace reads it)."""
        if not is_iri(root):
            return set()
        session = self.session_type(root)
        if session == "agent":
            return self.agent_trace(root)
        return set(self.rag_trace(root, session == "graphrag")[0])


def reader_reached(graph: TraceGraph) -> set:
    """Every entity TrustGraph 2.11.1's reader returns, reading each root Question's trace."""
    def compute(graph):
        reader = _Reader(graph)
        found: set = set()
        for root in graph.roots():
            if is_root_question(graph, root):
                found |= reader.read(root)
        return found
    return graph.fact("reader reached", compute)


def reader_missed(graph: TraceGraph) -> set:
    """The entities of root Questions' traces (IRIs with triples of their own) the reader does not reach."""
    def compute(graph):
        reached = reader_reached(graph)
        return {node for node in graph.out
                if is_iri(node) and node not in reached and (root := graph.root_of(node)) is not None
                and is_root_question(graph, root)}
    return graph.fact("reader missed", compute)


@component("ReachedByReaderConstraintComponent", TGL, own_values=True,
           candidates=lambda graph, params: reader_missed(graph) if _true(_param(params, "reachedByReader", TGL)) else set())
def _reached_by_reader(ctx, shape, focus, values, params):
    if _true(_param(params, "reachedByReader", TGL)) and focus in reader_missed(ctx.graph):
        yield focus, None
