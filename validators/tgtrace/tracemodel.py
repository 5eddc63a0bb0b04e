"""TrustGraph's trace model over the trace graph: what a trace's root is, which links own a
sub-entity, and what a trace ends in (its answers).

The trace graph (``tgtrace.graph``) knows derivations, not TrustGraph: the loaders build
their graphs with :data:`TRUSTGRAPH`, and the rules and views that ask what a trace
answered read it here.
"""

from __future__ import annotations

import sys

from .graph import DERIVED, TraceGraph, TraceModel
from .namespaces import TG

QUESTION = TG + "Question"
# Links that hang a sub-entity (a Thought, an EdgeSelection, a ChunkSelection) under its owner.
OWNING = frozenset(sys.intern(TG + name) for name in ("thought", "selectedEdge", "selectedChunk"))
# Every trace TrustGraph writes starts at a Question.
TRUSTGRAPH = TraceModel(QUESTION, OWNING)


def is_root_question(graph: TraceGraph, node) -> bool:
    """A Question that derives from no Question, itself included (through a cycle), as the SPARQL says."""
    return node in graph.heads and not graph.has_head_above(node)


_AGENT_QUESTION, _CONCLUSION, _SYNTHESIS = TG + "AgentQuestion", TG + "Conclusion", TG + "Synthesis"
_TERMINAL_KINDS = frozenset((_CONCLUSION, _SYNTHESIS))
_AGENT_STEPS = (TG + "StepResult", TG + "Finding")


def _agent_synthesis(graph: TraceGraph, node) -> bool:
    return any(s in graph.types_of(v) for v in graph.values(node, DERIVED) for s in _AGENT_STEPS)


def terminal_answers(graph: TraceGraph, root) -> set:
    """The answers of the root's own kind that nothing derives from (found once per root)."""
    memo = graph.fact("terminal answers", lambda graph: {})
    found = memo.get(root)
    if found is None:
        found = memo[root] = _find_terminal_answers(graph, root)
    return found


def _find_terminal_answers(graph: TraceGraph, root) -> set:
    agent = _AGENT_QUESTION in graph.types_of(root)
    types = graph.types
    found = set()
    for node in graph.descendants(root):
        if graph.children(node):
            continue
        kinds = types.get(node)
        if not kinds or kinds.isdisjoint(_TERMINAL_KINDS):
            continue
        if agent:
            if _CONCLUSION in kinds and not _sub_agent_answer(graph, node, root):
                found.add(node)
            elif _SYNTHESIS in kinds and _agent_synthesis(graph, node):
                found.add(node)
        elif _SYNTHESIS in kinds and not _agent_synthesis(graph, node):
            found.add(node)
    return found


def _sub_agent_answer(graph: TraceGraph, node, root) -> bool:
    """A Conclusion below another agent Question than the root: a supervisor's sub-agent answered
    it. (TrustGraph 2.11.1 derives a Finding from it, or, when it does not know the Conclusion,
    from the Decomposition: then nothing derives from it, and it is still not the trace's answer.)"""
    return any(a != root and _AGENT_QUESTION in graph.types_of(a) for a in graph.ancestors(node))


def answer_pattern(graph: TraceGraph, node) -> str | None:
    kinds = graph.types_of(node)
    if TG + "Conclusion" in kinds:
        return "react"
    if TG + "Synthesis" in kinds:
        sources = [graph.types_of(v) for v in graph.values(node, DERIVED)]
        if any(TG + "StepResult" in k for k in sources):
            return "plan-then-execute"
        if any(TG + "Finding" in k for k in sources):
            return "supervisor"
    return None
