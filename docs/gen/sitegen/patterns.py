"""The trace patterns the site has a page for, and which example shows each.

A pattern is recognised by what its trace contains, not by the example's file
name, so renaming an example cannot attach the wrong trace to a page.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from tgtrace.tracemodel.traces import PATTERN_TITLES, SOURCE_GRAPH

from .traces import TG, Trace


@dataclass(frozen=True)
class Pattern:
    # The page's name, and the trace model's pattern it shows (None for a page about a way of
    # nesting, sub-traces, that every agent pattern can show).
    slug: str
    pattern: str | None
    matches: Callable[[Trace], bool]
    # Examples (file stems) that show the pattern best, first choice first. A
    # preferred example is still checked against ``matches``.
    prefer: tuple[str, ...]
    heading: str | None = None  # the page's title where the pattern's name is not it

    @property
    def title(self) -> str:
        if self.heading is not None or self.pattern is None:
            return self.heading or self.slug
        name = PATTERN_TITLES[self.pattern]
        return name[0].upper() + name[1:]

    @property
    def page(self) -> str:
        return f"patterns/{self.slug}.md"


def _root_types(trace: Trace) -> set[str]:
    return {t for root in trace.roots for t in trace.types[root]}


def _agent_only(trace: Trace, *, has: str, lacks: tuple[str, ...] = ()) -> bool:
    return (
        TG + "AgentQuestion" in _root_types(trace)
        and trace.has_type(TG + has)
        and not any(trace.has_type(TG + other) for other in lacks)
    )


def _rag(kind: str) -> Callable[[Trace], bool]:
    def matches(trace: Trace) -> bool:
        return TG + kind in _root_types(trace) and not trace.has_type(TG + "AgentQuestion")

    return matches


def _react(trace: Trace) -> bool:
    # An agent that iterates, with no plan, no decomposition and no nested trace.
    nested = [q for q in trace.instances(TG + "Question") if q not in trace.roots]
    return _agent_only(trace, has="Analysis", lacks=("Plan", "Decomposition")) and not nested


def _sub_trace(trace: Trace) -> bool:
    # A RAG question started by an agent's tool call: a Question that derives from an entity.
    return any(
        trace.parents(q) and (TG + "GraphRagQuestion" in trace.types[q] or TG + "DocRagQuestion" in trace.types[q])
        for q in trace.instances(TG + "Question")
    )


def _extraction(trace: Trace) -> bool:
    return SOURCE_GRAPH in trace.graphs or any(
        trace.has_type(TG + name) for name in ("Document", "Chunk", "Subgraph")
    )


PATTERNS = (
    Pattern("graphrag", "graphrag", _rag("GraphRagQuestion"), ("graph-rag",)),
    Pattern("document-rag", "docrag", _rag("DocRagQuestion"), ("document-rag-reranked", "document-rag")),
    Pattern("react", "react", _react, ("orchestrator-react-multi-iteration",)),
    Pattern("plan-then-execute", "plan-then-execute", lambda t: _agent_only(t, has="Plan"), ("plan-then-execute",)),
    Pattern("supervisor", "supervisor", lambda t: _agent_only(t, has="Decomposition"), ("supervisor",)),
    Pattern("sub-traces", None, _sub_trace, ("orchestrator-react-graphrag-tool",), heading="Sub-traces"),
    Pattern("extraction-provenance", "extraction", _extraction, ("extraction",), heading="Extraction provenance"),
)


def candidates(pattern: Pattern, traces: list[Trace]) -> list[Trace]:
    return [t for t in traces if pattern.matches(t)]


def choose_example(pattern: Pattern, traces: list[Trace]) -> Trace | None:
    """The trace that shows a pattern: the first preferred one that matches, else the smallest match."""
    matching = candidates(pattern, traces)
    by_stem = {t.stem: t for t in matching}
    for stem in pattern.prefer:
        if stem in by_stem:
            return by_stem[stem]
    return min(matching, key=lambda t: (len(t.quads), t.name)) if matching else None
