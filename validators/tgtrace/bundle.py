"""The shapes as published: the ontology's declared terms written into them, and the one-file bundle.

The vocabulary rules (V001, V002, V003) judge a trace by the terms the ontology
declares. So that any SHACL processor can run them on a trace alone, without
the ontology merged into the data, the declared classes and properties and the
deprecated properties are written into ``shapes/core.ttl``, between two marker
lines, from ``ontology/trustgraph.ttl``; a test keeps the two in step.

The bundle is every module in one Turtle file with no ``owl:imports``: what a
user downloads and hands to a SHACL processor as it is.

    python -m tgtrace.bundle --update     # rewrite the declared terms in shapes/core.ttl
    python -m tgtrace.bundle -o FILE      # write the one-file bundle
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from functools import cache
from pathlib import Path

import rdflib
from rdflib.compare import to_canonical_graph

from .namespaces import OWL, SH, TG
from .resources import ontology_graph, read_turtle, shapes_dir, shapes_paths
from .rules import model
from .shapes import CORE_COMPONENTS, Shape, ShapesModel
from .vocabulary import deprecated_terms

BEGIN = "# BEGIN declared terms"
END = "# END declared terms"
_GENERATED = " (generated from ontology/trustgraph.ttl by `python -m tgtrace.bundle --update`)"
_PROPERTY_KINDS = (OWL + "ObjectProperty", OWL + "DatatypeProperty", OWL + "AnnotationProperty")
BUNDLE_NAME = "trustgraph-shapes.ttl"


def _tg_subjects(graph: rdflib.Graph, kinds) -> list[str]:
    found = {str(term) for kind in kinds for term in graph.subjects(rdflib.RDF.type, rdflib.URIRef(kind))
             if isinstance(term, rdflib.URIRef) and str(term).startswith(TG) and str(term) != TG}
    return sorted(found)


def declared_terms_block(graph: rdflib.Graph | None = None) -> str:
    """The Turtle that states, in the shapes, which tg: terms the ontology declares."""
    graph = ontology_graph() if graph is None else graph
    classes = _tg_subjects(graph, (OWL + "Class",))
    properties = _tg_subjects(graph, _PROPERTY_KINDS)
    deprecated = sorted(deprecated_terms(graph))

    def listed(terms, indent):
        return ("\n" + indent).join("tg:" + t[len(TG):] for t in terms)

    def spaced(terms):
        return '"' + " ".join(terms) + '"'

    return "\n".join([
        BEGIN + _GENERATED,
        "tgsh:DeclaredClass a sh:NodeShape ;",
        '    rdfs:label "a class the ontology declares" ;',
        "    sh:in ( " + listed(classes, "        ") + " ) .",
        "",
        "# Space-separated IRIs: SPARQL cannot read a list of the shapes graph.",
        "tgsh:unknown-predicate tgl:declaredPredicates",
        "    " + spaced(properties) + " .",
        "",
        "tgsh:deprecated-term tgl:deprecatedPredicates",
        "    " + spaced(deprecated) + " .",
        END,
    ])


def with_declared_terms(text: str, block: str) -> str:
    """core.ttl's text with its generated block replaced by block."""
    start, end = text.find(BEGIN), text.find(END)
    if start == -1 or end == -1:
        raise ValueError(f"the markers of the declared terms are missing ({BEGIN!r} ... {END!r})")
    return text[:start] + block + text[end + len(END):]


def _within(shape: Shape) -> list[Shape]:
    """The shape and every shape it uses."""
    found, pending = {}, [shape]
    while pending:
        current = pending.pop()
        if current.node in found:
            continue
        found[current.node] = current
        for constraint in current.constraints:
            for value in constraint.params.values():
                pending.extend(item for item in (value if isinstance(value, list) else [value]) if isinstance(item, Shape))
    return list(found.values())


def beyond_core(shapes: ShapesModel | None = None) -> list[str]:
    """The rules an engine of SHACL Core alone cannot evaluate: each uses a constraint component
    or a target of SHACL-SPARQL or SHACL Advanced Features (the project's own components, declared
    in SPARQL, or SPARQL-based targets), itself or in a shape that carries it."""
    shapes = model() if shapes is None else shapes
    core = {SH + name for name in CORE_COMPONENTS}
    codes = set()
    for shape in list(shapes.shapes.values()):
        code = shapes.code_of(shape.node)
        if code is not None and any(s.sparql or any(c.component not in core for c in s.constraints)
                                    for s in _within(shape)):
            codes.add(code)
        if any(target.kind in ("custom", "sparql") for target in shape.targets):
            codes |= shapes.codes_within(shape)
    return sorted(codes)


def bundle_graph(paths=None) -> rdflib.Graph:
    """Every module's triples, the modules' own ontology headers and their imports left out:
    the bundle is one ontology, tgsh:, and needs nothing else."""
    paths = shapes_paths() if paths is None else paths
    graph = read_turtle(paths)
    for path in paths:
        module = rdflib.URIRef(Path(path).absolute().as_uri())
        graph.remove((module, None, None))
    graph.remove((None, rdflib.OWL.imports, None))
    return graph


def _wrapped(text: str) -> str:
    return "\n".join(textwrap.wrap(text, 96, initial_indent="# ", subsequent_indent="# ")) + "\n"


@cache
def bundle_turtle(paths: tuple | None = None) -> bytes:
    """The one-file bundle as Turtle, with a header saying what it is (paths: the modules, as a
    tuple; the installed shapes by default)."""
    graph = bundle_graph(paths)
    header = (
        "# TrustGraph explainability shapes: every module in one file, for any SHACL processor.\n"
        "# Run it on a trace as it is written (RDF 1.2 triple terms, no ontology merged):\n"
        "# SHACL Core and SHACL-SPARQL, with SPARQL-based targets (SHACL Advanced Features).\n"
        "# The opt-in rules are sh:deactivated true; activate them by removing that triple.\n"
        + _wrapped("Core profile: an engine of SHACL Core alone (no SHACL-SPARQL, no SPARQL-based targets) "
                   "evaluates every rule but " + ", ".join(beyond_core()) + ".") +
        "# Recipes per engine: https://trustgraph-ai.github.io/trustgraph-ontology/shacl-engines/\n\n"
    )
    # Blank nodes named canonically, so that the same shapes always give the same file.
    canonical = rdflib.Graph()
    canonical += to_canonical_graph(graph)
    for prefix, namespace in graph.namespaces():
        canonical.bind(prefix, namespace, override=True, replace=True)
    return header.encode() + canonical.serialize(format="turtle", encoding="utf-8")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tgtrace.bundle", description=__doc__.split("\n\n")[0])
    parser.add_argument("--update", action="store_true", help="rewrite the declared terms in shapes/core.ttl")
    parser.add_argument("-o", "--output", type=Path, help="write the one-file bundle to this file")
    args = parser.parse_args(argv)
    if args.update:
        core = shapes_dir() / "core.ttl"
        core.write_text(with_declared_terms(core.read_text(encoding="utf-8"), declared_terms_block()), encoding="utf-8")
    if args.output is not None:
        args.output.write_bytes(bundle_turtle())
    if not args.update and args.output is None:
        sys.stdout.buffer.write(bundle_turtle())
    return 0


if __name__ == "__main__":
    sys.exit(main())
