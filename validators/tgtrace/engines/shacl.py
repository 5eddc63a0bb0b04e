"""The reference engine: pySHACL running the shapes as written.

rdflib cannot hold RDF 1.2 triple terms, so each one becomes a blank node
described as a classic rdf:Statement (rdf:subject, rdf:predicate, rdf:object);
the shapes check tg:edge and tg:contains against that form. The ontology's
declarations (rdf:type and owl:deprecated of every tg: term, no subclass
axioms, so types stay as asserted) are mixed into the data for the
vocabulary rules.
"""

from __future__ import annotations

import hashlib
from contextlib import contextmanager
from functools import cache
from typing import Iterable

import pyoxigraph as ox
import rdflib
from rdflib.namespace import RDF

from ..namespaces import SH, TG, TGL, XSD_STRING
from ..resources import ontology_graph, shapes_graph
from ..loaders.objects import rdflib_term
from .fast import is_json

IS_JSON = rdflib.URIRef(TGL + "isJSON")


def _sparql_is_json(value) -> rdflib.Literal:
    return rdflib.Literal(isinstance(value, rdflib.Literal) and is_json(str(value)))


@cache
def _register_functions() -> None:
    from rdflib.plugins.sparql.operators import register_custom_function

    register_custom_function(IS_JSON, _sparql_is_json, override=True)


@cache
def declarations() -> rdflib.Graph:
    """The ontology's term declarations, as the vocabulary rules expect them."""
    ontology = ontology_graph()
    graph = rdflib.Graph()
    kinds = {rdflib.OWL.Class, rdflib.OWL.ObjectProperty, rdflib.OWL.DatatypeProperty,
             rdflib.OWL.AnnotationProperty, rdflib.OWL.NamedIndividual, RDF.Property}
    for term, kind in ontology.subject_objects(RDF.type):
        if isinstance(term, rdflib.URIRef) and str(term).startswith(TG) and kind in kinds:
            graph.add((term, RDF.type, kind))
    for term in ontology.subjects(rdflib.OWL.deprecated, rdflib.Literal(True)):
        graph.add((term, rdflib.OWL.deprecated, rdflib.Literal(True)))
    return graph


class ToRdflib:
    """Converts pyoxigraph terms to rdflib and back (triple terms via reification)."""

    def __init__(self) -> None:
        self.graph = rdflib.Graph()
        self.back: dict = {}

    def add(self, quad: ox.Quad) -> None:
        self.graph.add((self.term(quad.subject), rdflib.URIRef(quad.predicate.value), self.term(quad.object)))

    def term(self, term):
        if isinstance(term, ox.NamedNode):
            return rdflib.URIRef(term.value)
        if isinstance(term, ox.BlankNode):
            node = rdflib.BNode(term.value)
            self.back[node] = term
            return node
        if isinstance(term, ox.Literal):
            if term.language:
                return rdflib.Literal(term.value, lang=term.language)
            if term.datatype.value == XSD_STRING:
                # rdflib keeps plain literals untyped; so must we, or sh:in misfires.
                return rdflib.Literal(term.value)
            return rdflib.Literal(term.value, datatype=rdflib.URIRef(term.datatype.value))
        if isinstance(term, ox.Triple):
            node = rdflib.BNode("t" + hashlib.sha1(str(term).encode()).hexdigest()[:20])
            if node not in self.back:
                self.back[node] = term
                self.graph.add((node, RDF.type, RDF.Statement))
                self.graph.add((node, RDF.subject, self.term(term.subject)))
                self.graph.add((node, RDF.predicate, self.term(term.predicate)))
                self.graph.add((node, RDF.object, self.term(term.object)))
            return node
        raise TypeError(f"unexpected term {term!r}")

    def to_ox(self, node):
        if node is None:
            return None
        if node in self.back:
            return self.back[node]
        return rdflib_term(node)


@contextmanager
def _each_query_parsed_once():
    """Parse each SPARQL text once while pySHACL runs.

    pySHACL hands rdflib a SPARQL constraint as text once per focus node, and
    rdflib parses text on every call: on large inputs most of the reference
    engine's time went to pyparsing. The parsed and translated query is what
    rdflib's own prepareQuery gives for repeated execution with different
    initial bindings, so the results are unchanged.
    """
    from rdflib.plugins.sparql import processor

    original = processor.SPARQLProcessor.query
    prepared: dict = {}

    def query(self, strOrQuery, initBindings=None, initNs=None, base=None, DEBUG=False):
        if isinstance(strOrQuery, str):
            key = (strOrQuery, base, tuple(sorted((initNs or {}).items())))
            if key not in prepared:
                prepared[key] = processor.translateQuery(processor.parseQuery(strOrQuery), base, initNs)
            strOrQuery = prepared[key]
        return original(self, strOrQuery, initBindings, initNs, base, DEBUG)

    processor.SPARQLProcessor.query = query
    try:
        yield
    finally:
        processor.SPARQLProcessor.query = original


def rule_codes() -> dict:
    graph = shapes_graph()
    return {shape: str(code) for shape, code in graph.subject_objects(rdflib.URIRef(TGL + "code"))}


def check(quads: Iterable[ox.Quad]) -> list[tuple]:
    """Validate with pySHACL; returns (code, focus, path, value) hits."""
    import pyshacl

    _register_functions()
    converter = ToRdflib()
    for quad in quads:
        converter.add(quad)
    with _each_query_parsed_once():
        conforms, results, _ = pyshacl.validate(
            converter.graph,
            shacl_graph=shapes_graph(),
            ont_graph=declarations(),
            advanced=True,
            inference="none",
            allow_warnings=True,
            allow_infos=True,
        )
    codes = rule_codes()
    sh = rdflib.Namespace(SH)
    hits = []
    # Only the report's own results: pySHACL also nests the inner shapes' results as sh:detail.
    for result in results.objects(None, sh.result):
        constraint = results.value(result, sh.sourceConstraint)
        shape = results.value(result, sh.sourceShape)
        code = codes.get(constraint) or codes.get(shape)
        if code is None:
            raise RuntimeError(f"shape {shape} reported a result but carries no rule code")
        path = results.value(result, sh.resultPath)
        focus = results.value(result, sh.focusNode)
        value = results.value(result, sh.value)
        hits.append((
            code,
            converter.to_ox(focus),
            str(path) if isinstance(path, rdflib.URIRef) else None,
            converter.to_ox(value),
        ))
    return hits
