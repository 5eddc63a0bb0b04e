"""A deployment's audit at a glance: what the reports open with before the list of findings.

The run's visit reduces each trace it views, while its graph is alive, to a :class:`TraceFacts`:
a small record (its pattern, release, termination, iterations, duration, tokens and the duration
and tokens of each step), so that a capture of any size is summed up without keeping a graph or
a view. :func:`summarize` adds the records up, with the report's findings, into one JSON-ready
summary the formats print (HTML with its plots, Markdown, JSON); nothing here prints.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..ground.graph import TraceGraph
from ..ground.model import Finding
from ..rules.registry import BEHAVIOUR_FAMILY
from ..run.lint import InputResult
from .traces import TraceView, ViewsVisit

# The kinds of step that are an agent's iteration: a ReAct Analysis, a plan's StepResult.
ITERATION_KINDS = frozenset({"Analysis", "StepResult"})
# How many of the slowest and of the longest traces the summary names.
TOP = 10
# The characters of a question a record keeps (the summary names a trace by it).
QUESTION_WIDTH = 160
# A termination bucket for a trace that recorded no reason.
NO_ANSWER = "(no answer)"
NOT_RECORDED = "(answered, no reason recorded)"


@dataclass(frozen=True, slots=True)
class TraceFacts:
    """What the audit keeps of one trace (a top-level view; its sub-traces' steps count in it)."""

    trace: str
    file: str | None
    pattern: str
    release: str | None
    termination: str | None  # the reason, or NO_ANSWER / NOT_RECORDED; None for extraction
    iterations: int | None  # None for a trace that is not an agent's
    steps: int
    duration_ms: int | None  # every recorded LLM and tool duration of the trace, summed
    tokens: int | None  # every recorded input and output token, summed
    question: str | None
    # Per step (sub-traces' included): (kind, duration in ms or None, tokens or None).
    measures: tuple[tuple[str, int | None, int | None], ...] = ()


def _total(*values: int | None) -> int | None:
    present = [v for v in values if v is not None]
    return sum(present) if present else None


def facts_of(view: TraceView) -> TraceFacts:
    """The audit's record of one trace's view."""
    agent = view.pattern in ("react", "plan-then-execute", "supervisor")
    if view.pattern == "extraction":
        termination = None
    elif view.termination:
        termination = view.termination
    else:
        termination = NOT_RECORDED if view.answered else NO_ANSWER
    steps = list(view.all_steps())
    question = view.question[:QUESTION_WIDTH] if view.question else None
    return TraceFacts(
        trace=view.trace, file=view.file, pattern=view.pattern, release=view.trace_model,
        termination=termination,
        iterations=sum(1 for s in steps if s.kind in ITERATION_KINDS) if agent else None,
        steps=view.step_count, duration_ms=_total(view.llm_ms, view.tool_ms),
        tokens=_total(view.tokens_in, view.tokens_out), question=question,
        measures=tuple((s.kind, _total(s.llm_ms, s.tool_ms), _total(s.tokens_in, s.tokens_out))
                       for s in steps if s.node != view.trace))


def _percentile(ordered: Sequence[int], fraction: float) -> int:
    """The nearest-rank percentile of sorted values."""
    rank = max(1, -(-len(ordered) * fraction // 1))
    return ordered[int(rank) - 1]


def distribution(values: Iterable[int]) -> dict[str, Any] | None:
    """Count, min, median, 90th percentile and max of values, and their histogram in powers of
    two (bin ``[from, to)``, 0 a bin of its own): readable whether a value is 5 or 50,000."""
    ordered = sorted(values)
    if not ordered:
        return None
    bins: Counter = Counter(max(0, v).bit_length() for v in ordered)
    return {"count": len(ordered), "min": ordered[0], "median": _percentile(ordered, 0.5),
            "p90": _percentile(ordered, 0.9), "max": ordered[-1], "sum": sum(ordered),
            "bins": [{"from": 0 if b == 0 else 1 << (b - 1), "to": 1 if b == 0 else 1 << b, "count": bins[b]}
                     for b in range(min(bins), max(bins) + 1)]}


def _row(facts: TraceFacts) -> dict[str, Any]:
    return {"trace": facts.trace, "file": facts.file, "pattern": facts.pattern, "question": facts.question,
            "steps": facts.steps, "duration_ms": facts.duration_ms, "tokens": facts.tokens}


def summarize(records: Iterable[TraceFacts], findings: Iterable[Finding], top: int = TOP) -> dict[str, Any]:
    """The audit of a run: its traces by pattern and release, their termination reasons, the
    findings by rule (conformance apart from behaviour), iterations per agent trace, durations and
    tokens per step kind, and the slowest and longest traces. A trace met twice (in two files, or
    judged again as a stream completed it) counts once, as its last record."""
    latest: dict[str, TraceFacts] = {}
    for facts in records:
        latest.pop(facts.trace, None)
        latest[facts.trace] = facts
    traces = list(latest.values())
    patterns = Counter((f.pattern, f.release or "unknown") for f in traces)
    terminations = Counter(f.termination for f in traces if f.termination is not None)
    durations: dict[str, list[int]] = {}
    tokens: dict[str, list[int]] = {}
    for facts in traces:
        for kind, ms, used in facts.measures:
            if ms is not None:
                durations.setdefault(kind, []).append(ms)
            if used is not None:
                tokens.setdefault(kind, []).append(used)
    by_rule: dict[str, dict[str, Any]] = {}
    for finding in findings:
        entry = by_rule.setdefault(finding.rule, {"rule": finding.rule, "family": finding.family,
                                                  "severity": str(finding.severity), "findings": 0,
                                                  "traces": set()})
        entry["findings"] += 1
        if finding.trace:
            entry["traces"].add(finding.trace)
    rules = sorted(({**e, "traces": len(e["traces"])} for e in by_rule.values()),
                   key=lambda e: (-e["findings"], e["rule"]))
    timed = sorted((f for f in traces if f.duration_ms is not None), key=lambda f: (-(f.duration_ms or 0), f.trace))
    longest = sorted(traces, key=lambda f: (-f.steps, f.trace))
    return {
        "traces": len(traces),
        "patterns": [{"pattern": p, "release": r, "traces": n}
                     for (p, r), n in sorted(patterns.items(), key=lambda i: (-i[1], i[0]))],
        "termination": [{"reason": r, "traces": n}
                        for r, n in sorted(terminations.items(), key=lambda i: (-i[1], i[0]))],
        "conformance": [e for e in rules if e["family"] != BEHAVIOUR_FAMILY],
        "behaviour": [e for e in rules if e["family"] == BEHAVIOUR_FAMILY],
        "iterations": distribution(f.iterations for f in traces if f.iterations is not None),
        "step_kinds": [{"kind": kind, "duration_ms": distribution(durations.get(kind, ())),
                        "tokens": distribution(tokens.get(kind, ()))}
                       for kind in sorted(set(durations) | set(tokens))],
        "slowest": [_row(f) for f in timed[:top]],
        "longest": [_row(f) for f in longest[:top]],
    }


@dataclass(frozen=True)
class AuditVisit:
    """The run's visit for a report that opens with the audit: each graph's views built (by
    ``views``), reduced to their :class:`TraceFacts` (``result.audit``) while the graph is alive,
    and kept only when ``keep`` (the HTML report draws them); else dropped at once, so a run keeps
    a small record per trace. A value, so that it travels to a worker process."""

    views: ViewsVisit
    keep: bool = False

    @property
    def reads_findings(self) -> bool:
        """Whether the visit reads the result's findings: kept views show them; an outline does not,
        so the run may visit the graph before its rules judge it."""
        return self.keep

    def __call__(self, graph: TraceGraph, result: InputResult) -> None:
        # Views dropped at once need only what facts_of reads: their outline.
        (self.views if self.keep else replace(self.views, outline=True))(graph, result)
        result.audit = [facts_of(view) for view in result.views or ()]
        if not self.keep:
            result.views = None
