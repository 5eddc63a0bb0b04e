"""The entry point every face (CLI, pytest plugin, Python API) calls.

``iter_results`` yields each input's results as its traces complete (an
explain stream trace by trace); ``lint`` collects them into a :class:`Report`. The flow is one way: a loader turns each input into a
trace graph, an engine checks the graph, and here hits become findings.
"""

from __future__ import annotations

import concurrent.futures  # its ProcessPoolExecutor (multiprocessing) loads on first use, for --jobs
import gc
import importlib
import os
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Any, TypeAlias

import pyoxigraph as ox
import rdflib

from ..ground import graph as tg
from ..ground.graph import Node, TraceGraph
from ..ground.locations import Parts
from ..ground.model import Finding, Hit, Report, Severity, Source
from ..inputs.base import Reading
from ..inputs.excerpt import names_no_file
from ..inputs.loaders import Input, InputError, expand_paths, load
from ..inputs.stream import Earlier, StreamLinter
from ..rules import Rule, all_rules, fill_message, model_for
from ..rules.advice import capture_notes
from ..rules.components import PACKAGED
from ..shacl.fast import Engine, implemented
from ..tracemodel.generations import Inference, infer
from ..tracemodel.traces import (
    TRUSTGRAPH,
    describe_asked,
    graph_statements,
    trace_roots,
    trace_subgraph,
    what_was_asked,
)
from ..tracemodel.vocabulary import declarations, declared_terms
from .baseline import load as load_baseline
from .coverage import coverage
from .options import engine as checked_engine
from .settings import Settings

DEFAULTS = Settings()
# The reference engine (pySHACL, rdflib's SPARQL) is imported only when --engine shacl asks for it.
_REFERENCE_ENGINE = "tgtrace.shacl.reference"

# Where a run keeps the graph of the input it read last, in a process that leaves without the
# interpreter's teardown (the tg-trace command): see last_graph_kept.
_LAST_GRAPH: ContextVar[list[TraceGraph] | None] = ContextVar("tgtrace_last_graph", default=None)


@contextmanager
def last_graph_kept() -> Iterator[None]:
    """Within this context each run keeps the graph of the input it read last, instead of freeing
    it once judged, so that a process ending without teardown (``os._exit``) never frees it: at a
    million triples, freeing the index object by object is about a twentieth of a lint. Only the
    last one is kept (a graph is let go before the next input is read), so memory stays that of
    one input. Leaving the context lets it go."""
    token = _LAST_GRAPH.set([])
    try:
        yield
    finally:
        _release_kept()
        _LAST_GRAPH.reset(token)


def _release_kept() -> None:
    """Let the graph kept from the input read before go, before another is read."""
    kept = _LAST_GRAPH.get()
    if kept:
        kept.clear()
        gc.unfreeze()  # what was alive beside it is the collector's again


def _keep(graph: TraceGraph) -> None:
    """Keep ``graph``, where the run keeps its last one; called with the collector still paused.

    A kept graph is also taken out of the collector's reach (``gc.freeze``, with everything alive
    now): its millions of objects were made while the collector was paused, so its first pass
    after the pause would walk every one of them, and its next pass again (0.8 s of CPU at a
    million triples). The index holds no cycles: letting it go still frees it."""
    kept = _LAST_GRAPH.get()
    if kept is not None:
        kept.append(graph)
        gc.freeze()


# What a face builds from each graph the run judges, while the graph is alive: ``visit(graph,
# result)`` may set ``result.views`` (the trace views the HTML report, list and show read). The
# run calls it; it knows nothing of views (they are a floor above it). A visit whose
# ``reads_findings`` is false is called before the rules judge the graph (see ``_judge``).
Visit: TypeAlias = Callable[[TraceGraph, "InputResult"], None]


