"""pyoxigraph terms and quads in TrustGraph's wire form (the socket API's TermTranslator), for
tests that feed the same triples to the linter as wire JSON, explain events or a fake gateway."""

from __future__ import annotations

import pyoxigraph as ox

XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"


def wire(term) -> dict:
    """A pyoxigraph term as a wire term."""
    if isinstance(term, ox.NamedNode):
        return {"t": "i", "i": term.value}
    if isinstance(term, ox.BlankNode):
        return {"t": "b", "d": term.value}
    if isinstance(term, ox.Literal):
        found = {"t": "l", "v": term.value}
        if term.language:
            found["ln"] = term.language
        elif term.datatype.value != XSD_STRING:
            found["dt"] = term.datatype.value
        return found
    return {"t": "t", "tr": {"s": wire(term.subject), "p": wire(term.predicate), "o": wire(term.object)}}


def wire_quad(quad) -> dict:
    """A quad as a wire triple, with its graph (none for the default graph)."""
    found = {"s": wire(quad.subject), "p": wire(quad.predicate), "o": wire(quad.object)}
    if isinstance(quad.graph_name, ox.NamedNode):
        found["g"] = quad.graph_name.value
    return found
