"""The project's own constraint components and target types (declared as SHACL-SPARQL in
shapes/components.ttl, whose SPARQL the reference engine runs), and ``TRUSTGRAPH``, their table,
which the packaged rules' engine is given beside SHACL Core's (``PACKAGED``).

They carry TrustGraph's semantics (answers, trace models, termination reasons, what its reader
returns) into the generic engine, which knows them only as components. No component names a
rule: rules are shapes that use these components with parameters.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from collections.abc import Set as AbstractSet
from functools import cache
from typing import TYPE_CHECKING, NoReturn

import pyoxigraph as ox
import rdflib

from ..ground.graph import DEFAULT_GRAPH, DERIVED, Node, TraceGraph, is_iri
from ..ground.namespaces import TG, TGL
from ..shacl.component import ComponentTable, component, param, per_value, table, true
from ..shacl.core import CORE
from ..shacl.shapes import TARGETS_INSTANCES_OF
from ..tracemodel.behaviour import repeated_calls, roots_with_repeated_calls, stopped_loops
from ..tracemodel.generations import infer
from ..tracemodel.reader import reader_missed
from ..tracemodel.traces import (
    DOCUMENT,
    answer_pattern,
    answered_elsewhere,
    goals_unanswered,
    graph_iri,
    hung_under,
    is_root_question,
    later_step,
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

def _cycle_nodes(graph: TraceGraph, params: _Params) -> Iterable[Node]:
    return graph.on_cycles()


def _analyses(graph: TraceGraph, params: _Params) -> Iterable[Node]:
    return graph.instances(TG + "Analysis")


def _thoughts(graph: TraceGraph, params: _Params) -> Iterable[Node]:
    return graph.instances(TG + "Thought")


def _subjects_of(predicate: str) -> Callable[[TraceGraph, AbstractSet[str], tuple[str, ...], _Params], bool]:
    return lambda graph, types, predicates, params: predicate in predicates


def _values_of_users(graph: TraceGraph, types: AbstractSet[str], predicates: tuple[str, ...], params: _Params) -> bool:
    return str(param(params, "valuesOf", TGL)) in predicates


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
    return graph.fact("root questions", lambda graph: [q for q in graph.heads if is_root_question(graph, q)],
                      for_rules=True)


def _root_question_target(graph: TraceGraph, params: _Params) -> list:
    return _root_questions(graph)


# The three components below judge a root Question by a whole-trace fact. Their candidates are
# the roots that fail, found once per graph, so the other Questions cost nothing per node.


def _switched_on(parameter: str) -> _Params:
    """A component's boolean parameter switched on, for the target types that select its candidates."""
    return {TGL + parameter: rdflib.Literal(True)}


def _answered_twice(graph: TraceGraph, params: _Params) -> Iterable[Node]:
    return _several_answers(graph, _switched_on("singleTerminalAnswer"))


def _unanswered_roots(graph: TraceGraph, params: _Params) -> Iterable[Node]:
    return _unanswered(graph, _switched_on("terminalAnswerRequired"))


def _mixed_models(graph: TraceGraph, params: _Params) -> Iterable[Node]:
    return _contradictory(graph, _switched_on("consistentTraceModel"))


def _several_answers(graph: TraceGraph, params: _Params) -> set:
    if not true(param(params, "singleTerminalAnswer", TGL)):
        return set()
    return graph.fact("roots with several answers",
                      lambda graph: {q for q in _root_questions(graph) if len(terminal_answers(graph, q)) > 1},
                      for_rules=True)


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
                      lambda graph: {q for q in _root_questions(graph) if not terminal_answers(graph, q)},
                      for_rules=True)


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
    return graph.fact("roots of contradictory models", compute, for_rules=True)


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


@component("SelfValueConstraintComponent", "selfValue", namespace=TGL)
def _self_value(ctx: Context, shape: Shape, focus: Node, values: Sequence[Node], params: _Params) -> _Results:
    if true(param(params, "selfValue", TGL)):
        for value in values:
            if value != focus:
                yield value, None


