"""The enumerations the ontology records as data: termination reasons and execution patterns."""

from __future__ import annotations

from functools import cache

from .namespaces import RDF_TYPE, SKOS, TG


def _notations(graph, cls: str) -> dict:
    import rdflib

    notation = rdflib.URIRef(SKOS + "notation")
    return {str(node): str(graph.value(node, notation))
            for node in graph.subjects(rdflib.URIRef(RDF_TYPE), rdflib.URIRef(cls))
            if graph.value(node, notation) is not None}


@cache
def termination_reasons(graph=None) -> frozenset[str]:
    """Every value tg:terminationReason may take, as emitted."""
    return frozenset(_notations(_ontology(graph), TG + "TerminationReason").values())


@cache
def execution_patterns(graph=None) -> frozenset[str]:
    """Every value tg:pattern may take, as emitted."""
    return frozenset(_notations(_ontology(graph), TG + "ExecutionPattern").values())


@cache
def permitted_reasons(graph=None) -> dict[str, frozenset[str]]:
    """Pattern notation -> the termination reasons it may end with (tg:permitsTerminationReason)."""
    import rdflib

    graph = _ontology(graph)
    reasons = _notations(graph, TG + "TerminationReason")
    permits = rdflib.URIRef(TG + "permitsTerminationReason")
    return {
        notation: frozenset(reasons[str(r)] for r in graph.objects(rdflib.URIRef(node), permits))
        for node, notation in _notations(graph, TG + "ExecutionPattern").items()
    }


@cache
def _packaged():
    from .resources import ontology_graph

    return ontology_graph()


def _ontology(graph):
    return _packaged() if graph is None else graph
