"""What the ontology says about each tg: term, as the class and predicate pages show it.

The inventory (which terms exist and of what kind), deprecation and the mixin
pairs come from ``tgtrace.tracemodel.vocabulary``, as the linter reads them. The rest is
read here because ``tgtrace.tracemodel.vocabulary`` does not offer it: labels,
definitions and notes, ``dcterms:isReplacedBy``, the ``rdfs:subClassOf``
hierarchy, ``rdfs:domain`` and ``rdfs:range``, ``tg:iriTemplate`` and
``tg:storedIn``, the members of a class with their ``skos:notation``, how a
datatype is defined, and the ontology's own header.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rdflib import OWL, RDF, RDFS, SKOS, XSD, Namespace, URIRef
from rdflib.collection import Collection
from tgtrace.ground.namespaces import DCTERMS, TG
from tgtrace.tracemodel.naming import curie, local_name
from tgtrace.tracemodel.vocabulary import declared_terms, deprecated_terms, ontology_terms

DC = Namespace(DCTERMS)
TG_NS = Namespace(TG)
PREDICATE_KINDS = {
    "object property": "object property",
    "datatype property": "datatype property",
    "annotation": "annotation property",
}
NOTE_PREDICATES = (
    ("Note", RDFS.comment),
    ("Scope", SKOS.scopeNote),
    ("History", SKOS.historyNote),
)


def is_tg(iri) -> bool:
    return str(iri).startswith(TG)


def _items(graph, node) -> list:
    """Members of an RDF list, or nothing when ``node`` is not one."""
    if node is None or ((node, RDF.first, None) not in graph and node != RDF.nil):
        return []
    return list(Collection(graph, node))


def _text(graph, node, *predicates) -> str:
    for predicate in predicates:
        value = graph.value(node, predicate)
        if value is not None:
            return " ".join(str(value).split())
    return ""


def _texts(graph, node, predicate) -> list[str]:
    return sorted(" ".join(str(v).split()) for v in graph.objects(node, predicate))


def _by_name(found: dict) -> dict:
    return dict(sorted(found.items(), key=lambda item: item[1].name.lower()))


@dataclass
class Individual:
    iri: str
    label: str
    notation: str
    definition: str
    notes: list[tuple[str, str]]
    links: list[tuple[str, str]]  # (predicate, object IRI) to other tg: terms

    @property
    def name(self) -> str:
        return local_name(self.iri)


@dataclass
class Term:
    """What every documented tg: term has: label, definition and the ontology's notes."""

    iri: str
    label: str
    definition: str
    deprecated: bool
    notes: list[tuple[str, str]]  # (heading, text): comments, scope and history notes
    replaced_by: list[str]

    @property
    def name(self) -> str:
        return local_name(self.iri)


@dataclass
class ClassInfo(Term):
    # From the ontology.
    superclasses: list[str] = field(default_factory=list)  # named, direct
    subclasses: list[str] = field(default_factory=list)
    mixin_for: list[str] = field(default_factory=list)
    iri_templates: list[str] = field(default_factory=list)
    stored_in: list[str] = field(default_factory=list)
    individuals: list[Individual] = field(default_factory=list)
    # From the shapes (sitegen.constraints) and the rule registry (sitegen.vocab).
    node_shapes: list[str] = field(default_factory=list)
    properties: dict = field(default_factory=dict)  # predicate IRI -> constraints.PropertyUse
    must_assert: dict[str, set[str]] = field(default_factory=dict)  # type -> rule codes requiring it
    one_of_types: list[tuple[list[str], set[str]]] = field(default_factory=list)  # (choices, rules)
    must_not_assert: dict[str, set[str]] = field(default_factory=dict)
    derives_from: list[str] = field(default_factory=list)
    derived_by: list[str] = field(default_factory=list)
    rules: list[str] = field(default_factory=list)

    @property
    def page(self) -> str:
        return f"classes/{self.name}.md"


@dataclass
class PredicateInfo(Term):
    kind: str = "property"  # object / datatype / annotation property
    domains: list[str] = field(default_factory=list)
    ranges: list[str] = field(default_factory=list)
    used_by: list[str] = field(default_factory=list)  # classes whose shapes constrain it
    rules: list[str] = field(default_factory=list)

    @property
    def anchor(self) -> str:
        return self.name


@dataclass
class DatatypeInfo(Term):
    examples: list[str] = field(default_factory=list)
    members: list[str] = field(default_factory=list)  # union members, as text

    @property
    def anchor(self) -> str:
        return self.name


