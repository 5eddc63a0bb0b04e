"""Trace views: what `tg-trace list`, `show`, `graph` and the HTML report show of a trace.

A view is built from the trace graph and the run's findings: per trace its
root, pattern, question, timings, tokens, models, termination and answer,
and its steps in derivation order, each with what the emitter recorded on it
and the findings about it. A Question below another trace's step (a tool's
GraphRAG call, a supervisor's sub-agent) is a sub-trace nested under that
step, not a trace of its own. Formats print views; nothing here prints.
"""

from __future__ import annotations

import heapq
import json
import os
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime

from . import graph as tg
from .api import DEFAULTS, capture_graph, check_graph, silenced
from .generations import infer
from .graph import DERIVED, GENERATED, TraceGraph
from .loaders import InputError, load
from .model import Finding
from .namespaces import PROV, RDFS, TG
from .settings import Settings
from .tracemodel import terminal_answers

PATTERNS = ("graphrag", "docrag", "react", "plan-then-execute", "supervisor", "extraction")

_QUESTION_PATTERNS = {TG + "GraphRagQuestion": "graphrag", TG + "DocRagQuestion": "docrag"}
# The kinds a sub-trace answers with: what derives from them is its caller picking the answer up.
_ANSWERS = frozenset((TG + "Conclusion", TG + "Synthesis"))
# Mixins: types that add to a step's kind rather than name it.
MIXINS = frozenset(TG + n for n in ("Answer", "ToolUse", "Error", "Reflection"))
_NOT_KINDS = MIXINS | {TG + "Question", PROV + "Entity", PROV + "Activity"}


def local(iri: str) -> str:
    return iri.rsplit("/", 1)[-1].rsplit("#", 1)[-1]


def _int(value) -> int | None:
    try:
        return int(tg.name(value))
    except (TypeError, ValueError):
        return None


def _float(value) -> float | None:
    try:
        return float(tg.name(value))
    except (TypeError, ValueError):
        return None


@dataclass
class Step:
    """One entity of a trace with what the emitter recorded on it."""

    node: str
    kind: str  # the most specific tg: class, e.g. "Analysis"
    types: list[str]  # every tg: class, mixins included
    label: str | None = None
    number: int | None = None
    started: str | None = None
    llm_ms: int | None = None
    tool_ms: int | None = None
    tokens_in: int | None = None
    tokens_out: int | None = None
    model: str | None = None
    query: str | None = None
    pattern: str | None = None
    action: str | None = None
    arguments: object = None  # parsed JSON where it parses, else the text
    thought: str | None = None  # the text (older releases) or the Thought's IRI
    observation: str | None = None
    tool_error: str | None = None
    termination: str | None = None
    answer: str | None = None  # inline answer text (older releases)
    document: str | None = None  # content kept in the librarian: its IRI
    details: dict = field(default_factory=dict)  # concepts, plan steps, goals, ...
    edges: list[dict] = field(default_factory=list)  # GraphRAG selected edges
    chunks: list[dict] = field(default_factory=list)  # DocRAG selected chunks
    findings: list[Finding] = field(default_factory=list)
    subtraces: list[TraceView] = field(default_factory=list)
    parents: list[str] = field(default_factory=list)  # what it derives from

    def to_dict(self) -> dict:
        data = {k: v for k, v in self.__dict__.items()
                if k not in ("findings", "subtraces") and v not in (None, [], {})}
        data["node"] = self.node
        data["findings"] = [f.to_dict() for f in self.findings]
        if self.subtraces:
            data["subtraces"] = [t.to_dict() for t in self.subtraces]
        return data


