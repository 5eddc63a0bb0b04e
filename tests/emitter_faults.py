"""Bugs in TrustGraph's emitter, one at a time: the traces a service would write with one plausible
mistake in its code, beside the trace the real service writes.

The traces come from ``examples/generate.py``, which calls TrustGraph 2.11.1's own builders
(``trustgraph.provenance``) and chains them as trustgraph-flow 2.11.1's services do. Every choice a
service makes around the builders is asked of an :class:`Emitter` there (which builder, which named
graph, how ids are minted, how arguments are passed, which step a link names, what is sent); a
:class:`Bug` here is a subclass that answers one of those questions otherwise, the way a refactor of
the service would. Nothing is typed by hand: a faulty trace is the real chain with one piece
swapped.

- :data:`SCENARIOS`: what a service is asked, one input each: the committed examples, two requests
  in one input (a stream, a file) where a bug can only show across requests, and a few more.
- :data:`BUGS`: the bugs, each with its kind (the row of the issue's table it belongs to) and the
  service code it stands for.
- :data:`NOT_FAULTS`: mistakes whose output says the same as the correct one (a redelivered event,
  events out of order, a builder that writes the same triples): no fault, and the linter must say
  so.
- :func:`faulty_traces`: every (bug, scenario) whose output differs from the correct twin's, built
  once.
- :func:`behaviour_scenarios`: correct traces that show how an agent behaved (a loop, a tool that
  always fails, an answer without evidence, the iteration limit, a sub-agent that failed), for the
  behaviour rules.
"""

from __future__ import annotations

import functools
import io
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from trustgraph import provenance as prov  # noqa: E402

from examples import generate as g  # noqa: E402  (the real builders, chained as the services chain them)
from examples.generate import Emission, Emitter, PlanStep, ReactStep  # noqa: E402

FORMS = ("wire", "stream", "nquads")
SUFFIX = {"wire": ".json", "stream": ".jsonl", "nquads": ".nq"}


# ---------------------------------------------------------------------------
# Scenarios: what the services are asked, one input each
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Scenario:
    """One input: the requests a service answers, in order, each a function of the emitter (the
    same emitter for every request of the input: state a service keeps carries over). ``example``
    names the committed example the first request writes (``examples/NAME.nq``)."""

    name: str
    requests: tuple[Callable[[Emitter], list[Emission]], ...]
    example: str | None = None
    pattern: str = ""

    def emissions(self, emitter: Emitter) -> list[list[Emission]]:
        return [request(emitter) for request in self.requests]

    @property
    def streams(self) -> bool:
        """Whether the service sends explain events (extraction writes Triples messages only)."""
        return self.pattern != "extraction"


def _example(name: str, **overrides) -> Callable[[Emitter], list[Emission]]:
    return lambda emitter: g.EXAMPLES[name](emitter=emitter, **overrides)


PATTERNS = {
    "graph-rag": "graph-rag", "document-rag": "document-rag", "document-rag-reranked": "document-rag-reranked",
    "orchestrator-react-one-shot": "react", "orchestrator-react-multi-iteration": "react",
    "orchestrator-react-no-pattern-decision": "react", "orchestrator-react-tool-error": "react",
    "orchestrator-react-parse-error": "react", "orchestrator-react-max-iterations": "react",
    "orchestrator-react-graphrag-tool": "react", "legacy-react-one-shot": "legacy-react",
    "legacy-react-multi-iteration": "legacy-react", "plan-then-execute": "plan", "supervisor": "supervisor",
    "extraction": "extraction",
}

# The same service asked again: another question, later, a new session (what the twin of a bug that
# keeps state across requests is).
AGAIN = {
    "graph-rag": dict(query="Where was Marie Curie born, and what did she discover?",
                      concepts=("Marie Curie", "birthplace"), facts=(g.FACTS[8], g.FACTS[4], g.FACTS[6], g.FACTS[2])),
    "document-rag": dict(query="Where was Marie Curie born?"),
    "document-rag-reranked": dict(query="Where was Marie Curie born?"),
    "orchestrator-react-multi-iteration": dict(question="Which prizes did Marie Curie receive, and when?"),
    "orchestrator-react-graphrag-tool": dict(question="What did Marie Curie discover?"),
    "legacy-react-multi-iteration": dict(question="Which prizes did Marie Curie receive, and when?"),
    "plan-then-execute": dict(question="What did Marie Curie discover, and which prizes followed?"),
    "supervisor": dict(question="Which elements and which prizes are Marie Curie's?"),
}

