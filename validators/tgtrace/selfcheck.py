"""Checks that the packaged ontology and shapes are sound and agree.

``run_checks()`` returns one human-readable line per problem, an empty list
when all is well. It checks that the ontology parses, has a complete header,
labels, defines and declares every term it uses, is consistent under HermiT
(optionally together with PROV-O), that every ``tg:`` term the shapes use is
declared, and that every ``TG_*`` constant of the TrustGraph emitter, when it
is installed, is declared.

The helpers are shared with the linter and the docs: ``declared_terms()``
(the ontology's vocabulary, by kind), ``deprecated_terms()``, and
``hermit()`` with ``owl_ntriples()`` to reason over traces.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from .namespaces import DCTERMS, OWL, RDFS, SH, SKOS, TG

KINDS = {
    OWL + "Class": "class",
    OWL + "ObjectProperty": "object property",
    OWL + "DatatypeProperty": "datatype property",
    OWL + "AnnotationProperty": "annotation",
    OWL + "NamedIndividual": "individual",
    RDFS + "Datatype": "datatype",
}

HEADER = (
    DCTERMS + "title",
    DCTERMS + "description",
    DCTERMS + "license",
    DCTERMS + "creator",
    OWL + "versionInfo",
    OWL + "versionIRI",
    OWL + "priorVersion",
)

# Predicates whose values are SPARQL text that may name tg: terms. Fault
# updates (tgl:update) are left out: they may insert unknown terms on purpose.
_SPARQL_TEXT = (SH + "select", SH + "ask", SH + "construct")
_PREFIXED = re.compile(r"(?<![\w:/#.-])tg:([A-Za-z_][\w-]*)")
_FULL = re.compile(r"<" + re.escape(TG) + r"([^>\s]*)>")


def short(iri: str) -> str:
    """``tg:Foo`` for a term of the namespace, the IRI in brackets otherwise."""
    return "tg:" + iri[len(TG):] if iri.startswith(TG) and iri != TG else f"<{iri}>"


def _graph(source, packaged=None):
    """An rdflib graph from a graph, Turtle path(s) or (None) the packaged file(s)."""
    import rdflib

    if source is None:
        from .resources import ontology_graph

        return (packaged or ontology_graph)()
    if isinstance(source, rdflib.Graph):
        return source
    graph = rdflib.Graph()
    for path in [source] if isinstance(source, (str, Path)) else source:
        graph.parse(Path(path), format="turtle")
    return graph


def declared_terms(ontology=None) -> dict[str, str]:
    """Every ``tg:`` term the ontology declares, mapped to its kind.

    Kinds: class, object property, datatype property, annotation, individual,
    datatype. ``ontology`` is an rdflib graph, a Turtle path, or None for the
    packaged ontology.
    """
    import rdflib

    graph = _graph(ontology)
    terms: dict[str, str] = {}
    for kind_iri, kind in KINDS.items():
        for term in graph.subjects(rdflib.RDF.type, rdflib.URIRef(kind_iri)):
            if isinstance(term, rdflib.URIRef) and str(term).startswith(TG) and str(term) != TG:
                terms.setdefault(str(term), kind)
    return dict(sorted(terms.items()))


def deprecated_terms(ontology=None) -> frozenset[str]:
    """The ``tg:`` terms marked ``owl:deprecated true``."""
    import rdflib

    graph = _graph(ontology)
    deprecated = rdflib.URIRef(OWL + "deprecated")
    return frozenset(
        str(term)
        for term, flag in graph.subject_objects(deprecated)
        if str(term).startswith(TG) and flag.toPython() is True
    )


# --- Reasoning -----------------------------------------------------------------


class ReasonerUnavailable(RuntimeError):
    """HermiT cannot run here (no Java runtime)."""


@dataclass(frozen=True)
class Reasoning:
    consistent: bool
    unsatisfiable: tuple[str, ...]  # IRIs of classes equivalent to owl:Nothing


def owl_ntriples(source) -> bytes:
    """N-Triples an OWL reasoner can load, from an RDF file or pyoxigraph triples/quads.

    Graph names are dropped (OWL has no named graphs) and so is every
    statement holding an RDF 1.2 triple term (tg:edge, tg:contains values):
    neither OWL 2 nor owlready2 can represent one.
    """
    import pyoxigraph as ox

    if isinstance(source, (str, Path)):
        path = Path(source)
        fmt = ox.RdfFormat.from_extension(path.suffix.lstrip(".")) or ox.RdfFormat.TURTLE
        items = ox.parse(path=str(path), format=fmt)
    else:
        items = source
    kept = []
    for item in items:
        if isinstance(item.subject, ox.Triple) or isinstance(item.object, ox.Triple):
            continue
        kept.append(ox.Triple(item.subject, item.predicate, item.object))
    return ox.serialize(kept, format=ox.RdfFormat.N_TRIPLES) or b""


@contextlib.contextmanager
def _quick_jvm():
    """Start HermiT's JVM tuned for a short run, unless the user tuned it already.

    A run lasts about a second, most of it JVM start-up and JIT compilation;
    the C1 compiler alone and the serial collector halve that (measured).
    """
    if "JAVA_TOOL_OPTIONS" in os.environ:
        yield
        return
    os.environ["JAVA_TOOL_OPTIONS"] = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
    try:
        yield
    finally:
        os.environ.pop("JAVA_TOOL_OPTIONS", None)


def hermit(*sources) -> Reasoning:
    """Run HermiT (through owlready2) over the union of the sources.

    Each source is anything :func:`owl_ntriples` accepts, or N-Triples bytes.
    Raises :class:`ReasonerUnavailable` when no Java runtime is found.
    """
    import owlready2

    if shutil.which(owlready2.JAVA_EXE) is None:
        raise ReasonerUnavailable(
            f"no Java runtime found ({owlready2.JAVA_EXE!r} is not on PATH); "
            "HermiT needs Java 8 or later"
        )
    world = owlready2.World()
    try:
        # owlready2 prints warnings about PROV-O's own punning; they are not ours.
        with contextlib.redirect_stderr(io.StringIO()), _quick_jvm():
            for i, source in enumerate(sources):
                data = source if isinstance(source, bytes) else owl_ntriples(source)
                world.get_ontology(f"urn:tgtrace:reasoner:{i}#").load(
                    fileobj=io.BytesIO(data), format="ntriples"
                )
            try:
                owlready2.sync_reasoner_hermit(world, infer_property_values=False, debug=0)
            except owlready2.OwlReadyInconsistentOntologyError:
                return Reasoning(consistent=False, unsatisfiable=())
        return Reasoning(
            consistent=True,
            unsatisfiable=tuple(sorted(c.iri for c in world.inconsistent_classes())),
        )
    finally:
        world.close()


# --- The checks ----------------------------------------------------------------


def _owner(graph, node, depth: int = 8) -> str:
    """The nearest named node above ``node`` (a shape, through property/list nodes)."""
    import rdflib

    seen = {node}
    frontier = [node]
    for _ in range(depth):
        parents = [s for n in frontier for s in graph.subjects(None, n) if s not in seen]
        for parent in parents:
            if isinstance(parent, rdflib.URIRef):
                return graph.namespace_manager.normalizeUri(parent)
        seen.update(parents)
        frontier = parents
        if not frontier:
            break
    return "an anonymous node"


def _list_owner(graph, cell):
    """(node, predicate) holding the RDF list that ``cell`` belongs to."""
    import rdflib

    seen = set()
    while cell not in seen:
        seen.add(cell)
        previous = next(graph.subjects(rdflib.RDF.rest, cell), None)
        if previous is None:
            break
        cell = previous
    for subject, predicate in graph.subject_predicates(cell):
        return subject, predicate
    return cell, None


def shape_terms(shapes) -> dict[str, str]:
    """Every ``tg:`` term the shapes graph uses, mapped to one place it is used."""
    import rdflib

    used: dict[str, str] = {}
    for s, p, o in shapes:
        if p == rdflib.RDF.first:
            # A list member (sh:in, sh:or, a path sequence): name the list's owner.
            s, p = _list_owner(shapes, s)
        pname = shapes.namespace_manager.normalizeUri(p) if p is not None else "a list"
        if isinstance(o, rdflib.URIRef) and str(o).startswith(TG) and str(o) != TG:
            where = s if isinstance(s, rdflib.URIRef) else None
            owner = shapes.namespace_manager.normalizeUri(where) if where else _owner(shapes, s)
            used.setdefault(str(o), f"{pname} in {owner}")
        if isinstance(s, rdflib.URIRef) and str(s).startswith(TG) and str(s) != TG:
            used.setdefault(str(s), f"subject of {pname}")
        if isinstance(o, rdflib.Literal) and str(p) in _SPARQL_TEXT:
            text = str(o)
            owner = _owner(shapes, s) if not isinstance(s, rdflib.URIRef) else shapes.namespace_manager.normalizeUri(s)
            for local in _PREFIXED.findall(text) + [m for m in _FULL.findall(text) if m]:
                used.setdefault(TG + local, f"{pname} query of {owner}")
    return used


def emitter_constants() -> dict[str, str] | None:
    """``TG_*`` constants of ``trustgraph.provenance.namespaces``, or None if not installed."""
    try:
        from trustgraph.provenance import namespaces
    except ImportError:
        return None
    return {
        name: value
        for name, value in vars(namespaces).items()
        if name.startswith("TG_") and isinstance(value, str) and value.startswith(TG) and value != TG
    }


def _ontology_problems(graph, label: str) -> list[str]:
    import rdflib

    problems = []
    onto = rdflib.URIRef(TG)
    if (onto, rdflib.RDF.type, rdflib.URIRef(OWL + "Ontology")) not in graph:
        problems.append(f"{label}: no owl:Ontology with the IRI <{TG}>")
    for predicate in HEADER:
        if graph.value(onto, rdflib.URIRef(predicate)) is None:
            problems.append(f"{label}: the header lacks {graph.namespace_manager.normalizeUri(rdflib.URIRef(predicate))}")

    declared = declared_terms(graph)
    kinds: dict[str, set[str]] = {}
    for kind_iri, kind in KINDS.items():
        for term in graph.subjects(rdflib.RDF.type, rdflib.URIRef(kind_iri)):
            if str(term) in declared:
                kinds.setdefault(str(term), set()).add(kind)
    for term, found in sorted(kinds.items()):
        if len(found) > 1:
            problems.append(f"{label}: {short(term)} is declared as {' and '.join(sorted(found))}")

    label_p, definition_p, defined_by_p = (
        rdflib.URIRef(RDFS + "label"),
        rdflib.URIRef(SKOS + "definition"),
        rdflib.URIRef(RDFS + "isDefinedBy"),
    )
    for term in declared:
        node = rdflib.URIRef(term)
        if graph.value(node, label_p) is None:
            problems.append(f"{label}: {short(term)} has no rdfs:label")
        if graph.value(node, definition_p) is None:
            problems.append(f"{label}: {short(term)} has no skos:definition")
        if (node, defined_by_p, onto) not in graph:
            problems.append(f"{label}: {short(term)} is not rdfs:isDefinedBy <{TG}>")

    used = {
        str(node)
        for triple in graph
        for node in triple
        if isinstance(node, rdflib.URIRef) and str(node).startswith(TG)
    }
    used -= {TG} | {str(v) for v in graph.objects(onto, rdflib.URIRef(OWL + "versionIRI"))}
    for term in sorted(used - set(declared)):
        problems.append(f"{label}: {short(term)} is used but not declared")
    return problems


def _shapes_graph(shapes):
    from .resources import shapes_graph

    return _graph(shapes, packaged=shapes_graph)


def enumeration_problems(ontology, shapes, label: str) -> list[str]:
    """The shapes' value lists agree with the enumerations the ontology records as data."""
    import re

    import rdflib

    from .enumerations import execution_patterns, permitted_reasons, termination_reasons

    sh = rdflib.Namespace("http://www.w3.org/ns/shacl#")
    tgsh = rdflib.Namespace("https://trustgraph.ai/shapes#")
    problems = []

    def listed(shape) -> set:
        head = shapes.value(shape, sh["in"])
        return {str(v) for v in rdflib.collection.Collection(shapes, head)} if head is not None else set()

    for shape, expected, what in (
        (tgsh["termination-known"], termination_reasons(ontology), "tg:TerminationReason"),
        (tgsh["pattern-decision-pattern"], execution_patterns(ontology), "tg:ExecutionPattern"),
    ):
        if (shape, None, None) not in shapes:
            continue  # a shapes graph without this rule has nothing to agree on
        if listed(shape) != set(expected):
            problems.append(f"shapes: {short(str(shape))} lists {sorted(listed(shape))}, but {label}'s "
                            f"{what} values are {sorted(expected)}")
    if (tgsh["termination-pattern"], None, None) not in shapes:
        return problems
    select = str(shapes.value(tgsh["termination-pattern"], sh.select) or "")
    pairs = set(re.findall(r'"([a-z-]+) ([a-z-]+)"', select))
    expected_pairs = {(p, r) for p, reasons in permitted_reasons(ontology).items() for r in reasons}
    if pairs != expected_pairs:
        problems.append(f"shapes: {short(str(tgsh['termination-pattern']))} allows {sorted(pairs)}, but {label}'s "
                        f"tg:permitsTerminationReason gives {sorted(expected_pairs)}")
    return problems


