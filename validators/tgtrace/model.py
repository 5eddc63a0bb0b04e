"""Hits, findings and reports: what every engine produces and every format prints."""

from __future__ import annotations

import enum
from collections import Counter
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from typing import Any

from .escaping import printable


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

    def to_dict(self) -> dict:
        data = asdict(self)
        data["severity"] = str(self.severity)
        return data

    def __str__(self) -> str:
        where = printable(self.file or "<input>") + (f":{self.line}" if self.line else "")
        return f"{where}: {self.rule} {self.severity} {printable(self.message)} ({printable(self.focus)})"


@dataclass
class Report:
    """Everything one lint run found."""

    findings: list[Finding] = field(default_factory=list)
    # Root Question IRI of every trace seen, with the file it came from.
    traces: dict[str, str | None] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)
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
    # The ontology coverage (a tgtrace.coverage.Coverage) when the run asked for it.
    coverage: Any = None
    min_coverage: float | None = None
    # Why the run cannot fail (fail-on never, every rule ignored): every report says so.
    gate_off: str | None = None

    def __iter__(self) -> Iterator[Finding]:
        return iter(self.findings)

    def __len__(self) -> int:
        return len(self.findings)

    @property
    def conforms(self) -> bool:
        """True when nothing at or above ``fail_on`` was found."""
        if self.fail_on is None:
            return True
        return not any(f.severity >= self.fail_on for f in self.findings)

    @property
    def covered(self) -> bool:
        """False when the run asked for a minimum ontology coverage the traces fall short of."""
        return self.min_coverage is None or self.coverage is None or self.coverage.percent >= self.min_coverage

    @property
    def passed(self) -> bool:
        """The gate's verdict: conforms and covers enough of the ontology."""
        return self.conforms and self.covered

    def counts(self) -> Counter:
        return Counter(str(f.severity) for f in self.findings)

    def summary(self) -> dict:
        counts = self.counts()
        return {
            "files": len(self.files),
            "traces": len(self.traces),
            "triples": self.triples,
            "findings": len(self.findings),
            "error": counts.get("error", 0),
            "warning": counts.get("warning", 0),
            "info": counts.get("info", 0),
            "conforms": self.conforms,
            "trace_models": dict(sorted(Counter(self.trace_models.values()).items())),
            **({"gate_off": self.gate_off} if self.gate_off else {}),
        }