SECOND_GRAPH_RAG_TOOL_STEP = ReactStep(
    "knowledge-query", {"question": "Which Nobel Prizes did Marie Curie receive?"},
    "Now the knowledge graph should list her prizes.",
    "She received the Nobel Prize in Physics in 1903 and in Chemistry in 1911.",
    llm_duration_ms=1655, tool_duration_ms=5877, in_token=1290, out_token=81,
    graph_rag={"concepts": ("Marie Curie", "Nobel Prize"), "facts": (g.FACTS[0], g.FACTS[1], g.FACTS[2])},
)

# A plan whose first step the LLM gave no goal (plan_pattern.py: the Plan lists "" for it, the
# StepResult the str() of its PlanStep).
PLAN_WITHOUT_GOAL = (
    PlanStep(None, tool_hint="nobel-registry"),
    PlanStep("Find the elements Marie Curie discovered"),
)


def _scenarios() -> dict[str, Scenario]:
    found = {name: Scenario(name, (_example(name),), name, pattern) for name, pattern in PATTERNS.items()}
    for name, overrides in AGAIN.items():
        start = g.EXAMPLES[name].keywords["start"] + timedelta(minutes=2)
        found[f"{name}+again"] = Scenario(
            f"{name}+again", (_example(name), _example(name, seed=f"{name}/again", start=start, **overrides)),
            name, PATTERNS[name])
    found["orchestrator-react-two-graphrag-tools"] = Scenario(
        "orchestrator-react-two-graphrag-tools",
        (_example("orchestrator-react-graphrag-tool", seed="orchestrator-react-two-graphrag-tools",
                  steps=[g._GRAPH_RAG_TOOL_STEP, SECOND_GRAPH_RAG_TOOL_STEP],
                  question="What did Marie Curie discover, and which Nobel Prizes did she receive?",
                  answer="Polonium and radium (1898); the Physics (1903) and Chemistry (1911) prizes."),),
        None, "react")
    found["plan-step-without-goal"] = Scenario(
        "plan-step-without-goal",
        (lambda emitter: g.plan_then_execute_emissions(
            seed="plan-step-without-goal", plan=PLAN_WITHOUT_GOAL, start=g._at_minute(57),
            question="When did Marie Curie win the Nobel Prize in Chemistry, and what had she discovered?",
            emitter=emitter),),
        None, "plan")
    # An LLM whose Args are a JSON array: AgentManager.parse_react_response keeps json.loads' value, the
    # Analysis is written with it (json.dumps: an array), invoke(**arguments) fails (the Observation's
    # tool error), and build_next_request's arguments.items() raises: the trace ends there.
    found["orchestrator-react-arguments-not-an-object"] = Scenario(
        "orchestrator-react-arguments-not-an-object",
        (lambda emitter: g.orchestrator_react_emissions(
            seed="orchestrator-react-arguments-not-an-object", question="In which year?", steps=[ReactStep(
                "nobel-registry", ["Marie Curie", "physics"], "Ask the registry.",
                "Error: " + ARGUMENTS_ERROR, tool_error=ARGUMENTS_ERROR)],
            concluded=False, start=g._at_minute(58), emitter=emitter),),
        None, "react")
    return found


ARGUMENTS_ERROR = "trustgraph.agent.react.tools.McpToolImpl.invoke() argument after ** must be a mapping, not list"
SCENARIOS = _scenarios()
AGENTS = frozenset({"react", "legacy-react", "plan", "supervisor"})


# ---------------------------------------------------------------------------
# Bugs: an Emitter that answers one question otherwise
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Bug:
    """One bug: ``kind`` is the row of the report it counts in, ``name`` this variant, ``what`` the
    service code it stands for; ``make`` gives a fresh emitter per input (what a service keeps
    across requests lives in it); ``patterns`` and ``scenarios`` say where it applies (None:
    wherever it changes the output); ``forms`` are the forms the fault can show in."""

    kind: str
    name: str
    what: str
    make: Callable[[], Emitter]
    patterns: frozenset[str] | None = None
    scenarios: frozenset[str] | None = None
    forms: tuple[str, ...] = FORMS

    def applies(self, scenario: Scenario) -> bool:
        # Two requests in one input are for the bugs that show across requests (they name them).
        if self.scenarios is None and scenario.name in PAIRS:
            return False
        return ((self.patterns is None or scenario.pattern in self.patterns)
                and (self.scenarios is None or scenario.name in self.scenarios))


