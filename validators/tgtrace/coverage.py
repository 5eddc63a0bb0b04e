"""Statistics and ontology coverage of a lint run.

Statistics count findings per rule. Coverage says which terms of the ontology
the linted traces exercised and which they never did: an emitter's test suite
that never produced an Observation typed tg:Error has never shown that its
error path writes a conformant trace, however green the lint is.

The terms counted are the ontology's own (tg:) classes, object properties
and datatype properties that are not deprecated. Enumeration classes (those
whose members the ontology lists as named individuals, such as
tg:TerminationReason) are left out, with the properties whose domain they
are: traces name their members as plain literals and never type a node with
them. Mixin combinations come from
``tg:mixinFor``: for every main class a mixin is declared for, whether some
node carried both types.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from functools import cache

from .model import Report
from .namespaces import OWL, TG

MIXIN_FOR = TG + "mixinFor"


@dataclass(frozen=True)
class OntologyTerms:
    classes: frozenset[str]
    predicates: frozenset[str]
    # (main class, mixin class) pairs declared with tg:mixinFor
    mixins: tuple[tuple[str, str], ...]
    deprecated: frozenset[str]


@cache
def ontology_terms() -> OntologyTerms:
    import rdflib

    from .resources import ontology_graph

    graph = ontology_graph()
    a = rdflib.RDF.type
    deprecated = {str(s) for s, o in graph.subject_objects(rdflib.URIRef(OWL + "deprecated")) if o.toPython() is True}

    def declared(kind: str) -> set[str]:
        return {
            str(s)
            for s in graph.subjects(a, rdflib.URIRef(OWL + kind))
            if isinstance(s, rdflib.URIRef) and str(s).startswith(TG) and str(s) not in deprecated
        }

    enumerations = {
        str(c)
        for individual in graph.subjects(a, rdflib.URIRef(OWL + "NamedIndividual"))
        for c in graph.objects(individual, a)
        if c != rdflib.URIRef(OWL + "NamedIndividual")
    }
    classes = declared("Class") - enumerations
    # Properties that describe the enumerations themselves (which termination
    # reasons a pattern permits) live in the ontology, never in a trace.
    predicates = {
        p
        for p in declared("ObjectProperty") | declared("DatatypeProperty")
        if not {str(d) for d in graph.objects(rdflib.URIRef(p), rdflib.RDFS.domain)} & enumerations
    }
    mixins = sorted(
        (str(main), str(mixin))
        for mixin, main in graph.subject_objects(rdflib.URIRef(MIXIN_FOR))
        if str(mixin) in classes and str(main) in classes
    )
    return OntologyTerms(frozenset(classes), frozenset(predicates), tuple(mixins), frozenset(deprecated))


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
    def _share(counts: dict) -> tuple[int, int]:
        return sum(1 for n in counts.values() if n), len(counts)

    @property
    def exercised(self) -> int:
        return self._share(self.classes)[0] + self._share(self.predicates)[0]

    @property
    def total(self) -> int:
        return len(self.classes) + len(self.predicates)

    @property
    def percent(self) -> float:
        """Share of the ontology's classes and predicates exercised, in percent."""
        return 100.0 * self.exercised / self.total if self.total else 100.0

    def never(self, kind: str) -> list:
        counts = {"classes": self.classes, "predicates": self.predicates, "combinations": self.combinations or {}}[kind]
        return sorted(term for term, n in counts.items() if not n)

    def to_dict(self) -> dict:
        def part(counts):
            used, total = self._share(counts)
            return {
                "exercised": used,
                "total": total,
                "percent": round(100.0 * used / total, 1) if total else 100.0,
                "used": {term: n for term, n in sorted(counts.items()) if n},
                "never": sorted(term for term, n in counts.items() if not n),
            }

        data = {
            "percent": round(self.percent, 1),
            "exercised": self.exercised,
            "total": self.total,
            "classes": part(self.classes),
            "predicates": part(self.predicates),
            "undeclared": dict(sorted(self.undeclared.items())),
            "deprecated": dict(sorted(self.deprecated.items())),
        }
        if self.combinations is not None:
            combos = {f"{main} + {mixin}": n for (main, mixin), n in self.combinations.items()}
            data["mixins"] = part(combos)
        return data


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
    """Findings per rule, most frequent first, as ruff's --statistics gives them."""
    from .rules import all_rules

    rules = all_rules()
    counts = Counter(f.rule for f in report.findings)
    severities = {f.rule: f.severity for f in report.findings}
    rows = []
    for code, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        rule = rules.get(code)
        rows.append(
            {
                "code": code,
                "name": rule.name if rule else "",
                "family": rule.family if rule else "",
                "severity": str(severities[code]),
                "count": count,
            }
        )
    return rows