def run_checks(ontology=None, shapes=None, prov_o=None, reasoner: bool = True) -> list[str]:
    """Every problem found, one line each; an empty list means all is well.

    ``ontology``: a Turtle path (default: the packaged ontology). ``shapes``:
    an rdflib graph, a path or paths (default: the packaged shapes).
    ``prov_o``: a path to PROV-O, to check consistency with it as well.
    ``reasoner=False`` skips HermiT.
    """
    import rdflib

    if ontology is None:
        from .resources import ontology_path

        ontology = ontology_path()
    ontology = Path(ontology)
    label = ontology.name
    try:
        graph = rdflib.Graph()
        graph.parse(ontology, format="turtle")
    except FileNotFoundError:
        return [f"{label}: not found at {ontology}"]
    except Exception as exc:  # rdflib raises several unrelated types for bad Turtle
        return [f"{label}: does not parse: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"]

    problems = _ontology_problems(graph, label)
    declared = declared_terms(graph)

    try:
        shapes_graph = _shapes_graph(shapes)
    except FileNotFoundError as exc:
        problems.append(str(exc))
    except Exception as exc:
        problems.append(f"shapes: do not parse: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}")
    else:
        for term, where in sorted(shape_terms(shapes_graph).items()):
            if term not in declared:
                problems.append(f"shapes: {short(term)} ({where}) is not declared in {label}")
        problems.extend(enumeration_problems(graph, shapes_graph, label))

    constants = emitter_constants()
    if constants is not None:
        for name, iri in sorted(constants.items()):
            if iri not in declared:
                problems.append(f"{label}: {short(iri)} (trustgraph.provenance {name}) is not declared")

    if reasoner:
        problems.extend(_reasoner_problems(ontology, label, prov_o))
    return problems


def _reasoner_problems(ontology: Path, label: str, prov_o) -> list[str]:
    import owlready2

    runs: list[tuple[str, tuple]] = [(label, (ontology,))]
    if prov_o is not None:
        runs.append((f"{label} with {Path(prov_o).name}", (ontology, Path(prov_o))))
    problems = []
    for name, sources in runs:
        try:
            result = hermit(*sources)
        except ReasonerUnavailable as exc:
            return [f"{label}: HermiT consistency not checked: {exc}"]
        except owlready2.OwlReadyJavaError as exc:
            problems.append(f"{name}: HermiT failed: {_first_java_line(exc)}")
            continue
        if not result.consistent:
            problems.append(f"{name}: inconsistent under HermiT")
        for iri in result.unsatisfiable:
            problems.append(f"{name}: {short(iri)} is unsatisfiable under HermiT")
    return problems


def _first_java_line(exc: Exception) -> str:
    # The Java stack trace is long; its exception line says what went wrong.
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    for line in lines:
        if "Exception" in line or "Error:" in line:
            return line
    return lines[0] if lines else "no output"