class InGraph(Emitter):
    """Steps put in another named graph: ``steps`` (None: every step of a query-time trace, or of
    an extraction when ``extraction``) get ``graph``, and their explain events name
    ``event_graph``."""

    def __init__(self, graph: str | None, event_graph: str | None, steps: frozenset[str] | None = None,
                 extraction: bool = False) -> None:
        self.into, self.event_into, self.steps, self.extraction = graph, event_graph, steps, extraction

    def _moved(self, step: str) -> bool:
        if step.startswith("extraction/"):
            return self.extraction and step not in ("extraction/document", "extraction/facts")
        return not self.extraction and (self.steps is None or step in self.steps)

    def graph(self, step: str) -> str | None:
        return self.into if self._moved(step) else super().graph(step)

    def event_graph(self, step: str) -> str | None:
        return self.event_into if self._moved(step) and not step.startswith("extraction/") else super().event_graph(step)


class Builder(Emitter):
    """One builder called where another belongs."""

    def __init__(self, instead: str, called: str) -> None:
        self.instead, self.called = instead, called

    def builder(self, name: str) -> Callable[..., list]:
        return super().builder(self.called if name == self.instead else name)


class Link(Emitter):
    """A link to another step than the service's: at ``point``, ``option`` instead of its choice
    (where the code at hand has that option)."""

    def __init__(self, point: str, option: str) -> None:
        self.point, self.option = point, option

    def pick(self, point: str, choice: str, options: dict):
        if point == self.point and self.option in options and self.option != choice:
            return options[self.option]
        return super().pick(point, choice, options)


class Arguments(Emitter):
    """A tool call's arguments passed to the builder already encoded."""

    def __init__(self, encode: Callable[[dict], object]) -> None:
        self.encode = encode

    def arguments(self, arguments: dict):
        return self.encode(arguments)


class Retried(Emitter):
    """A step emitted once per attempt of a call the service retried: first as the failed attempt
    left it (``first`` rewrites the builder's keyword arguments), then as the service means it. The
    two events carry one explain id, so the trace holds one entity with both attempts' values.
    With ``after`` the rewritten one comes second (a step written again later)."""

    def __init__(self, step: str, first: Callable[[tuple, dict], tuple[tuple, dict]], after: bool = False) -> None:
        self.step, self.first, self.after = step, first, after

    def emit(self, step: str, explain_id: str, channel: str, builder: str, *args, **kwargs) -> list[Emission]:
        if step != self.step:
            return super().emit(step, explain_id, channel, builder, *args, **kwargs)
        first_args, first_kwargs = self.first(args, dict(kwargs))
        other = super().emit(step, explain_id, channel, builder, *first_args, **first_kwargs)
        meant = super().emit(step, explain_id, channel, builder, *args, **kwargs)
        return meant + other if self.after else other + meant


class Repeated(Emitter):
    """Steps sent twice, identically (a redelivered event): ``steps`` None is every step; ``last``
    repeats only the last event of each request, after it."""

    def __init__(self, steps: frozenset[str] | None = None, last: bool = False) -> None:
        self.steps, self.last = steps, last

    def emit(self, step: str, explain_id: str, channel: str, builder: str, *args, **kwargs) -> list[Emission]:
        once = super().emit(step, explain_id, channel, builder, *args, **kwargs)
        return once * 2 if not self.last and (self.steps is None or step in self.steps) else once

    def sent(self, emissions: list[Emission]) -> list[Emission]:
        return emissions + emissions[-1:] if self.last else emissions


class Reordered(Emitter):
    """The events of a request sent in another order (``order`` rearranges the list)."""

    def __init__(self, order: Callable[[list], list]) -> None:
        self.order = order

    def sent(self, emissions: list[Emission]) -> list[Emission]:
        return self.order(emissions)


class KeptSession(Emitter):
    """A service that keeps the first id it minted (for ``roles`` of ``service``) and reuses it:
    the id held on the processor or pattern instead of minted per request (or per sub-agent)."""

    def __init__(self, service: str, roles: Callable[[str], bool] = lambda role: role == "session") -> None:
        self.service, self.roles = service, roles
        self.kept: dict[str, str] = {}

    def session_id(self, service: str, seed: str, role: str = "session") -> str:
        if service != self.service or not self.roles(role):
            return super().session_id(service, seed, role)
        key = role.split("/", 1)[0]
        return self.kept.setdefault(key, super().session_id(service, seed, role))


