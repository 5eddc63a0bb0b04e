"""Checks that the packaged ontology and shapes are sound and agree.

``problems()`` returns every :class:`Problem` found, each with a code
(codes K001 to K034 of the registry, ``rules/codes.toml``), an empty list when all is well; ``run_checks()`` gives
them as lines, and ``findings()`` as findings that every output format
prints (``tg-trace check --format ...``). It checks that the ontology parses, has a complete header,
labels, defines and declares every term it uses, is consistent under HermiT
(optionally together with PROV-O), that every ``tg:`` term the shapes use is
declared, that every rule of the shapes is valid (:func:`rule_problems`: its
code is its own and starts with its family's letter, its message names only
variables a finding fills in, it carries its documentation and a fault
example), and that every ``TG_*`` constant of the TrustGraph emitter, when it
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
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias

import pyoxigraph as ox
import rdflib

from ..ground.errors import TgTraceError
from ..ground.model import Finding
from ..ground.namespaces import DCTERMS, OWL, RDFS, SH, SKOS, TG, TGL
from ..ground.resources import TurtleError, ontology_graph, ontology_path, read_turtle, shapes_graph, shapes_paths
from ..shacl.fast import Engine
from ..shacl.shapes import ParameterError, ShapesModel
from ..tracemodel.naming import curie
from ..tracemodel.vocabulary import DECLARATION_KINDS as KINDS
from ..tracemodel.vocabulary import declared_terms as _declared_terms
from ..tracemodel.vocabulary import deprecated_terms as _deprecated_terms
from ..tracemodel.vocabulary import execution_patterns, mixin_classes, permitted_reasons, termination_reasons
from . import MESSAGE_VARIABLES, PLACEHOLDER, get_rule
from .components import PACKAGED

if TYPE_CHECKING:
    # What an ontology or shapes argument may be: a graph, a Turtle path or paths, or None (the packaged one).
    _GraphSource: TypeAlias = rdflib.Graph | Path | str | Iterable[Path | str] | None
    # What HermiT reads: an RDF file, or pyoxigraph triples or quads.
    _OwlSource: TypeAlias = Path | str | Iterable[ox.Triple | ox.Quad]

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


@dataclass(frozen=True)
class Problem:
    code: str
    text: str  # "FILE: what is wrong", as a person reads it
    term: str | None = None  # the IRI it is about, when it is about one
    shapes: bool = False  # found in the shapes rather than the ontology
    file: str | None = None  # the file and line it is on, when the check knows them
    line: int | None = None


# How a problem names a term: tg:Foo for a term of the namespace, the IRI in brackets otherwise.
_TG_ONLY = {"tg": TG}


def _named(iri: str) -> str:
    return curie(iri, _TG_ONLY, True)


def _graph(source: _GraphSource, packaged: Callable[[], rdflib.Graph] | None = None) -> rdflib.Graph:
    """An rdflib graph from a graph, Turtle path(s) or (None) the packaged file(s)."""
    if source is None:
        return (packaged or ontology_graph)()
    if isinstance(source, rdflib.Graph):
        return source
    return read_turtle([source] if isinstance(source, (str, Path)) else source)


def declared_terms(ontology: _GraphSource = None) -> dict[str, str]:
    """Every ``tg:`` term the ontology (a graph, a Turtle path, or None: the packaged one) declares."""
    return _declared_terms(_graph(ontology))


def deprecated_terms(ontology: _GraphSource = None) -> frozenset[str]:
    """The ``tg:`` terms marked ``owl:deprecated true``."""
    return _deprecated_terms(_graph(ontology))


# --- Reasoning -----------------------------------------------------------------


class ReasonerUnavailable(TgTraceError, RuntimeError):
    """HermiT cannot run here (no Java runtime)."""


@dataclass(frozen=True)
class Reasoning:
    consistent: bool
    unsatisfiable: tuple[str, ...]  # IRIs of classes equivalent to owl:Nothing


def owl_ntriples(source: _OwlSource) -> bytes:
    """N-Triples an OWL reasoner can load, from an RDF file or pyoxigraph triples/quads.

    Graph names are dropped (OWL has no named graphs) and so is every
    statement holding an RDF 1.2 triple term (tg:edge, tg:contains values):
    neither OWL 2 nor owlready2 can represent one.
    """
    if isinstance(source, (str, Path)):
        path = Path(source)
        fmt = ox.RdfFormat.from_extension(path.suffix.lstrip(".")) or ox.RdfFormat.TURTLE
        items: Iterable[ox.Triple | ox.Quad] = ox.parse(path=str(path), format=fmt)
    else:
        items = source
    kept = []
    for item in items:
        if isinstance(item.subject, ox.Triple) or isinstance(item.object, ox.Triple):
            continue
        kept.append(ox.Triple(item.subject, item.predicate, item.object))
    return ox.serialize(kept, format=ox.RdfFormat.N_TRIPLES) or b""


@contextlib.contextmanager
def _quick_jvm() -> Iterator[None]:
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


def hermit(*sources: bytes | _OwlSource) -> Reasoning:
    """Run HermiT (through owlready2) over the union of the sources.

    Each source is anything :func:`owl_ntriples` accepts, or N-Triples bytes.
    Raises :class:`ReasonerUnavailable` when no Java runtime is found.
    """
    import owlready2  # loaded when HermiT runs: it is slow to import, and most runs never reason

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


def _owner(graph: rdflib.Graph, node: rdflib.term.Node, depth: int = 8) -> str:
    """The nearest named node above ``node`` (a shape, through property/list nodes)."""
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


def _list_owner(graph: rdflib.Graph, cell: rdflib.term.Node) -> tuple[rdflib.term.Node, rdflib.term.Node | None]:
    """(node, predicate) holding the RDF list that ``cell`` belongs to."""
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


def shape_terms(shapes: rdflib.Graph) -> dict[str, str]:
    """Every ``tg:`` term the shapes graph uses, mapped to one place it is used."""
    used: dict[str, str] = {}
    p: rdflib.term.Node | None  # a list member's owner may hold it by no predicate
    for s, p, o in shapes:
        if p == rdflib.RDF.first:
            # A list member (sh:in, sh:or, a path sequence): name the list's owner.
            s, p = _list_owner(shapes, s)
        pname = shapes.namespace_manager.normalizeUri(p) if p is not None else "a list"  # type: ignore[arg-type]  # an IRI
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


def _ontology_problems(graph: rdflib.Graph, label: str) -> list[Problem]:
    problems = []
    onto = rdflib.URIRef(TG)
    if (onto, rdflib.RDF.type, rdflib.URIRef(OWL + "Ontology")) not in graph:
        problems.append(Problem("K002", f"{label}: no owl:Ontology with the IRI <{TG}>"))
    for predicate in HEADER:
        if graph.value(onto, rdflib.URIRef(predicate)) is None:
            problems.append(Problem("K002", f"{label}: the header lacks {graph.namespace_manager.normalizeUri(rdflib.URIRef(predicate))}"))

    declared = declared_terms(graph)
    kinds: dict[str, set[str]] = {}
    term: rdflib.term.Node | str  # a node of the graph, then an IRI's text
    for kind_iri, kind in KINDS.items():
        for term in graph.subjects(rdflib.RDF.type, rdflib.URIRef(kind_iri)):
            if str(term) in declared:
                kinds.setdefault(str(term), set()).add(kind)
    for term, found in sorted(kinds.items()):
        if len(found) > 1:
            problems.append(Problem("K003", f"{label}: {_named(term)} is declared as {' and '.join(sorted(found))}", term))

    label_p, definition_p, defined_by_p = (
        rdflib.URIRef(RDFS + "label"),
        rdflib.URIRef(SKOS + "definition"),
        rdflib.URIRef(RDFS + "isDefinedBy"),
    )
    for term in declared:
        node = rdflib.URIRef(term)
        if graph.value(node, label_p) is None:
            problems.append(Problem("K004", f"{label}: {_named(term)} has no rdfs:label", term))
        if graph.value(node, definition_p) is None:
            problems.append(Problem("K005", f"{label}: {_named(term)} has no skos:definition", term))
        if (node, defined_by_p, onto) not in graph:
            problems.append(Problem("K006", f"{label}: {_named(term)} is not rdfs:isDefinedBy <{TG}>", term))

    used = {
        str(node)
        for triple in graph
        for node in triple
        if isinstance(node, rdflib.URIRef) and str(node).startswith(TG)
    }
    used -= {TG} | {str(v) for v in graph.objects(onto, rdflib.URIRef(OWL + "versionIRI"))}
    for term in sorted(used - set(declared)):
        problems.append(Problem("K007", f"{label}: {_named(term)} is used but not declared", term))
    return problems


def _shapes_graph(shapes: _GraphSource) -> rdflib.Graph:
    return _graph(shapes, packaged=shapes_graph)


def enumeration_problems(ontology: rdflib.Graph, shapes: rdflib.Graph, label: str) -> list[Problem]:
    """The shapes' value lists agree with the enumerations the ontology records as data."""
    sh = rdflib.Namespace("http://www.w3.org/ns/shacl#")
    tgsh = rdflib.Namespace("https://trustgraph.ai/shapes#")
    problems = []

    def listed(shape: rdflib.term.Node) -> set:
        head = shapes.value(shape, sh["in"])
        return {str(v) for v in rdflib.collection.Collection(shapes, head)} if head is not None else set()

    for shape, expected, what in (
        (tgsh["termination-known"], termination_reasons(ontology), "tg:TerminationReason"),
        (tgsh["pattern-decision-pattern"], execution_patterns(ontology), "tg:ExecutionPattern"),
    ):
        if (shape, None, None) not in shapes:
            continue  # a shapes graph without this rule has nothing to agree on
        if listed(shape) != set(expected):
            problems.append(Problem("K012", f"shapes: {_named(str(shape))} lists {sorted(listed(shape))}, but {label}'s "
                                    f"{what} values are {sorted(expected)}", str(shape), shapes=True))
    problems.extend(_mixin_problems(ontology, shapes, label))
    # The pairs the permitted-termination component's SPARQL hard-codes (the native
    # implementation reads the ontology) must be the ontology's.
    component = rdflib.URIRef("https://trustgraph.ai/lint#PermittedTerminationConstraintComponent")
    validator = shapes.value(component, sh.validator)
    if validator is None:
        return problems
    query = str(shapes.value(validator, sh.ask) or shapes.value(validator, sh.select) or "")
    pairs = set(re.findall(r'"([a-z-]+) ([a-z-]+)"', query))
    expected_pairs = {(p, r) for p, reasons in permitted_reasons(ontology).items() for r in reasons}
    if pairs != expected_pairs:
        problems.append(Problem("K012", f"shapes: {_named(str(component))} allows {sorted(pairs)}, but {label}'s "
                                f"tg:permitsTerminationReason gives {sorted(expected_pairs)}", str(component),
                                shapes=True))
    return problems


