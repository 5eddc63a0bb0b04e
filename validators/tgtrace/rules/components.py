"""The project's own constraint components and target types (declared as SHACL-SPARQL in
shapes/components.ttl, whose SPARQL the reference engine runs), registered beside SHACL Core's.

They carry TrustGraph's semantics (answers, trace models, termination reasons, what its reader
returns) into the generic engine, which knows them only as components. No component names a
rule: rules are shapes that use these components with parameters.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Sequence
from collections.abc import Set as AbstractSet
from functools import cache
from typing import TYPE_CHECKING, NoReturn

import pyoxigraph as ox
import rdflib

from ..ground.graph import DERIVED, Node, TraceGraph, is_iri
from ..ground.namespaces import TG, TGL
from ..shacl.component import TARGET_NODES, TARGET_TYPES, component, param, per_value, true
from ..shacl.shapes import TARGETS_INSTANCES_OF
from ..tracemodel.generations import infer
from ..tracemodel.reader import reader_missed
from ..tracemodel.traces import (
    answer_pattern,
    goals_unanswered,
    is_root_question,
    leaves,
    loop_never_ran,
    plan_unfinished,
    stops_short,
    terminal_answers,
    text_of,
)
from ..tracemodel.vocabulary import permitted_reasons, termination_reasons

if TYPE_CHECKING:
    from ..shacl.component import Context
    from ..shacl.component import Params as _Params
    from ..shacl.component import Results as _Results
    from ..shacl.shapes import Shape

_Literal = ox.Literal


def _no_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not JSON")  # Python reads NaN and Infinity; RFC 8259 does not


def is_json(text: str) -> bool:
    try:
        json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        return False
    return True


# The target types of candidates (shapes/components.ttl): each selects at least every node its
# rule's component reports natively, so that the rule's verdict is the component's.

TARGET_NODES[TGL + "DerivationCycleTarget"] = lambda graph, params: graph.on_cycles()
TARGET_NODES[TGL + "IterationOutOfOrderTarget"] = lambda graph, params: graph.instances(TG + "Analysis")
TARGET_NODES[TGL + "MislinkedThoughtTarget"] = lambda graph, params: graph.instances(TG + "Thought")


def _subjects_of(predicate: str) -> Callable[[TraceGraph, AbstractSet[str], tuple[str, ...], _Params], bool]:
    return lambda graph, types, predicates, params: predicate in predicates


TARGET_TYPES[TGL + "UnpermittedTerminationTarget"] = _subjects_of(TG + "terminationReason")
TARGET_TYPES[TGL + "UnsupportedClaimTarget"] = _subjects_of(TG + "terminationReason")
TARGET_TYPES[TGL + "NonFlatJSONValueTarget"] = (
    lambda graph, types, predicates, params: str(param(params, "valuesOf", TGL)) in predicates)


@component("AcyclicDerivationConstraintComponent", "acyclicDerivation", namespace=TGL, own_values=True,
           candidates=lambda graph, params: graph.on_cycles())
def _acyclic(ctx: Context, shape: Shape, focus: Node, values: Sequence[Node], params: _Params) -> _Results:
    if true(param(params, "acyclicDerivation", TGL)) and focus in ctx.graph.on_cycles():
        yield focus, None


@per_value("JSONTextConstraintComponent", "jsonText", namespace=TGL)
def _json_text(ctx: Context, params: _Params) -> Callable[[TraceGraph, Node], bool]:
    if not true(param(params, "jsonText", TGL)):
        return lambda graph, v: True
    return lambda graph, v: type(v) is _Literal and is_json(v.value)


_INTEGER = re.compile(r"[+-]?[0-9]+")


def _number(value: Node) -> int | None:
    # SPARQL's xsd:integer(STR(?n)): an optional sign and digits.
    if type(value) is _Literal and _INTEGER.fullmatch(value.value):
        return int(value.value)
    return None


def _nearest_analyses(graph: TraceGraph, node: Node) -> list:
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
    cyclic = graph.on_cycles()
    if cyclic and any(a in cyclic for a in first):
        # An Analysis on a cycle lies between the node and itself, so it is no one's nearest; and
        # the Analyses past it may be: judged over every Analysis above, as the SPARQL does.
        first = [a for a in graph.ancestors(node) if analysis in graph.types_of(a)]
        return [a for a in first if not any(a in graph.ancestors(b) for b in first)]
    if len(first) < 2:
        return first
    return [a for a in first if not any(b != a and a in graph.ancestors(b) for b in first)]


@component("IterationOrderConstraintComponent", "iterationOrder", namespace=TGL, own_values=True)
def _iteration_order(ctx: Context, shape: Shape, focus: Node, values: Sequence[Node],
                     params: _Params) -> _Results:
    # The out-of-order sources are the path's values (what the focus derives from directly),
    # found from the graph.
    if not true(param(params, "iterationOrder", TGL)):
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


def _iri_order(node: Node) -> str:
    return node if type(node) is str else str(node)


def _root_questions(graph: TraceGraph) -> list:
    """The Questions that derive from no Question (computed once per graph)."""
    return graph.fact("root questions", lambda graph: [q for q in graph.heads if is_root_question(graph, q)])


# The three components below judge a root Question by a whole-trace fact. Their candidates are
# the roots that fail, found once per graph, so the other Questions cost nothing per node.

TARGET_NODES[TGL + "RootQuestionTarget"] = lambda graph, params: _root_questions(graph)
TARGET_NODES[TGL + "AnsweredTwiceTarget"] = lambda graph, params: _several_answers(graph, _switched_on("singleTerminalAnswer"))
TARGET_NODES[TGL + "UnansweredTarget"] = lambda graph, params: _unanswered(graph, _switched_on("terminalAnswerRequired"))
TARGET_NODES[TGL + "MixedModelTarget"] = lambda graph, params: _contradictory(graph, _switched_on("consistentTraceModel"))


def _switched_on(parameter: str) -> _Params:
    """A component's boolean parameter switched on, for the target types that select its candidates."""
    return {TGL + parameter: rdflib.Literal(True)}


