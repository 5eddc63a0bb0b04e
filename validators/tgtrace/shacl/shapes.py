"""The one reader of SHACL shapes graphs.

It turns a shapes graph into plain objects: every shape with its targets, its
path, and its constraints, each constraint being one use of a constraint
component (SHACL Core's, or one the graph declares as SHACL-SPARQL) with its
parameter values; SPARQL-based constraints (sh:sparql); custom target types;
and the project's rule metadata (code, family, messages, fault recipe) and
rule families. The engines, the rule registry, the self-check and the docs
site all read shapes through this module, so what a shape means is decided
in one place.

A shape that uses a parameter no known component declares (a misspelt
``sh:minCont``, a ``tgl:`` parameter nobody declared) is an error naming the
shape and the predicate: silently checking nothing is the worst outcome for a
linter.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import PurePath
from typing import TYPE_CHECKING, Any

import pyoxigraph as ox
import rdflib

from ..ground.errors import TgTraceError
from ..ground.model import Severity
from ..ground.namespaces import OWL, RDF, RDFS, SH, TGL

if TYPE_CHECKING:
    from os import PathLike

    from rdflib.term import Node

_SH = rdflib.Namespace(SH)
_TGL = rdflib.Namespace(TGL)
# The key under which a custom target's parameters carry the classes its target type selects among
# (tgl:targetsInstancesOf on the type), for the native implementation of the type.
TARGETS_INSTANCES_OF = TGL + "targetsInstancesOf"
_RDF_TYPE = rdflib.RDF.type

DOCS_BASE = "https://trustgraph-ai.github.io/trustgraph-ontology/"
SHACL_SEVERITY = {
    SH + "Violation": Severity.ERROR,
    SH + "Warning": Severity.WARNING,
    SH + "Info": Severity.INFO,
}
# What a fault recipe's update may use without declaring it.
UPDATE_PREFIXES = """PREFIX tg: <https://trustgraph.ai/ns/>
PREFIX prov: <http://www.w3.org/ns/prov#>
PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>
"""


class ShapesError(TgTraceError, ValueError):
    """A shapes graph the engines cannot run, in one line naming the shape and what is wrong."""

    topic = "shapes: "


# SHACL Core constraint components: IRI -> (mandatory parameters, optional parameters).
# Parameters are local names in the sh: namespace. (SHACL 1.0, section 4.)
CORE_COMPONENTS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "ClassConstraintComponent": (("class",), ()),
    "DatatypeConstraintComponent": (("datatype",), ()),
    "NodeKindConstraintComponent": (("nodeKind",), ()),
    "MinCountConstraintComponent": (("minCount",), ()),
    "MaxCountConstraintComponent": (("maxCount",), ()),
    "MinExclusiveConstraintComponent": (("minExclusive",), ()),
    "MinInclusiveConstraintComponent": (("minInclusive",), ()),
    "MaxExclusiveConstraintComponent": (("maxExclusive",), ()),
    "MaxInclusiveConstraintComponent": (("maxInclusive",), ()),
    "MinLengthConstraintComponent": (("minLength",), ()),
    "MaxLengthConstraintComponent": (("maxLength",), ()),
    "PatternConstraintComponent": (("pattern",), ("flags",)),
    "LanguageInConstraintComponent": (("languageIn",), ()),
    "UniqueLangConstraintComponent": (("uniqueLang",), ()),
    "EqualsConstraintComponent": (("equals",), ()),
    "DisjointConstraintComponent": (("disjoint",), ()),
    "LessThanConstraintComponent": (("lessThan",), ()),
    "LessThanOrEqualsConstraintComponent": (("lessThanOrEquals",), ()),
    "NotConstraintComponent": (("not",), ()),
    "AndConstraintComponent": (("and",), ()),
    "OrConstraintComponent": (("or",), ()),
    "XoneConstraintComponent": (("xone",), ()),
    "NodeConstraintComponent": (("node",), ()),
    "PropertyConstraintComponent": (("property",), ()),
    "QualifiedValueShapeConstraintComponent": (
        ("qualifiedValueShape",), ("qualifiedMinCount", "qualifiedMaxCount", "qualifiedValueShapesDisjoint")),
    "ClosedConstraintComponent": (("closed",), ("ignoredProperties",)),
    "HasValueConstraintComponent": (("hasValue",), ()),
    "InConstraintComponent": (("in",), ()),
}
_CORE_OPTIONAL = {SH + p for _, optional in CORE_COMPONENTS.values() for p in optional}
# Parameters whose values are shapes (or lists of shapes), so that nested shapes are found.
SHAPE_PARAMETERS = {"not": "one", "node": "one", "property": "one", "qualifiedValueShape": "one",
                    "and": "list", "or": "list", "xone": "list"}
# Parameters whose values are RDF lists.
LIST_PARAMETERS = {"and", "or", "xone", "in", "languageIn", "ignoredProperties"}

_TARGETS = ("targetClass", "targetNode", "targetSubjectsOf", "targetObjectsOf", "target")
# Predicates of a shape that are not constraint parameters.
_SHAPE_FIELDS = {SH + name for name in (
    "path", *_TARGETS, "severity", "message", "deactivated", "name", "description", "order", "group",
    "defaultValue", "sparql", "prefixes", "declare", "resultAnnotation")} | {
    RDF + "type", RDFS + "label", RDFS + "comment", RDFS + "seeAlso", RDFS + "isDefinedBy", OWL + "imports"}


@dataclass(frozen=True)
class Path:
    """A SHACL property path: ("pred", iri) | ("inverse", p) | ("seq", (p, ...)) | ("alt", (p, ...))
    | ("zeroOrMore", p) | ("oneOrMore", p) | ("zeroOrOne", p). ``node`` is the path's node in the
    shapes graph (an IRI or a blank node), as validation results name it."""

    kind: str
    arg: Any
    node: object = field(compare=False, default=None)

    @property
    def iri(self) -> str | None:
        """The predicate, when the path is a single predicate."""
        return self.arg if self.kind == "pred" else None

    def predicates(self) -> tuple[str, ...] | None:
        """The predicates when the path is a predicate or an alternative of predicates, else None."""
        if self.kind == "pred":
            return (self.arg,)
        if self.kind == "alt" and all(p.kind == "pred" for p in self.arg):
            return tuple(p.arg for p in self.arg)
        return None

    def sparql(self) -> str:
        """The path in SPARQL syntax (for $PATH substitution)."""
        kind, arg = self.kind, self.arg
        if kind == "pred":
            return f"<{arg}>"
        if kind == "inverse":
            return f"^({arg.sparql()})"
        if kind == "seq":
            return "(" + "/".join(p.sparql() for p in arg) + ")"
        if kind == "alt":
            return "(" + "|".join(p.sparql() for p in arg) + ")"
        suffix = {"zeroOrMore": "*", "oneOrMore": "+", "zeroOrOne": "?"}[kind]
        return f"({arg.sparql()}){suffix}"


@dataclass
class Constraint:
    """One use of a constraint component by a shape."""

    component: str  # the component's IRI
    params: dict[str, Any]  # parameter IRI -> value (rdflib term; lists as Python lists of terms, shapes as Shape)


@dataclass
class SparqlConstraint:
    """An sh:sparql constraint: a SELECT query run with $this pre-bound."""

    node: Node  # the constraint's node in the shapes graph
    select: str
    prefixes: dict[str, str]
    messages: list[str]
    deactivated: bool = False


@dataclass
class Target:
    kind: str  # class | node | subjectsOf | objectsOf | custom | sparql
    value: Any = None  # IRI / term, or for custom: (type IRI, params), for sparql: query text
    prefixes: dict[str, str] = field(default_factory=dict)


@dataclass(eq=False)
class Shape:
    node: Any  # rdflib term
    is_property: bool = False
    path: Path | None = None
    targets: list[Target] = field(default_factory=list)
    constraints: list[Constraint] = field(default_factory=list)
    sparql: list[SparqlConstraint] = field(default_factory=list)
    severity: str = SH + "Violation"
    messages: list[str] = field(default_factory=list)
    deactivated: bool = False
    # For sh:qualifiedValueShapesDisjoint: the qualified value shapes of the other property shapes
    # of the shapes that have this one as a property (SHACL 1.0, 4.7.3).
    qualified_siblings: tuple[Shape, ...] = ()

    @property
    def iri(self) -> str:
        return str(self.node)

    @property
    def properties(self) -> list[Shape]:
        return [c.params[SH + "property"] for c in self.constraints if c.component == SH + "PropertyConstraintComponent"]

    def __repr__(self) -> str:
        return f"Shape({self.node})"


@dataclass
class Validator:
    kind: str  # "ask" or "select"
    query: str
    prefixes: dict[str, str]
    messages: list[str]


@dataclass
class Component:
    """A SHACL-SPARQL constraint component declared in the shapes graph."""

    iri: str
    mandatory: tuple[str, ...]
    optional: tuple[str, ...]
    validator: Validator | None = None  # sh:validator (ASK, per value node)
    node_validator: Validator | None = None
    property_validator: Validator | None = None
    label: str = ""
    comment: str = ""

    def validator_for(self, shape: Shape) -> Validator | None:
        """The validator SHACL picks for this shape: the node or property one, else the generic one."""
        specific = self.property_validator if shape.is_property else self.node_validator
        return specific or self.validator


@dataclass
class TargetType:
    """A SHACL-AF SPARQL-based target type declared in the shapes graph."""

    iri: str
    parameters: tuple[str, ...]
    select: str
    prefixes: dict[str, str]
    label: str = ""
    comment: str = ""
    # The classes among whose instances it selects (tgl:targetsInstancesOf): a rule that uses it
    # applies to them, as if it targeted them.
    classes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Family:
    iri: str
    name: str
    title: str
    description: str
    order: int
    # Its rules run only when selected by name, code or code prefix.
    opt_in: bool = False


@dataclass(frozen=True)
class Fault:
    """A real example trace, an update that breaks it, and the node that must then be reported.

    ``update`` is SPARQL 1.1 Update in which ``$this`` stands for the focus IRI
    and the tg, prov, rdf, rdfs and xsd prefixes are predeclared.
    """

    trace: str
    update: str
    focus: str

    @property
    def sparql(self) -> str:
        return UPDATE_PREFIXES + self.update.replace("$this", f"<{self.focus}>")

    def apply(self, examples_dir: str | PathLike[str]) -> bytes:
        """The example trace with the fault injected, as N-Quads."""
        store = ox.Store()
        store.load(path=str(PurePath(examples_dir) / self.trace), format=ox.RdfFormat.N_QUADS)
        before = set(store)
        store.update(self.sparql)
        if set(store) == before:
            raise ValueError(f"the fault update on {self.trace} changed nothing")
        dumped = store.dump(format=ox.RdfFormat.N_QUADS)
        assert dumped is not None  # bytes, as no output is given
        return dumped


@dataclass(frozen=True)
class Rule:
    """One rule: a named shape carrying tgl:code, with its documentation."""

    code: str
    name: str
    family: str  # the family's name
    severity: Severity  # from its sh:severity (sh:Violation when it has none)
    message: str
    description: str
    rationale: str
    fix: str
    shape: str  # IRI of the shape that defines the rule
    node_shapes: tuple[str, ...]  # shapes that use it (or define it)
    targets: tuple[str, ...]  # classes it applies to
    path: str | None  # the predicate a property-shape rule is about
    components: tuple[str, ...]  # the constraint components it uses
    # Real example traces broken so that the rule fires: the first is its example; each further one
    # shows another way the same rule catches a fault.
    faults: tuple[Fault, ...]
    # The first TrustGraph release whose traces meet the rule; older traces get it as info.
    since: str | None = None
    # The closed set of values the rule accepts (its sh:in: termination reasons, patterns), shown with a finding.
    allowed: tuple[str, ...] = ()

    @property
    def fault(self) -> Fault | None:
        """The rule's example fault (its first)."""
        return self.faults[0] if self.faults else None

    @property
    def title(self) -> str:
        """A one-line title: the first sentence of the description."""
        text = " ".join((self.description or self.message or self.name).split())
        end = text.find(". ")
        return text[:end + 1] if end != -1 else text

    @property
    def help_uri(self) -> str:
        return f"{DOCS_BASE}{self.page}"

    @property
    def page(self) -> str:
        """The rule's own page on the docs site, a stable address (rules/T001/)."""
        return f"rules/{self.code}/"


