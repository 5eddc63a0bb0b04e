"""What the site says about classes and predicates, read from the ontology and the shapes.

Everything here is computed from ``tgtrace.resources`` (the files the linter
loads) and ``tgtrace.rules``, so a page can only describe what the linter checks.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import rdflib
from rdflib import OWL, RDF, RDFS, SKOS, URIRef
from rdflib.collection import Collection

from tgtrace import resources, rules
from tgtrace.explain import curie
from tgtrace.namespaces import PROV, SH, TG, TGL

SH_NS = rdflib.Namespace(SH)
PROV_DERIVED = URIRef(PROV + "wasDerivedFrom")
DCTERMS_DESCRIPTION = URIRef("http://purl.org/dc/terms/description")
PROPERTY_TYPES = (OWL.ObjectProperty, OWL.DatatypeProperty, OWL.AnnotationProperty, RDF.Property)
# Constraint components that combine other shapes; their members' constraints
# describe the same values, so they are read through.
LOGICAL = (SH_NS["or"], SH_NS.xone, SH_NS["and"])

NODE_KINDS = {
    SH_NS.IRI: "IRI",
    SH_NS.Literal: "literal",
    SH_NS.BlankNode: "blank node",
    SH_NS.BlankNodeOrIRI: "IRI or blank node",
    SH_NS.IRIOrLiteral: "IRI or literal",
    SH_NS.BlankNodeOrLiteral: "blank node or literal",
}


def is_tg(iri) -> bool:
    return str(iri).startswith(TG)


def local_name(iri) -> str:
    return str(iri)[len(TG):] if is_tg(iri) else str(iri).rsplit("#", 1)[-1].rsplit("/", 1)[-1]


def _items(graph, node) -> list:
    """Members of an RDF list, or nothing when ``node`` is not one."""
    if node is None or (node, RDF.first, None) not in graph and node != RDF.nil:
        return []
    return list(Collection(graph, node))


def _text(graph, node, *predicates) -> str:
    for predicate in predicates:
        value = graph.value(node, predicate)
        if value is not None:
            return " ".join(str(value).split())
    return ""


@dataclass
class PropertyUse:
    """Everything the shapes of one class say about one predicate."""

    path: str
    kinds: set[str] = field(default_factory=set)
    classes: set[str] = field(default_factory=set)
    datatypes: set[str] = field(default_factory=set)
    patterns: set[str] = field(default_factory=set)
    values: list[str] = field(default_factory=list)  # sh:in / sh:hasValue
    min_count: int | None = None
    max_count: int | None = None
    rules: set[str] = field(default_factory=set)
    descriptions: list[str] = field(default_factory=list)

    @property
    def cardinality(self) -> str:
        low = self.min_count or 0
        high = "*" if self.max_count is None else str(self.max_count)
        return str(low) if str(low) == high else f"{low}..{high}"


@dataclass
class ClassInfo:
    iri: str
    label: str
    definition: str
    superclasses: list[str]  # named, direct
    subclasses: list[str]
    deprecated: bool
    node_shapes: list[str] = field(default_factory=list)
    properties: dict[str, PropertyUse] = field(default_factory=dict)
    must_assert: list[str] = field(default_factory=list)  # types required by the shapes
    derives_from: list[str] = field(default_factory=list)  # from the shapes
    derived_by: list[str] = field(default_factory=list)
    rules: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return local_name(self.iri)

    @property
    def page(self) -> str:
        return f"classes/{self.name}.md"


@dataclass
class PredicateInfo:
    iri: str
    label: str
    definition: str
    kind: str  # object / datatype / annotation property
    domains: list[str]
    ranges: list[str]
    deprecated: bool
    used_by: list[str] = field(default_factory=list)  # classes whose shapes constrain it
    rules: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return local_name(self.iri)

    @property
    def anchor(self) -> str:
        return self.name


class Vocabulary:
    """The ontology and the shapes, indexed the way the pages need them."""

    def __init__(self):
        self.ontology = resources.ontology_graph()
        self.shapes = resources.shapes_graph()
        self.rules = rules.all_rules()
        self.metadata = self._ontology_metadata()
        self.classes = self._classes()
        self.predicates = self._predicates()
        self._read_shapes()

    # -- ontology ---------------------------------------------------------

    def _ontology_metadata(self) -> dict:
        node = next(iter(self.ontology.subjects(RDF.type, OWL.Ontology)), None)
        if node is None:
            return {"iri": TG, "label": "TrustGraph ontology", "comment": "", "version": ""}
        return {
            "iri": str(node),
            "label": _text(self.ontology, node, RDFS.label) or "TrustGraph ontology",
            "comment": _text(self.ontology, node, SKOS.definition, RDFS.comment, DCTERMS_DESCRIPTION),
            "version": _text(self.ontology, node, OWL.versionInfo),
        }

    def _definition(self, node) -> str:
        return _text(self.ontology, node, SKOS.definition, RDFS.comment)

    def _deprecated(self, node) -> bool:
        value = self.ontology.value(node, OWL.deprecated)
        return value is not None and str(value).lower() == "true"

    def _classes(self) -> dict[str, ClassInfo]:
        g = self.ontology
        found = {}
        for node in sorted(set(g.subjects(RDF.type, OWL.Class)) | set(g.subjects(RDF.type, RDFS.Class))):
            if not isinstance(node, URIRef) or not is_tg(node):
                continue
            found[str(node)] = ClassInfo(
                iri=str(node),
                label=_text(g, node, RDFS.label) or local_name(node),
                definition=self._definition(node),
                superclasses=sorted(str(o) for o in g.objects(node, RDFS.subClassOf) if isinstance(o, URIRef)),
                subclasses=sorted(str(s) for s in g.subjects(RDFS.subClassOf, node) if isinstance(s, URIRef)),
                deprecated=self._deprecated(node),
            )
        return dict(sorted(found.items(), key=lambda item: item[1].name.lower()))

    def _predicates(self) -> dict[str, PredicateInfo]:
        g = self.ontology
        found = {}
        for kind in PROPERTY_TYPES:
            for node in g.subjects(RDF.type, kind):
                if not isinstance(node, URIRef) or not is_tg(node) or str(node) in found:
                    continue
                found[str(node)] = PredicateInfo(
                    iri=str(node),
                    label=_text(g, node, RDFS.label) or local_name(node),
                    definition=self._definition(node),
                    kind={
                        OWL.ObjectProperty: "object property",
                        OWL.DatatypeProperty: "datatype property",
                        OWL.AnnotationProperty: "annotation property",
                    }.get(kind, "property"),
                    domains=self._class_expression(g, g.value(node, RDFS.domain)),
                    ranges=self._class_expression(g, g.value(node, RDFS.range)),
                    deprecated=self._deprecated(node),
                )
        return dict(sorted(found.items(), key=lambda item: item[1].name.lower()))

    @staticmethod
    def _class_expression(graph, node) -> list[str]:
        """A named class, or the members of an owl:unionOf, as IRIs."""
        if node is None:
            return []
        if isinstance(node, URIRef):
            return [str(node)]
        union = graph.value(node, OWL.unionOf)
        return [str(m) for m in _items(graph, union) if isinstance(m, URIRef)]

    def ancestors(self, iri: str) -> list[str]:
        """Every named superclass, nearest first, read from the ontology."""
        seen: list[str] = []
        frontier = [URIRef(iri)]
        while frontier:
            node = frontier.pop(0)
            for parent in self.ontology.objects(node, RDFS.subClassOf):
                if isinstance(parent, URIRef) and str(parent) not in seen:
                    seen.append(str(parent))
                    frontier.append(parent)
        return seen

    # -- shapes -----------------------------------------------------------

    def _read_shapes(self) -> None:
        s = self.shapes
        for node_shape in sorted(set(s.subjects(SH_NS.targetClass, None))):
            for target in s.objects(node_shape, SH_NS.targetClass):
                info = self.classes.get(str(target))
                if info is None:
                    continue
                info.node_shapes.append(str(node_shape))
                self._read_node_shape(info, node_shape)
        for rule in self.rules.values():
            for target in rule.targets:
                if target in self.classes and rule.code not in self.classes[target].rules:
                    self.classes[target].rules.append(rule.code)
                # A rule about a predicate (a property shape or a SPARQL
                # constraint naming its path) belongs in that predicate's row.
                if target in self.classes and rule.path and rule.path in self.classes[target].properties:
                    self.classes[target].properties[rule.path].rules.add(rule.code)
            if rule.path in self.predicates:
                self.predicates[rule.path].rules.append(rule.code)
        for info in self.classes.values():
            info.rules.sort()
            for parent in info.derives_from:
                if parent in self.classes and info.iri not in self.classes[parent].derived_by:
                    self.classes[parent].derived_by.append(info.iri)
            for path in info.properties:
                if path in self.predicates and info.iri not in self.predicates[path].used_by:
                    self.predicates[path].used_by.append(info.iri)
        for info in self.classes.values():
            info.derived_by.sort(key=local_name)
        for predicate in self.predicates.values():
            predicate.used_by.sort(key=local_name)
            predicate.rules.sort()

    def _read_node_shape(self, info: ClassInfo, node_shape) -> None:
        s = self.shapes
        for prop in s.objects(node_shape, SH_NS.property):
            path = s.value(prop, SH_NS.path)
            if not isinstance(path, URIRef):
                continue  # complex paths describe no single predicate
            if path == RDF.type:
                # A required type: sh:hasValue, or sh:in read as "one of".
                for value in s.objects(prop, SH_NS.hasValue):
                    if str(value) not in info.must_assert:
                        info.must_assert.append(str(value))
                continue
            use = info.properties.setdefault(str(path), PropertyUse(path=str(path)))
            self._read_constraints(use, prop)
            code = s.value(prop, URIRef(TGL + "code"))
            if code is not None:
                use.rules.add(str(code))
            description = _text(s, prop, SH_NS.description, SH_NS.name)
            if description and description not in use.descriptions:
                use.descriptions.append(description)
            if path == PROV_DERIVED:
                for parent in sorted(use.classes, key=local_name):
                    if parent not in info.derives_from:
                        info.derives_from.append(parent)

    def _read_constraints(self, use: PropertyUse, shape, depth: int = 0) -> None:
        s = self.shapes
        if depth > 4:
            return
        for kind in s.objects(shape, SH_NS.nodeKind):
            use.kinds.add(NODE_KINDS.get(kind, curie(str(kind))))
        for cls in s.objects(shape, SH_NS["class"]):
            use.classes.add(str(cls))
            use.kinds.add("IRI")
        for datatype in s.objects(shape, SH_NS.datatype):
            use.datatypes.add(str(datatype))
            use.kinds.add("literal")
        for pattern in s.objects(shape, SH_NS.pattern):
            use.patterns.add(str(pattern))
        for values in s.objects(shape, SH_NS["in"]):
            for value in _items(s, values):
                if str(value) not in use.values:
                    use.values.append(str(value))
        for value in s.objects(shape, SH_NS.hasValue):
            if str(value) not in use.values:
                use.values.append(str(value))
        for low in s.objects(shape, SH_NS.minCount):
            use.min_count = max(use.min_count or 0, int(low))
        for high in s.objects(shape, SH_NS.maxCount):
            use.max_count = int(high) if use.max_count is None else min(use.max_count, int(high))
        for logical in LOGICAL:
            for members in s.objects(shape, logical):
                for member in _items(s, members):
                    self._read_constraints(use, member, depth + 1)
        for member in s.objects(shape, SH_NS.node):
            self._read_constraints(use, member, depth + 1)

    # -- lookups ----------------------------------------------------------

    def types_to_assert(self, info: ClassInfo) -> list[str]:
        """Every type an instance must state beside its own: superclasses and shape-required mixins."""
        wanted = list(self.ancestors(info.iri))
        for iri in info.must_assert:
            if iri not in wanted and iri != info.iri:
                wanted.append(iri)
        return wanted

    def term(self, iri: str):
        return self.classes.get(iri) or self.predicates.get(iri)