def _judge(graph: TraceGraph, settings: Settings, items: Sequence[Input] = (), visit: Visit | None = None,
           only: Callable[[str], bool] | None = None) -> InputResult:
    """``graph`` checked (the rules a lossy input among ``items`` cannot judge left silent) and
    visited, then kept or, once this returns, freed: either way before the collector resumes, which
    would otherwise walk it (see ``_keep``). ``only``: a predicate on a root's IRI; the rules then run
    on the chosen traces' part of the graph (tracemodel's trace_subgraph): one trace of a large
    capture is quick."""
    if only is not None:
        roots = [r for r in trace_roots(graph) if only(tg.name(r))]
        if not roots:
            return InputResult(graph.name)
        graph = trace_subgraph(graph, roots)
    # A visit that reads no findings (the audit's outline) goes first: what it builds is dropped
    # before the rules build theirs, so the two never lie on top of each other (the peak of a 1M-triple
    # capture's JSON lint is the larger of the two, not their sum).
    early = visit is not None and not getattr(visit, "reads_findings", True)
    if early:
        ahead = InputResult(graph.name)
        visit(graph, ahead)  # type: ignore[misc]  # early implies a visit
    result = check_graph(graph, settings)
    if items:
        result.findings = silenced(result.findings, items)
    if early:
        result.views, result.audit = ahead.views, ahead.audit
    elif visit is not None:
        visit(graph, result)
    _keep(graph)
    return result


def _message(rule: Rule, path: str | None, value: object) -> str:
    return fill_message(rule.message, {"value": tg.name(value) if value is not None else "(none)",
                                       "path": path or "(none)"})


@dataclass
class InputResult:
    """What one input (or one group of an explain stream) gave."""

    name: str
    findings: list[Finding] = field(default_factory=list)
    traces: dict = field(default_factory=dict)  # root IRI -> input name
    # Root Question IRI -> what it asked: its query texts and start times (what tells two queries apart).
    asked: dict = field(default_factory=dict)
    trace_models: dict = field(default_factory=dict)  # root IRI -> the releases that write its trace model
    triples: int = 0
    terms: Counter = field(default_factory=Counter)
    type_sets: Counter = field(default_factory=Counter)
    extra: dict = field(default_factory=dict)
    # The input's format carries no graph names (Turtle, N-Triples, ...): its graphs were not judged.
    graphs_unjudged: bool = False
    # What a face's visit built of the graph (the trace views), when it asked for it.
    views: list | None = None
    # The audit's small record of each trace (a views.audit TraceFacts), when a face asked for it.
    audit: list | None = None
    # The text of an input that was no file (standard input), by its name, for its excerpts.
    held: dict = field(default_factory=dict)


@cache
def packaged_engine(codes: frozenset[str] | None = None) -> Engine:
    """The default engine compiled for the registry's rules (the selected opt-in ones activated),
    adding the ontology's declarations to each graph; built once per process and selection. It is
    given SHACL Core's components and TrustGraph's (``rules.components.PACKAGED``)."""
    return Engine(model_for(codes), codes, declarations(), components=PACKAGED)


def supported_components() -> frozenset[str]:
    """Every constraint component the default engine evaluates natively, by the IRI its validation
    results name (SHACL Core's and the project's own); any other runs by its SPARQL validator."""
    return implemented(PACKAGED)


def check_graph(graph: TraceGraph, settings: Settings = DEFAULTS, aside: frozenset = frozenset()) -> InputResult:
    """Findings of one trace graph, with what coverage needs to know of it. The nodes ``aside``
    are in the graph to be read only: their own findings and counts are another graph's."""
    declared, hits, models = _checked(graph, settings)
    result = InputResult(graph.name, triples=graph.statements)
    if aside:
        hits = [hit for hit in hits if hit.focus not in aside]
    result.findings = [finding for _, finding in _findings(graph, hits, settings, models)]
    result.traces = _trace_files(graph)
    result.asked = {tg.name(root): asked for root in trace_roots(graph) if (asked := what_was_asked(graph, root))}
    result.trace_models = {tg.name(root): inference.releases for root, inference in models.items()}
    kinds = _kinds(graph, aside)
    for node in aside & declared:
        kinds[_declared_kinds()[node]] += 1  # without what it was lent, the node is its declaration alone
    result.terms = _terms_used(kinds)
    result.type_sets = _type_sets(kinds)
    graph.checked()
    return result


