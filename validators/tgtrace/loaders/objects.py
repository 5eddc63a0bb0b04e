"""Python objects an emitter's own tests hold: rdflib graphs, wire dicts, TrustGraph Triples."""

from __future__ import annotations

from typing import Any

import pyoxigraph as ox

from . import Input
from .wire import WireError, events_to_quads, triples_to_quads

_XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"


def from_object(source: Any) -> Input:
    try:
        quads = _quads(source)
    except WireError as exc:
        from . import InputError

        raise InputError("<objects>", None, exc.problem) from None
    return Input(_name(source), "objects", lambda: iter(quads))


def _name(source: Any) -> str:
    if _is_rdflib(source):
        return f"<{type(source).__name__}>"
    return "<objects>"


def _quads(source: Any) -> list[ox.Quad]:
    if _is_rdflib(source):
        return _from_rdflib(source)
    items = list(source)
    if not items:
        return []
    first = items[0]
    if isinstance(first, dict):
        if "explain_triples" in first:
            return events_to_quads(items)
        return triples_to_quads(items)
    if hasattr(first, "s") and hasattr(first, "p") and hasattr(first, "o"):
        return [
            ox.Quad(_tg_term(t.s), _tg_term(t.p), _tg_term(t.o), _graph(getattr(t, "g", None)))
            for t in items
        ]
    if isinstance(first, ox.Quad):
        return items
    raise WireError(None, f"cannot lint a list of {type(first).__name__}")


def _graph(name):
    return ox.NamedNode(name) if name else ox.DefaultGraph()


def _tg_term(term):
    # Duck-typed TrustGraph Term: type is "i", "b", "l" or "t".
    kind = getattr(term, "type", None)
    if kind == "i":
        return ox.NamedNode(term.iri)
    if kind == "b":
        return ox.BlankNode(getattr(term, "id", "") or None)
    if kind == "l":
        language = getattr(term, "language", "") or None
        datatype = getattr(term, "datatype", "") or None
        if language:
            return ox.Literal(term.value, language=language)
        if datatype and datatype != _XSD_STRING:
            return ox.Literal(term.value, datatype=ox.NamedNode(datatype))
        return ox.Literal(term.value)
    if kind == "t":
        inner = term.triple
        return ox.Triple(_tg_term(inner.s), _tg_term(inner.p), _tg_term(inner.o))
    raise WireError(None, f"unknown TrustGraph term type {kind!r}")


def _is_rdflib(source: Any) -> bool:
    return type(source).__module__.startswith("rdflib")


def _from_rdflib(graph) -> list[ox.Quad]:
    import rdflib

    quads = []
    if isinstance(graph, (rdflib.Dataset, rdflib.ConjunctiveGraph)):
        for s, p, o, g in graph.quads((None, None, None, None)):
            name = getattr(g, "identifier", g)
            default = name is None or name == rdflib.graph.DATASET_DEFAULT_GRAPH_ID or isinstance(name, rdflib.BNode)
            quads.append(ox.Quad(rdflib_term(s), rdflib_term(p), rdflib_term(o),
                                 ox.DefaultGraph() if default else ox.NamedNode(str(name))))
    else:
        for s, p, o in graph:
            quads.append(ox.Quad(rdflib_term(s), rdflib_term(p), rdflib_term(o)))
    return quads


def rdflib_term(term):
    """The pyoxigraph term of an rdflib term (plain and xsd:string literals alike)."""
    import rdflib

    if isinstance(term, rdflib.URIRef):
        return ox.NamedNode(str(term))
    if isinstance(term, rdflib.BNode):
        return ox.BlankNode(str(term))
    if isinstance(term, rdflib.Literal):
        if term.language:
            return ox.Literal(str(term), language=term.language)
        if term.datatype is not None and str(term.datatype) != _XSD_STRING:
            return ox.Literal(str(term), datatype=ox.NamedNode(str(term.datatype)))
        return ox.Literal(str(term))
    raise WireError(None, f"cannot lint an rdflib {type(term).__name__}")