@dataclass
class TraceView:
    """One trace (or a sub-trace): its summary and its steps in order."""

    trace: str
    file: str | None
    pattern: str
    trace_model: str | None
    question: str | None
    started: str | None
    steps: list[Step] = field(default_factory=list)
    parent_step: str | None = None  # for a sub-trace: the step that started it

    def all_steps(self) -> Iterator[Step]:
        """Every step, sub-traces' included, in order."""
        for step in self.steps:
            yield step
            for sub in step.subtraces:
                yield from sub.all_steps()

    def subtraces(self) -> Iterator[TraceView]:
        for step in self.steps:
            for sub in step.subtraces:
                yield sub
                yield from sub.subtraces()

    def _sum(self, attribute: str) -> int | None:
        values = [getattr(s, attribute) for s in self.all_steps() if getattr(s, attribute) is not None]
        return sum(values) if values else None

    @property
    def step_count(self) -> int:
        """Entities after the Question, sub-traces' included (Questions of sub-traces too)."""
        return sum(1 for _ in self.all_steps()) - 1

    @property
    def llm_ms(self) -> int | None:
        return self._sum("llm_ms")

    @property
    def tool_ms(self) -> int | None:
        return self._sum("tool_ms")

    @property
    def tokens_in(self) -> int | None:
        return self._sum("tokens_in")

    @property
    def tokens_out(self) -> int | None:
        return self._sum("tokens_out")

    @property
    def models(self) -> list[str]:
        return list(dict.fromkeys(s.model for s in self.all_steps() if s.model))

    @property
    def termination(self) -> str | None:
        """The reason the trace's own chain stopped (its last recorded reason)."""
        reasons = [s.termination for s in self.steps if s.termination]
        return reasons[-1] if reasons else None

    answered: bool | None = None

    @property
    def findings(self) -> list[Finding]:
        return [f for s in self.all_steps() for f in s.findings]

    def counts(self) -> dict[str, int]:
        counts = Counter(str(f.severity) for f in self.findings)
        return {name: counts.get(name, 0) for name in ("error", "warning", "info")}

    def step(self, node: str) -> Step | None:
        return next((s for s in self.all_steps() if s.node == node), None)

    def summary(self) -> dict:
        """The row `tg-trace list --format json` gives."""
        return {
            "trace": self.trace,
            "file": self.file,
            "pattern": self.pattern,
            "trace_model": self.trace_model,
            "question": self.question,
            "started": self.started,
            "steps": self.step_count,
            "llm_ms": self.llm_ms,
            "tool_ms": self.tool_ms,
            "tokens_in": self.tokens_in,
            "tokens_out": self.tokens_out,
            "models": self.models,
            "termination": self.termination,
            "answered": self.answered,
            "findings": self.counts(),
            "subtraces": [{"trace": t.trace, "pattern": t.pattern, "question": t.question,
                           "parent_step": t.parent_step} for t in self.subtraces()],
        }

    def to_dict(self) -> dict:
        """The tree `tg-trace show --format json` gives."""
        data = self.summary()
        del data["subtraces"]
        data["parent_step"] = self.parent_step
        data["steps"] = [s.to_dict() for s in self.steps]
        return data


class TraceRow:
    """What `tg-trace list` shows of a trace: its summary (:meth:`TraceView.summary`), read
    through the names a view has, so rows sort and print as views do. Small enough for a
    cluster's workers to send instead of the views."""

    __slots__ = ("data",)

    def __init__(self, data: dict) -> None:
        self.data = data

    def __getattr__(self, name: str):
        if name.startswith("_"):  # copy and pickle probe before data is set
            raise AttributeError(name)
        try:
            return self.data[_ROW_NAMES.get(name, name)]
        except KeyError:
            raise AttributeError(name) from None

    def counts(self) -> dict[str, int]:
        return self.data["findings"]

    def subtraces(self) -> list[dict]:
        return self.data["subtraces"]

    def summary(self) -> dict:
        return self.data


_ROW_NAMES = {"step_count": "steps"}


def capture_order(row) -> tuple:
    """The order of a capture's rows however its traces were grouped: as one graph lists them,
    traces by root, then extraction traces by Document."""
    return row.pattern == "extraction", row.trace


