"""The trace itself as RDF: the quads tg-trace read from any input, written for other RDF tools.

What the loaders read (wire JSON, explain streams, every RDF syntax) is written as N-Quads or
TriG 1.2, with its named graphs and its RDF 1.2 triple terms as they are, and with the
placeholders and tgl:invalidTerm annotations of terms RDF cannot hold (rule D008): exactly the
graph tg-trace judged, so that a SHACL processor run on the file sees what the linter saw.
"""

from __future__ import annotations

from collections.abc import Iterable

import pyoxigraph as ox

from ..namespaces import PROV, RDF, RDFS, TG, TGL, XSD

_PREFIXES = {"tg": TG, "prov": PROV, "rdf": RDF, "rdfs": RDFS, "xsd": XSD, "tgl": TGL}
# name -> (what it is, pyoxigraph's format); pyoxigraph writes RDF 1.2 triple terms as <<( s p o )>>.
RDF_FORMATS = {
    "nquads": ("N-Quads 1.2", ox.RdfFormat.N_QUADS),
    "trig": ("TriG 1.2", ox.RdfFormat.TRIG),
    # One graph, the named graphs merged, for tools that read a graph and not a dataset.
    "ntriples": ("N-Triples 1.2", ox.RdfFormat.N_TRIPLES),
}


def serialize(quads: Iterable[ox.Quad], fmt: str = "nquads") -> bytes:
    """The quads in one of RDF_FORMATS (TriG with the trace namespaces' prefixes)."""
    _, rdf_format = RDF_FORMATS[fmt]
    if rdf_format == ox.RdfFormat.N_TRIPLES:
        quads = dict.fromkeys(ox.Triple(q.subject, q.predicate, q.object) for q in quads)  # type: ignore[misc]  # once each, in order
    prefixes = _PREFIXES if rdf_format == ox.RdfFormat.TRIG else None
    return ox.serialize(quads, format=rdf_format, prefixes=prefixes)  # type: ignore[return-value]  # bytes, as no output is given