def _checked(graph: TraceGraph, settings: Settings) -> tuple[set, list, dict]:
    """(the declarations' subjects mixed into the graph, the engine's hits, each trace's model)."""
    fast = packaged_engine(settings.codes)
    declared = fast.prepare(graph)
    if settings.engine == "fast":
        hits = list(fast.check(graph, declared))
    elif checked_engine(settings.engine, "engine") == "shacl":
        hits = importlib.import_module(_REFERENCE_ENGINE).check(graph, model_for(settings.codes), settings.codes,
                                                                list(graph_statements(graph)))
    return declared, hits, infer(graph)


def _trace_files(graph: TraceGraph) -> dict:
    """The input that holds each trace's root (the part of a capture, when it spans parts)."""
    roots = trace_roots(graph)
    if graph.locator.spans_parts:
        where = graph.places((tg.term(root), None, None) for root in roots)
        return {tg.name(root): where.get((tg.term(root), None, None), (graph.name,))[0] for root in roots}
    return {tg.name(root): graph.name for root in roots}


@dataclass
class PartResults:
    """One graph's results, linted once and kept by part (the graph's subjects cut into parts),
    holding no graph: ``result(kept)`` is what ``check_graph`` gives with the nodes of every other
    part aside, so a graph whose parts are known to be whole only later can be dropped now."""

    name: str
    findings: list[tuple[int, Finding]] = field(default_factory=list)  # (part of its focus, finding)
    traces: dict = field(default_factory=dict)  # root IRI -> (part, input name)
    trace_models: dict = field(default_factory=dict)  # root IRI -> (part, releases)
    kinds: dict = field(default_factory=dict)  # part -> Counter of its nodes' kinds
    declared: dict = field(default_factory=dict)  # part -> Counter of its declared nodes' declared kinds
    common: Counter = field(default_factory=Counter)  # kinds of the nodes of no part (the declarations)

    def result(self, kept: set[int], triples: int) -> InputResult:
        """The results of the parts ``kept``, the other parts read only."""
        kinds = Counter(self.common)
        for part, counted in self.kinds.items():
            kinds.update(counted if part in kept else self.declared.get(part, ()))
        return InputResult(
            self.name,
            findings=[finding for part, finding in self.findings if part in kept],
            traces={root: name for root, (part, name) in self.traces.items() if part in kept},
            trace_models={root: model for root, (part, model) in self.trace_models.items() if part in kept},
            triples=triples, terms=_terms_used(kinds), type_sets=_type_sets(kinds))


def check_parts(graph: TraceGraph, settings: Settings, part_of: dict, source: str) -> PartResults | None:
    """The graph's results kept by part, ``part_of`` giving the part of each subject, ``source``
    the input that holds every statement of the graph; None when a finding or a trace falls in
    no part (its focus is no subject of the graph: what another part links to), which only a
    graph kept whole can tell apart."""
    declared, hits, models = _checked(graph, settings)
    if any(hit.focus not in part_of for hit in hits):
        return None
    roots = trace_roots(graph)
    if any(root not in part_of for root in (*roots, *models)):
        return None
    parted = PartResults(graph.name)
    parted.findings = [(part_of[focus], finding) for focus, finding in _findings(graph, hits, settings, models)]
    # Every root is a subject here (else None above): its statements are in ``source``.
    parted.traces = {tg.name(root): (part_of[root], source) for root in roots}
    parted.trace_models = {tg.name(root): (part_of[root], inference.releases) for root, inference in models.items()}
    for kind, nodes in graph.kinds().items():
        # Counted per part at once: a kind holds many nodes, a graph a few hundred kinds.
        for part, count in Counter(map(part_of.get, nodes)).items():
            if part is None:
                parted.common[kind] += count
            else:
                parted.kinds.setdefault(part, Counter())[kind] += count
    declared_kinds = _declared_kinds()
    for node in declared:
        part = part_of.get(node)
        if part is not None and node in graph.out:  # a node of some kind, as counted above
            parted.declared.setdefault(part, Counter())[declared_kinds[node]] += 1
    return parted