# ---------------------------------------------------------------------------
# Building views from a trace graph.
# ---------------------------------------------------------------------------

class _Builder:
    def __init__(self, graph: TraceGraph, findings: Iterable[Finding]):
        self.graph = graph
        self.models = infer(graph)
        self.by_focus: dict[str, list[Finding]] = {}
        for finding in findings:
            self.by_focus.setdefault(finding.focus, []).append(finding)
        self.generated: dict = {}
        for node, props in graph.out.items():
            for source in props.get(GENERATED, ()):
                self.generated.setdefault(source, []).append(node)
        self.assigned: set = set()

    def value(self, node, predicate: str):
        values = self.graph.values(node, predicate)
        return values[0] if values else None

    def text(self, node, predicate: str) -> str | None:
        value = self.value(node, predicate)
        return tg.name(value) if value is not None else None

    def kind(self, node) -> tuple[str, list[str]]:
        types = sorted(t for t in self.graph.types_of(node) if isinstance(t, str) and t.startswith(TG))
        kinds = [t for t in types if t not in _NOT_KINDS]
        # Question subclasses name the step better than tg:Question.
        main = kinds[0] if kinds else (TG + "Question" if TG + "Question" in types else
                                       (types[0] if types else PROV + "Entity"))
        return local(main), [local(t) for t in types]

    def next_nodes(self, node) -> list:
        graph = self.graph
        found = list(graph.children(node)) + list(self.generated.get(node, ()))
        # Owned sub-entities (Thoughts, selections) are details of their owner, not steps.
        owned = set(graph.owned(node))
        # What derives from a detail (wrongly, a rule says) is still reached through its owner.
        for detail in owned:
            found.extend(graph.children(detail))
        return [n for n in found if n not in owned and n != node]

    def trace(self, root, file: str | None, model: str | None, parent_step=None,
              sub: bool = False) -> tuple[TraceView, list]:
        """The view of the trace rooted at ``root`` and, for a sub-trace, the nodes its caller
        continues from (what derives from its answer)."""
        graph = self.graph
        kinds = graph.types_of(root)
        pattern = next((_QUESTION_PATTERNS[k] for k in kinds if k in _QUESTION_PATTERNS), None)
        if TG + "Document" in kinds and TG + "Question" not in kinds:
            pattern = "extraction"
        view = TraceView(trace=tg.name(root), file=file, pattern=pattern or "react", trace_model=model,
                         question=self.text(root, TG + "query"), started=self.text(root, PROV + "startedAtTime"),
                         parent_step=tg.name(parent_step) if parent_step is not None else None)
        steps: dict = {}
        exits: list = []
        nested: list = []
        self.walk([root], root, sub, steps, nested, exits)
        while nested:
            question = nested.pop(0)
            if question in self.assigned:
                continue
            caller = next((p for p in graph.values(question, DERIVED) if p in steps), None)
            subview, more = self.trace(question, file, model, caller, sub=True)
            (steps[caller] if caller is not None else steps[root]).subtraces.append(subview)
            # The caller's chain goes on from what derives from the sub-trace's answer.
            self.walk(more, root, sub, steps, nested, exits)
        view.steps = self.order(root, steps)
        if view.pattern == "react":
            view.pattern = self.agent_pattern(root, view)
        return view, exits

    def walk(self, start: list, root, sub: bool, steps: dict, nested: list, exits: list) -> None:
        """Add to ``steps`` what is reached from ``start`` in this trace; Questions met are
        sub-traces (``nested``); in a sub-trace, what derives from its answer is its caller's (``exits``)."""
        graph = self.graph
        stack = list(start)
        while stack:
            node = stack.pop()
            if node in self.assigned:
                continue
            if node != root and node in graph.heads:
                nested.append(node)
                continue
            self.assigned.add(node)
            steps[node] = self.step(node)
            after = self.next_nodes(node)
            if sub and graph.types_of(node) & _ANSWERS:
                exits.extend(after)
            else:
                stack.extend(after)

    def agent_pattern(self, root, view: TraceView) -> str:
        for step in view.steps:
            if step.kind == "PatternDecision" and step.pattern in PATTERNS:
                return step.pattern
        kinds = {s.kind for s in view.steps}
        if kinds & {"Plan", "StepResult"}:
            return "plan-then-execute"
        if kinds & {"Decomposition", "Finding"}:
            return "supervisor"
        return "react"

    def order(self, root, steps: dict) -> list[Step]:
        """Each step after those it derives from, ties in the order they were written."""
        graph = self.graph
        position = graph.first_statement
        waiting = {node: {p for p in self.step_parents(node) if p in steps and p != node} for node in steps}
        ready = [(position.get(n, 0), i, n) for i, n in enumerate(steps) if not waiting[n]]
        heapq.heapify(ready)
        done: list = []
        placed: set = set()
        dependants: dict = {}
        for node, before in waiting.items():
            for p in before:
                dependants.setdefault(p, []).append(node)
        counter = len(steps)
        while len(done) < len(steps):
            if not ready:
                # A derivation cycle (a rule reports it): place the earliest written of the rest.
                rest = min((n for n in steps if n not in placed), key=lambda n: position.get(n, 0))
                heapq.heappush(ready, (position.get(rest, 0), counter, rest))
                counter += 1
            _, _, node = heapq.heappop(ready)
            if node in placed:
                continue
            placed.add(node)
            done.append(steps[node])
            for d in dependants.get(node, ()):
                waiting[d].discard(node)
                if not waiting[d] and d not in placed:
                    heapq.heappush(ready, (position.get(d, 0), counter, d))
                    counter += 1
        return done

    def step_parents(self, node) -> list:
        return list(self.graph.values(node, DERIVED)) + list(self.graph.values(node, GENERATED))

    def step(self, node) -> Step:
        graph = self.graph
        kind, types = self.kind(node)
        text = lambda p: self.text(node, TG + p)  # noqa: E731
        step = Step(node=tg.name(node), kind=kind, types=types, label=self.text(node, RDFS + "label"),
                    number=_int(self.value(node, TG + "stepNumber")),
                    started=self.text(node, PROV + "startedAtTime"),
                    llm_ms=_int(self.value(node, TG + "llmDurationMs")),
                    tool_ms=_int(self.value(node, TG + "toolDurationMs")),
                    tokens_in=_int(self.value(node, TG + "inToken")),
                    tokens_out=_int(self.value(node, TG + "outToken")),
                    model=text("llmModel"), query=text("query"), pattern=text("pattern"), action=text("action"),
                    observation=text("observation"), tool_error=text("toolError"),
                    termination=text("terminationReason"), answer=text("answer") or text("content"),
                    parents=[tg.name(p) for p in self.step_parents(node)])
        arguments = text("arguments")
        if arguments is not None:
            try:
                step.arguments = json.loads(arguments)
            except ValueError:
                step.arguments = arguments
        document = self.value(node, TG + "document")
        if document is not None and document != node:
            step.document = tg.name(document)
        elif document == node:
            step.document = step.node  # the entity's own content lives in the librarian under its IRI
        for name in ("concept", "planStep", "subagentGoal", "toolCandidate", "taskType", "entity"):
            values = [tg.name(v) for v in graph.values(node, TG + name)]
            if values:
                step.details[name] = values
        for name in ("edgeCount", "chunkCount"):
            number = _int(self.value(node, TG + name))
            if number is not None:
                step.details[name] = number
        step.findings = list(self.by_focus.get(step.node, ()))
        for thought in graph.values(node, TG + "thought"):
            if tg.is_iri(thought):
                step.thought = tg.name(thought)
                step.findings += self.by_focus.get(step.thought, ())
            else:
                step.thought = tg.name(thought)
        for selection in graph.values(node, TG + "selectedEdge"):
            edge = self.value(selection, TG + "edge")
            step.edges.append({"selection": tg.name(selection),
                               "edge": tg.name(edge if edge is not None else selection),
                               "concept": self.text(selection, TG + "concept"),
                               "reasoning": self.text(selection, TG + "reasoning"),
                               "score": _float(self.value(selection, TG + "score"))})
            step.findings += self.by_focus.get(tg.name(selection), ())
        for selection in graph.values(node, TG + "selectedChunk"):
            if TG + "ChunkSelection" in graph.types_of(selection):
                step.chunks.append({"selection": tg.name(selection),
                                    "document": self.text(selection, TG + "document"),
                                    "score": _float(self.value(selection, TG + "score"))})
                step.findings += self.by_focus.get(tg.name(selection), ())
            else:  # an Exploration lists the chunks retrieved, by IRI
                step.details.setdefault("chunk", []).append(tg.name(selection))
        return step