def _several_answers(graph: TraceGraph, params: _Params) -> set:
    if not true(param(params, "singleTerminalAnswer", TGL)):
        return set()
    return graph.fact("roots with several answers",
                      lambda graph: {q for q in _root_questions(graph) if len(terminal_answers(graph, q)) > 1})


@component("SingleTerminalAnswerConstraintComponent", "singleTerminalAnswer", namespace=TGL,
           own_values=True, candidates=_several_answers)
def _single_terminal_answer(ctx: Context, shape: Shape, focus: Node, values: Sequence[Node],
                            params: _Params) -> _Results:
    # The terminal answers are among the path's values (the focus's descendants).
    if true(param(params, "singleTerminalAnswer", TGL)) and is_root_question(ctx.graph, focus):
        for answer in sorted(terminal_answers(ctx.graph, focus), key=_iri_order)[1:]:
            yield answer, None


def _unanswered(graph: TraceGraph, params: _Params) -> set:
    if not true(param(params, "terminalAnswerRequired", TGL)):
        return set()
    return graph.fact("roots without an answer",
                      lambda graph: {q for q in _root_questions(graph) if not terminal_answers(graph, q)})


@component("TerminalAnswerRequiredConstraintComponent", "terminalAnswerRequired", namespace=TGL,
           own_values=True, candidates=_unanswered)
def _terminal_answer_required(ctx: Context, shape: Shape, focus: Node, values: Sequence[Node],
                              params: _Params) -> _Results:
    if true(param(params, "terminalAnswerRequired", TGL)) and is_root_question(ctx.graph, focus) \
            and not terminal_answers(ctx.graph, focus):
        yield focus, None


def _contradictory(graph: TraceGraph, params: _Params) -> set:
    if not true(param(params, "consistentTraceModel", TGL)):
        return set()
    def compute(graph: TraceGraph) -> set:
        models = infer(graph)
        return {q for q in _root_questions(graph) if (model := models.get(q)) is not None and model.contradictory}
    return graph.fact("roots of contradictory models", compute)


@component("ConsistentTraceModelConstraintComponent", "consistentTraceModel", namespace=TGL,
           own_values=True, candidates=_contradictory)
def _consistent_trace_model(ctx: Context, shape: Shape, focus: Node, values: Sequence[Node],
                            params: _Params) -> _Results:
    if true(param(params, "consistentTraceModel", TGL)) and is_root_question(ctx.graph, focus):
        inference = infer(ctx.graph).get(focus)
        if inference is not None and inference.contradictory:
            yield focus, None


@component("PermittedTerminationConstraintComponent", "permittedByPattern", namespace=TGL)
def _permitted_termination(ctx: Context, shape: Shape, focus: Node, values: Sequence[Node],
                           params: _Params) -> _Results:
    # The ontology's tg:permitsTerminationReason; tg-trace check verifies the SPARQL agrees.
    if not true(param(params, "permittedByPattern", TGL)):
        return
    allowed = permitted_reasons().get(answer_pattern(ctx.graph, focus), ())  # type: ignore[arg-type]  # None: none permitted
    known = termination_reasons()
    for value in values:
        text = value.value if type(value) is _Literal else (value if is_iri(value) else None)
        if text in known and text not in allowed:
            yield value, None


def _leaves(graph: TraceGraph, params: _Params) -> set:
    return leaves(graph) if true(param(params, "chainContinues", TGL)) else set()


def _chain_ends(graph: TraceGraph, params: _Params) -> list:
    # The classes are the target type's (tgl:targetsInstancesOf), handed over with its parameters.
    ends = leaves(graph)
    return [node for cls in sorted(params.get(TARGETS_INSTANCES_OF, ())) for node in graph.instances(cls) if node in ends]