# tg:Reflection on an Observation is what TrustGraph 2.1.22 to 2.2.12 wrote: rule M007 judges it, so
# the rule on misplaced Reflections leaves it alone.
_JUDGED_ELSEWHERE = {TG + "Reflection": {TG + "Observation"}}


def _mixin_problems(ontology: rdflib.Graph, shapes: rdflib.Graph, label: str) -> list[Problem]:
    """Each rule that targets a mixin class admits exactly the main classes the ontology names with
    tg:mixinFor (a shape that is those classes: sh:class, or sh:or of shapes that are)."""
    sh = rdflib.Namespace("http://www.w3.org/ns/shacl#")
    problems = []

    def classes_of(shape: rdflib.term.Node) -> set:
        found = {str(c) for c in shapes.objects(shape, sh["class"])}
        for head in shapes.objects(shape, sh["or"]):
            for member in rdflib.collection.Collection(shapes, head):
                found |= classes_of(member)
        return found

    for mixin, mains in mixin_classes(ontology).items():
        for shape in shapes.subjects(sh.targetClass, rdflib.URIRef(mixin)):
            if (shape, _TGL.code, None) not in shapes:
                continue
            admitted = classes_of(shape)
            expected = set(mains) | _JUDGED_ELSEWHERE.get(mixin, set())
            if admitted != expected:
                aside = sorted(map(_named, _JUDGED_ELSEWHERE.get(mixin, set())))
                problems.append(Problem("K012", f"shapes: {_named(str(shape))} admits {_named(mixin)} on "
                                        f"{sorted(map(_named, admitted))}, not on {sorted(map(_named, expected))} "
                                        f"({label}'s tg:mixinFor" + (f", and {aside} judged by another rule)" if aside else ")"),
                                        str(shape), shapes=True))
    return problems