def _aged(rule: Rule, severity: Severity, message: str, model: Inference | None,
          settings: Settings) -> tuple[Severity, str]:
    """A finding of a rule the trace's own release did not yet meet: info naming the release
    that changed it, or an error when the project's target version is newer than the trace."""
    if rule.since is None or model is None or not model.predates(rule.since):
        return severity, message
    message = f"{message} (written so by TrustGraph {model.releases}; required since {rule.since})"
    too_old = settings.target_version is not None and model.predates(settings.target_version)
    return (Severity.ERROR if too_old else Severity.INFO), message


def _findings(graph: TraceGraph, hits: Iterable[Hit], settings: Settings,
              models: dict | None = None) -> list[tuple[Any, Finding]]:
    """(focus node, finding) of each hit of a selected rule, one per rule, focus, path and value."""
    rules = all_rules()
    codes = settings.codes
    unique: dict = {}
    for hit in hits:
        if hit.rule not in codes:
            continue
        # One finding of the hits of two constraints of a rule's shape (sh:nodeKind and sh:pattern
        # on an IRI): its source names the first component in IRI order, whichever engine ran.
        key = (hit.rule, hit.focus, hit.path, hit.value)
        kept = unique.get(key)
        if kept is None or (hit.component or "") < (kept.component or ""):
            unique[key] = hit
    wanted = []
    placed: dict = {}
    for _, focus, path, value in unique:
        triple = _placed_triple(graph, focus, path, value)
        if triple is not None:
            placed[(focus, path, value)] = triple
            wanted.append(triple)
        wanted.append((tg.term(focus), None, None))
    places = graph.places(wanted) if unique else {}
    findings = []
    for (code, focus, path, value), hit in unique.items():
        rule = rules[code]
        triple = placed.get((focus, path, value))
        place = places.get(triple) if triple is not None else None
        if place is None:
            place = places.get((tg.term(focus), None, None))
        # In one capture cut into parts, the part that holds the triple.
        file, line = place if place is not None else (graph.name, None)
        root = graph.root_of(focus)
        severity, message = _aged(rule, rule.severity, _message(rule, path, value),
                                  (models or {}).get(root), settings)
        finding = settings.finding(Finding(
            file=file,
            line=line,
            rule=code,
            severity=severity,
            family=rule.family,
            message=message,
            focus=tg.name(focus),
            trace=tg.name(root) if root is not None else None,
            path=path,
            value=tg.name(value) if value is not None else None,
            source=Source(_source_shape(hit, rule), hit.component, focus, value),
        ))
        if finding is not None:
            notes = capture_notes(graph, hit)
            findings.append((focus, replace(finding, notes=notes) if notes else finding))
    return findings


def _source_shape(hit: Hit, rule: Rule) -> str:
    """The IRI of the shape a hit comes from (the shape that holds a SPARQL-based constraint);
    the rule's own when that shape is a blank node."""
    node = getattr(hit.shape, "node", None)
    return str(node) if isinstance(node, rdflib.URIRef) else rule.shape


def _placed_triple(graph: TraceGraph, focus: Node, path: str | None, value: Node | None) -> tuple | None:
    """The triple of the input a finding is about, as pyoxigraph terms, when the input holds it
    (a component may report its focus as the value of a path the focus lacks)."""
    if value is None:
        return None
    if path is None:
        # A rule over several predicates names none: the one by which the focus holds the value.
        path = next((p for p, values in (graph.out.get(focus) or {}).items() if value in values), None)
        if path is None:
            return None
    elif value == focus and focus not in graph.values(focus, path):
        # A rule on the predicate itself (an undeclared one) names the focus as its value: the
        # focus's first triple with that predicate.
        value = next(iter(graph.values(focus, path)), None)
    if value is None or value not in graph.values(focus, path):
        return None
    return (tg.term(focus), ox.NamedNode(path), tg.term(value))


def _kinds(graph: TraceGraph, aside: frozenset = frozenset()) -> Counter:
    """How many nodes of each kind (asserted types, predicates) the graph holds, those aside left out."""
    if aside:
        return Counter({kind: count for kind, nodes in graph.kinds().items()
                        if (count := sum(1 for node in nodes if node not in aside))})
    return Counter({kind: len(nodes) for kind, nodes in graph.kinds().items()})


