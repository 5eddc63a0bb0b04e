"""The ontology as data the linter uses: term declarations, deprecations and enumerations.

The vocabulary rules check traces against the ontology's declarations (the
rdf:type of every tg: term as a class or property, and owl:deprecated), which
tgtrace.rules.bundle writes into the shapes; the termination-reason and
execution-pattern rules follow the enumerations the ontology records as
named individuals; coverage counts which of the ontology's terms a run used.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import rdflib

from ..ground.namespaces import DCTERMS, OWL, RDF, RDFS, SKOS, TG
from ..ground.resources import ontology_graph

DECLARATION_KINDS = {
    OWL + "Class": "class",
    OWL + "ObjectProperty": "object property",
    OWL + "DatatypeProperty": "datatype property",
    OWL + "AnnotationProperty": "annotation",
    OWL + "NamedIndividual": "individual",
    RDFS + "Datatype": "datatype",
}
# The kinds the vocabulary rules see (rdf:Property for completeness of hand-written data).
_CHECKED_KINDS = {OWL + "Class", OWL + "ObjectProperty", OWL + "DatatypeProperty", OWL + "AnnotationProperty",
                  OWL + "NamedIndividual", RDF + "Property"}
MIXIN_FOR = TG + "mixinFor"


def _graph(graph: rdflib.Graph | None) -> rdflib.Graph:
    return ontology_graph() if graph is None else graph


def declared_terms(graph: rdflib.Graph | None = None) -> dict[str, str]:
    """Every tg: term the ontology declares, mapped to its kind (class, object property, ...)."""
    graph = _graph(graph)
    terms: dict[str, str] = {}
    for kind_iri, kind in DECLARATION_KINDS.items():
        for term in graph.subjects(rdflib.RDF.type, rdflib.URIRef(kind_iri)):
            if isinstance(term, rdflib.URIRef) and str(term).startswith(TG) and str(term) != TG:
                terms.setdefault(str(term), kind)
    return dict(sorted(terms.items()))


def deprecated_terms(graph: rdflib.Graph | None = None) -> frozenset[str]:
    """The tg: terms marked owl:deprecated true."""
    graph = _graph(graph)
    return frozenset(str(term) for term, flag in graph.subject_objects(rdflib.OWL.deprecated)
                     if str(term).startswith(TG) and flag.toPython() is True)  # type: ignore[attr-defined]


@cache
def replacements() -> dict[str, str | None]:
    """Each deprecated tg: term -> the term the ontology replaces it with (dcterms:isReplacedBy),
    None when it names none."""
    graph = ontology_graph()
    replaced_by = rdflib.URIRef(DCTERMS + "isReplacedBy")
    return {term: (str(by) if (by := graph.value(rdflib.URIRef(term), replaced_by)) is not None else None)
            for term in sorted(deprecated_terms(graph))}


@cache
def declarations() -> tuple[tuple, ...]:
    """(term, predicate, object) rdflib triples the vocabulary rules expect in the checked data:
    the kind of every tg: term and owl:deprecated, no subclass axioms, so types stay as asserted."""
    graph = ontology_graph()
    found: list[tuple] = []
    for term, kind in graph.subject_objects(rdflib.RDF.type):
        if isinstance(term, rdflib.URIRef) and str(term).startswith(TG) and str(kind) in _CHECKED_KINDS:
            found.append((term, rdflib.RDF.type, kind))
    for term in graph.subjects(rdflib.OWL.deprecated, rdflib.Literal(True)):
        found.append((term, rdflib.OWL.deprecated, rdflib.Literal(True)))
    return tuple(sorted(found))


def declarations_graph() -> rdflib.Graph:
    graph = rdflib.Graph()
    for triple in declarations():
        graph.add(triple)
    return graph


# ------------------------------------------------------------- enumerations

def _notations(graph: rdflib.Graph, cls: str) -> dict:
    notation = rdflib.URIRef(SKOS + "notation")
    return {str(node): str(graph.value(node, notation))
            for node in graph.subjects(rdflib.RDF.type, rdflib.URIRef(cls))
            if graph.value(node, notation) is not None}


def mixin_classes(graph: rdflib.Graph | None = None) -> dict[str, frozenset[str]]:
    """Each mixin class -> the main classes whose instances the emitter also types with it
    (tg:mixinFor)."""
    found: dict[str, set[str]] = {}
    for mixin, main in _graph(graph).subject_objects(rdflib.URIRef(MIXIN_FOR)):
        found.setdefault(str(mixin), set()).add(str(main))
    return {mixin: frozenset(mains) for mixin, mains in found.items()}


@cache
def termination_reasons(graph: rdflib.Graph | None = None) -> frozenset[str]:
    """Every value tg:terminationReason may take, as emitted."""
    return frozenset(_notations(_graph(graph), TG + "TerminationReason").values())


@cache
def execution_patterns(graph: rdflib.Graph | None = None) -> frozenset[str]:
    """Every value tg:pattern may take, as emitted."""
    return frozenset(_notations(_graph(graph), TG + "ExecutionPattern").values())


@cache
def permitted_reasons(graph: rdflib.Graph | None = None) -> dict[str, frozenset[str]]:
    """Pattern notation -> the termination reasons it may end with (tg:permitsTerminationReason)."""
    graph = _graph(graph)
    reasons = _notations(graph, TG + "TerminationReason")
    permits = rdflib.URIRef(TG + "permitsTerminationReason")
    return {
        notation: frozenset(reasons[str(r)] for r in graph.objects(rdflib.URIRef(node), permits))
        for node, notation in _notations(graph, TG + "ExecutionPattern").items()
    }


# ----------------------------------------------------------------- coverage

@dataclass(frozen=True)
class OntologyTerms:
    """The terms coverage counts: the ontology's own classes and predicates, not deprecated.

    Enumeration classes (whose members the ontology lists as named individuals,
    such as tg:TerminationReason) are left out, with the properties whose domain
    they are: traces name their members as plain literals and never type a node
    with them. Mixin combinations come from tg:mixinFor.
    """

    classes: frozenset[str]
    predicates: frozenset[str]
    mixins: tuple[tuple[str, str], ...]  # (main class, mixin class)
    deprecated: frozenset[str]


@cache
def ontology_terms() -> OntologyTerms:
    graph = ontology_graph()
    a = rdflib.RDF.type
    deprecated = deprecated_terms(graph)

    def declared(kind: str) -> set[str]:
        return {str(s) for s in graph.subjects(a, rdflib.URIRef(OWL + kind))
                if isinstance(s, rdflib.URIRef) and str(s).startswith(TG) and str(s) not in deprecated}

    enumerations = {str(c) for individual in graph.subjects(a, rdflib.OWL.NamedIndividual)
                    for c in graph.objects(individual, a) if c != rdflib.OWL.NamedIndividual}
    classes = declared("Class") - enumerations
    predicates = {p for p in declared("ObjectProperty") | declared("DatatypeProperty")
                  if not {str(d) for d in graph.objects(rdflib.URIRef(p), rdflib.RDFS.domain)} & enumerations}
    mixins = sorted((str(main), str(mixin)) for mixin, main in graph.subject_objects(rdflib.URIRef(MIXIN_FOR))
                    if str(mixin) in classes and str(main) in classes)
    return OntologyTerms(frozenset(classes), frozenset(predicates), tuple(mixins), deprecated)