# --- What a valid rule is ------------------------------------------------------

_TGL = rdflib.Namespace(TGL)
_SH = rdflib.Namespace(SH)
_CODE = re.compile(r'tgl:code\s+"([^"]*)"')


class _RuleLines:
    """Where each rule code is written in the shapes files, to point a problem at its line."""

    def __init__(self, files: Iterable[Path | str]) -> None:
        self.text: dict[Path, list[str]] = {}
        self.codes: dict[str, list[tuple[Path, int]]] = {}
        for path in files:
            if not Path(path).is_file():
                continue
            lines = self.text[Path(path)] = Path(path).read_text(encoding="utf-8").splitlines()
            for number, line in enumerate(lines, 1):
                for code in _CODE.findall(line):
                    self.codes.setdefault(code, []).append((Path(path), number))

    def of(self, code: str, node: rdflib.term.Node | None = None) -> tuple[str | None, int | None]:
        """The line of the code, on the named node's own definition when a code is written twice."""
        places = self.codes.get(code, [])
        if not places:
            return None, None
        if isinstance(node, rdflib.URIRef) and len(places) > 1:
            for path, line in places:
                start = _line_of(path, str(node))
                if start is not None and start <= line and not any(
                        start <= other < line for other_path, other in places if other_path == path):
                    return str(path), line
        path, line = places[0]
        return str(path), line

    def after(self, code: str, node: rdflib.term.Node | None, text: str) -> tuple[str | None, int | None]:
        """The first line at or after the code's that holds ``text`` (a message's placeholder)."""
        file, start = self.of(code, node)
        if file is None or start is None:
            return file, start
        for number, line in enumerate(self.text[Path(file)][start - 1:], start):
            if text in line:
                return file, number
        return file, start