@cache
def _declared_kinds() -> dict:
    """The kind of each node the ontology's declarations describe, in a graph of nothing else."""
    types: dict = {}
    predicates: dict = {}
    for s, p, o in declarations():
        subject = tg.key_from_rdflib(s)
        predicates.setdefault(subject, {})[str(p)] = None
        if str(p) == tg.RDF_TYPE:
            types.setdefault(subject, set()).add(tg.key_from_rdflib(o))
    return {node: (frozenset(types.get(node, ())), tuple(used)) for node, used in predicates.items()}


@cache
def _declaration_kinds() -> frozenset:
    # On first use, not at import: it reads the ontology.
    return frozenset(str(o) for _, _, o in declarations() if str(o).startswith("http://www.w3.org/2002/07/owl#"))


def _declared_terms_used() -> Counter:
    """What the ontology's declarations, mixed into every graph, add to the term counts."""
    terms: Counter = Counter()
    subjects: dict = {}
    for s, p, o in declarations():
        subjects.setdefault(str(s), set()).add(str(p))
        if str(p) == tg.RDF_TYPE:
            terms[str(o)] += 1
    for predicates in subjects.values():
        terms.update(predicates)
    return terms


def _type_sets(kinds: Counter) -> Counter:
    """How many nodes carried each exact set of asserted classes (declared terms left out)."""
    sets: Counter = Counter()
    declaration_kinds = _declaration_kinds()
    for (types, _), count in kinds.items():
        if types and not types & declaration_kinds:
            sets[" ".join(sorted(types))] += count
    return sets


def _terms_used(kinds: Counter) -> Counter:
    """How many nodes used each class (as a type) and each predicate."""
    used: Counter = Counter()
    for (types, predicates), count in kinds.items():
        for term in types:
            used[term] += count
        for term in predicates:
            used[term] += count
    used.subtract(_declared_terms_used())
    return Counter({k: v for k, v in used.items() if v > 0})


# The notice an input gets when its format lost what some rules need: a code of the registry
# (rules/codes.toml), about the input rather than a node of a trace.
LOSSY_INPUT = "I001"


def lint_input(source: Input, settings: Settings = DEFAULTS, visit: Visit | None = None,
               only: Callable[[str], bool] | None = None) -> Iterator[InputResult]:
    """One input's results: one for a file, one per completed trace group for an explain stream."""
    for result in _judged(_lint_input(source, settings, visit, only), [source], settings):
        _hold(result, [source])
        yield result


def _hold(result: InputResult, items: Sequence[Input]) -> None:
    """The text of the inputs that were no file (standard input, a pull's quads as `pull` writes
    them) kept with a result that has findings: their excerpts are read from it, as a file's are
    read from the file."""
    if result.findings:
        result.held = {item.name: item.text for item in items if names_no_file(item.name) and item.text is not None}
        result.held.update((item.name, item.rendered()) for item in items if item.rendered is not None)


def _lint_input(source: Input, settings: Settings, visit: Visit | None = None,
                only: Callable[[str], bool] | None = None) -> Iterator[InputResult]:
    if settings.engine == "fast" and source.events is not None and only is None:
        yield from _lint_stream(source, settings, visit)
        return
    _release_kept()
    # The graph holds millions of objects and no cycles: the collector's full passes over it
    # would only cost time, from the parse to the last finding.
    with tg.collector_paused():
        graph = source.graph()
        result = _judge(graph, settings, [source], visit, only)
        result.graphs_unjudged = not graph.graphs_known
    if "items" in source.extra:  # Python objects: the summary counts their items
        result.extra["items"] = source.extra["items"]
    yield result


def _losses(items: Sequence[Input]) -> list[tuple[str, Any]]:
    return [(item.name, item.loss) for item in items if item.loss is not None and item.loss.lossy]


def silenced(findings: Iterable[Finding], items: Sequence[Input]) -> list[Finding]:
    """The findings less those of the rules that a lossy input among ``items`` cannot be judged by."""
    silent = {code for _, loss in _losses(items) for code in loss.silent}
    return [f for f in findings if f.rule not in silent]