def extraction_roots(graph: TraceGraph) -> list:
    """Documents that derive from nothing and lie in no Question's trace: extraction traces."""
    return sorted(n for n in graph.instances(TG + "Document")
                  if not graph.values(n, DERIVED) and graph.root_of(n) is None)


def views_of(graph: TraceGraph, findings: Iterable[Finding], file: str | None = None,
             only=None) -> list[TraceView]:
    """One view per top-level trace of the graph (sub-traces nested), in order of start.

    ``only``: a predicate on the root's IRI; other traces are built (a step that two traces
    reach is the first one's, as when every trace is shown) but not returned."""
    builder = _Builder(graph, findings)
    views = []
    for root in list(graph.roots()) + extraction_roots(graph):
        inference = builder.models.get(root)
        view, _ = builder.trace(root, file if file is not None else graph.name,
                                inference.releases if inference else None)
        if only is not None and not only(tg.name(root)):
            continue
        if view.pattern == "extraction":
            view.answered = None
        else:
            # The trace's own chain ends in a Conclusion or Synthesis (a sub-agent's does not count);
            # read from the steps, so chains linked by prov:wasGeneratedBy (2.1.x) count too.
            view.answered = bool(terminal_answers(graph, root)) or any(
                graph.types_of(s.node) & _ANSWERS and not builder.next_nodes(s.node) for s in view.steps)
        views.append(view)
    return views


