"""The namespaces page and the files it offers for download (the ontology in four syntaxes, the shapes,
the shapes bundle and the expanded bundle)."""

from __future__ import annotations

from pathlib import Path

from tgtrace.ground import resources
from tgtrace.rules import bundle
from tgtrace.rules.help import TURTLE_PREFIXES
from tgtrace.tracemodel.naming import PREFIXES

from ..context import Context
from ..traces import TG

SRC = "namespaces.md"
SYNTAXES = {".ttl": "Turtle", ".nt": "N-Triples", ".rdf": "RDF/XML", ".jsonld": "JSON-LD"}
BUNDLES = {bundle.BUNDLE_NAME, bundle.EXPANDED_NAME}


def downloads() -> dict[str, bytes]:
    """The ontology in four syntaxes, the shapes as they are and in one file, under downloads/."""
    graph = resources.ontology_graph()
    files = {"downloads/trustgraph.ttl": resources.ontology_path().read_bytes()}
    # Plain RDF/XML: rdflib's pretty-xml writer drops the OWL lists (unions, disjointness).
    for suffix, fmt in ((".nt", "nt"), (".rdf", "xml"), (".jsonld", "json-ld")):
        files[f"downloads/trustgraph{suffix}"] = graph.serialize(format=fmt, encoding="utf-8")
    for path in resources.shapes_paths():
        files[f"downloads/shapes/{path.name}"] = path.read_bytes()
    files[f"downloads/{bundle.BUNDLE_NAME}"] = bundle.bundle_turtle()
    files[f"downloads/{bundle.EXPANDED_NAME}"] = bundle.expanded_turtle()
    return files


def pages(context: Context, files: dict[str, bytes]) -> dict[str, str]:
    vocab = context.vocab
    listed = [(path, Path(path).name, len(data)) for path, data in files.items()]
    return {
        SRC: context.render(
            "namespaces.md.j2",
            SRC,
            meta=vocab.metadata,
            namespace=TG,
            counts=(len(vocab.classes), len(vocab.predicates), len(vocab.datatypes), len(vocab.individuals)),
            prefixes={**TURTLE_PREFIXES, **PREFIXES},
            ontology=[(p, n, SYNTAXES[Path(p).suffix], size) for p, n, size in listed
                      if p.startswith("downloads/trustgraph") and n not in BUNDLES],
            bundle=[(p, n, size) for p, n, size in listed if n == bundle.BUNDLE_NAME],
            expanded=[(p, n, size) for p, n, size in listed if n == bundle.EXPANDED_NAME],
            shapes=[(p, n, size) for p, n, size in listed if p.startswith("downloads/shapes/")],
        )
    }
