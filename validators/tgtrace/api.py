"""The one entry point every face (CLI, pytest plugin, Python API) calls."""

from __future__ import annotations

import os
from collections import Counter
from contextlib import nullcontext
from typing import Callable, Iterable, Sequence

import pyoxigraph as ox

from . import traces
from .loaders import Input, expand_paths, load
from .model import Finding, Report, Severity
from .engines.fast import _DECLARATION_KINDS
from .namespaces import RDF_TYPE
from .rules import Rule, all_rules, get_rule


def select_rules(select: Iterable[str] | None = None, ignore: Iterable[str] | None = None) -> set[str]:
    """Rule codes left after --select and --ignore. Codes, prefixes ("C0") or families."""
    rules = all_rules()

    def expand(spec: str) -> set[str]:
        spec = spec.strip()
        if spec.upper() == "ALL":
            return set(rules)
        if spec.lower() in {r.family for r in rules.values()}:
            return {c for c, r in rules.items() if r.family == spec.lower()}
        matched = {c for c in rules if c.startswith(spec.upper())}
        if not matched:
            get_rule(spec)  # raises UnknownRule naming it
        return matched

    chosen = set(rules) if not select else set().union(*(expand(s) for s in select))
    for spec in ignore or ():
        chosen -= expand(spec)
    return chosen


def _message(rule: Rule, path: str | None, value) -> str:
    text = rule.message
    if "{?value}" in text:
        text = text.replace("{?value}", traces.iri(value) if value is not None else "(none)")
    if "{?path}" in text:
        text = text.replace("{?path}", path or "(none)")
    return text


def lint_input(
    source: Input,
    engine: str = "fast",
    codes: set[str] | None = None,
    severities: dict[str, Severity] | None = None,
) -> tuple[list[Finding], dict, int, Counter, Counter]:
    """Findings of one input, the traces it holds, its triple count, the terms and type sets it used."""
    from .engines import fast, shacl

    rules = all_rules()
    if engine == "fast" and source.events is not None:
        return _lint_stream(source, codes, severities)
    if engine not in ("fast", "shacl"):
        raise ValueError(f"unknown engine {engine!r} (choose fast or shacl)")
    # The fast engine's index holds no cycles: the collector would only rescan it.
    with fast.collector_paused() if engine == "fast" else nullcontext():
        if engine == "fast":
            index = fast.new_index()
            with source.reading():
                count = index.add_quads(source.quads())
            hits = fast.check_index(index)
        else:
            with source.reading():
                quads = list(source.quads())
            count = len(quads)
            hits = shacl.check(quads)
            index = fast.build_index(quads)
            fast.count_kinds(index)
        findings, found_traces = _findings(source, index, hits, codes, severities, rules)
        return findings, found_traces, count, _terms_used(index), _type_sets(index)


def _lint_stream(source: Input, codes, severities) -> tuple:
    """An explain stream, linted trace by trace as each one completes."""
    from .engines import fast
    from .stream import StreamLinter

    rules = all_rules()
    linter = StreamLinter()
    findings: list = []
    found_traces: dict = {}
    count = 0
    used: Counter = Counter()
    sets: Counter = Counter()

    def take(group) -> None:
        index, lines, _ = group
        source._lines = lines
        found, traces_found = _findings(source, index, fast.check_index(index), codes, severities, rules)
        findings.extend(found)
        found_traces.update(traces_found)
        used.update(_terms_used(index))
        sets.update(_type_sets(index))

    for line, quads in source.events():
        count += len(quads)
        for group in linter.feed(line, quads):
            take(group)
    for group in linter.finish():
        take(group)
    source.extra["peak_triples_held"] = linter.peak
    return findings, found_traces, count, used, sets


def _findings(source: Input, index, hits, codes, severities, rules) -> tuple[list, dict]:
    from .engines import fast

    trace_index = traces.TraceIndex(index)
    unique = {}
    for code, focus, path, value in hits:
        if codes is not None and code not in codes:
            continue
        unique.setdefault((code, focus, path, value), None)
    wanted = []
    for code, focus, path, value in unique:
        # The triple a finding names, when the input holds it (a SPARQL rule may report its
        # focus as the value of a path the focus lacks).
        if path is not None and value is not None \
                and fast.node_key(value) in index.values(fast.node_key(focus), path):
            wanted.append((focus, ox.NamedNode(path), value))
    lines = {}
    if unique:
        wanted += [(f, None, None) for _, f, _, _ in unique]
        runs = {s: index.runs(fast.node_key(s)) for s, _, _ in wanted}
        lines = source.locate(wanted, runs, index.quads_read)
    findings = []
    for code, focus, path, value in unique:
        rule = rules[code]
        line = None
        if path is not None and value is not None:
            line = lines.get((focus, ox.NamedNode(path), value))
        if line is None:
            line = lines.get((focus, None, None))
        root = trace_index.root_of(fast.node_key(focus))
        findings.append(Finding(
            file=source.name,
            line=line,
            rule=code,
            severity=(severities or {}).get(code, rule.severity),
            family=rule.family,
            message=_message(rule, path, value),
            focus=traces.iri(focus),
            trace=traces.iri(root) if root is not None else None,
            path=path,
            value=traces.iri(value) if value is not None else None,
        ))
    return findings, {traces.iri(root): source.name for root in trace_index.roots()}


