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

from dataclasses import dataclass

from .graph import TraceGraph
from .namespaces import PROV, TG


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
    node: object  # the node that shows it


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

    def predates(self, release: str) -> bool:
        """True when every release that could have written the trace is older than ``release``."""
        newest = self.newest_release
        return bool(self.generations) and newest is not None and release_key(newest) < release_key(release)

    @property
    def releases(self) -> str:
        """The releases that could have written the trace, as a person reads them."""
        if not self.generations:
            return "no single release (its signals contradict each other)"
        low, high = BY_NUMBER[self.generations[0]], BY_NUMBER[self.generations[-1]]
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
_LATER_DETAILS = (TG + "terminationReason", TG + "stepNumber")
# A node with none of these types and none of these predicates shows nothing: most of a large
# capture is skipped by one test each.
_MARKING_TYPES = frozenset({TG + "Question", TG + "Grounding", TG + "Answer", TG + "PatternDecision",
                            TG + "ChunkSelection"})
_MARKING_PREDICATES = frozenset({*_LEGACY_LITERALS, *_LATER_DETAILS, TG + "content", _GENERATED_BY,
                                 TG + "selectedEdge", TG + "selectedChunk"})
_EMPTY: frozenset = frozenset()


def _signals(graph: TraceGraph, members) -> list[Signal]:
    """What the members show, one Signal per kind of evidence (its first node): a kind always
    admits the same generations, so repeats would say nothing more."""
    found: dict[str, Signal] = {}

    def note(what: str, low: int, high: int, node) -> None:
        if what not in found:
            found[what] = Signal(what, low, high, node)

    types, out = graph.types, graph.out
    for node in members:
        kinds = types.get(node, _EMPTY)
        props = out.get(node) or {}
        if kinds.isdisjoint(_MARKING_TYPES) and props.keys().isdisjoint(_MARKING_PREDICATES):
            continue
        if TG + "Question" in kinds:
            if _ACTIVITY in kinds:
                note("Question typed prov:Activity", 1, 2, node)
            elif _ENTITY in kinds:
                note("Question typed prov:Entity", 3, NEWEST, node)
        for predicate in _LEGACY_LITERALS:
            if any(type(v) is not str for v in props.get(predicate, ())):
                note(f"literal {predicate[len(TG):]} on the entity", 1, 1, node)
        if TG + "content" in props:
            note("answer inline as tg:content", 1, 1, node)
        if TG + "Grounding" in kinds:
            note("a Grounding", 2, NEWEST, node)
        if TG + "Answer" in kinds:
            note("the tg:Answer mixin", 2, NEWEST, node)
        if _GENERATED_BY in props and not kinds.isdisjoint(_GENERATED_STEPS):
            note("a chain link written as prov:wasGeneratedBy", 1, 2, node)
        if TG + "PatternDecision" in kinds or any(p in props for p in _LATER_DETAILS):
            note("a PatternDecision, termination reason or step number", 3, NEWEST, node)
        for selection in props.get(TG + "selectedEdge", ()):
            if type(selection) is str:
                if TG + "EdgeSelection" in types.get(selection, _EMPTY):
                    note("a typed tg:EdgeSelection", 4, NEWEST, selection)
                elif out.get(selection):
                    note("an untyped edge selection", 1, 3, selection)
        if TG + "ChunkSelection" in kinds or (TG + "Focus" in kinds and TG + "selectedChunk" in props):
            note("a Document RAG Focus", 5, NEWEST, node)
    return list(found.values())


def infer(graph: TraceGraph) -> dict:
    """Root of each trace -> the generations it could have been written in (sub-traces included);
    computed once per graph."""
    return graph.fact("trace models", _infer)


def _infer(graph: TraceGraph) -> dict:
    members: dict = {root: [] for root in graph.roots()}
    for node, root in graph.trace_members().items():
        members.setdefault(root, []).append(node)
    found = {}
    for root, nodes in members.items():
        signals = _signals(graph, nodes)
        # Up to 2.1.16 a RAG trace goes from its Question straight to the Exploration; every
        # later release writes a Grounding between them.
        if graph.types_of(root) & _RAG_QUESTIONS:
            kinds = [graph.types_of(node) for node in nodes]
            if any(TG + "Exploration" in k for k in kinds) and not any(TG + "Grounding" in k for k in kinds):
                signals.append(Signal("a RAG trace without a Grounding", 1, 1, root))
        low = max((s.low for s in signals), default=1)
        high = min((s.high for s in signals), default=NEWEST)
        found[root] = Inference(tuple(range(low, high + 1)), tuple(signals))
    return found
