"""The shapes reader reads a shapes graph through its own index of the triples: it must answer
every question as rdflib's store does, on the packaged shapes and on the W3C suite's shapes
graphs (lists, paths, blank nodes, SPARQL constraints); a subject's values in rdflib's order,
since which value is read first decides a shape's constraints' order."""

from __future__ import annotations

from pathlib import Path

import pytest
import rdflib
from tgtrace.ground.resources import read_turtle, shapes_graph
from tgtrace.shacl.shapes import _Triples

W3C = Path(__file__).parent / "data" / "w3c-shacl"
GRAPHS = ["packaged", *sorted(str(p.relative_to(W3C)) for p in W3C.rglob("*.ttl"))[::7]]


def _graph(name: str) -> rdflib.Graph:
    return shapes_graph() if name == "packaged" else read_turtle([W3C / name])


@pytest.mark.parametrize("name", GRAPHS)
def test_the_index_answers_as_rdflib_does(name: str) -> None:
    graph = _graph(name)
    index = _Triples(graph)
    predicates = set(graph.predicates())
    for subject in set(graph.subjects()):
        assert index.predicate_objects(subject) == list(graph.predicate_objects(subject))
        for predicate in predicates:
            assert index.objects(subject, predicate) == list(graph.objects(subject, predicate))
            assert index.value(subject, predicate) == graph.value(subject, predicate)
            assert index.has(subject, predicate) == ((subject, predicate, None) in graph)
        if (subject, rdflib.RDF.first, None) in graph:
            assert index.items(subject) == list(graph.items(subject))
    for predicate in predicates:
        assert sorted(index.subject_objects(predicate)) == sorted(graph.subject_objects(predicate))
        assert sorted(index.subjects(predicate)) == sorted(set(graph.subjects(predicate)))
        for value in set(graph.objects(None, predicate)):
            assert sorted(index.subjects(predicate, value)) == sorted(graph.subjects(predicate, value))
            assert index.has(None, predicate, value)


def test_a_list_that_loops_is_refused_as_rdflib_refuses_it() -> None:
    graph = rdflib.Graph()
    head, tail = rdflib.BNode(), rdflib.BNode()
    graph.add((head, rdflib.RDF.first, rdflib.Literal(1)))
    graph.add((head, rdflib.RDF.rest, tail))
    graph.add((tail, rdflib.RDF.first, rdflib.Literal(2)))
    graph.add((tail, rdflib.RDF.rest, head))
    with pytest.raises(ValueError, match="recursive") as ours:
        _Triples(graph).items(head)
    with pytest.raises(ValueError) as theirs:
        list(graph.items(head))
    assert str(ours.value) == str(theirs.value)