_NOTHING: dict = {}


class _Triples:
    """A shapes graph's triples in dictionaries, read in one pass: the reader asks a shapes graph
    some fourteen thousand questions, and rdflib's store answers each one through its context
    bookkeeping, which took most of the reader's share of start-up. A subject's predicates and
    values come in the order rdflib gives them (the order the triples were added: which value
    ``value`` returns, and the order of a shape's constraints, stay rdflib's); the order of
    subjects is not kept, and the reader never depends on it."""

    def __init__(self, graph: rdflib.Graph) -> None:
        self._out: dict[Node, dict[Node, list[Node]]] = {}
        self._into: dict[Node, dict[Node, list[Node]]] = {}
        for s in set(graph.subjects()):
            props: dict[Node, list[Node]] = {}
            self._out[s] = props
            for p, o in graph.predicate_objects(s):
                props.setdefault(p, []).append(o)
                self._into.setdefault(o, {}).setdefault(p, []).append(s)

    def value(self, subject: Node | None, predicate: Node) -> Node | None:
        found = self._out.get(subject, _NOTHING).get(predicate) if subject is not None else None
        return found[0] if found else None

    def objects(self, subject: Node, predicate: Node) -> list[Node]:
        return list(self._out.get(subject, _NOTHING).get(predicate, ()))

    def subjects(self, predicate: Node, value: Node | None = None) -> list[Node]:
        if value is None:
            return [s for s, props in self._out.items() if predicate in props]
        return list(self._into.get(value, _NOTHING).get(predicate, ()))

    def predicate_objects(self, subject: Node) -> list[tuple[Node, Node]]:
        return [(p, o) for p, values in self._out.get(subject, _NOTHING).items() for o in values]

    def subject_objects(self, predicate: Node) -> list[tuple[Node, Node]]:
        return [(s, o) for s, props in self._out.items() for o in props.get(predicate, ())]

    def has(self, subject: Node | None, predicate: Node, value: Node | None = None) -> bool:
        """Whether a triple matches; subject or value None matches any."""
        if subject is None:
            if value is None:
                return any(predicate in props for props in self._out.values())
            return bool(self._into.get(value, _NOTHING).get(predicate))
        values = self._out.get(subject, _NOTHING).get(predicate, ())
        return bool(values) if value is None else value in values

    def items(self, head: Node) -> list[Node]:
        """The members of an RDF list, read as rdflib's Graph.items reads them."""
        found: list[Node] = []
        chain: set[Node | None] = {head}
        node: Node | None = head
        while node:
            item = self.value(node, rdflib.RDF.first)
            if item is not None:
                found.append(item)
            node = self.value(node, rdflib.RDF.rest)
            if node in chain:
                raise ValueError("List contains a recursive rdf:rest reference")
            chain.add(node)
        return found