class SelectionsWithoutSession(Emitter):
    """Edge and chunk selections minted without the session id (``focus_triples(..., "")``)."""

    def selection_session(self, service: str, session_id: str) -> str:
        return ""


def _later(seconds: float) -> Callable[[tuple, dict], tuple[tuple, dict]]:
    """The Question's timestamp (the builder's third argument) a little later."""
    def change(args: tuple, kwargs: dict) -> tuple[tuple, dict]:
        moment = g.datetime.fromisoformat(args[2].replace("Z", "+00:00")) + timedelta(seconds=seconds)
        return (args[0], args[1], g._iso(moment), *args[3:]), kwargs
    return change


def _changed(**changes: Callable[[object], object]) -> Callable[[tuple, dict], tuple[tuple, dict]]:
    def change(args: tuple, kwargs: dict) -> tuple[tuple, dict]:
        return args, {**kwargs, **{k: f(kwargs.get(k)) for k, f in changes.items()}}
    return change


QUERY_PATTERNS = frozenset({"graph-rag", "document-rag", "document-rag-reranked", "react", "legacy-react",
                            "plan", "supervisor"})
REACT = frozenset({"react", "supervisor"})
PAIRS = frozenset(name for name in SCENARIOS if name.endswith("+again"))
SOURCE, RETRIEVAL = prov.GRAPH_SOURCE, prov.GRAPH_RETRIEVAL


# One step of each kind of trace: the answer of a RAG trace (a sub-trace's too), the Exploration of
# Document RAG, an agent's root, Observations and Synthesis.
ONE_STEP = ("graph-rag/synthesis", "document-rag/exploration", "agent/question", "agent/observation",
            "agent/synthesis")


def _one_step_bugs() -> list[Bug]:
    bugs = []
    for step in ONE_STEP:
        # The RAG services name urn:graph:retrieval in every explain event (rag.py); the agent's
        # pattern_base.py names the constant it put the triples in.
        event = RETRIEVAL if step.startswith(("graph-rag/", "document-rag/")) else SOURCE
        bugs.append(Bug("one step into another graph", f"graph-step-source[{step}]",
                        f"the {step} emit_* puts its triples in GRAPH_SOURCE", lambda s=step, e=event: InGraph(
                            SOURCE, e, frozenset({s})), QUERY_PATTERNS))
        bugs.append(Bug("one step into another graph", f"graph-step-default[{step}]",
                        f"the {step} emit_* forgets set_graph (its event still names urn:graph:retrieval)",
                        lambda s=step: InGraph(None, RETRIEVAL, frozenset({s})), QUERY_PATTERNS,
                        forms=("wire", "nquads")))
    return bugs