def _judged(results: Iterable[InputResult], items: Sequence[Input], settings: Settings) -> Iterator[InputResult]:
    """The results with the rules a lossy input cannot be judged by left silent, and one notice per
    such input (on its first result) naming what its format lost."""
    losses = _losses(items)
    if not losses:
        yield from results
        return
    noticed = False
    for result in results:
        result.findings = silenced(result.findings, items)
        if not noticed:
            noticed = True
            for name, loss in losses:
                rule = all_rules()[LOSSY_INPUT]
                notice = settings.finding(Finding(file=name, line=None, rule=rule.code, severity=rule.severity,
                                                  family=rule.family, message=loss.notice(), focus=name))
                if notice is not None:
                    result.findings.insert(0, notice)
        yield result


def capture_graph(items: Sequence[Input]) -> TraceGraph:
    """The inputs as the parts of one capture, read into one graph: a trace cut across parts is
    whole in it, and a triple's place is the part (and its line) that holds it."""
    _release_kept()
    parts = Parts()
    graph = TraceGraph(items[0].name, parts, TRUSTGRAPH)
    reading = Reading(graph)
    with tg.collector_paused():
        for item in items:
            start = graph.statements
            reading.read(item)
            if graph.statements == start:
                reading.finish()  # an earlier part's own error comes first
                raise item.no_triples()
            parts.add(item.name, item.locator(), start, graph.statements - start)
        reading.finish()
    return graph


def lint_capture(items: Sequence[Input], settings: Settings = DEFAULTS, visit: Visit | None = None,
                 only: Callable[[str], bool] | None = None) -> Iterator[InputResult]:
    """The inputs as the parts of one capture (:func:`capture_graph`), linted as one graph;
    each finding names the part (and its line) that holds its triple."""
    with tg.collector_paused():
        result = _judge(capture_graph(items), settings, items, visit, only)
    _hold(result, items)

    def results() -> Iterator[InputResult]:
        for item in items:
            # Each part is a file of the report; one whose format carries no graph names said so.
            yield InputResult(item.name, graphs_unjudged=item.carries_graphs is False)
        yield result

    yield from _judged(results(), items, settings)


def _lint_stream(source: Input, settings: Settings, visit: Visit | None = None) -> Iterator[InputResult]:
    """An explain stream, linted trace by trace as each one completes; a trace judged again (an
    event arrived for it once linted) reports only what is new."""
    linter = StreamLinter(source.name, settings.stream_memory)

    def judged(graph: TraceGraph) -> InputResult:
        result = fresh_result(check_graph(graph, settings), linter.earlier(graph))
        if visit is not None:
            visit(graph, result)
        return result

    with source.reading():
        for line, quads in source.events():  # type: ignore[misc]  # a stream input has events
            for graph in linter.feed(line, quads):
                yield judged(graph)
    for graph in linter.finish():
        yield judged(graph)
    yield InputResult(source.name, extra={"peak_triples_held": linter.peak})


def fresh_result(result: InputResult, earlier: Earlier) -> InputResult:
    """A result of traces judged again (an event arrived for them once linted), less what was
    reported and counted of them before (``earlier``, which then holds it all): only what is new."""
    fresh = []
    for finding in result.findings:
        identity = (finding.rule, finding.focus, finding.path, finding.value)
        if identity not in earlier.reported:
            earlier.reported.add(identity)
            fresh.append(finding)
    result.findings = fresh
    triples, terms, type_sets = result.triples, Counter(result.terms), Counter(result.type_sets)
    result.triples -= earlier.triples
    result.terms = result.terms - earlier.terms
    result.type_sets = result.type_sets - earlier.type_sets
    earlier.triples, earlier.terms, earlier.type_sets = triples, terms, type_sets
    return result


def _order(finding: Finding) -> tuple[str, str, int, str, str]:
    return (finding.file or "", finding.trace or "~", finding.line or 0, finding.rule, finding.focus)


def _lint_file(path: str, settings: Settings, visit: Visit | None = None,
               only: Callable[[str], bool] | None = None) -> list[InputResult]:
    """Lint one file in a worker process (``visit``, a module's function, travels by its name)."""
    return [result for item in load(path, settings.input_format, settings.max_stdin, settings.stdin_timeout,
                                    settings.bounds)
            for result in lint_input(item, settings, visit, only)]


