"""Statistics and ontology coverage of a lint run.

Statistics count findings per rule. Coverage says which terms of the ontology
the linted traces exercised and which they never did: an emitter's test suite
that never produced an Observation typed tg:Error has never shown that its
error path writes a conformant trace, however green the lint is.

The terms counted are the ontology's own (``vocabulary.ontology_terms``); for
every main class a mixin is declared for (``tg:mixinFor``), coverage says
whether some node carried both types.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ..ground.model import Report
from ..ground.namespaces import TG
from ..rules import all_rules
from ..tracemodel.vocabulary import OntologyTerms, ontology_terms


@dataclass
class Coverage:
    # Every counted term -> how often the input used it (0: never exercised).
    classes: dict[str, int] = field(default_factory=dict)
    predicates: dict[str, int] = field(default_factory=dict)
    # (main, mixin) -> nodes typed with both; None when the report does not
    # record which types occurred together.
    combinations: dict[tuple[str, str], int] | None = None
    # tg: terms the input used that the ontology does not declare, or deprecates.
    undeclared: dict[str, int] = field(default_factory=dict)
    deprecated: dict[str, int] = field(default_factory=dict)

    @staticmethod
    def share(counts: dict) -> tuple[int, int]:
        """(terms used at least once, terms counted)."""
        return sum(1 for n in counts.values() if n), len(counts)

    @property
    def exercised(self) -> int:
        return self.share(self.classes)[0] + self.share(self.predicates)[0]

    @property
    def total(self) -> int:
        return len(self.classes) + len(self.predicates)

    @property
    def percent(self) -> float:
        """Share of the ontology's classes and predicates exercised, in percent."""
        return 100.0 * self.exercised / self.total if self.total else 100.0

    def never(self, kind: str) -> list:
        by_kind: dict[str, dict] = {"classes": self.classes, "predicates": self.predicates,
                                    "combinations": self.combinations or {}}
        counts = by_kind[kind]
        return sorted(term for term, n in counts.items() if not n)


def coverage(report: Report, terms: OntologyTerms | None = None) -> Coverage:
    """What of the ontology the report's input exercised."""
    terms = terms or ontology_terms()
    used = report.terms_used
    result = Coverage(
        classes={c: used.get(c, 0) for c in sorted(terms.classes)},
        predicates={p: used.get(p, 0) for p in sorted(terms.predicates)},
    )
    for term, n in used.items():
        if not term.startswith(TG) or term in terms.classes or term in terms.predicates:
            continue
        (result.deprecated if term in terms.deprecated else result.undeclared)[term] = n
    # type_sets: "IRI IRI ..." (the asserted types of one node) -> how many nodes.
    type_sets = getattr(report, "type_sets", None)
    if type_sets is not None:
        combos: Counter = Counter({pair: 0 for pair in terms.mixins})
        for key, n in type_sets.items():
            types = set(key.split())
            for main, mixin in terms.mixins:
                if main in types and mixin in types:
                    combos[(main, mixin)] += n
        result.combinations = dict(combos)
    return result


def statistics(report: Report) -> list[dict]:
    """Findings per rule and severity, most frequent first, as ruff's --statistics gives them.
    A rule's findings can differ in severity (a trace older than the rule's release gets it as
    info): each severity is its own row, and ``aged`` says the trace's age set it."""
    rules = all_rules()
    counts = Counter((f.rule, f.severity) for f in report.findings)
    rows = []
    for (code, severity), count in sorted(counts.items(), key=lambda item: (-item[1], item[0][0], -item[0][1])):
        rule = rules.get(code)
        rows.append(
            {
                "code": code,
                "name": rule.name if rule else "",
                "family": rule.family if rule else "",
                "severity": str(severity),
                "count": count,
                "aged": bool(rule and rule.since and severity != rule.severity),
            }
        )
    return rows