def _bugs() -> list[Bug]:  # noqa: PLR0915  (a table, one entry a line)
    b = [
        # The named graph.
        Bug("whole trace into urn:graph:source", "graph-source",
            "GRAPH_SOURCE imported where GRAPH_RETRIEVAL belongs (graph_rag.py imports both)",
            lambda: InGraph(SOURCE, SOURCE), QUERY_PATTERNS),
        Bug("whole trace into the default graph", "graph-default",
            "no graph name: set_graph not called and explain_graph left None",
            lambda: InGraph(None, None), QUERY_PATTERNS),
        Bug("whole trace into another graph", "extraction-into-retrieval",
            "the decoder, chunker and extractors put their provenance in GRAPH_RETRIEVAL",
            lambda: InGraph(RETRIEVAL, None, extraction=True), frozenset({"extraction"})),
        Bug("whole trace into the default graph", "extraction-into-default",
            "the decoder, chunker and extractors write their provenance without a graph",
            lambda: InGraph(None, None, extraction=True), frozenset({"extraction"})),
        *_one_step_bugs(),
        # Values as encoded.
        Bug("tg:arguments not the arguments object", "arguments-json-string",
            "emit_iteration_triples passes json.dumps(act.arguments): the builder encodes it again",
            lambda: Arguments(json.dumps), AGENTS),
        Bug("tg:arguments not the arguments object", "arguments-list",
            "the arguments wrapped in a list (a batch of one tool call)",
            lambda: Arguments(lambda a: [a]), AGENTS),
        # Steps emitted twice, not identically.
        Bug("an LLM retry merged into one Analysis", "llm-retry-merged",
            "on_action called for the failed LLM attempt and again for the retry",
            lambda: Retried("agent/iteration", _changed(llm_duration_ms=lambda v: v + 30000,
                                                        in_token=lambda v: v - 211, out_token=lambda v: 0)),
            REACT),
        Bug("a tool retry merged into one Observation", "tool-retry-merged",
            "the Observation emitted for the failed tool attempt and again for the retry",
            lambda: Retried("agent/observation", _changed(tool_duration_ms=lambda v: 5000,
                                                          tool_error=lambda v: "timed out")), REACT),
        Bug("an LLM retry merged into one step", "synthesis-retry-merged",
            "the RAG synthesis prompt retried, the Synthesis emitted for each attempt",
            lambda: Retried("graph-rag/synthesis", _changed(in_token=lambda v: v + 97, out_token=lambda v: 3))),
        Bug("an LLM retry merged into one step", "docrag-synthesis-retry-merged",
            "the Document RAG synthesis prompt retried, the Synthesis emitted for each attempt",
            lambda: Retried("document-rag/synthesis", _changed(in_token=lambda v: v + 97,
                                                               out_token=lambda v: 3))),
        Bug("an LLM retry merged into one step", "grounding-retry-merged",
            "the concept extraction retried, the Grounding emitted for each attempt",
            lambda: Retried("graph-rag/grounding", _changed(in_token=lambda v: v + 40, out_token=lambda v: 7))),
        Bug("a step emitted twice, not identically", "question-re-emitted",
            "the session emitted on every iteration (the 'if iteration_num == 1' guard dropped)",
            lambda: Retried("agent/question", _later(2.5), after=True), AGENTS,
            scenarios=frozenset(n for n, s in SCENARIOS.items() if "one-shot" not in n)),
        Bug("a step emitted twice, not identically", "conclusion-re-emitted",
            "the Conclusion emitted again from a finally block, as if the loop had run out",
            lambda: Retried("agent/conclusion", _changed(termination_reason=lambda v: "max-iterations")),
            frozenset({"react"})),
        # One pipeline per trace: the wrong builder.
        Bug("a GraphRAG Question built with the DocRAG builder", "graphrag-question-docrag-builder",
            "graph_rag.py calls docrag_question_triples", lambda: Builder("question_triples", "docrag_question_triples")),
        Bug("a DocRAG Exploration built with the GraphRAG builder", "docrag-exploration-graphrag-builder",
            "document_rag.py calls exploration_triples (tg:edgeCount, the chunks as tg:entity)",
            lambda: Builder("docrag_exploration_triples", "exploration_triples")),
        Bug("a DocRAG Question built with the GraphRAG builder", "docrag-question-graphrag-builder",
            "document_rag.py calls question_triples", lambda: Builder("docrag_question_triples", "question_triples")),
        Bug("a step built with another pipeline's builder", "docrag-focus-graphrag-builder",
            "document_rag.py calls focus_triples for the reranked chunks (they carry no edge)",
            lambda: Builder("docrag_chunk_selection_triples", "focus_triples")),
        Bug("a step built with another pipeline's builder", "graphrag-focus-docrag-builder",
            "graph_rag.py calls docrag_chunk_selection_triples for the edges (they carry no chunk id)",
            lambda: Builder("focus_triples", "docrag_chunk_selection_triples")),
        Bug("a step built with another pattern's builder", "step-result-finding-builder",
            "emit_step_result_triples calls agent_finding_triples",
            lambda: Builder("agent_step_result_triples", "agent_finding_triples")),
        Bug("a step built with another pattern's builder", "finding-step-result-builder",
            "emit_finding_triples calls agent_step_result_triples",
            lambda: Builder("agent_finding_triples", "agent_step_result_triples")),
        Bug("a step built with another pattern's builder", "plan-decomposition-builder",
            "emit_plan_triples calls agent_decomposition_triples",
            lambda: Builder("agent_plan_triples", "agent_decomposition_triples")),
        Bug("a step built with another pattern's builder", "decomposition-plan-builder",
            "emit_decomposition_triples calls agent_plan_triples",
            lambda: Builder("agent_decomposition_triples", "agent_plan_triples")),
        Bug("a step built with another pipeline's builder", "agent-question-graphrag-builder",
            "emit_session_triples calls question_triples (a GraphRagQuestion at the agent's root)",
            lambda: Builder("agent_session_triples", "question_triples")),
        # The wrong parent.
        Bug("wrong parent", "graphrag-synthesis-from-exploration",
            "graph_rag.py derives the Synthesis from the Exploration (as Document RAG without reranker)",
            lambda: Link("graph-rag/synthesis", "exploration")),
        Bug("wrong parent", "graphrag-focus-from-grounding", "graph_rag.py derives the Focus from the Grounding",
            lambda: Link("graph-rag/focus", "grounding")),
        Bug("wrong parent", "graphrag-exploration-from-question",
            "graph_rag.py derives the Exploration from the Question", lambda: Link("graph-rag/exploration", "question")),
        Bug("wrong parent", "docrag-synthesis-from-exploration-reranked",
            "document_rag.py keeps 'syn_parent = exp_uri' when the reranker ran",
            lambda: Link("document-rag/synthesis", "exploration")),
        Bug("wrong parent", "docrag-synthesis-from-focus-unreranked",
            "document_rag.py derives the Synthesis from the Focus IRI although no reranker ran",
            lambda: Link("document-rag/synthesis", "focus")),
        Bug("wrong parent", "docrag-focus-from-grounding", "document_rag.py derives the Focus from the Grounding",
            lambda: Link("document-rag/focus", "grounding")),
        Bug("wrong parent", "analysis-from-previous-analysis",
            "emit_iteration_triples chains Analysis n to Analysis n-1 (2.1.16's chain)",
            lambda: Link("agent/iteration", "analysis")),
        Bug("wrong parent", "first-analysis-from-question",
            "react_pattern.py derives the first Analysis from the Question although it wrote a PatternDecision",
            lambda: Link("agent/iteration", "question")),
        Bug("wrong parent", "conclusion-from-analysis", "emit_final_triples derives the Conclusion from the last Analysis",
            lambda: Link("agent/conclusion", "analysis")),
        Bug("wrong parent", "conclusion-from-question",
            "a one-shot Conclusion derived from the Question although a PatternDecision was written",
            lambda: Link("agent/conclusion", "question")),
        Bug("wrong parent", "observation-from-analysis-despite-sub-trace",
            "emit_observation_triples ignores context.last_sub_explain_uri",
            lambda: Link("agent/observation", "analysis")),
        Bug("wrong parent", "plan-from-question", "emit_plan_triples derives the Plan from the Question, not the PatternDecision",
            lambda: Link("agent/plan", "question")),
        Bug("wrong parent", "step-result-from-previous-step", "each StepResult derived from the one before it",
            lambda: Link("agent/step-result", "previous")),
        Bug("wrong parent", "plan-synthesis-from-first-step", "the Synthesis derived from step 0 (an index slip)",
            lambda: Link("agent/plan-synthesis", "first")),
        Bug("wrong parent", "plan-synthesis-from-every-step", "the plan's Synthesis derived from every StepResult",
            lambda: Link("agent/plan-synthesis", "every")),
        Bug("wrong parent", "plan-synthesis-from-plan", "the plan's Synthesis derived from the Plan",
            lambda: Link("agent/plan-synthesis", "plan")),
        Bug("wrong parent", "decomposition-from-question",
            "emit_decomposition_triples derives from the Question, not the PatternDecision",
            lambda: Link("agent/decomposition", "question")),
        Bug("wrong parent", "finding-from-subagent-question", "a Finding derived from its sub-agent's Question",
            lambda: Link("agent/finding", "question")),
        Bug("wrong parent", "finding-from-decomposition",
            "emit_finding_triples falls back to the Decomposition although the sub-agent's session is known",
            lambda: Link("agent/finding", "decomposition")),
        Bug("wrong parent", "supervisor-synthesis-from-last-finding", "the Synthesis derived from the last Finding only",
            lambda: Link("agent/supervisor-synthesis", "last")),
        Bug("wrong parent", "supervisor-synthesis-from-decomposition", "the Synthesis derived from the Decomposition",
            lambda: Link("agent/supervisor-synthesis", "decomposition")),
        Bug("an Analysis whose tg:thought names the previous iteration's Thought", "thought-previous-iteration",
            "agent_thought_uri(session_id, iteration_num - 1)", lambda: Link("agent/thought", "previous")),
        # A sub-trace linked to the wrong step.
        Bug("a sub-trace linked to the wrong step", "sub-trace-from-question",
            "the knowledge-query tool passes the session IRI as parent_uri", lambda: Link("agent/sub-trace", "question")),
        Bug("a sub-trace linked to the wrong step", "sub-trace-from-previous-step",
            "context.current_explain_uri still names the step before the Analysis",
            lambda: Link("agent/sub-trace", "previous")),
        Bug("a sub-trace linked to the wrong step", "sub-trace-unlinked",
            "context.current_explain_uri never set: the GraphRAG run is its own trace, the Observation still "
            "derives from its Synthesis", lambda: Link("agent/sub-trace", "none")),
        Bug("a sub-trace linked to the wrong step", "step-sub-trace-from-plan",
            "the plan step's tool runs GraphRAG under the Plan", lambda: Link("agent/step-sub-trace", "plan")),
        Bug("a sub-trace linked to the wrong step", "step-sub-trace-next-step",
            "current_explain_uri = make_step_result_uri(session_id, pending_idx + 1)",
            lambda: Link("agent/step-sub-trace", "next")),
        Bug("a sub-trace linked to the wrong step", "step-sub-trace-unlinked",
            "the plan step's GraphRAG run not linked (current_explain_uri unset)",
            lambda: Link("agent/step-sub-trace", "none")),
        Bug("a sub-trace linked to the wrong step", "subagent-question-from-question",
            "a sub-agent's Question derived from the supervisor's Question, not its Decomposition",
            lambda: Link("agent/subagent-question", "question")),
        Bug("a sub-trace linked to the wrong step", "subagent-question-unlinked",
            "parent_session_id dropped from the sub-agent request: its Question derives from nothing",
            lambda: Link("agent/subagent-question", "none")),
        # State kept across requests.
        Bug("a session id kept and reused for the next query", "agent-session-kept",
            "the orchestrator keeps the session id it minted on the pattern and reuses it",
            lambda: KeptSession("agent"), scenarios=PAIRS),
        Bug("a session id kept and reused for the next query", "graphrag-session-kept",
            "the GraphRAG processor keeps its session id across queries",
            lambda: KeptSession("graph-rag"), scenarios=PAIRS),
        Bug("a session id kept and reused for the next query", "docrag-session-kept",
            "the Document RAG processor keeps its session id across queries",
            lambda: KeptSession("document-rag"), scenarios=PAIRS),
        Bug("two tool calls sharing one sub-trace session", "graphrag-session-kept-in-trace",
            "the GraphRAG processor keeps its session id: two knowledge-query calls of one agent share it",
            lambda: KeptSession("graph-rag"), scenarios=frozenset({"orchestrator-react-two-graphrag-tools"})),
        Bug("two sub-agents sharing one session", "subagent-session-kept",
            "supervisor_pattern.py mints the sub-agent session once, outside its fan-out loop",
            lambda: KeptSession("agent", lambda role: role.startswith("subagent/")), frozenset({"supervisor"})),
        Bug("selections minted without their session id", "selections-without-session",
            "focus_triples / docrag_chunk_selection_triples called with session_id=''",
            SelectionsWithoutSession,
            scenarios=PAIRS | {"orchestrator-react-two-graphrag-tools"}),
    ]
    return b


