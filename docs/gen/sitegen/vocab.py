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
DCTERMS = rdflib.Namespace("http://purl.org/dc/terms/")
TG_NS = rdflib.Namespace(TG)
PROPERTY_TYPES = (OWL.ObjectProperty, OWL.DatatypeProperty, OWL.AnnotationProperty, RDF.Property)
# Constraint components that combine other shapes; their members' value
# constraints describe the same values, so they are read through.
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


@dataclass
class PropertyUse:
    """Everything the shapes say about one predicate on one class."""

    path: str
    kinds: set[str] = field(default_factory=set)
    classes: set[str] = field(default_factory=set)
    datatypes: set[str] = field(default_factory=set)
    patterns: set[str] = field(default_factory=set)
    values: list[str] = field(default_factory=list)  # sh:in / sh:hasValue
    min_count: int | None = None
    max_count: int | None = None
    rules: set[str] = field(default_factory=set)
    # Other predicates of which exactly one is present (a node-level sh:xone).
    one_of: list[str] = field(default_factory=list)
    # True when the class's own shapes name the predicate; False when it is
    # listed because the ontology's domain or an example puts it there.
    constrained: bool = True

    @property
    def cardinality(self) -> str:
        low = self.min_count or 0
        high = "*" if self.max_count is None else str(self.max_count)
        return str(low) if str(low) == high else f"{low}..{high}"

    def merge_values(self, other: "PropertyUse") -> None:
        """Take over what another shape says about the values (not how many there are)."""
        self.kinds |= other.kinds
        self.classes |= other.classes
        self.datatypes |= other.datatypes
        self.patterns |= other.patterns
        self.values += [v for v in other.values if v not in self.values]
        self.rules |= other.rules


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
    superclasses: list[str] = field(default_factory=list)  # named, direct
    subclasses: list[str] = field(default_factory=list)
    mixin_for: list[str] = field(default_factory=list)
    iri_templates: list[str] = field(default_factory=list)
    stored_in: list[str] = field(default_factory=list)
    individuals: list[Individual] = field(default_factory=list)
    node_shapes: list[str] = field(default_factory=list)
    properties: dict[str, PropertyUse] = field(default_factory=dict)
    must_assert: dict[str, set[str]] = field(default_factory=dict)  # type -> rule codes requiring it
    one_of_types: list[tuple[list[str], set[str]]] = field(default_factory=list)  # (choices, rules)
    must_not_assert: dict[str, set[str]] = field(default_factory=dict)
    derives_from: list[str] = field(default_factory=list)  # from the shapes
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


@dataclass
class Condition:
    """A type a node must assert because it carries a predicate (a node shape with sh:targetSubjectsOf)."""

    predicate: str
    required_type: str
    rules: set[str]


NOTE_PREDICATES = (
    ("Note", RDFS.comment),
    ("Scope", SKOS.scopeNote),
    ("History", SKOS.historyNote),
)


