"""Hits, findings and reports: what every engine produces and every format prints."""

from __future__ import annotations

import enum
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field, fields, replace
from typing import Any

from .escaping import printable
from .locations import place


class Severity(enum.IntEnum):
    INFO = 1
    WARNING = 2
    ERROR = 3

    @classmethod
    def parse(cls, text: str) -> Severity:
        try:
            return cls[text.strip().upper()]
        except KeyError:
            raise ValueError(f"unknown severity {text!r} (expected error, warning or info)") from None

    def __str__(self) -> str:
        return self.name.lower()


@dataclass(frozen=True)
class Hit:
    """One result of a shape on a trace graph, as both engines report it: what a finding is made
    from. Nodes and values are keys of the trace graph."""

    rule: str | None  # the code its shape (or SPARQL constraint) carries; None for a shape that carries none
    focus: object
    path: str | None  # the predicate at fault, when the result's path is a single predicate
    value: object  # the value at fault; the focus node itself for a node shape's result
    # Where in the shapes it comes from, as a SHACL validation report names it; not part of what a
    # hit is (the engines find the same hits by different routes).
    shape: object = field(default=None, compare=False)  # the source shape, a shapes.Shape
    component: str | None = field(default=None, compare=False)  # the source constraint component's IRI
    # The result's path as the engine has it: a predicate IRI, a shapes.Path, or None for the shape's own.
    result_path: object = field(default=None, compare=False)
    constraint: object = field(default=None, compare=False)  # the sh:sparql node of a SPARQL-based constraint


@dataclass(frozen=True)
class Source:
    """Where a finding comes from, as a SHACL validation result names it: the source shape and
    constraint component (IRIs), and the focus node and value as the trace graph holds them
    (an IRI or a ``_:`` blank node as text, a literal or triple term as pyoxigraph's term)."""

    shape: str | None
    component: str | None
    focus: object
    value: object = None


@dataclass(frozen=True, order=True)
class Finding:
    """One rule that fired on one node of one trace: a linter finding, not the ontology's
    ``tg:Finding`` (an entity of a trace, checked by ``FindingShape``). The name stays because it is
    public API (``tgtrace.lint(...).findings`` holds these, and the pytest plugin and scripts name it)."""

    file: str | None
    line: int | None
    rule: str
    severity: Severity
    family: str
    message: str
    focus: str
    trace: str | None = None
    # The predicate and value at fault, when the rule is about one triple.
    path: str | None = None
    value: str | None = None
    # Its source in the shapes and its terms (None for a finding no shape made: an input notice,
    # a self-check problem); what --format shacl writes, no part of what a finding is.
    source: Source | None = field(default=None, compare=False, repr=False)
    # What the capture showed beside the finding, read while its graph was at hand (an answer that
    # no link reaches, the step a missing link should come from): the advice's notes, no part of
    # what a finding is.
    notes: tuple[str, ...] = field(default=(), compare=False, repr=False)

    def to_dict(self) -> dict:
        data = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in ("source", "notes")}
        data["severity"] = str(self.severity)
        return data

    def __str__(self) -> str:
        where = printable(place(self.file or "<input>", self.line))
        return f"{where}: {self.rule} {self.severity} {printable(self.message)} ({printable(self.focus)})"