def iter_results(*sources: object, settings: Settings = DEFAULTS,
                 progress: Callable[[str, int, int], None] | None = None, visit: Visit | None = None,
                 only: Callable[[str], bool] | None = None) -> Iterator[InputResult]:
    """Each input's results, as they complete: the run's one pass over its inputs, each read once.

    ``visit(graph, result)`` is called with each graph judged, while it is alive, for what a face
    builds of it (the views of its traces); ``only``, a predicate on a trace's root IRI, judges the
    chosen traces' part of each graph alone."""
    checked_engine(settings.engine, "engine")  # a Settings built by hand is checked before any input is read
    if settings.one_capture:
        items = [item for source in sources
                 for item in load(source, settings.input_format, settings.max_stdin, settings.stdin_timeout, settings.bounds)]
        if items:
            yield from lint_capture(items, settings, visit, only)
        return
    files = [p for s in sources if isinstance(s, (str, os.PathLike)) and str(s) != "-"
             for p in expand_paths([str(s)])]
    if settings.jobs > 1 and len(files) > 1:
        others = [s for s in sources if not (isinstance(s, (str, os.PathLike)) and str(s) != "-")]
        sizes = {f: os.path.getsize(f) for f in files}
        with concurrent.futures.ProcessPoolExecutor(max_workers=min(settings.jobs, len(files))) as pool:
            futures = [pool.submit(_lint_file, f, settings, visit, only) for f in files]
            for path, future in zip(files, futures):
                yield from future.result()
                if progress is not None:
                    progress(path, sizes[path], sizes[path])
        sources = tuple(others)
    for source in sources:
        for item in load(source, settings.input_format, settings.max_stdin, settings.stdin_timeout, settings.bounds):
            if progress is not None:
                item.progress = lambda done, item=item: progress(item.name, done, item.size)
            yield from lint_input(item, settings, visit, only)


def settings_of(settings: Settings | None = None, *, select: Sequence[str] | None = None,
                ignore: Sequence[str] | None = None, severities: dict | None = None,
                fail_on: Severity | str | None = None,
                engine: str | None = None, input_format: str | None = None, jobs: int | None = None,
                allow_empty: bool | None = None, target_version: str | None = None,
                one_capture: bool | None = None) -> Settings:
    """``settings`` (default: the defaults) with the keyword options the Python API takes."""
    return (settings or DEFAULTS).merge(select=select, ignore=ignore, severity=severities, fail_on=fail_on,
                                        engine=engine, input_format=input_format, jobs=jobs,
                                        allow_empty=allow_empty, target_version=target_version,
                                        one_capture=one_capture)


class NoTrace(InputError):
    """A run whose inputs hold no TrustGraph trace: a gate must not pass it."""


def lint(*sources: object, settings: Settings | None = None,
         progress: Callable[[str, int, int], None] | None = None, visit: Visit | None = None,
         **options: Any) -> Report:
    """Lint traces.

    Each source is a path (file or directory), "-" for standard input, a file
    object, an rdflib Graph or Dataset, a list of wire-format dicts or explain
    events, or a list of TrustGraph ``Triple`` objects. Each input is linted on
    its own: a link to an entity in another file is reported as dangling;
    with ``one_capture`` the inputs are the parts of one capture, and a trace
    cut across them is linted whole.

    ``settings`` (a :class:`tgtrace.run.settings.Settings`) or the keyword options
    select, ignore, severities, fail_on, engine, input_format, jobs,
    allow_empty, target_version and one_capture say what is checked. ``progress`` is called as
    progress(name, bytes_done, bytes_total) while files are read.

    Raises :class:`tgtrace.inputs.loaders.InputError` for unreadable input, and
    :class:`NoTrace` when no input holds a trace (unless allow_empty).
    """
    settings = settings_of(settings, **options)
    return report_of(iter_results(*sources, settings=settings, progress=progress, visit=visit), settings)