class ShapesModel:
    """Every shape of a shapes graph, read once."""

    def __init__(self, graph: rdflib.Graph) -> None:
        self.graph = graph
        self._triples = _Triples(graph)
        self.components: dict[str, Component] = {}
        self.target_types: dict[str, TargetType] = {}
        self._parameters: dict[str, str] = {}  # parameter IRI -> component IRI (declared components)
        self.shapes: dict[object, Shape] = {}
        self._read_components()
        for node in self._shape_nodes():
            self.shape(node)
        for shape in list(self.shapes.values()):
            self._link_qualified_siblings(shape)

    # ----------------------------------------------------------- declarations

    def _text(self, node: Node, predicate: str) -> str:
        value = self._triples.value(node, rdflib.URIRef(predicate))
        return str(value) if value is not None else ""

    def prefixes(self, node: Node) -> dict[str, str]:
        """sh:prefixes of a node: the sh:declare'd prefixes of the ontologies it names."""
        found: dict[str, str] = {}
        # SHACL 5.2.1: the declarations of the sh:prefixes values and of what they owl:imports, transitively.
        ontologies = list(self._triples.objects(node, _SH.prefixes))
        for ontology in ontologies:
            ontologies += [o for o in self._triples.objects(ontology, rdflib.OWL.imports) if o not in ontologies]
            for declaration in self._triples.objects(ontology, _SH.declare):
                prefix = self._triples.value(declaration, _SH.prefix)
                namespace = self._triples.value(declaration, _SH.namespace)
                if prefix is not None and namespace is not None:
                    found[str(prefix)] = str(namespace)
        return found

    def _validator(self, node: Node | None) -> Validator | None:
        if node is None:
            return None
        ask = self._triples.value(node, _SH.ask)
        select = self._triples.value(node, _SH.select)
        messages = [str(m) for m in self._triples.objects(node, _SH.message)]
        if ask is not None:
            return Validator("ask", str(ask), self.prefixes(node), messages)
        if select is not None:
            return Validator("select", str(select), self.prefixes(node), messages)
        raise ShapesError(f"{self.name(node)}: a validator needs sh:ask or sh:select")

    def _read_components(self) -> None:
        g = self._triples
        for node in sorted(set(g.subjects(_RDF_TYPE, _SH.ConstraintComponent)), key=str):
            mandatory, optional = list[str](), list[str]()
            for parameter in g.objects(node, _SH.parameter):
                path = g.value(parameter, _SH.path)
                if path is None:
                    raise ShapesError(f"{self.name(node)}: a parameter has no sh:path")
                flag = g.value(parameter, _SH.optional)
                (optional if flag is not None and flag.toPython() is True else mandatory).append(str(path))  # type: ignore[attr-defined]  # a Literal
            component = Component(
                iri=str(node), mandatory=tuple(sorted(mandatory)), optional=tuple(sorted(optional)),
                validator=self._validator(g.value(node, _SH.validator)),
                node_validator=self._validator(g.value(node, _SH.nodeValidator)),
                property_validator=self._validator(g.value(node, _SH.propertyValidator)),
                label=self._text(node, RDFS + "label"), comment=self._text(node, RDFS + "comment"))
            self.components[component.iri] = component
            for parameter_path in mandatory + optional:
                self._parameters[parameter_path] = component.iri
        for node in sorted(set(g.subjects(_RDF_TYPE, _SH.SPARQLTargetType)), key=str):
            parameters = tuple(sorted(str(g.value(p, _SH.path)) for p in g.objects(node, _SH.parameter)))
            select = g.value(node, _SH.select)
            if select is None:
                raise ShapesError(f"{self.name(node)}: a SPARQL target type needs sh:select")
            self.target_types[str(node)] = TargetType(
                iri=str(node), parameters=parameters, select=str(select), prefixes=self.prefixes(node),
                label=self._text(node, RDFS + "label"), comment=self._text(node, RDFS + "comment"),
                classes=tuple(sorted(str(c) for c in g.objects(node, _TGL.targetsInstancesOf))))

    def _link_qualified_siblings(self, shape: Shape) -> None:
        for constraint in shape.constraints:
            if constraint.component != SH + "QualifiedValueShapeConstraintComponent":
                continue
            siblings = []
            for parent in self.shapes.values():
                properties = parent.properties
                if shape in properties:
                    for other in properties:
                        if other is shape:
                            continue
                        for c in other.constraints:
                            if c.component == SH + "QualifiedValueShapeConstraintComponent":
                                siblings.append(c.params[SH + "qualifiedValueShape"])
            shape.qualified_siblings = tuple(siblings)

    @cached_property
    def _annotation_properties(self) -> frozenset[str]:
        """Predicates the graph declares as owl:AnnotationProperty (rule metadata, not constraints)."""
        return frozenset(str(p) for p in self._triples.subjects(_RDF_TYPE, rdflib.OWL.AnnotationProperty))

    # ----------------------------------------------------------------- shapes

    def name(self, node: Node) -> str:
        """A node as a person reads it in a message."""
        if isinstance(node, rdflib.URIRef):
            return self.graph.namespace_manager.normalizeUri(node)
        return f"a blank node shape ({node})"

    def _shape_nodes(self) -> list:
        """The shapes SHACL validates directly: typed shapes and every node with a target."""
        g = self._triples
        nodes = set(g.subjects(_RDF_TYPE, _SH.NodeShape)) | set(g.subjects(_RDF_TYPE, _SH.PropertyShape))
        for target in _TARGETS:
            nodes |= set(g.subjects(_SH[target]))
        return sorted(nodes, key=lambda n: (isinstance(n, rdflib.BNode), str(n)))

    def top_level(self) -> list[Shape]:
        """Shapes that select focus nodes themselves (with targets), active ones only."""
        return [s for s in self.shapes.values() if s.targets and not s.deactivated]

    def shape(self, node: Node) -> Shape:
        known = self.shapes.get(node)
        if known is not None:
            return known
        g = self._triples
        shape = self.shapes[node] = Shape(node=node)
        path = g.value(node, _SH.path)
        if path is not None:
            shape.is_property = True
            shape.path = self.path(path)
        deactivated = g.value(node, _SH.deactivated)
        shape.deactivated = deactivated is not None and deactivated.toPython() is True  # type: ignore[attr-defined]  # a Literal
        severity = g.value(node, _SH.severity)
        if severity is not None:
            shape.severity = str(severity)
        shape.messages = [str(m) for m in g.objects(node, _SH.message)]
        shape.targets = self._targets(node)
        if g.has(node, _RDF_TYPE, rdflib.RDFS.Class) or g.has(node, _RDF_TYPE, rdflib.OWL.Class):
            shape.targets.append(Target("class", str(node)))  # an implicit class target
        self._constraints(node, shape)
        for constraint in g.objects(node, _SH.sparql):
            select = g.value(constraint, _SH.select)
            if select is None:
                raise ShapesError(f"{self.name(node)}: its sh:sparql constraint has no sh:select")
            flag = g.value(constraint, _SH.deactivated)
            shape.sparql.append(SparqlConstraint(
                node=constraint, select=str(select), prefixes=self.prefixes(constraint),
                messages=[str(m) for m in g.objects(constraint, _SH.message)],
                deactivated=flag is not None and flag.toPython() is True))  # type: ignore[attr-defined]  # a Literal
        return shape

    def _targets(self, node: Node) -> list[Target]:
        g = self._triples
        targets = [Target("class", str(c)) for c in g.objects(node, _SH.targetClass)]
        targets += [Target("node", n) for n in g.objects(node, _SH.targetNode)]
        targets += [Target("subjectsOf", str(p)) for p in g.objects(node, _SH.targetSubjectsOf)]
        targets += [Target("objectsOf", str(p)) for p in g.objects(node, _SH.targetObjectsOf)]
        for target in g.objects(node, _SH.target):
            kinds = {str(t) for t in g.objects(target, _RDF_TYPE)}
            custom = [k for k in kinds if k in self.target_types]
            if custom:
                kind = self.target_types[custom[0]]
                params: dict[str, Any] = {p: g.value(target, rdflib.URIRef(p)) for p in kind.parameters}
                if kind.classes:
                    params[TARGETS_INSTANCES_OF] = frozenset(kind.classes)
                targets.append(Target("custom", (kind.iri, params), kind.prefixes))
            elif SH + "SPARQLTarget" in kinds or g.value(target, _SH.select) is not None:
                targets.append(Target("sparql", str(g.value(target, _SH.select)), self.prefixes(target)))
            else:
                raise ShapesError(f"{self.name(node)}: uses a target of type "
                                  f"{', '.join(sorted(kinds)) or '(none)'}, which no declared target type defines")
        return targets

    def path(self, node: Node) -> Path:
        g = self._triples
        if isinstance(node, rdflib.URIRef):
            return Path("pred", str(node), node)
        if g.has(node, rdflib.RDF.first):
            return Path("seq", tuple(self.path(p) for p in g.items(node)), node)
        for kind in ("inversePath", "zeroOrMorePath", "oneOrMorePath", "zeroOrOnePath"):
            inner = g.value(node, _SH[kind])
            if inner is not None:
                return Path(kind.removesuffix("Path"), self.path(inner), node)
        alternatives = g.value(node, _SH.alternativePath)
        if alternatives is not None:
            return Path("alt", tuple(self.path(p) for p in g.items(alternatives)), node)
        raise ShapesError(f"unsupported property path {node}")

    def _value(self, name: str, value: Node) -> Shape | list[Shape] | list[Node] | Node:
        """A parameter value as the engines want it: lists unrolled, shapes read."""
        kind = SHAPE_PARAMETERS.get(name)
        if name in LIST_PARAMETERS:
            items = self._triples.items(value)
            return [self.shape(i) for i in items] if kind == "list" else items
        if kind == "one":
            return self.shape(value)
        return value

    def _constraints(self, node: Node, shape: Shape) -> None:
        g = self._triples
        by_predicate: dict[str, list] = {}
        for predicate_term, value in g.predicate_objects(node):
            by_predicate.setdefault(str(predicate_term), []).append(value)
        annotations = self._annotation_properties
        used: set[str] = set()
        for local, (mandatory, optional) in CORE_COMPONENTS.items():
            if not all(SH + m in by_predicate for m in mandatory):
                continue
            first = SH + mandatory[0]
            used.update(SH + p for p in mandatory + optional)
            extras = {SH + p: self._value(p, by_predicate[SH + p][0]) for p in optional if SH + p in by_predicate}
            # One constraint per value of the parameter (two sh:class values are two constraints).
            for value in sorted(by_predicate[first], key=str):
                params = {first: self._value(mandatory[0], value), **extras}
                shape.constraints.append(Constraint(SH + local, params))
        for predicate, _values in by_predicate.items():
            component = self._parameters.get(predicate)
            if component is None or predicate in used:
                continue
            declared = self.components[component]
            if not all(m in by_predicate for m in declared.mandatory):
                continue
            used.update(declared.mandatory + declared.optional)
            params = {p: by_predicate[p][0] for p in declared.mandatory + declared.optional if p in by_predicate}
            shape.constraints.append(Constraint(component, params))
        for predicate in by_predicate:
            if predicate in used or predicate in _SHAPE_FIELDS or predicate in annotations:
                continue
            # Known optional parameters without their component's mandatory one: SHACL ignores them.
            if predicate in _CORE_OPTIONAL:
                continue
            # A shape may be its own sh:sparql constraint (W3C sparql/node/sparql-002).
            if predicate == SH + "select" and (g.has(None, _SH.sparql, node) or
                                               g.has(node, _RDF_TYPE, _SH.SPARQLConstraint)):
                continue
            if predicate.startswith(SH) or predicate.startswith(TGL):
                component = self._parameters.get(predicate)
                why = (f"a parameter of {self.graph.namespace_manager.normalizeUri(rdflib.URIRef(component))}, "
                       "whose other mandatory parameters are missing") if component else \
                    "a parameter of no constraint component the engine knows"
                raise ShapesError(f"{self.name(node)}: uses {self.name(rdflib.URIRef(predicate))}, {why}")

    # ------------------------------------------------------------ rules, families

    @cached_property
    def families(self) -> dict[str, Family]:
        g = self._triples
        found = []
        for node in g.subjects(_RDF_TYPE, _TGL.Family):
            order = g.value(node, _SH.order)
            found.append(Family(iri=str(node), name=self._text(node, TGL + "name"),
                                title=self._text(node, TGL + "title"),
                                description=" ".join(self._text(node, RDFS + "comment").split()),
                                order=int(order) if order is not None else 0,  # type: ignore[call-overload]  # a Literal
                                opt_in=str(g.value(node, _TGL.optIn)) == "true"))
        return {f.name: f for f in sorted(found, key=lambda f: (f.order, f.name))}

    @cached_property
    def rules(self) -> dict[str, Rule]:
        """Every rule, by code, in code order."""
        g = self._triples
        families = {f.iri: f.name for f in self.families.values()}
        found: dict[str, Rule] = {}
        for node, code_term in g.subject_objects(_TGL.code):
            code = str(code_term)
            if code in found:
                raise ShapesError(f"rule code {code} is defined twice ({found[code].shape} and {node})")
            family_node = g.value(node, _TGL.family)
            if family_node is None or str(family_node) not in families:
                raise ShapesError(f"{self.name(node)}: rule {code} names no tgl:Family ({family_node})")
            owners = set(g.subjects(_SH.property, node)) | set(g.subjects(_SH.sparql, node))
            shape = self.shapes.get(node)
            if shape is not None and shape.targets:
                owners.add(node)
            targets = {t.value for o in owners if o in self.shapes for t in self.shapes[o].targets if t.kind == "class"}
            targets |= {c for o in owners if o in self.shapes for t in self.shapes[o].targets if t.kind == "custom"
                        for c in t.value[1].get(TARGETS_INSTANCES_OF, ())}
            # The rule's example (tgl:fault), then the further faults it catches, in a stable order.
            example = [self._fault(f) for f in g.objects(node, _TGL.fault)][:1]
            further = sorted((self._fault(f) for f in g.objects(node, _TGL.furtherFault)),
                             key=lambda fault: (fault.trace, fault.focus, fault.update))
            faults = tuple(example + further)
            severity = g.value(node, _SH.severity)
            if severity is None and shape is None:
                owner = next(iter(owners), None)
                severity = g.value(owner, _SH.severity) if owner is not None else None
            found[code] = Rule(
                code=code, name=self._text(node, TGL + "name"), family=families[str(family_node)],
                severity=SHACL_SEVERITY.get(str(severity), Severity.ERROR) if severity is not None else Severity.ERROR,
                message=self._text(node, SH + "message"), description=self._text(node, SH + "description"),
                rationale=self._text(node, TGL + "rationale"), fix=self._text(node, TGL + "fix"),
                shape=str(node), node_shapes=tuple(sorted(str(o) for o in owners)),
                targets=tuple(sorted(targets)),
                path=shape.path.iri if shape is not None and shape.path is not None else None,
                components=tuple(sorted({c.component for c in shape.constraints})) if shape is not None
                else (SH + "SPARQLConstraintComponent",),
                faults=faults, since=self._text(node, TGL + "since") or None,
                allowed=tuple(str(v) for c in (shape.constraints if shape is not None else ())
                              if c.component == SH + "InConstraintComponent" for v in c.params[SH + "in"]))
        return dict(sorted(found.items()))

    def _fault(self, node: Node) -> Fault:
        return Fault(trace=self._text(node, TGL + "trace"), update=self._text(node, TGL + "update"),
                     focus=self._text(node, TGL + "focus"))

    def code_of(self, node: Node | None) -> str | None:
        """The rule code a shape or SPARQL constraint node carries."""
        code = self._triples.value(node, _TGL.code)
        return str(code) if code is not None else None

    def codes_within(self, shape: Shape) -> set[str]:
        """The rule codes a shape, the shapes it uses and its SPARQL constraints carry."""
        found: set[str] = set()
        seen: set = set()
        pending = [shape]
        while pending:
            current = pending.pop()
            if current.node in seen:
                continue
            seen.add(current.node)
            code = self.code_of(current.node)
            if code is not None:
                found.add(code)
            found.update(c for c in (self.code_of(sparql.node) for sparql in current.sparql) if c is not None)
            for constraint in current.constraints:
                for value in constraint.params.values():
                    for item in value if isinstance(value, list) else [value]:
                        if isinstance(item, Shape):
                            pending.append(item)
        return found
