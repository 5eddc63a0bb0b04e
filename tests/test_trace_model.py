"""TrustGraph's trace model is written once (tgtrace.tracemodel) and agrees with the ontology, which
records the same facts as data: the mixins (tg:mixinFor), the named graphs (tg:DatasetGraph's
skos:notation) and where each class is stored (tg:storedIn), the execution patterns."""

from __future__ import annotations

import rdflib
from tgtrace.ground.namespaces import RDFS, SKOS, TG
from tgtrace.ground.resources import ontology_graph
from tgtrace.tracemodel.traces import (
    AGENT_PATTERNS,
    DEFAULT_GRAPH_CLASSES,
    MIXINS,
    RAG_PATTERNS,
    RETRIEVAL_CLASSES,
    RETRIEVAL_GRAPH,
    SOURCE_CLASSES,
    SOURCE_GRAPH,
    agent_pattern,
)
from tgtrace.tracemodel.vocabulary import execution_patterns, mixin_classes

ONTOLOGY = ontology_graph()
STORED_IN = rdflib.URIRef(TG + "storedIn")


def _stored_in(graph_name: str) -> set[str]:
    return {str(cls) for cls in ONTOLOGY.subjects(STORED_IN, rdflib.URIRef(TG + graph_name))}


def test_the_mixins_are_the_ontologys():
    assert MIXINS == set(mixin_classes())


def test_the_named_graphs_are_the_ontologys():
    notation = rdflib.URIRef(SKOS + "notation")
    assert str(ONTOLOGY.value(rdflib.URIRef(TG + "retrievalGraph"), notation)) == RETRIEVAL_GRAPH
    assert str(ONTOLOGY.value(rdflib.URIRef(TG + "sourceGraph"), notation)) == SOURCE_GRAPH


def test_each_class_is_stored_where_the_ontology_says():
    assert _stored_in("retrievalGraph") <= RETRIEVAL_CLASSES
    assert _stored_in("sourceGraph") <= SOURCE_CLASSES
    assert _stored_in("defaultGraph") == DEFAULT_GRAPH_CLASSES
    # The mixins of query-time entities go with them.
    assert MIXINS <= RETRIEVAL_CLASSES


def test_the_patterns_are_the_ontologys():
    assert set(AGENT_PATTERNS) == set(execution_patterns())
    subclasses = {str(c) for c in ONTOLOGY.subjects(rdflib.URIRef(RDFS + "subClassOf"), rdflib.URIRef(TG + "Question"))}
    assert set(RAG_PATTERNS) == subclasses - {TG + "AgentQuestion"}


def test_an_agents_pattern_is_its_decisions_else_its_steps():
    assert agent_pattern("supervisor", {"Analysis"}) == "supervisor"
    assert agent_pattern("loop", {"Plan", "StepResult"}) == "plan-then-execute"
    assert agent_pattern(None, {"Decomposition"}) == "supervisor"
    assert agent_pattern(None, {"Analysis", "Conclusion"}) == "react"