def _shapes_files(shapes: _GraphSource) -> list[Path]:
    """The Turtle files the shapes were read from (none for a graph given as such)."""
    if shapes is None:
        return shapes_paths()
    if isinstance(shapes, rdflib.Graph):
        return []
    return [Path(p) for p in ([shapes] if isinstance(shapes, (str, Path)) else shapes)]


def rule_problems(model: ShapesModel, files: Iterable[Path | str] = ()) -> list[Problem]:
    """Every rule (a node carrying tgl:code) is valid: its code is its own and starts with its
    family's letter, its message names only variables a finding fills in, and it carries its
    documentation and a fault example."""
    graph = model.graph
    lines = _RuleLines(files)
    by_code: dict[str, list] = {}
    for node, code_term in graph.subject_objects(_TGL.code):
        by_code.setdefault(str(code_term), []).append(node)
    found = []
    for code, nodes in sorted(by_code.items()):
        if len(nodes) > 1:
            names = ", ".join(sorted(model.name(n) for n in nodes))
            # Each definition after the first written is reported where it is written.
            placed = sorted(nodes, key=lambda n: lines.of(code, n) if lines.of(code, n)[0] else ("", 0))
            for node in placed[1:]:
                file, line = lines.of(code, node)
                found.append(Problem("K013", f"shapes: rule code {code} is defined {len(nodes)} times ({names})",
                                     str(node) if isinstance(node, rdflib.URIRef) else None,
                                     shapes=True, file=file, line=line))
        for node in nodes:
            found.extend(_rule_problems(model, code, node, lines))
    return found