@dataclass
class Report:
    """Everything one lint run found."""

    findings: list[Finding] = field(default_factory=list)
    # The root of every trace seen (a Question's IRI, or an extraction trace's Document), with the
    # file it came from; a trace held by several files is one trace (``repeated`` counts those).
    traces: dict[str, str | None] = field(default_factory=dict)
    repeated: int = 0
    files: list[str] = field(default_factory=list)
    # The inputs of Python objects among ``files`` (``<objects>``, ``<Graph>``), each with how many
    # items it held (wire triples, Triples or explain events of a list; a graph is one): the
    # summary counts their items, not them as files.
    items: dict[str, int] = field(default_factory=dict)
    # Root Question IRI -> the TrustGraph releases whose trace model it follows ("2.6.9 and later").
    trace_models: dict[str, str] = field(default_factory=dict)
    triples: int = 0
    # How many nodes of the input used each class (as a type) and each predicate.
    terms_used: dict[str, int] = field(default_factory=dict)
    # How many nodes carried each exact set of asserted classes (IRIs sorted, joined by " ").
    type_sets: dict[str, int] | None = None
    fail_on: Severity | None = Severity.ERROR
    # What a report that is not about traces checked ("ontology and shapes" for tg-trace check).
    about: str | None = None
    # Findings a baseline accepted (dropped from ``findings``), and recorded ones no longer seen.
    baselined: int = 0
    stale: int = 0
    # The ontology coverage (a tgtrace.run.coverage.Coverage) when the run asked for it.
    coverage: Any = None
    min_coverage: float | None = None
    # Why the run cannot fail (fail-on never, every rule ignored): every report says so.
    gate_off: str | None = None
    # Findings not shown (below ``shown_from``), by severity name: the counts, the summary and the
    # verdict still count them (:meth:`showing`).
    hidden: dict[str, int] = field(default_factory=dict)
    shown_from: Severity | None = None
    # The trace views a face asked the run to build from each graph it judged (a views.traces
    # TraceView each), None when it asked for none: the HTML report reads them, never the inputs again.
    views: list[Any] | None = None
    # The text of each input that was no file (standard input), by its name: what its findings'
    # excerpts are read from, as a file's are read from the file. Kept from the run to the report.
    held: dict[str, bytes] = field(default_factory=dict)
    # The audit's record of each trace (a views.audit TraceFacts: a few numbers, never a graph),
    # None when no format asked for it: the reports that open with the audit sum them up.
    audit: list[Any] | None = None
    # What the run says once about what it could not judge (the named graphs of inputs whose
    # format carries none): every format shows these notes beside its summary.
    notes: list[str] = field(default_factory=list)

    def __iter__(self) -> Iterator[Finding]:
        return iter(self.findings)

    def __len__(self) -> int:
        return len(self.findings)

    @property
    def conforms(self) -> bool:
        """True when nothing at or above ``fail_on`` was found."""
        if self.fail_on is None:
            return True
        fail_on = self.fail_on
        return not (any(f.severity >= fail_on for f in self.findings)
                    or any(count and Severity.parse(name) >= fail_on for name, count in self.hidden.items()))

    @property
    def covered(self) -> bool:
        """False when the run asked for a minimum ontology coverage the traces fall short of."""
        return self.min_coverage is None or self.coverage is None or self.coverage.percent >= self.min_coverage

    @property
    def passed(self) -> bool:
        """The gate's verdict: conforms and covers enough of the ontology."""
        return self.conforms and self.covered

    def counts(self) -> Counter:
        """Findings per severity name, the ones not shown included."""
        counts = Counter(str(f.severity) for f in self.findings)
        counts.update(self.hidden)
        return counts

    @property
    def file_count(self) -> int:
        """How many inputs were files (or streams): the inputs of Python objects count their items."""
        return sum(1 for name in self.files if name not in self.items)

    @property
    def not_shown(self) -> int:
        return sum(self.hidden.values())

    def showing(self, shown_from: Severity | None) -> Report:
        """This report as a reader asked to see it: only the findings at or above ``shown_from``
        (None: all); the others are counted, not listed."""
        if shown_from is None or shown_from <= Severity.INFO:
            return self
        kept = [f for f in self.findings if f.severity >= shown_from]
        hidden = Counter(self.hidden)
        hidden.update(str(f.severity) for f in self.findings if f.severity < shown_from)
        return replace(self, findings=kept, hidden=dict(hidden), shown_from=shown_from)

    def summary(self) -> dict:
        counts = self.counts()
        return {
            "files": self.file_count,
            **({"items": sum(self.items.values())} if self.items else {}),
            "traces": len(self.traces),
            "repeated_traces": self.repeated,
            "triples": self.triples,
            "findings": len(self.findings) + self.not_shown,
            "error": counts.get("error", 0),
            "warning": counts.get("warning", 0),
            "info": counts.get("info", 0),
            "conforms": self.conforms,
            "trace_models": dict(sorted(Counter(self.trace_models.values()).items())),
            **({"gate_off": self.gate_off} if self.gate_off else {}),
            **({"notes": list(self.notes)} if self.notes else {}),
            **({"shown_from": str(self.shown_from), "not_shown": self.not_shown} if self.shown_from else {}),
        }