def report_of(results: Iterable[InputResult], settings: Settings = DEFAULTS) -> Report:
    """One report of the results of every input (or every group of traces), however they were linted."""
    report = Report(fail_on=settings.fail_on, min_coverage=settings.min_coverage, gate_off=settings.gate_off)
    used: Counter = Counter()
    type_sets: Counter = Counter()
    seen_files: dict = {}
    unjudged: dict = {}
    files_of: dict[str, set] = {}
    first_asked: dict[str, tuple[str, frozenset]] = {}
    for result in results:
        report.findings.extend(_reused(result, first_asked, settings))
        report.findings.extend(result.findings)
        if result.views is not None:
            report.views = (report.views or []) + result.views
        if result.audit is not None:  # extended in place: a stream gives a result per trace
            report.audit = report.audit if report.audit is not None else []
            report.audit.extend(result.audit)
        report.held.update(result.held)
        report.traces.update(result.traces)
        for root, file in result.traces.items():
            files_of.setdefault(root, set()).add(file)
        report.trace_models.update(result.trace_models)
        seen_files.setdefault(result.name, None)
        if result.graphs_unjudged:
            unjudged.setdefault(result.name, None)
        if "items" in result.extra:
            report.items[result.name] = report.items.get(result.name, 0) + result.extra["items"]
        report.triples += result.triples
        used.update(result.terms)
        type_sets.update(result.type_sets)
    report.files = list(seen_files)
    if unjudged:
        report.notes.append(graphs_not_judged(list(unjudged)))
    report.repeated = sum(1 for files in files_of.values() if len(files) > 1)
    report.findings.sort(key=_order)
    report.terms_used = dict(used)
    report.type_sets = dict(type_sets)
    if not settings.allow_empty and not report.traces and not _holds_trace(used):
        names = ", ".join(report.files[:3]) + (", ..." if len(report.files) > 3 else "")
        raise NoTrace(names or "<input>", None, "holds no TrustGraph trace (no node has a class or "
                      "predicate of the ontology); --allow-empty accepts a run without one")
    if settings.baseline:
        known = load_baseline(settings.baseline)
        report.stale = known.stale(report)
        report.findings, accepted = known.split(report)
        report.baselined = len(accepted)
    if settings.needs_coverage:
        report.coverage = coverage(report)
    return report


def graphs_not_judged(names: Sequence[str]) -> str:
    """The note of a run some of whose inputs carry no graph names: said once, never per trace."""
    shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    whose = "its format carries" if len(names) == 1 else "their formats carry"
    return (f"named graphs not judged in {shown}: {whose} none (N-Quads, TriG and TrustGraph's wire JSON "
            "say which graph each statement was written in)")


# A trace IRI written for two queries across inputs (or groups of one stream): a code of the registry
# (rules/codes.toml), found by comparing inputs, which no shape sees together.
TRACE_REUSED = "S023"


def _reused(result: InputResult, first_asked: dict[str, tuple[str, frozenset]], settings: Settings) -> list[Finding]:
    """A finding for each trace of ``result`` that an earlier input (or stream group) described
    asking something else: neither asked all the other did (a trace judged again, whole, asks
    what it asked before and more). ``first_asked`` holds what each trace asked where first seen."""
    found = []
    for root, asked in result.asked.items():
        seen = first_asked.get(root)
        if seen is None:
            first_asked[root] = (result.name, asked)
            continue
        where, before = seen
        if asked <= before or before <= asked:
            continue
        rule = all_rules()[TRACE_REUSED]
        other = "earlier in this stream" if where == result.name else f"in {where}"
        finding = settings.finding(Finding(
            file=result.name, line=None, rule=rule.code, severity=rule.severity, family=rule.family,
            message=f"this trace IRI was also written {other} for another query: {describe_asked(before)} there, "
                    f"{describe_asked(asked)} here",
            focus=root, trace=root, value=root))
        if finding is not None:
            found.append(finding)
    return found


@cache
def _ontology_iris() -> frozenset[str]:
    """Every class and predicate the ontology declares, deprecated ones too."""
    return frozenset(declared_terms())


def _holds_trace(used: Counter) -> bool:
    """Whether a node of the input has a class or a predicate of the ontology: releases up to 2.1.16
    type their extraction entities prov:Entity alone, with tg: predicates only."""
    terms = _ontology_iris()
    return any(term in terms for term in used)