class Ontology:
    """The ontology's terms with their documentation, read once."""

    def __init__(self, graph):
        self.graph = graph
        self.kinds = declared_terms(graph)
        self.deprecated = deprecated_terms(graph)
        self.metadata = self._metadata()
        self.classes = self._classes()
        self.predicates = self._predicates()
        self.datatypes = self._datatypes()

    def _of_kind(self, *kinds: str) -> list[str]:
        return [iri for iri, kind in self.kinds.items() if kind in kinds]

    def _metadata(self) -> dict:
        g = self.graph
        node = next(iter(g.subjects(RDF.type, OWL.Ontology)), None)
        if node is None:
            return {"iri": TG, "label": "TrustGraph ontology", "comment": "", "version": "", "changes": ""}
        return {
            "iri": str(node),
            "label": _text(g, node, DC.title, RDFS.label) or "TrustGraph ontology",
            "comment": _text(g, node, DC.description, SKOS.definition),
            "changes": _text(g, node, RDFS.comment),
            "version": _text(g, node, OWL.versionInfo),
            "version_iri": _text(g, node, OWL.versionIRI),
        }

    def _term(self, iri: str) -> dict:
        g, node = self.graph, URIRef(iri)
        return {
            "iri": iri,
            "label": _text(g, node, RDFS.label) or local_name(iri),
            "definition": _text(g, node, SKOS.definition),
            "deprecated": iri in self.deprecated,
            "notes": [(heading, text) for heading, p in NOTE_PREDICATES for text in _texts(g, node, p)],
            "replaced_by": sorted(str(o) for o in g.objects(node, DC.isReplacedBy)),
        }

    def _classes(self) -> dict[str, ClassInfo]:
        g = self.graph
        mixins = ontology_terms().mixins  # (main class, mixin class)
        found = {}
        for iri in self._of_kind("class"):
            node = URIRef(iri)
            info = ClassInfo(**self._term(iri))
            if not info.definition and info.notes and info.notes[0][0] == "Note":
                # A class described only by rdfs:comment: that comment is its definition.
                info.definition = info.notes.pop(0)[1]
            info.superclasses = sorted(str(o) for o in g.objects(node, RDFS.subClassOf) if isinstance(o, URIRef))
            info.subclasses = sorted(str(s) for s in g.subjects(RDFS.subClassOf, node) if isinstance(s, URIRef))
            info.mixin_for = sorted(main for main, mixin in mixins if mixin == iri)
            info.iri_templates = _texts(g, node, TG_NS.iriTemplate)
            info.stored_in = sorted(str(o) for o in g.objects(node, TG_NS.storedIn))
            for member in sorted(g.subjects(RDF.type, node)):
                if isinstance(member, URIRef):
                    term = self._term(str(member))
                    links = [(str(p), str(o)) for p, o in g.predicate_objects(member)
                             if is_tg(p) and isinstance(o, URIRef) and is_tg(o)]
                    info.individuals.append(Individual(
                        iri=term["iri"], label=term["label"], notation=_text(g, member, SKOS.notation),
                        definition=term["definition"], notes=term["notes"], links=sorted(links)))
            found[iri] = info
        return _by_name(found)

    def _predicates(self) -> dict[str, PredicateInfo]:
        g = self.graph
        found = {}
        for iri, kind in self.kinds.items():
            if kind not in PREDICATE_KINDS:
                continue
            info = PredicateInfo(**self._term(iri))
            info.kind = PREDICATE_KINDS[kind]
            info.domains = self._class_expression(g.value(URIRef(iri), RDFS.domain))
            info.ranges = self._class_expression(g.value(URIRef(iri), RDFS.range))
            found[iri] = info
        return _by_name(found)

    def _datatypes(self) -> dict[str, DatatypeInfo]:
        g = self.graph
        found = {}
        for iri in self._of_kind("datatype"):
            node = URIRef(iri)
            info = DatatypeInfo(**self._term(iri))
            info.examples = _texts(g, node, SKOS.example)
            for equivalent in g.objects(node, OWL.equivalentClass):
                for member in _items(g, g.value(equivalent, OWL.unionOf)):
                    if isinstance(member, URIRef):
                        info.members.append(curie(str(member)))
                        continue
                    base = g.value(member, OWL.onDatatype)
                    patterns = [str(p) for r in _items(g, g.value(member, OWL.withRestrictions))
                                for p in g.objects(r, XSD.pattern)]
                    text = curie(str(base)) if base is not None else "a datatype"
                    if patterns:
                        text += " matching " + ", ".join(f"`{p}`" for p in patterns)
                    info.members.append(text)
            found[iri] = info
        return _by_name(found)

    def _class_expression(self, node) -> list[str]:
        """A named class, or the members of an owl:unionOf, as IRIs."""
        if node is None:
            return []
        if isinstance(node, URIRef):
            return [str(node)]
        union = self.graph.value(node, OWL.unionOf)
        return [str(m) for m in _items(self.graph, union) if isinstance(m, URIRef)]

    def ancestors(self, iri: str) -> list[str]:
        """Every named superclass, nearest first."""
        seen: list[str] = []
        frontier = [URIRef(iri)]
        while frontier:
            node = frontier.pop(0)
            for parent in self.graph.objects(node, RDFS.subClassOf):
                if isinstance(parent, URIRef) and str(parent) not in seen:
                    seen.append(str(parent))
                    frontier.append(parent)
        return seen