BUGS = _bugs()


@dataclass(frozen=True)
class NotFault:
    """A mistake whose output says what the correct one says: no fault. ``identical`` says the
    triples are the same set (so every form but an explain stream is byte for byte the twin's)."""

    name: str
    why: str
    make: Callable[[], Emitter]
    identical: bool = True
    scenarios: frozenset[str] | None = None


# Where a tool forwards a GraphRAG run into an agent's stream, the order is content: the Observation
# derives from the last event forwarded (tools.py sets context.last_sub_explain_uri on each), so a
# GraphRAG service that sent its events out of order would derive it from another step (C025).
IN_ORDER = frozenset(name for name in SCENARIOS if name not in PAIRS and name not in (
    "orchestrator-react-graphrag-tool", "orchestrator-react-two-graphrag-tools", "supervisor"))

NOT_FAULTS = (
    NotFault("event-redelivered", "every event delivered twice, identically (at-least-once delivery): "
             "the same triples again", Repeated),
    NotFault("answer-redelivered", "the last event of a request delivered again after it (a redelivered "
             "answer): the same triples again", lambda: Repeated(last=True)),
    NotFault("pattern-decision-every-iteration", "service.py's 'not request.history' guard dropped: the "
             "PatternDecision written again with the same triples", lambda: Repeated(frozenset({"agent/pattern-decision"}))),
    NotFault("events-reversed", "a request's events sent in reverse order: a trace's order is in its "
             "links, not in its delivery (2.11.1 itself sends the PatternDecision before its Question and a "
             "plan step's sub-trace before its StepResult)", lambda: Reordered(lambda e: e[::-1]), scenarios=IN_ORDER),
    NotFault("answer-before-its-step", "the last two events of a request swapped",
             lambda: Reordered(lambda e: e[:-2] + e[-1:] + e[-2:-1]), scenarios=IN_ORDER),
    NotFault("synthesis-builder-swapped", "synthesis_triples and docrag_synthesis_triples write the same "
             "triples (trustgraph/provenance/triples.py)", lambda: _Both(
                 Builder("synthesis_triples", "docrag_synthesis_triples"),
                 Builder("docrag_synthesis_triples", "synthesis_triples"))),
)