def _rule_problems(model: ShapesModel, code: str, node: rdflib.term.Node, lines: _RuleLines) -> list[Problem]:
    graph = model.graph
    file, line = lines.of(code, node)
    term = str(node) if isinstance(node, rdflib.URIRef) else None

    def problem(check: str, what: str, where: tuple[str | None, int | None] = (file, line)) -> Problem:
        return Problem(check, f"shapes: rule {code}: {what}", term, shapes=True, file=where[0], line=where[1])

    found = []
    family = graph.value(node, _TGL.family)
    name = graph.value(family, _TGL.name) if (family, rdflib.RDF.type, _TGL.Family) in graph else None
    if name is None:
        found.append(problem("K014", f"tgl:family names no tgl:Family ({family})"))
    elif not str(name) or code[:1] != str(name)[0].upper():
        found.append(problem("K014", f"its code does not start with {str(name)[:1].upper()!r}, "
                                     f"the letter of its family {name}"))
    for check, predicate in (("K016", _TGL.rationale), ("K017", _TGL.fix)):
        if not str(graph.value(node, predicate) or "").strip():
            found.append(problem(check, f"has no {graph.namespace_manager.normalizeUri(predicate)}"))
    if graph.value(node, _TGL.fault) is None:
        found.append(problem("K018", "has no tgl:fault (a real trace, an update that breaks it, the node reported)"))
    for predicate in (_TGL.fault, _TGL.furtherFault):
        for fault in graph.objects(node, predicate):
            for part in ("trace", "update", "focus"):
                if not str(graph.value(fault, _TGL[part]) or "").strip():
                    found.append(problem("K018", f"its {graph.namespace_manager.normalizeUri(predicate)} has no tgl:{part}"))
    for predicate in (_TGL.name, _SH.message, _SH.description):
        if not str(graph.value(node, predicate) or "").strip():
            found.append(problem("K019", f"has no {graph.namespace_manager.normalizeUri(predicate)}"))
    owned = any(graph.subjects(_SH.property, node)) or any(graph.subjects(_SH.sparql, node))
    shape = model.shapes.get(node)
    if not owned and not (shape is not None and shape.targets):
        found.append(problem("K019", "is attached to no node shape (no sh:property, sh:sparql or target)"))
    query = graph.value(node, _SH.select)
    for message in graph.objects(node, _SH.message):
        for placeholder in PLACEHOLDER.finditer(str(message)):
            variable = placeholder.group(2)
            if variable not in MESSAGE_VARIABLES:
                why = f"which is no variable a finding fills in ({', '.join(MESSAGE_VARIABLES)})"
            elif query is not None and not re.search(rf"[?$]{variable}\b", str(query)):
                why = "which its SPARQL query does not select"
            else:
                continue
            found.append(problem("K015", f"its sh:message names {placeholder.group(0)}, {why}",
                                 lines.after(code, node, placeholder.group(0))))
    return found


def run_checks(ontology: Path | str | None = None, shapes: _GraphSource = None, prov_o: Path | str | None = None,
               reasoner: bool = True) -> list[str]:
    """Every problem found, one line each; an empty list means all is well."""
    return [p.text for p in problems(ontology, shapes, prov_o, reasoner)]


def problems(ontology: Path | str | None = None, shapes: _GraphSource = None, prov_o: Path | str | None = None,
             reasoner: bool = True) -> list[Problem]:
    """Every problem found; an empty list means all is well.

    ``ontology``: a Turtle path (default: the packaged ontology). ``shapes``:
    an rdflib graph, a path or paths (default: the packaged shapes).
    ``prov_o``: a path to PROV-O, to check consistency with it as well.
    ``reasoner=False`` skips HermiT.
    """
    if ontology is None:
        ontology = ontology_path()
    ontology = Path(ontology)
    label = ontology.name
    try:
        graph = read_turtle([ontology])
    except FileNotFoundError:
        return [Problem("K001", f"{label}: not found at {ontology}")]
    except TurtleError as exc:
        return [Problem("K001", f"{label}: does not parse: {exc.problem}", file=str(exc.path), line=exc.line)]
    except OSError as exc:
        return [Problem("K001", f"{label}: cannot be read: {exc.strerror or exc}")]

    found = _ontology_problems(graph, label)
    declared = declared_terms(graph)

    try:
        shapes_rdf = _shapes_graph(shapes)
    except FileNotFoundError as exc:
        found.append(Problem("K010", str(exc), shapes=True))
    except OSError as exc:
        found.append(Problem("K010", f"shapes: cannot be read: {exc.filename}: {exc.strerror or exc}", shapes=True))
    except TurtleError as exc:
        found.append(Problem("K010", f"{exc.path.name}: does not parse: {exc.problem}", shapes=True,
                             file=str(exc.path), line=exc.line))
    else:
        # A parameter value its component cannot read is a finding on the line it is written on
        # (the rules that need the model are then not checked). Shapes the engine cannot run
        # otherwise (an unknown component, a misspelt parameter) raise ShapesError here: one
        # line, exit 2, before any other check.
        try:
            model: ShapesModel | None = ShapesModel(shapes_rdf, _shapes_files(shapes))
        except ParameterError as exc:
            found.append(Problem("K034", f"shapes: {exc.what}", exc.shape, shapes=True, file=exc.file, line=exc.line))
            model = None
        if model is not None:
            Engine(model, components=PACKAGED)
            found.extend(rule_problems(model, _shapes_files(shapes)))
        for term, where in sorted(shape_terms(shapes_rdf).items()):
            if term not in declared:
                found.append(Problem("K011", f"shapes: {_named(term)} ({where}) is not declared in {label}", term, shapes=True))
        found.extend(enumeration_problems(graph, shapes_rdf, label))

    constants = emitter_constants()
    if constants is not None:
        for name, iri in sorted(constants.items()):
            if iri not in declared:
                found.append(Problem("K020", f"{label}: {_named(iri)} (trustgraph.provenance {name}) is not declared", iri))

    if reasoner:
        found.extend(_reasoner_problems(ontology, label, prov_o))
    return found