def trace_subgraph(graph: TraceGraph, roots: Iterable) -> TraceGraph:
    """The part of ``graph`` that linting the traces of ``roots`` needs: their nodes, the traces
    linked to them either way (a link across traces is judged with both ends present), and what
    lies in no Question's trace (documents, extraction traces, declarations). Lines and the
    order of statements are the whole graph's, so findings read as in a lint of the whole file."""
    members = graph.trace_members()
    nodes_of: dict = {}
    for node, root in members.items():
        nodes_of.setdefault(root, []).append(node)
    generated: dict = {}  # inverse of prov:wasGeneratedBy: also a trace link (2.1.x chains)
    for node, props in graph.out.items():
        for source in props.get(GENERATED, ()):
            generated.setdefault(source, []).append(node)
    chosen = {r for r in roots if r in nodes_of}
    pending = list(chosen)
    while pending:
        for node in nodes_of[pending.pop()]:
            props = graph.out.get(node, {})
            linked = [o for values in props.values() for o in values]
            linked += [*graph.children(node), *graph.owners.get(node, ()), *generated.get(node, ())]
            for other in linked:
                root = members.get(other)
                if root is not None and root not in chosen:
                    chosen.add(root)
                    pending.append(root)
    sub = TraceGraph(graph.name, graph.locator, graph.model)
    for node, props in graph.out.items():
        root = members.get(node)
        if root is not None and root not in chosen:
            continue
        for predicate, values in props.items():
            for value in values:
                sub.add(node, predicate, value)
        if node in graph.first_statement:
            sub.first_statement[node] = graph.first_statement[node]
        if node in graph.later_runs:
            sub.later_runs[node] = graph.later_runs[node]
    sub.statements = graph.statements
    return sub