class _Both(Emitter):
    def __init__(self, first: Builder, second: Builder) -> None:
        self.swaps = {first.instead: first.called, second.instead: second.called}

    def builder(self, name: str) -> Callable[..., list]:
        return super().builder(self.swaps.get(name, name))


# ---------------------------------------------------------------------------
# Traces in every form
# ---------------------------------------------------------------------------

@dataclass
class Built:
    """One input as a service sends it: its requests' emissions, and each form's bytes."""

    requests: list[list[Emission]]
    _forms: dict = field(default_factory=dict)

    @property
    def emissions(self) -> list[Emission]:
        return [e for request in self.requests for e in request]

    @property
    def triples(self) -> list:
        return [t for e in self.emissions for t in e.triples]

    def form(self, form: str) -> bytes:
        if form not in self._forms:
            if form == "wire":
                data = g._json_lines_list(g.to_wire(self.triples))
            elif form == "stream":
                data = "".join(json.dumps(e, ensure_ascii=False) + "\n"
                               for e in g.explain_events(self.emissions)).encode("utf-8")
            else:
                data = g.to_nquads(self.triples)
            self._forms[form] = data
        return self._forms[form]

    def source(self, form: str) -> io.BytesIO:
        """The form as a file to lint (its name tells the loader its format)."""
        handle = io.BytesIO(self.form(form))
        handle.name = f"trace{SUFFIX[form]}"
        return handle

    def quads(self) -> frozenset:
        if "quads" not in self._forms:
            self._forms["quads"] = frozenset(g.to_quads(self.triples))
        return self._forms["quads"]


