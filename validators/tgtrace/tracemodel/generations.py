"""Trace-model generations: which TrustGraph releases could have written a trace.

TrustGraph changed what its emitter writes several times. A trace of an
older release is not a faulty trace of today's model, so the linter first
infers, from what the trace itself shows, the generation it was written in.
Each signal narrows the range of generations; a trace whose signals leave no
generation at all is half old, half new.

The generations and what marks them come from the releases' own code
(``trustgraph/provenance/`` of trustgraph-base and the services of
trustgraph-flow, release by release): see docs/decisions.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..ground.graph import Node, TraceGraph
from ..ground.namespaces import PROV, TG


def release_key(release: str) -> tuple[int, ...]:
    """"2.2.13" -> (2, 2, 13), for comparing releases ("2.1.x" counts as 2.1.0)."""
    return tuple(int(part) if part.isdigit() else 0 for part in release.split("."))


@dataclass(frozen=True)
class Generation:
    number: int
    name: str  # how reports name it
    first: str  # the first release that writes it
    last: str | None  # the last release that writes it (None: still current)
    changes: str = ""  # what its first release changed, as the releases' builders show it

    @property
    def releases(self) -> str:
        return f"{self.first} to {self.last}" if self.last else f"{self.first} and later"


# From the releases' builders (examples/releases/ holds traces of each).
GENERATIONS = (
    Generation(1, "2.1", "2.1.x", "2.1.16",
               "Questions typed prov:Activity; no Grounding: the Exploration is prov:wasGeneratedBy the "
               "Question; untyped edge selections; no tg:Answer; the thought, observation and answer are "
               "literals on the Analysis and Conclusion; Document RAG may write its answer inline (tg:content)."),
    Generation(2, "2.1.22", "2.1.22", "2.2.12",
               "A Grounding between the Question and the Exploration; the tg:Answer mixin; Thought and "
               "Observation become entities of their own, prov:wasGeneratedBy their Analysis; the first "
               "step is prov:wasGeneratedBy the Question; the agent orchestrator's plan-then-execute and "
               "supervisor (2.2) write their sub-agents as separate traces."),
    Generation(3, "2.2.13", "2.2.13", "2.6.3",
               "Every link is prov:wasDerivedFrom; Questions are prov:Entity; tg:ToolUse; a standalone "
               "Observation after each Analysis; a tool's GraphRAG run derives from the agent step that "
               "called it. Later releases add the PatternDecision, step numbers, durations, tokens and "
               "termination reasons without changing the chain (2.6.8 writes them all)."),
    Generation(4, "2.6.4", "2.6.4", "2.6.8",
               "GraphRAG edge selections typed tg:EdgeSelection (with tg:concept and tg:score), quoted edges "
               "keep literal objects as literals."),
    Generation(5, "2.6.9", "2.6.9", None,
               "The Document RAG Focus with its tg:ChunkSelection entities when a reranker runs."),
)
BY_NUMBER = {g.number: g for g in GENERATIONS}
NEWEST = GENERATIONS[-1].number


@dataclass(frozen=True)
class Signal:
    """What a trace shows, and the generations that write it (inclusive range)."""

    what: str
    low: int
    high: int
    node: object  # a node that shows it
    # A release the trace must be older than, where a change came within a generation (the
    # absence of what that release began to write, where every later release writes it).
    before: str | None = None


@dataclass(frozen=True)
class Inference:
    generations: tuple[int, ...]  # the generations every signal admits (empty: they contradict)
    signals: tuple[Signal, ...]

    @property
    def generation(self) -> Generation | None:
        """The newest generation the signals admit (a trace may show nothing that tells older ones apart)."""
        return BY_NUMBER[self.generations[-1]] if self.generations else None

    @property
    def contradictory(self) -> bool:
        return not self.generations

    @property
    def newest_release(self) -> str | None:
        """The last release that could have written the trace (None: up to the newest)."""
        return BY_NUMBER[self.generations[-1]].last if self.generations else None

    @property
    def before(self) -> str | None:
        """The oldest release the signals say the trace is older than, where that bound falls
        inside the newest generation admitted (None: the generations say all)."""
        bounds = [s.before for s in self.signals if s.before]
        if not bounds or not self.generations:
            return None
        bound = min(bounds, key=release_key)
        newest = self.newest_release
        return bound if newest is None or release_key(bound) <= release_key(newest) else None

    def predates(self, release: str) -> bool:
        """True when every release that could have written the trace is older than ``release``."""
        if self.before is not None and release_key(self.before) <= release_key(release):
            return True
        newest = self.newest_release
        return bool(self.generations) and newest is not None and release_key(newest) < release_key(release)

    @property
    def releases(self) -> str:
        """The releases that could have written the trace, as a person reads them."""
        if not self.generations:
            return "no single release (its signals contradict each other)"
        low, high = BY_NUMBER[self.generations[0]], BY_NUMBER[self.generations[-1]]
        if self.before is not None:
            return f"{low.first} to before {self.before}"
        if high.last is None:
            return f"{low.first} and later"
        return f"{low.first} to {high.last}"


_ACTIVITY = PROV + "Activity"
_ENTITY = PROV + "Entity"
_GENERATED_BY = PROV + "wasGeneratedBy"
_RAG_QUESTIONS = frozenset((TG + "GraphRagQuestion", TG + "DocRagQuestion"))
_LEGACY_LITERALS = (TG + "thought", TG + "observation", TG + "answer")
_GENERATED_STEPS = frozenset(TG + name for name in ("Exploration", "Grounding", "Analysis", "Conclusion", "Thought",
                                                     "Observation", "Plan", "Decomposition"))
_LATER_DETAILS = frozenset((TG + "terminationReason", TG + "stepNumber"))
# The predicates whose values tell generations apart; everything else a node shows, its kind does.
_VALUE_PREDICATES = frozenset({*_LEGACY_LITERALS, TG + "selectedEdge"})
_EMPTY: frozenset = frozenset()
_QUESTION, _GROUNDING, _ANSWER = TG + "Question", TG + "Grounding", TG + "Answer"
_PATTERN_DECISION, _EDGE_SELECTION, _CHUNK_SELECTION = TG + "PatternDecision", TG + "EdgeSelection", TG + "ChunkSelection"
_FOCUS, _EXPLORATION = TG + "Focus", TG + "Exploration"
_ORCHESTRATED = frozenset((TG + "Plan", TG + "Decomposition"))
_LATER_DETAILS_SHOWN = "a PatternDecision, termination reason or step number"
# The release whose orchestrator began to write them all: from it on, every plan-then-execute and
# supervisor answer records its termination reason (the older ReAct service never does, so
# ReAct traces say nothing by the absence).
_DETAILS_RELEASE = "2.3.1"
_CONTENT, _SELECTED_EDGE, _SELECTED_CHUNK = TG + "content", TG + "selectedEdge", TG + "selectedChunk"


def _kind_signals(kinds: frozenset, predicates: tuple) -> list[tuple[str, int, int]]:
    """What every node of these types and predicates shows, whatever its values: (what, low, high)."""
    found = []
    if _QUESTION in kinds:
        if _ACTIVITY in kinds:
            found.append(("Question typed prov:Activity", 1, 2))
        elif _ENTITY in kinds:
            found.append(("Question typed prov:Entity", 3, NEWEST))
    if _CONTENT in predicates:
        found.append(("answer inline as tg:content", 1, 1))
    if _GROUNDING in kinds:
        found.append(("a Grounding", 2, NEWEST))
    if _ANSWER in kinds:
        found.append(("the tg:Answer mixin", 2, NEWEST))
    if _GENERATED_BY in predicates and not kinds.isdisjoint(_GENERATED_STEPS):
        found.append(("a chain link written as prov:wasGeneratedBy", 1, 2))
    if _PATTERN_DECISION in kinds or not _LATER_DETAILS.isdisjoint(predicates):
        found.append((_LATER_DETAILS_SHOWN, 3, NEWEST))
    if _CHUNK_SELECTION in kinds or (_FOCUS in kinds and _SELECTED_CHUNK in predicates):
        found.append(("a Document RAG Focus", 5, NEWEST))
    return found


_LITERAL_SIGNALS = tuple((p, f"literal {p[len(TG):]} on the entity") for p in _LEGACY_LITERALS)
_TYPED_SELECTION, _UNTYPED_SELECTION = "a typed tg:EdgeSelection", "an untyped edge selection"


def _note_values(graph: TraceGraph, node: Node, props: Mapping, noted: dict) -> None:
    """Add to ``noted`` what a node shows by its values: literals where entities belong, how its
    edge selections are written (each shown by the selection)."""
    for predicate, what in _LITERAL_SIGNALS:
        values = props.get(predicate)
        if values and what not in noted and any(type(v) is not str for v in values):
            noted[what] = Signal(what, 1, 1, node)
    selections = props.get(_SELECTED_EDGE)
    if selections and (_TYPED_SELECTION not in noted or _UNTYPED_SELECTION not in noted):
        types, out = graph.types, graph.out
        for selection in selections:
            if type(selection) is str:
                if _EDGE_SELECTION in types.get(selection, _EMPTY):
                    if _TYPED_SELECTION not in noted:
                        noted[_TYPED_SELECTION] = Signal(_TYPED_SELECTION, 4, NEWEST, selection)
                elif out.get(selection) and _UNTYPED_SELECTION not in noted:
                    noted[_UNTYPED_SELECTION] = Signal(_UNTYPED_SELECTION, 1, 3, selection)


def infer(graph: TraceGraph) -> dict:
    """Root of each trace -> the generations it could have been written in (sub-traces included);
    computed once per graph."""
    return graph.fact("trace models", _infer)


def _infer(graph: TraceGraph) -> dict:
    # Each trace's evidence, one Signal per kind of evidence (a kind always admits the same
    # generations, so repeats would say nothing more). What a node shows by its types and
    # predicates is worked out once per kind of node; most kinds show nothing and are skipped whole.
    found: dict = {root: {} for root in graph.roots()}
    out, member = graph.out, graph.trace_members()
    explorations: list[Node] = []
    orchestrated: list[Node] = []
    for (kinds, predicates), nodes in graph.kinds().items():
        if _EXPLORATION in kinds:
            explorations += nodes
        if not _ORCHESTRATED.isdisjoint(kinds):
            orchestrated += nodes
        by_kind = _kind_signals(kinds, predicates)
        by_values = not _VALUE_PREDICATES.isdisjoint(predicates)
        if not by_kind and not by_values:
            continue
        if by_kind:
            # Each trace's first node of the kind, found without a Python loop over the nodes.
            shown = dict(zip(map(member.get, reversed(nodes)), reversed(nodes)))
            shown.pop(None, None)
            for root, node in shown.items():
                noted = found[root]
                for what, low, high in by_kind:
                    if what not in noted:
                        noted[what] = Signal(what, low, high, node)
        if by_values:
            for node in nodes:
                root = member.get(node)
                if root is not None:
                    _note_values(graph, node, out[node], found[root])
    # Up to 2.1.16 a RAG trace goes from its Question straight to the Exploration; every later
    # release writes a Grounding between them (a Grounding is itself a signal: only RAG traces
    # without one are looked at again).
    ungrounded = {root for root, signals in found.items()
                  if "a Grounding" not in signals and graph.types_of(root) & _RAG_QUESTIONS}
    explored = {member.get(node) for node in explorations} & ungrounded if ungrounded else set()
    # A plan or decomposition (the orchestrator's alone) in a trace that shows none of the details
    # its release 2.3.1 began to write: the trace is older than 2.3.1, whatever else it shows.
    plain: dict = {}
    for node in orchestrated:
        root = member.get(node)
        if root is not None and _LATER_DETAILS_SHOWN not in found[root]:
            plain.setdefault(root, node)
    models = {}
    for root, noted in found.items():
        signals = list(noted.values())
        if root in explored:
            signals.append(Signal("a RAG trace without a Grounding", 1, 1, root))
        if root in plain:
            signals.append(Signal(f"a plan or decomposition without {_LATER_DETAILS_SHOWN}", 2, NEWEST, plain[root],
                                  before=_DETAILS_RELEASE))
        low = max((s.low for s in signals), default=1)
        high = min((s.high for s in signals), default=NEWEST)
        models[root] = Inference(tuple(range(low, high + 1)), tuple(signals))
    return models