@component("HighestStepConstraintComponent", "highestStep", namespace=TGL)
def _highest_step(ctx: Context, shape: Shape, focus: Node, values: Sequence[Node], params: _Params) -> _Results:
    if true(param(params, "highestStep", TGL)):
        for value in values:
            if later_step(ctx.graph, value):
                yield value, None


@component("AnswerKnownConstraintComponent", "answerKnown", namespace=TGL)
def _answer_known(ctx: Context, shape: Shape, focus: Node, values: Sequence[Node], params: _Params) -> _Results:
    if true(param(params, "answerKnown", TGL)):
        for value in values:
            if answered_elsewhere(ctx.graph, focus, value):
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


def _stated_twice(graph: TraceGraph, params: _Params) -> frozenset:
    # The graph notes the few subjects that state a predicate twice as it reads them; found once
    # per graph and list, however many kinds of node ask.
    listed = str(param(params, "statedOnce", TGL))
    return graph.fact("stated twice of " + listed, lambda graph: frozenset(
        node for predicate in _listed(listed) for node in graph.many_valued(predicate)), for_rules=True)


@component("StatedOnceConstraintComponent", "statedOnce", namespace=TGL, candidates=_stated_twice)
def _stated_once(ctx: Context, shape: Shape, focus: Node, values: Sequence[Node],
                 params: _Params) -> Iterator[tuple[object, str]]:
    props = ctx.graph.out.get(focus)
    if not props:
        return
    # The focus's own few predicates against the listed ones: a node states about ten, the list
    # holds about sixty, and the rule runs at every entity.
    once = _listed(str(param(params, "statedOnce", TGL)))
    for predicate in sorted(p for p, objects in props.items() if len(objects) > 1 and p in once):
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


def _chain_ends(graph: TraceGraph, params: _Params) -> list:
    # The classes are the target type's (tgl:targetsInstancesOf), handed over with its parameters.
    ends = leaves(graph)
    return [node for cls in sorted(params.get(TARGETS_INSTANCES_OF, ())) for node in graph.instances(cls) if node in ends]


def _undeclared_users(graph: TraceGraph, types: AbstractSet[str], predicates: tuple[str, ...], params: _Params) -> bool:
    namespace = str(param(params, "declaredPredicatesIn", TGL))
    declared = _listed(str(param(params, "declaredPredicates", TGL)))
    return any(p.startswith(namespace) and p not in declared for p in predicates)


def _deprecated_users(graph: TraceGraph, types: AbstractSet[str], predicates: tuple[str, ...], params: _Params) -> bool:
    namespace = str(param(params, "notDeprecatedIn", TGL))
    deprecated = _listed(str(param(params, "deprecatedPredicates", TGL)))
    return any(p.startswith(namespace) and p in deprecated for p in predicates)


def _unread(graph: TraceGraph, params: _Params) -> set:
    return reader_missed(graph) if true(param(params, "reachedByReader", TGL)) else set()


@component("ReachedByReaderConstraintComponent", "reachedByReader", namespace=TGL, own_values=True,
           candidates=_unread)
def _reached_by_reader(ctx: Context, shape: Shape, focus: Node, values: Sequence[Node],
                       params: _Params) -> _Results:
    if true(param(params, "reachedByReader", TGL)) and focus in reader_missed(ctx.graph):
        yield focus, None


def _written_elsewhere(graph: TraceGraph, params: _Params) -> frozenset:
    """The subjects with a statement written in another graph than the parameter's (found once
    per graph and graph IRI: in a capture written right, none)."""
    wanted = str(param(params, "writtenIn", TGL))
    return graph.fact(f"written outside {wanted}",
                      lambda graph: graph.written_outside(DEFAULT_GRAPH if wanted == graph_iri("") else wanted),
                      for_rules=True)


@component("WrittenInConstraintComponent", "writtenIn", namespace=TGL, own_values=True,
           candidates=_written_elsewhere)
