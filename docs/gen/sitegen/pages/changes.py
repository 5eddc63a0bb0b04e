"""The page "What changed": terms and rules added, changed, deprecated and removed, computed
from the graphs: this ontology against TrustGraph's v2.3 (docs/data/trustgraph-2.3.ttl), and
each release kept under docs/data/releases/<version>/ against the one after it."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import rdflib
from rdflib import OWL, RDF, RDFS, BNode, Literal, URIRef
from tgtrace.ground import resources
from tgtrace.tracemodel.generations import release_key

from ..context import Context
from ..traces import TG

SRC = "changes.md"
TGL = rdflib.Namespace("https://trustgraph.ai/lint#")
SH = rdflib.Namespace("http://www.w3.org/ns/shacl#")
KINDS = {OWL.Class: "class", OWL.ObjectProperty: "predicate", OWL.DatatypeProperty: "predicate",
         OWL.AnnotationProperty: "predicate", RDF.Property: "predicate", RDFS.Datatype: "datatype"}
# What a term means to a consumer; labels and definitions are reworded freely and not compared.
AXIOMS = (RDF.type, RDFS.subClassOf, RDFS.subPropertyOf, RDFS.domain, RDFS.range, OWL.equivalentClass,
          OWL.inverseOf, OWL.disjointWith)
# What a rule does; its explanation is not compared.
RULE_FIELDS = (SH.severity, SH.message, TGL.family, TGL.name)


@dataclass
class Diff:
    old: str
    new: str
    added: list = field(default_factory=list)
    changed: list = field(default_factory=list)  # (term, [what changed])
    deprecated: list = field(default_factory=list)
    removed: list = field(default_factory=list)
    rules: dict | None = None  # the same four lists for rules; None: the old side had no shapes


def _kind(graph, term) -> str | None:
    kinds = {KINDS[t] for t in graph.objects(term, RDF.type) if t in KINDS}
    if kinds:
        return sorted(kinds)[0]
    return "named value" if any(isinstance(t, URIRef) for t in graph.objects(term, RDF.type)) else None


def _terms(graph) -> dict:
    """The TrustGraph terms a graph declares, by IRI: their kind, axioms and deprecation."""
    terms = {}
    for term in set(graph.subjects(RDF.type, None)):
        if not (isinstance(term, URIRef) and str(term).startswith(TG) and str(term) != TG):
            continue
        kind = _kind(graph, term)
        if kind is None:
            continue
        axioms = {(p, o) for p in AXIOMS for o in graph.objects(term, p) if not isinstance(o, BNode)}
        deprecated = any(str(o).lower() == "true" for o in graph.objects(term, OWL.deprecated))
        terms[str(term)] = (kind, axioms, deprecated)
    return terms


def _show(node, graph) -> str:
    if isinstance(node, Literal):
        return f'"{node}"'
    try:
        return graph.namespace_manager.normalizeUri(node)
    except Exception:  # noqa: BLE001 (an IRI no prefix covers)
        return f"<{node}>"


def _rules(graph) -> dict:
    rules = {}
    for shape, code in graph.subject_objects(TGL.code):
        fields = {(p, o) for p in RULE_FIELDS for o in graph.objects(shape, p)}
        deprecated = any(str(o).lower() == "true" for o in graph.objects(shape, OWL.deprecated))
        rules[str(code)] = (fields, deprecated)
    return rules


def _compare(old: dict, new: dict, describe) -> tuple[list, list, list, list]:
    added = sorted(k for k in new if k not in old)
    removed = sorted(k for k in old if k not in new)
    deprecated = sorted(k for k in new if k in old and new[k][-1] and not old[k][-1])
    changed = []
    for key in sorted(set(old) & set(new)):
        what = describe(old[key], new[key])
        if what:
            changed.append((key, what))
    return added, changed, deprecated, removed


def diff(old_label: str, new_label: str, old: rdflib.Graph, new: rdflib.Graph,
         old_shapes: rdflib.Graph | None, new_shapes: rdflib.Graph) -> Diff:
    def terms_changed(before, after):
        what = [f"kind {before[0]} → {after[0]}"] if before[0] != after[0] else []
        what += [f"adds {_show(p, new)} {_show(o, new)}" for p, o in sorted(after[1] - before[1])]
        what += [f"drops {_show(p, old)} {_show(o, old)}" for p, o in sorted(before[1] - after[1])]
        return what

    def rules_changed(before, after):
        def values(fields, p):
            return ", ".join(sorted(_show(o, new_shapes) for q, o in fields if q == p)) or "none"
        return [f"{_show(p, new_shapes)} {values(before[0], p)} → {values(after[0], p)}"
                for p in sorted({p for p, _ in before[0] ^ after[0]})]

    result = Diff(old_label, new_label)
    result.added, result.changed, result.deprecated, result.removed = _compare(_terms(old), _terms(new), terms_changed)
    if old_shapes is not None:
        result.rules = dict(zip(("added", "changed", "deprecated", "removed"),
                                _compare(_rules(old_shapes), _rules(new_shapes), rules_changed)))
    return result


def releases(data: Path) -> list[tuple[str, Path]]:
    """This project's earlier releases kept under docs/data/releases/<version>/, oldest first."""
    folder = data / "releases"
    found = [p for p in folder.iterdir() if (p / "trustgraph.ttl").is_file()] if folder.is_dir() else []
    return [(p.name, p) for p in sorted(found, key=lambda p: release_key(p.name))]


def pages(context: Context) -> dict[str, str]:
    data = context.root / "docs" / "data"
    current = resources.ontology_graph()
    current_shapes = resources.shapes_graph()
    version = context.vocab.metadata.get("version") or "this release"
    kept = releases(data)
    sides = [(name, resources.read_turtle([path / "trustgraph.ttl"]),
              resources.read_turtle(sorted((path / "shapes").glob("*.ttl")))) for name, path in kept]
    sides.append((version, current, current_shapes))
    between = [diff(a[0], b[0], a[1], b[1], a[2], b[2]) for a, b in zip(sides, sides[1:])]
    upstream_ontology = resources.read_turtle([data / "trustgraph-2.3.ttl"])
    upstream = diff("TrustGraph v2.3", version, upstream_ontology, current, None, current_shapes)
    kinds = _terms(current) | _terms(upstream_ontology)
    return {SRC: context.render("changes.md.j2", SRC, version=version, upstream=upstream,
                                between=list(reversed(between)), kept=[name for name, _ in kept],
                                kind={iri: value[0] for iri, value in kinds.items()},
                                rule_count=len(_rules(current_shapes)))}