def _order(finding: Finding):
    return (finding.file or "", finding.trace or "~", finding.line or 0, finding.rule, finding.focus)


def _declared_terms_used() -> Counter:
    """What the ontology's declarations, mixed into every index, add to the term counts."""
    from .engines.fast import program

    terms: Counter = Counter()
    subjects: dict = {}
    for s, p, o in program().declarations:
        subjects.setdefault(s, set()).add(p)
        if p == RDF_TYPE:
            terms[o] += 1
    for predicates in subjects.values():
        terms.update(predicates)
    return terms


def _type_sets(index) -> Counter:
    """How many nodes carried each exact set of asserted classes (declared terms left out)."""
    sets: Counter = Counter()
    for (kinds, _), count in index.kinds.items():
        if kinds and not kinds & _DECLARATION_KINDS:
            sets[" ".join(sorted(kinds))] += count
    return sets


def _terms_used(index) -> Counter:
    """How many nodes used each class (as a type) and each predicate."""
    used: Counter = Counter()
    for (kinds, predicates), count in index.kinds.items():
        for term in kinds:
            used[term] += count
        for term in predicates:
            used[term] += count
    used.subtract(_declared_terms_used())
    return Counter({k: v for k, v in used.items() if v > 0})


def _lint_file(path: str, input_format, engine, codes, severities) -> list[tuple]:
    """Lint one file in a worker process."""
    return [(item.name, lint_input(item, engine, codes, severities)) for item in load(path, input_format)]


def lint(
    *sources,
    engine: str = "fast",
    select: Sequence[str] | None = None,
    ignore: Sequence[str] | None = None,
    severities: dict[str, Severity] | None = None,
    fail_on: Severity | str | None = Severity.ERROR,
    input_format: str | None = None,
    jobs: int = 1,
    progress: Callable[[str, int, int], None] | None = None,
) -> Report:
    """Lint traces.

    Each source is a path (file or directory), "-" for standard input, a file
    object, an rdflib Graph or Dataset, a list of wire-format dicts or explain
    events, or a list of TrustGraph ``Triple`` objects. Each input is linted on
    its own: a link to an entity in another file is reported as dangling.

    ``jobs`` > 1 lints files in that many worker processes. ``progress`` is
    called as progress(name, bytes_done, bytes_total) while files are read.
    """
    if isinstance(fail_on, str):
        fail_on = None if fail_on == "never" else Severity.parse(fail_on)
    codes = select_rules(select, ignore)
    report = Report(fail_on=fail_on)
    used: Counter = Counter()
    type_sets: Counter = Counter()

    def collect(name: str, result: tuple) -> None:
        findings, found, count, terms, sets = result
        report.findings.extend(findings)
        report.traces.update(found)
        report.files.append(name)
        report.triples += count
        used.update(terms)
        type_sets.update(sets)

    files = [p for s in sources if isinstance(s, (str, os.PathLike)) and str(s) != "-"
             for p in expand_paths([str(s)])]
    if jobs > 1 and len(files) > 1:
        from concurrent.futures import ProcessPoolExecutor

        others = [s for s in sources if not (isinstance(s, (str, os.PathLike)) and str(s) != "-")]
        sizes = {f: os.path.getsize(f) for f in files}
        with ProcessPoolExecutor(max_workers=min(jobs, len(files))) as pool:
            futures = [pool.submit(_lint_file, f, input_format, engine, codes, severities) for f in files]
            for path, future in zip(files, futures):
                for name, result in future.result():
                    collect(name, result)
                if progress is not None:
                    progress(path, sizes[path], sizes[path])
        sources = others
    for source in sources:
        for item in load(source, input_format):
            if progress is not None:
                item.progress = lambda done, item=item: progress(item.name, done, item.size)
            collect(item.name, lint_input(item, engine, codes, severities))
    report.findings.sort(key=_order)
    report.terms_used = dict(used)
    report.type_sets = dict(type_sets)
    return report