def build(*sources, settings: Settings = DEFAULTS, only=None) -> list[TraceView]:
    """Views of every trace the sources hold, with the findings the settings' rules report.

    With ``only`` (a predicate on a root's IRI) the rules run on the chosen traces' part of each
    graph (:func:`trace_subgraph`), not the whole file: one trace of a large capture is quick."""
    if settings.one_capture:
        return explore_capture(*sources, settings=settings, only=only)
    views: list[TraceView] = []
    for source in sources:
        for item in load(source, settings.input_format, settings.max_stdin, settings.stdin_timeout):
            with tg.collector_paused():
                graph = item.graph()
                if only is not None:
                    roots = [r for r in list(graph.roots()) + extraction_roots(graph) if only(tg.name(r))]
                    if not roots:
                        continue
                    graph = trace_subgraph(graph, roots)
                findings = silenced(check_graph(graph, settings).findings, [item])
                views.extend(views_of(graph, findings, item.name, only))
    return views


def views_of_report(report) -> list[TraceView]:
    """Views of a lint run's traces with its findings, read again from the files (not linted
    again); input that was no file (standard input, objects) has none."""
    views: list[TraceView] = []
    for name in report.files:
        if not name or not os.path.isfile(name):
            continue
        try:
            items = load(name)
        except InputError:
            continue
        # A finding inside an archive names its member after the archive's name.
        findings = [f for f in report.findings if f.file == name or (f.file or "").startswith(name + ":")]
        for item in items:
            with tg.collector_paused():
                views.extend(views_of(item.graph(), findings, item.name))
    return views


def capture_views(graph: TraceGraph, findings: Iterable[Finding], only=None) -> list[TraceView]:
    """Views of a graph that holds parts of one capture, each named by the part that holds its
    root (as the lint report names a trace's file), in :func:`capture_order`."""
    views = views_of(graph, findings, only=only)
    roots = [tg.term(r) for r in list(graph.roots()) + extraction_roots(graph)]
    where = graph.places((r, None, None) for r in roots)
    part = {tg.name(r): where.get((r, None, None), (graph.name,))[0] for r in roots}
    for view in views:
        view.file = part.get(view.trace, view.file)
    return sorted(views, key=capture_order)


def explore_capture(*sources, settings: Settings = DEFAULTS, only=None) -> list[TraceView]:
    """Views of the traces of one capture cut into the parts ``sources``: a trace cut across
    parts is one view, linted whole."""
    items = [item for source in sources
             for item in load(source, settings.input_format, settings.max_stdin, settings.stdin_timeout)]
    if not items:
        return []
    graph = capture_graph(items)
    with tg.collector_paused():
        return capture_views(graph, silenced(check_graph(graph, settings).findings, items), only)


def rows(*sources, settings: Settings = DEFAULTS) -> list[TraceRow]:
    """The rows `tg-trace list` shows of the traces the sources hold, in one process."""
    return [TraceRow(view.summary()) for view in build(*sources, settings=settings)]


def matches(view_or_iri, wanted: str) -> bool:
    """A trace's root is named by its IRI, a prefix of it, or the UUID (or a prefix) in it."""
    iri = view_or_iri if isinstance(view_or_iri, str) else view_or_iri.trace
    if iri == wanted or iri.startswith(wanted):
        return True
    tail = iri.rsplit(":", 1)[-1].rsplit("/", 1)[-1]
    return bool(wanted) and (tail.startswith(wanted) or f":{wanted}" in iri or f"/{wanted}" in iri)


def parse_time(text: str | None) -> datetime | None:
    """An xsd:dateTime or ISO date as an aware datetime (UTC when it names no zone), else None."""
    if not text:
        return None
    try:
        moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