TARGET_NODES[TGL + "ChainEndTarget"] = _chain_ends


@component("ChainContinuesConstraintComponent", "chainContinues", namespace=TGL, own_values=True,
           candidates=_leaves)
def _chain_continues(ctx: Context, shape: Shape, focus: Node, values: Sequence[Node],
                     params: _Params) -> _Results:
    # The leaves are found once per graph; only a targeted leaf is judged (tgtrace.tracemodel.traces).
    if true(param(params, "chainContinues", TGL)) and focus in leaves(ctx.graph) and stops_short(ctx.graph, focus):
        yield focus, None


_CLAIMS = {"plan-complete": plan_unfinished, "subagents-complete": goals_unanswered,
           "max-iterations": loop_never_ran}


@component("ReasonMatchesChainConstraintComponent", "reasonMatchesChain", namespace=TGL)
def _reason_matches_chain(ctx: Context, shape: Shape, focus: Node, values: Sequence[Node],
                          params: _Params) -> _Results:
    # What plan-complete and subagents-complete claim, as the chain shows it (tgtrace.tracemodel.traces).
    if not true(param(params, "reasonMatchesChain", TGL)):
        return
    for value in values:
        denied = _CLAIMS.get(text_of(value))  # type: ignore[arg-type]
        if denied is not None and denied(ctx.graph, focus):
            yield value, None


@component("ValueLinksFocusConstraintComponent", "valueLinksFocusBy", namespace=TGL)
def _value_links_focus(ctx: Context, shape: Shape, focus: Node, values: Sequence[Node],
                       params: _Params) -> _Results:
    # A value the input describes (asserted types) links the focus with the predicate; one it does
    # not describe is a dangling link, another rule's.
    predicate = str(param(params, "valueLinksFocusBy", TGL))
    graph = ctx.graph
    for value in values:
        if graph.types_of(value) and focus not in graph.values(value, predicate):
            yield value, None


@cache
def _listed(text: str) -> frozenset[str]:
    """A parameter that lists IRIs separated by spaces (SPARQL cannot read a list of the shapes graph)."""
    return frozenset(text.split())


@component("DeclaredPredicatesConstraintComponent", "declaredPredicatesIn", "declaredPredicates", namespace=TGL,
           static=True)
def _declared_predicates(ctx: Context, shape: Shape, focus: object, predicates: Sequence[str],
                         params: _Params) -> Iterator[tuple[object, str]]:
    namespace = str(param(params, "declaredPredicatesIn", TGL))
    declared = _listed(str(param(params, "declaredPredicates", TGL)))
    for predicate in predicates:
        if predicate.startswith(namespace) and predicate not in declared:
            yield focus, predicate


@component("NotDeprecatedConstraintComponent", "notDeprecatedIn", "deprecatedPredicates", namespace=TGL, static=True)
def _not_deprecated(ctx: Context, shape: Shape, focus: object, predicates: Sequence[str],
                    params: _Params) -> Iterator[tuple[object, str]]:
    namespace = str(param(params, "notDeprecatedIn", TGL))
    deprecated = _listed(str(param(params, "deprecatedPredicates", TGL)))
    for predicate in predicates:
        if predicate.startswith(namespace) and predicate in deprecated:
            yield focus, predicate


def _term_users(graph: TraceGraph, types: AbstractSet[str], predicates: tuple[str, ...], params: _Params) -> bool:
    return any(p.startswith(TG) for p in predicates)


TARGET_TYPES[TGL + "TermUsersTarget"] = _term_users


def _undeclared_users(graph: TraceGraph, types: AbstractSet[str], predicates: tuple[str, ...], params: _Params) -> bool:
    namespace = str(param(params, "declaredPredicatesIn", TGL))
    declared = _listed(str(param(params, "declaredPredicates", TGL)))
    return any(p.startswith(namespace) and p not in declared for p in predicates)


def _deprecated_users(graph: TraceGraph, types: AbstractSet[str], predicates: tuple[str, ...], params: _Params) -> bool:
    namespace = str(param(params, "notDeprecatedIn", TGL))
    deprecated = _listed(str(param(params, "deprecatedPredicates", TGL)))
    return any(p.startswith(namespace) and p in deprecated for p in predicates)


TARGET_TYPES[TGL + "UndeclaredPredicateUsersTarget"] = _undeclared_users
TARGET_TYPES[TGL + "DeprecatedPredicateUsersTarget"] = _deprecated_users


def _unread(graph: TraceGraph, params: _Params) -> set:
    return reader_missed(graph) if true(param(params, "reachedByReader", TGL)) else set()


@component("ReachedByReaderConstraintComponent", "reachedByReader", namespace=TGL, own_values=True,
           candidates=_unread)
def _reached_by_reader(ctx: Context, shape: Shape, focus: Node, values: Sequence[Node],
                       params: _Params) -> _Results:
    if true(param(params, "reachedByReader", TGL)) and focus in reader_missed(ctx.graph):
        yield focus, None