def _written_in(ctx: Context, shape: Shape, focus: Node, values: Sequence[Node], params: _Params) -> _Results:
    graph = ctx.graph
    wanted = str(param(params, "writtenIn", TGL))
    for name in graph.graphs_of(focus):
        iri = graph_iri(name)
        if iri == wanted:
            continue
        # What the focus hangs under, written in the same graph, is out of place itself: it is the
        # one reported. Only a step of TrustGraph's counts (a tg:Document aside, which the librarian
        # writes in the default graph; an extraction's prov:Activity is no step).
        if any(name in graph.graphs_of(parent) and _a_step(graph.types_of(parent))
               for parent in hung_under(graph, focus)):
            continue
        yield iri, None


def _a_step(types: AbstractSet[str]) -> bool:
    return DOCUMENT not in types and any(t.startswith(TG) for t in types)


# The behaviour family's components (tgtrace.tracemodel.behaviour): a loop's repeated calls, counted
# once per trace from its root, and the iterations of the loops that stopped without an answer,
# which their target type selects.

def _at_least(params: _Params) -> int | None:
    term = param(params, "repeatedCalls", TGL)
    text = str(term) if term is not None else ""
    return int(text) if _INTEGER.fullmatch(text) else None


def _repeating(graph: TraceGraph, params: _Params) -> set:
    at_least = _at_least(params)
    if at_least is None:
        return set()
    return roots_with_repeated_calls(graph, _root_questions(graph), at_least)


@component("RepeatedCallConstraintComponent", "repeatedCalls", namespace=TGL, own_values=True,
           candidates=_repeating)
def _repeated_call(ctx: Context, shape: Shape, focus: Node, values: Sequence[Node], params: _Params) -> _Results:
    at_least = _at_least(params)
    if at_least is not None and repeated_calls(ctx.graph, focus, at_least):
        yield focus, None


def _stopped_loop_target(graph: TraceGraph, params: _Params) -> list:
    return sorted(stopped_loops(graph), key=_iri_order)


# Every component and target type above, as the engine is handed them. A new one is declared in
# shapes/components.ttl, written above with @component or @per_value (or as a target type's
# function), and listed here; tests/test_component_units.py fails for one left out.
TRUSTGRAPH: ComponentTable = table(
    _acyclic, _json_text, _iteration_order, _single_terminal_answer, _terminal_answer_required,
    _consistent_trace_model, _permitted_termination, _chain_continues, _reason_matches_chain, _self_value,
    _highest_step, _answer_known, _value_links_focus, _declared_predicates, _stated_once, _not_deprecated,
    _reached_by_reader, _written_in, _repeated_call,
    target_types={
        TGL + "TermUsersTarget": _term_users,
        TGL + "UnpermittedTerminationTarget": _subjects_of(TG + "terminationReason"),
        TGL + "UnsupportedClaimTarget": _subjects_of(TG + "terminationReason"),
        TGL + "NonFlatJSONValueTarget": _values_of_users,
        TGL + "UndeclaredPredicateUsersTarget": _undeclared_users,
        TGL + "DeprecatedPredicateUsersTarget": _deprecated_users,
    },
    target_nodes={
        TGL + "RootQuestionTarget": _root_question_target,
        TGL + "StoppedLoopTarget": _stopped_loop_target,
        TGL + "DerivationCycleTarget": _cycle_nodes,
        TGL + "IterationOutOfOrderTarget": _analyses,
        TGL + "MislinkedThoughtTarget": _thoughts,
        TGL + "AnsweredTwiceTarget": _answered_twice,
        TGL + "UnansweredTarget": _unanswered_roots,
        TGL + "MixedModelTarget": _mixed_models,
        TGL + "ChainEndTarget": _chain_ends,
    },
)
# What the packaged rules are run with: SHACL Core's components and TrustGraph's.
PACKAGED: ComponentTable = CORE | TRUSTGRAPH