class Vocabulary:
    """The ontology and the shapes, indexed the way the pages need them."""

    def __init__(self):
        self.ontology = resources.ontology_graph()
        self.shapes = resources.shapes_graph()
        self.rules = rules.all_rules()
        self.metadata = self._ontology_metadata()
        self.classes = self._classes()
        self.predicates = self._predicates()
        self.datatypes = self._datatypes()
        self.individuals = {i.iri: (c, i) for c in self.classes.values() for i in c.individuals}
        # Per predicate: what value-level shapes (sh:targetSubjectsOf) say about its values.
        self.value_constraints: dict[str, PropertyUse] = {}
        self.conditions: list[Condition] = []
        self.rule_scopes: dict[str, list[str]] = {}
        self.rule_predicates: dict[str, list[str]] = {}
        self._read_value_shapes()
        self._read_class_shapes()
        self._index_rules()

    # -- ontology ---------------------------------------------------------

    def _ontology_metadata(self) -> dict:
        g = self.ontology
        node = next(iter(g.subjects(RDF.type, OWL.Ontology)), None)
        if node is None:
            return {"iri": TG, "label": "TrustGraph ontology", "comment": "", "version": "", "changes": ""}
        return {
            "iri": str(node),
            "label": _text(g, node, DCTERMS.title, RDFS.label) or "TrustGraph ontology",
            "comment": _text(g, node, DCTERMS.description, SKOS.definition),
            "changes": _text(g, node, RDFS.comment),
            "version": _text(g, node, OWL.versionInfo),
            "version_iri": _text(g, node, OWL.versionIRI),
        }

    def _term(self, node) -> dict:
        g = self.ontology
        notes = [(heading, text) for heading, p in NOTE_PREDICATES for text in _texts(g, node, p)]
        deprecated = g.value(node, OWL.deprecated)
        return {
            "iri": str(node),
            "label": _text(g, node, RDFS.label) or local_name(node),
            "definition": _text(g, node, SKOS.definition),
            "deprecated": deprecated is not None and str(deprecated).lower() == "true",
            "notes": notes,
            "replaced_by": sorted(str(o) for o in g.objects(node, DCTERMS.isReplacedBy)),
        }

    def _classes(self) -> dict[str, ClassInfo]:
        g = self.ontology
        found = {}
        for node in sorted(set(g.subjects(RDF.type, OWL.Class)) | set(g.subjects(RDF.type, RDFS.Class))):
            if not isinstance(node, URIRef) or not is_tg(node):
                continue
            info = ClassInfo(**self._term(node))
            if not info.definition and info.notes and info.notes[0][0] == "Note":
                # A class described only by rdfs:comment: that comment is its definition.
                info.definition = info.notes.pop(0)[1]
            info.superclasses = sorted(str(o) for o in g.objects(node, RDFS.subClassOf) if isinstance(o, URIRef))
            info.subclasses = sorted(str(s) for s in g.subjects(RDFS.subClassOf, node) if isinstance(s, URIRef))
            info.mixin_for = sorted(str(o) for o in g.objects(node, TG_NS.mixinFor))
            info.iri_templates = _texts(g, node, TG_NS.iriTemplate)
            info.stored_in = sorted(str(o) for o in g.objects(node, TG_NS.storedIn))
            for member in sorted(g.subjects(RDF.type, node)):
                if isinstance(member, URIRef):
                    term = self._term(member)
                    links = [
                        (str(p), str(o))
                        for p, o in g.predicate_objects(member)
                        if is_tg(p) and isinstance(o, URIRef) and is_tg(o)
                    ]
                    info.individuals.append(
                        Individual(
                            iri=term["iri"],
                            label=term["label"],
                            notation=_text(g, member, SKOS.notation),
                            definition=term["definition"],
                            notes=term["notes"],
                            links=sorted(links),
                        )
                    )
            found[str(node)] = info
        return dict(sorted(found.items(), key=lambda item: item[1].name.lower()))

    def _predicates(self) -> dict[str, PredicateInfo]:
        g = self.ontology
        found = {}
        for kind in PROPERTY_TYPES:
            for node in g.subjects(RDF.type, kind):
                if not isinstance(node, URIRef) or not is_tg(node) or str(node) in found:
                    continue
                info = PredicateInfo(**self._term(node))
                info.kind = {
                    OWL.ObjectProperty: "object property",
                    OWL.DatatypeProperty: "datatype property",
                    OWL.AnnotationProperty: "annotation property",
                }.get(kind, "property")
                info.domains = self._class_expression(g, g.value(node, RDFS.domain))
                info.ranges = self._class_expression(g, g.value(node, RDFS.range))
                found[str(node)] = info
        return dict(sorted(found.items(), key=lambda item: item[1].name.lower()))

    def _datatypes(self) -> dict[str, DatatypeInfo]:
        g = self.ontology
        found = {}
        for node in g.subjects(RDF.type, RDFS.Datatype):
            if not isinstance(node, URIRef) or not is_tg(node):
                continue
            info = DatatypeInfo(**self._term(node))
            info.examples = _texts(g, node, SKOS.example)
            for equivalent in g.objects(node, OWL.equivalentClass):
                for member in _items(g, g.value(equivalent, OWL.unionOf)):
                    if isinstance(member, URIRef):
                        info.members.append(curie(str(member)))
                        continue
                    base = g.value(member, OWL.onDatatype)
                    patterns = [
                        str(p)
                        for r in _items(g, g.value(member, OWL.withRestrictions))
                        for p in g.objects(r, URIRef("http://www.w3.org/2001/XMLSchema#pattern"))
                    ]
                    text = curie(str(base)) if base is not None else "a datatype"
                    if patterns:
                        text += " matching " + ", ".join(f"`{p}`" for p in patterns)
                    info.members.append(text)
            found[str(node)] = info
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

    def _code(self, shape) -> str | None:
        code = self.shapes.value(shape, URIRef(TGL + "code"))
        return str(code) if code is not None else None

    def _paths(self, shape) -> list[str]:
        """The predicates a property shape is about: its path, or each alternative of it."""
        s = self.shapes
        path = s.value(shape, SH_NS.path)
        if isinstance(path, URIRef):
            return [str(path)]
        if path is not None:
            alternatives = s.value(path, SH_NS.alternativePath)
            return [str(p) for p in _items(s, alternatives) if isinstance(p, URIRef)]
        return []

    def _read_value_shapes(self) -> None:
        """Node shapes that target the subjects of a predicate: rules about its values anywhere."""
        s = self.shapes
        for node_shape in sorted(set(s.subjects(SH_NS.targetSubjectsOf, None))):
            targets = [str(p) for p in s.objects(node_shape, SH_NS.targetSubjectsOf)]
            for prop in s.objects(node_shape, SH_NS.property):
                paths = self._paths(prop)
                code = self._code(prop)
                if paths == [str(RDF.type)]:
                    for value in s.objects(prop, SH_NS.hasValue):
                        for predicate in targets:
                            self.conditions.append(Condition(predicate, str(value), {code} if code else set()))
                    continue
                for path in paths:
                    use = self.value_constraints.setdefault(path, PropertyUse(path=path))
                    self._read_constraints(use, prop, counts=False)
                    if code:
                        use.rules.add(code)
            # SPARQL constraints on the same node shape check the values of the
            # targeted predicates (e.g. tg:arguments holding JSON text).
            for constraint in s.objects(node_shape, SH_NS.sparql):
                code = self._code(constraint)
                if code:
                    for predicate in targets:
                        self.value_constraints.setdefault(predicate, PropertyUse(path=predicate)).rules.add(code)

    def _read_class_shapes(self) -> None:
        s = self.shapes
        for node_shape in sorted(set(s.subjects(SH_NS.targetClass, None))):
            for target in s.objects(node_shape, SH_NS.targetClass):
                info = self.classes.get(str(target))
                if info is None:
                    continue
                info.node_shapes.append(str(node_shape))
                self._read_node_shape(info, node_shape)
        for info in self.classes.values():
            # Predicates the ontology gives this class as domain belong on its page
            # too, with whatever the value shapes say about them.
            for predicate in self.predicates.values():
                if info.iri in predicate.domains and predicate.iri not in info.properties and not predicate.deprecated:
                    info.properties[predicate.iri] = PropertyUse(path=predicate.iri, constrained=False)
            for path, use in info.properties.items():
                if path in self.value_constraints:
                    use.merge_values(self.value_constraints[path])

    def _read_node_shape(self, info: ClassInfo, node_shape) -> None:
        s = self.shapes
        node_code = self._code(node_shape)
        for prop in s.objects(node_shape, SH_NS.property):
            self._read_property(info, prop)
        # Node-level "exactly one of" (sh:xone of node shapes with one property each).
        for members in s.objects(node_shape, SH_NS.xone):
            alternatives = []
            for member in _items(s, members):
                for prop in s.objects(member, SH_NS.property):
                    paths = self._paths(prop)
                    if len(paths) == 1:
                        use = info.properties.setdefault(paths[0], PropertyUse(path=paths[0]))
                        self._read_constraints(use, prop, counts=False)
                        high = s.value(prop, SH_NS.maxCount)
                        if high is not None:
                            use.max_count = int(high)
                        alternatives.append(paths[0])
            for path in alternatives:
                info.properties[path].one_of = [p for p in alternatives if p != path]
                if node_code:
                    info.properties[path].rules.add(node_code)
        # A type the class must not assert (sh:not of a shape requiring that type).
        for negated in s.objects(node_shape, SH_NS["not"]):
            for prop in s.objects(negated, SH_NS.property):
                if self._paths(prop) == [str(RDF.type)]:
                    for value in s.objects(prop, SH_NS.hasValue):
                        info.must_not_assert.setdefault(str(value), set()).update({node_code} if node_code else set())

    def _read_property(self, info: ClassInfo, prop) -> None:
        s = self.shapes
        paths = self._paths(prop)
        if len(paths) != 1:
            return  # a shape about several predicates at once is read as a value shape
        path = paths[0]
        code = self._code(prop)
        if path == str(RDF.type):
            for value in s.objects(prop, SH_NS.hasValue):
                info.must_assert.setdefault(str(value), set()).update({code} if code else set())
            qualified = s.value(prop, SH_NS.qualifiedValueShape)
            if qualified is not None:
                choices = [str(v) for v in _items(s, s.value(qualified, SH_NS["in"]))]
                if choices:
                    info.one_of_types.append((choices, {code} if code else set()))
            return
        use = info.properties.setdefault(path, PropertyUse(path=path))
        self._read_constraints(use, prop)
        if code is not None:
            use.rules.add(code)
        if path == str(PROV_DERIVED):
            for parent in sorted(use.classes, key=local_name):
                if parent not in info.derives_from:
                    info.derives_from.append(parent)

    def _read_constraints(self, use: PropertyUse, shape, depth: int = 0, counts: bool = True) -> None:
        s = self.shapes
        if depth > 4:
            return
        for kind in s.objects(shape, SH_NS.nodeKind):
            use.kinds.add(NODE_KINDS.get(kind, curie(str(kind))))
        for cls in s.objects(shape, SH_NS["class"]):
            if cls == RDF.Statement:
                # The linter reifies RDF 1.2 triple terms as rdf:Statement nodes
                # for SHACL engines that cannot hold them (rule D007).
                use.kinds.add("triple term")
                continue
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
        if counts:
            for low in s.objects(shape, SH_NS.minCount):
                use.min_count = max(use.min_count or 0, int(low))
            for high in s.objects(shape, SH_NS.maxCount):
                use.max_count = int(high) if use.max_count is None else min(use.max_count, int(high))
        for logical in LOGICAL:
            for members in s.objects(shape, logical):
                for member in _items(s, members):
                    self._read_constraints(use, member, depth + 1, counts=False)
        for member in s.objects(shape, SH_NS.node):
            # sh:node names a shape every value conforms to; its counts are the value's own.
            self._read_constraints(use, member, depth + 1, counts=False)

    def _index_rules(self) -> None:
        s = self.shapes
        for rule in self.rules.values():
            shape = URIRef(rule.shape)
            predicates = self._paths(shape)
            scope = []
            owners = [URIRef(o) for o in rule.node_shapes] or [shape]
            for owner in owners:
                for predicate in s.objects(owner, SH_NS.targetSubjectsOf):
                    scope.append(("subject", str(predicate)))
                    if not predicates or str(RDF.type) in predicates:
                        predicates.append(str(predicate))
                for predicate in s.objects(owner, SH_NS.targetObjectsOf):
                    scope.append(("object", str(predicate)))
            self.rule_scopes[rule.code] = sorted(set(scope))
            self.rule_predicates[rule.code] = sorted(set(p for p in predicates if p != str(RDF.type)))
            for target in rule.targets:
                if target in self.classes and rule.code not in self.classes[target].rules:
                    self.classes[target].rules.append(rule.code)
                # A rule about a predicate belongs in that predicate's row.
                if target in self.classes and rule.path in self.classes[target].properties:
                    self.classes[target].properties[rule.path].rules.add(rule.code)
            for predicate in self.rule_predicates[rule.code]:
                if predicate in self.predicates and rule.code not in self.predicates[predicate].rules:
                    self.predicates[predicate].rules.append(rule.code)
        for info in self.classes.values():
            info.rules.sort()
            for parent in info.derives_from:
                if parent in self.classes and info.iri not in self.classes[parent].derived_by:
                    self.classes[parent].derived_by.append(info.iri)
            for path, use in info.properties.items():
                if use.constrained and path in self.predicates and info.iri not in self.predicates[path].used_by:
                    self.predicates[path].used_by.append(info.iri)
        for info in self.classes.values():
            info.derived_by.sort(key=local_name)
        for predicate in self.predicates.values():
            predicate.used_by.sort(key=local_name)
            predicate.rules.sort()

    # -- lookups ----------------------------------------------------------

    def types_to_assert(self, info: ClassInfo) -> list[str]:
        """The types the shapes require an instance to state beside its own.

        Only the shapes decide this: the ontology's superclasses are true of the
        class, but TrustGraph does not write all of them (a Thought is not typed
        prov:Entity), and no consumer infers them.
        """
        return [iri for iri in info.must_assert if iri != info.iri]

    def related_classes(self, info: ClassInfo) -> list[str]:
        """Classes whose shapes also apply to an instance: its ancestors and the types it must assert."""
        related = list(self.ancestors(info.iri))
        related += [iri for iri in info.must_assert if iri not in related and iri != info.iri]
        return related

    def mixins_of(self, info: ClassInfo) -> list[str]:
        """Mixin classes whose tg:mixinFor names this class."""
        return [c.iri for c in self.classes.values() if info.iri in c.mixin_for]

    def conditions_for(self, info: ClassInfo) -> list[Condition]:
        return [c for c in self.conditions if c.predicate in info.properties]

    def all_terms(self) -> dict[str, str]:
        """Every tg: term the ontology declares, with what it is."""
        terms = {}
        for iri in self.classes:
            terms[iri] = "class"
        for iri in self.predicates:
            terms[iri] = "predicate"
        for iri in self.datatypes:
            terms[iri] = "datatype"
        for iri in self.individuals:
            terms[iri] = "individual"
        return terms