def _reasoner_problems(ontology: Path, label: str, prov_o: Path | str | None) -> list[Problem]:
    import owlready2

    runs: list[tuple[str, tuple]] = [(label, (ontology,))]
    if prov_o is not None:
        runs.append((f"{label} with {Path(prov_o).name}", (ontology, Path(prov_o))))
    problems = []
    for name, sources in runs:
        try:
            result = hermit(*sources)
        except ReasonerUnavailable as exc:
            return [Problem("K030", f"{label}: HermiT consistency not checked: {exc}")]
        except owlready2.OwlReadyJavaError as exc:
            problems.append(Problem("K033", f"{name}: HermiT failed: {_first_java_line(exc)}"))
            continue
        if not result.consistent:
            problems.append(Problem("K031", f"{name}: inconsistent under HermiT"))
        for iri in result.unsatisfiable:
            problems.append(Problem("K032", f"{name}: {_named(iri)} is unsatisfiable under HermiT", iri))
    return problems


def _first_java_line(exc: Exception) -> str:
    # The Java stack trace is long; its exception line says what went wrong.
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    for line in lines:
        if "Exception" in line or "Error:" in line:
            return line
    return lines[0] if lines else "no output"


def _line_of(path: Path, term: str | None) -> int | None:
    """The line that declares ``term`` in a Turtle file (its first as a subject), else where it first occurs."""
    if term is None or not path.is_file():
        return None
    local = "tg:" + term[len(TG):] if term.startswith(TG) else None
    names = [n for n in (local, f"<{term}>", "tgsh:" + term.rsplit("#", 1)[-1] if "#" in term else None) if n]
    first = None
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        for name in names:
            if re.search(rf"(?<![\w:]){re.escape(name)}(?![\w-])", line):
                if line.startswith(name):
                    return number
                first = first or number
    return first


def findings(found: list[Problem], ontology: Path | None = None, shapes: list[Path] | None = None) -> list[Finding]:
    """The problems as findings: the file and line they are about, the check's code and severity."""
    ontology = ontology or ontology_path()
    shapes = shapes if shapes is not None else shapes_paths()
    out = []
    for problem in found:
        rule = get_rule(problem.code)  # each check's code, name and severity are the registry's
        candidates = shapes if problem.shapes else [ontology]
        file, line = str(candidates[0]) if candidates else None, None
        for path in candidates:
            line = _line_of(Path(path), problem.term)
            if line is not None:
                file = str(path)
                break
        if problem.file is not None:
            file, line = problem.file, problem.line
        message = problem.text.split(": ", 1)[1] if ": " in problem.text else problem.text
        out.append(Finding(file=file, line=line, rule=rule.code, severity=rule.severity, family=rule.family,
                           message=message, focus=problem.term or file or rule.name))
    return out
