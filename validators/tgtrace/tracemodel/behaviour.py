"""How an agent behaved, as its trace shows it: the tool calls of a trace and when two are equal,
where an agent loop stopped without its answer, and how many iterations it ran.

What the behaviour family's components (``rules/components.py``) read; each function is the
native form of a SPARQL validator or target of ``shapes/components.ttl`` and says what it
compares the way that SPARQL does, so that both engines report the same nodes.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterable

from ..ground.graph import DERIVED, Node, TraceGraph, is_iri
from ..ground.namespaces import TG
from .traces import text_of

_ANALYSIS, _OBSERVATION, _PLAN = TG + "Analysis", TG + "Observation", TG + "Plan"
_STEP_RESULT, _SYNTHESIS = TG + "StepResult", TG + "Synthesis"
_ACTION, _ARGUMENTS, _STEP_NUMBER = TG + "action", TG + "arguments", TG + "stepNumber"
_REASON = TG + "terminationReason"
MAX_ITERATIONS_REASON = "max-iterations"

# The SPARQL's comparison of arguments: the text with the white space around JSON's punctuation
# removed (REPLACE with this expression).
_AROUND_PUNCTUATION = re.compile(r"[ \t\n\r]*([\[\]{}:,])[ \t\n\r]*")


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


def arguments_key(text: str | None) -> str | None:
    """What equal arguments share: their JSON value (keys sorted, numbers and strings as parsed),
    or, for text that is not JSON, the text as the SPARQL compares it."""
    if text is None:
        return None
    try:
        value = json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        return "text:" + _AROUND_PUNCTUATION.sub(r"\1", text)
    try:
        return "json:" + json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    except (ValueError, RecursionError):  # pragma: no cover - parsed JSON dumps again
        return "text:" + _AROUND_PUNCTUATION.sub(r"\1", text)


def _order_keys(graph: TraceGraph, call: str) -> list[str]:
    """The call's place in the order of calls, as the SPARQL writes it: the step number's length
    (plus 1000), the number, the IRI (one key per step number; "" where it has none)."""
    numbers = [text_of(step) for step in graph.values(call, _STEP_NUMBER)] or [None]
    return [f"{1000 + len(number or '')} {number or ''} {call}" for number in numbers]


def repeated_call_groups(graph: TraceGraph, root: Node, at_least: int) -> list[tuple[str, str, list[str]]]:
    """(tool, arguments as written, its calls in order) of each tool and arguments that the trace of
    ``root`` calls ``at_least`` times or more, in the order of their first call."""
    groups: dict[tuple, set[str]] = defaultdict(set)
    written: dict[tuple, str] = {}
    for call in graph.descendants(root):
        if not is_iri(call) or _ANALYSIS not in graph.types_of(call):
            continue
        for tool in (text_of(a) for a in graph.values(call, _ACTION)):
            for argument in graph.values(call, _ARGUMENTS):
                key = (tool, arguments_key(text_of(argument)))
                groups[key].add(call)  # type: ignore[arg-type]  # is_iri: a str
                written.setdefault(key, text_of(argument) or "")
    found = []
    for key, calls in groups.items():
        if len(calls) >= at_least:
            ordered = [call for _, call in sorted(min((k, c) for k in _order_keys(graph, c)) for c in calls)]
            found.append((key[0] or "", written[key], ordered))
    return sorted(found, key=lambda group: min(_order_keys(graph, group[2][0])))


def repeated_calls(graph: TraceGraph, root: Node, at_least: int) -> set[Node]:
    """The last call of each tool and arguments that the trace of ``root`` (what derives from it)
    calls ``at_least`` times or more: its Analyses (IRIs), grouped by the text of tg:action and
    their tg:arguments compared as JSON values."""
    groups: dict[tuple, set[str]] = defaultdict(set)
    for call in graph.descendants(root):
        if not is_iri(call) or _ANALYSIS not in graph.types_of(call):
            continue
        tools = [text_of(a) for a in graph.values(call, _ACTION)]
        arguments = [arguments_key(text_of(a)) for a in graph.values(call, _ARGUMENTS)]
        for tool in tools:
            for same in arguments:
                groups[tool, same].add(call)  # type: ignore[arg-type]  # is_iri: a str
    found: set[Node] = set()
    for calls in groups.values():
        if len(calls) >= at_least:
            last = max((key, call) for call in calls for key in _order_keys(graph, call))
            found.add(last[1])
    return found


def roots_with_repeated_calls(graph: TraceGraph, roots: Iterable[Node], at_least: int) -> set[Node]:
    """The roots whose trace repeats a call ``at_least`` times (found once per graph and count)."""
    return graph.fact(f"roots repeating a call {at_least} times",
                      lambda graph: {root for root in roots if repeated_calls(graph, root, at_least)}, for_rules=True)


def _stopped_plan(graph: TraceGraph, plan: Node) -> bool:
    steps = [s for s in graph.children(plan) if _STEP_RESULT in graph.types_of(s)]
    return bool(steps) and not any(_SYNTHESIS in graph.types_of(answer) for s in steps for answer in graph.children(s))


def stopped_loops(graph: TraceGraph) -> set[Node]:
    """Where an agent loop stopped without its answer (found once per graph): an Observation on the
    chain (it derives from something; releases before 2.3.1 hang one off its Analysis instead) that
    nothing derives from, a Plan from whose StepResults no Synthesis derives, an answer whose
    termination reason is max-iterations."""
    def compute(graph: TraceGraph) -> set[Node]:
        found: set[Node] = set()
        for node, kinds in graph.types.items():
            if _OBSERVATION in kinds and graph.values(node, DERIVED) and not graph.children(node):
                found.add(node)
            if _PLAN in kinds and _stopped_plan(graph, node):
                found.add(node)
        for (_, predicates), nodes in graph.kinds().items():
            if _REASON in predicates:
                found.update(n for n in nodes
                             if any(text_of(r) == MAX_ITERATIONS_REASON for r in graph.values(n, _REASON)))
        return found
    return graph.fact("stopped loops", compute, for_rules=True)


def iterations(graph: TraceGraph, node: Node) -> int:
    """The iterations of the loop that stopped at ``node``: the Analyses it derives from, or, for a
    Plan, the Plan and its StepResults."""
    found = {a for a in graph.ancestors(node) if _ANALYSIS in graph.types_of(a)}
    if _PLAN in graph.types_of(node):
        found.add(node)
        found.update(s for s in graph.children(node) if _STEP_RESULT in graph.types_of(s))
    return len(found)


__all__ = ["MAX_ITERATIONS_REASON", "arguments_key", "iterations", "repeated_call_groups", "repeated_calls",
           "roots_with_repeated_calls", "stopped_loops"]