@functools.cache
def twin(scenario: str) -> Built:
    """What the 2.11.1 services write for the scenario."""
    return Built(SCENARIOS[scenario].emissions(g.SERVICES))


def build(scenario: str, make: Callable[[], Emitter]) -> Built:
    return Built(SCENARIOS[scenario].emissions(make()))


@dataclass(frozen=True)
class Faulty:
    bug: Bug
    scenario: Scenario
    built: Built = field(compare=False, repr=False)

    @property
    def forms(self) -> tuple[str, ...]:
        return tuple(f for f in self.bug.forms if f != "stream" or self.scenario.streams)

    @property
    def id(self) -> str:
        return f"{self.bug.name}:{self.scenario.name}"


@functools.cache
def faulty_traces() -> tuple[Faulty, ...]:
    """Every (bug, scenario) whose output differs from the correct twin's, built once."""
    found = []
    for bug in BUGS:
        for scenario in SCENARIOS.values():
            if not bug.applies(scenario):
                continue
            built = build(scenario.name, bug.make)
            if built.quads() != twin(scenario.name).quads():
                found.append(Faulty(bug, scenario, built))
    return tuple(found)


@functools.cache
def unchanged() -> dict[str, tuple[str, ...]]:
    """Each bug -> the scenarios it applies to where its output is the twin's (the code path it
    changes is not taken there)."""
    changed = {(f.bug.name, f.scenario.name) for f in faulty_traces()}
    return {bug.name: tuple(s.name for s in SCENARIOS.values() if bug.applies(s) and (bug.name, s.name) not in changed)
            for bug in BUGS}


# ---------------------------------------------------------------------------
# Behaviours: correct traces that show how an agent behaved
# ---------------------------------------------------------------------------

def behaviour_scenarios() -> dict[str, list[Emission]]:
    """Scenario name -> the emissions of a correct trace that shows a behaviour (what the behaviour
    rules judge): ``examples/generate.py``'s BEHAVIOURS, built with the real builders chained as the
    services chain them (the committed examples/behaviours/)."""
    return {name: build() for name, build in g.BEHAVIOURS.items()}


def forms_of(emissions: Sequence[Emission]) -> Built:
    return Built([list(emissions)])


__all__ = ["BUGS", "FORMS", "NOT_FAULTS", "SCENARIOS", "Bug", "Built", "Faulty", "NotFault", "Scenario",
           "behaviour_scenarios", "build", "faulty_traces", "forms_of", "twin", "unchanged"]
