"""The trace itself as RDF: the quads tg-trace read from any input, written for other RDF tools.

What the loaders read (wire JSON, explain streams, every RDF syntax) is written as N-Quads or
TriG 1.2, with its named graphs and its RDF 1.2 triple terms as they are, and with the
placeholders and tgl:invalidTerm annotations of terms RDF cannot hold (rule D008): exactly the
graph tg-trace judged, so that a SHACL processor run on the file sees what the linter saw.

Every output is as safe to open as the text reports: a character no output shows raw (C0 and
C1 controls, bidi controls, U+2028/9, U+FFFE/F) is written as the syntax's own ``\\uXXXX``
escape, which reads back as the same character (``escaping.safe_rdf``). Where the syntaxes have
no escape, the writer keeps such characters out: a blank node whose label holds one is written
under a fresh label (a blank node's label is not part of the graph), and TriG writes an IRI
holding one in full rather than as a prefixed name.
"""

from __future__ import annotations

from collections.abc import Iterable

import pyoxigraph as ox

from ..ground.escaping import has_unsafe, holds_secret, safe_rdf
from ..tracemodel.naming import prefixes

# TriG's prefixes: the trace vocabularies' and the lint's (its annotations of invalid terms).
_PREFIXES = prefixes("tg", "prov", "rdf", "rdfs", "xsd", "tgl")
# An rdf format of the registry (tgtrace.formats) -> pyoxigraph's writer of it; pyoxigraph writes
# RDF 1.2 triple terms as <<( s p o )>>.
RDF_FORMATS = {
    "nquads": ox.RdfFormat.N_QUADS,
    "trig": ox.RdfFormat.TRIG,
    # One graph, the named graphs merged, for tools that read one graph and not a dataset.
    "ntriples": ox.RdfFormat.N_TRIPLES,
}


def _unsafe(text: str) -> bool:
    return has_unsafe(text) or holds_secret(text)


class _Relabel:
    """Fresh labels for the blank nodes whose labels cannot be written safely; every other term as it is."""

    def __init__(self) -> None:
        self.labels: dict[str, ox.BlankNode] = {}
        self.unsafe_iri = False

    def term(self, term: ox.NamedNode | ox.BlankNode | ox.Literal | ox.Triple | ox.DefaultGraph
             ) -> ox.NamedNode | ox.BlankNode | ox.Literal | ox.Triple | ox.DefaultGraph:
        if isinstance(term, ox.BlankNode):
            if not _unsafe(term.value):
                return term
            fresh = self.labels.get(term.value)
            if fresh is None:
                fresh = self.labels[term.value] = ox.BlankNode()  # pyoxigraph's random label: no collision
            return fresh
        if isinstance(term, ox.NamedNode):
            self.unsafe_iri = self.unsafe_iri or _unsafe(term.value)
            return term
        if isinstance(term, ox.Triple):
            subject, predicate, object_ = (self.term(t) for t in (term.subject, term.predicate, term.object))
            if subject is term.subject and object_ is term.object and predicate is term.predicate:
                return term
            return ox.Triple(subject, predicate, object_)  # type: ignore[arg-type]  # each of its kind
        return term

    def quad(self, quad: ox.Quad) -> ox.Quad:
        terms = (self.term(quad.subject), self.term(quad.predicate), self.term(quad.object),
                 self.term(quad.graph_name))
        if all(new is old for new, old in zip(terms, (quad.subject, quad.predicate, quad.object, quad.graph_name))):
            return quad
        return ox.Quad(*terms)  # type: ignore[arg-type]  # each term of the kind it was


def serialize(quads: Iterable[ox.Quad], fmt: str = "nquads", prefixes: dict[str, str] | None = None) -> bytes:
    """The quads in one of RDF_FORMATS (TriG with the trace namespaces' prefixes and ``prefixes``),
    every unsafe character escaped."""
    rdf_format = RDF_FORMATS[fmt]
    relabel = _Relabel()
    safe = [relabel.quad(q) for q in quads]
    written: Iterable = safe
    if rdf_format == ox.RdfFormat.N_TRIPLES:
        written = dict.fromkeys(ox.Triple(q.subject, q.predicate, q.object) for q in safe)  # once each, in order
    # A prefixed name has no escape: an IRI holding an unsafe character is written in full.
    chosen = {**_PREFIXES, **(prefixes or {})} if rdf_format == ox.RdfFormat.TRIG and not relabel.unsafe_iri else None
    data: bytes = ox.serialize(written, format=rdf_format, prefixes=chosen)  # type: ignore[assignment]  # bytes, as no output is given
    text = data.decode("utf-8")
    safe_text = safe_rdf(text)
    return data if safe_text is text else safe_text.encode("utf-8")
