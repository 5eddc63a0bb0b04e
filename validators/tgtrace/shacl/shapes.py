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
linter. So is a parameter whose value its component cannot read (``sh:minCount
"two"``, ``sh:datatype "xsd:string"``, a ``sh:pattern`` that is no regular
expression, a declared component's boolean written ``"yes"``): each value is
checked as the shapes are read (``PARAMETER_KINDS`` for SHACL Core's, the
parameter's own ``sh:datatype`` / ``sh:nodeKind`` for a declared component's),
as pySHACL raises ConstraintLoadError, and the error names the file and line of
the value when the model is given the files the graph was read from.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path as FilePath
from typing import TYPE_CHECKING, Any

import rdflib

from ..ground.errors import TgTraceError
from ..ground.graph import from_rdflib
from ..ground.locations import place
from ..ground.namespaces import OWL, RDF_TYPE, RDFS, SH, TGL, XSD
from ..inputs.positions import locate

if TYPE_CHECKING:
    from rdflib.term import Node

_SH = rdflib.Namespace(SH)
_TGL = rdflib.Namespace(TGL)
# The key under which a custom target's parameters carry the classes its target type selects among
# (tgl:targetsInstancesOf on the type), for the native implementation of the type.
TARGETS_INSTANCES_OF = TGL + "targetsInstancesOf"

class ShapesError(TgTraceError, ValueError):
    """A shapes graph the engines cannot run, in one line naming the shape and what is wrong."""

    topic = "shapes: "


class ParameterError(ShapesError):
    """A constraint parameter whose value its component cannot read, as ``FILE:LINE: what`` where
    the value is written (``shapes: what`` for a graph read from no file)."""

    def __init__(self, what: str, file: str | None = None, line: int | None = None, shape: str | None = None) -> None:
        self.what, self.file, self.line = what, file, line
        self.shape = shape  # the IRI of the shape that has the parameter (None for a blank node)
        super().__init__(f"{place(file, line)}: {what}" if file else what)
        if file:
            self.topic = ""


_FLAGS = {"i": re.IGNORECASE, "m": re.MULTILINE, "s": re.DOTALL, "x": re.VERBOSE}
# SPARQL REGEX's flags (XPath 3.1, 5.6.1.1): q is accepted and, as Python has no such flag, ignored.
_FLAG_LETTERS = frozenset("imsxq")


def compile_pattern(pattern: rdflib.Literal | str, flags: rdflib.Literal | str | None = None) -> re.Pattern[str]:
    """sh:pattern with its sh:flags as the default engine runs it (re.error for no regular expression)."""
    value = 0
    for flag in str(flags or ""):
        value |= _FLAGS.get(flag, 0)
    return re.compile(str(pattern), value)


# The six values of sh:nodeKind (SHACL 1.0, 4.1.3).
NODE_KIND_VALUES = frozenset(SH + kind for kind in (
    "IRI", "Literal", "BlankNode", "BlankNodeOrIRI", "BlankNodeOrLiteral", "IRIOrLiteral"))
_INTEGER, _BOOLEAN, _STRING = XSD + "integer", XSD + "boolean", XSD + "string"


def _literal_of(value: Node, datatype: str) -> rdflib.Literal | None:
    """The value when it is a well-formed literal of the datatype (a plain literal is an xsd:string)."""
    if not isinstance(value, rdflib.Literal) or value.language:
        return None
    if str(value.datatype or _STRING) != datatype or value.ill_typed:
        return None
    return value


def _count(value: Node) -> str | None:
    literal = _literal_of(value, _INTEGER)
    return None if literal is not None and int(literal) >= 0 else "a non-negative xsd:integer"


def _boolean(value: Node) -> str | None:
    return None if _literal_of(value, _BOOLEAN) is not None else "an xsd:boolean (true or false)"


def _iri(value: Node) -> str | None:
    return None if isinstance(value, rdflib.URIRef) else "an IRI"


def _literal(value: Node) -> str | None:
    return None if isinstance(value, rdflib.Literal) else "a literal"


def _shape(value: Node) -> str | None:
    return None if isinstance(value, (rdflib.URIRef, rdflib.BNode)) else "a shape (an IRI or a blank node)"


def _node_kind(value: Node) -> str | None:
    return None if str(value) in NODE_KIND_VALUES and isinstance(value, rdflib.URIRef) else \
        "one of the six node kinds (sh:IRI, sh:Literal, sh:BlankNode, ...)"


def _pattern(value: Node) -> str | None:
    # Whether it compiles is asked with its sh:flags, of the constraint (x changes what parses).
    return None if _literal_of(value, _STRING) is not None else "a regular expression (an xsd:string)"


def _flags(value: Node) -> str | None:
    literal = _literal_of(value, _STRING)
    return None if literal is not None and set(str(literal)) <= _FLAG_LETTERS else \
        "regular expression flags (an xsd:string of i, m, s, x, q)"


def _language_range(value: Node) -> str | None:
    return None if _literal_of(value, _STRING) is not None else "a language range (an xsd:string)"


def _anything(value: Node) -> str | None:
    return None


# What a SHACL Core parameter's value must be, by local name: a test returning what the value
# should have been, or None. A list parameter's test applies to each member (its value must be a
# well-formed SHACL list). sh:hasValue takes any term; sh:in any members.
PARAMETER_KINDS: dict[str, Callable[[Node], str | None]] = {
    "class": _iri, "datatype": _iri, "nodeKind": _node_kind,
    "minCount": _count, "maxCount": _count, "minLength": _count, "maxLength": _count,
    "qualifiedMinCount": _count, "qualifiedMaxCount": _count,
    "minExclusive": _literal, "minInclusive": _literal, "maxExclusive": _literal, "maxInclusive": _literal,
    "pattern": _pattern, "flags": _flags, "languageIn": _language_range, "uniqueLang": _boolean,
    "equals": _iri, "disjoint": _iri, "lessThan": _iri, "lessThanOrEquals": _iri,
    "not": _shape, "and": _shape, "or": _shape, "xone": _shape, "node": _shape, "property": _shape,
    "qualifiedValueShape": _shape, "qualifiedValueShapesDisjoint": _boolean,
    "closed": _boolean, "ignoredProperties": _iri, "hasValue": _anything, "in": _anything,
}


_KIND_TYPES: dict[str, tuple[type, ...]] = {
    SH + "IRI": (rdflib.URIRef,), SH + "Literal": (rdflib.Literal,), SH + "BlankNode": (rdflib.BNode,),
    SH + "BlankNodeOrIRI": (rdflib.BNode, rdflib.URIRef), SH + "BlankNodeOrLiteral": (rdflib.BNode, rdflib.Literal),
    SH + "IRIOrLiteral": (rdflib.URIRef, rdflib.Literal)}


def _declared_kind(datatype: Node | None, node_kind: Node | None,
                   name: Callable[[Node], str]) -> Callable[[Node], str | None]:
    """The test of a declared component's parameter value, from its declaration's sh:datatype and
    sh:nodeKind (SHACL 6.2.1: a parameter declaration is a property shape of the value)."""
    def test(value: Node) -> str | None:
        if datatype is not None:
            literal = _literal_of(value, str(datatype))
            # A boolean switch is read as the literal true: anything but true or false is a typo.
            if literal is None or (str(datatype) == _BOOLEAN and str(literal) not in ("true", "false")):
                return f"a literal of {name(datatype)}"
        if node_kind is not None and not isinstance(value, _KIND_TYPES.get(str(node_kind), ())):
            return f"of node kind {name(node_kind)}"
        return None
    return test


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
    RDF_TYPE, RDFS + "label", RDFS + "comment", RDFS + "seeAlso", RDFS + "isDefinedBy", OWL + "imports"}


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
    # parameter IRI -> what its value must be (from its declaration's sh:datatype and sh:nodeKind)
    kinds: dict[str, Callable[[Node], str | None]] = field(default_factory=dict)

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


_NOTHING: dict = {}
# Terms the reader asks of every constraint, made once (an rdflib namespace makes a term per access).
_PATH, _FIRST, _NIL = rdflib.URIRef(SH + "path"), rdflib.RDF.first, rdflib.RDF.nil


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

    def __init__(self, graph: rdflib.Graph, files: Iterable[FilePath | str] = ()) -> None:
        """files: the Turtle files the graph was read from, for the file and line of a malformed
        parameter (:class:`ParameterError`); none for a graph built otherwise."""
        self.graph = graph
        self.files = tuple(FilePath(f) for f in files)
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
        for node in sorted(set(g.subjects(rdflib.RDF.type, _SH.ConstraintComponent)), key=str):
            mandatory, optional = list[str](), list[str]()
            kinds: dict[str, Callable[[Node], str | None]] = {}
            for parameter in g.objects(node, _SH.parameter):
                path = g.value(parameter, _SH.path)
                if path is None:
                    raise ShapesError(f"{self.name(node)}: a parameter has no sh:path")
                kinds[str(path)] = _declared_kind(g.value(parameter, _SH.datatype), g.value(parameter, _SH.nodeKind),
                                                  self.name)
                flag = g.value(parameter, _SH.optional)
                (optional if flag is not None and flag.toPython() is True else mandatory).append(str(path))  # type: ignore[attr-defined]  # a Literal
            component = Component(
                iri=str(node), mandatory=tuple(sorted(mandatory)), optional=tuple(sorted(optional)),
                validator=self._validator(g.value(node, _SH.validator)),
                node_validator=self._validator(g.value(node, _SH.nodeValidator)),
                property_validator=self._validator(g.value(node, _SH.propertyValidator)),
                label=self._text(node, RDFS + "label"), comment=self._text(node, RDFS + "comment"), kinds=kinds)
            self.components[component.iri] = component
            for parameter_path in mandatory + optional:
                self._parameters[parameter_path] = component.iri
        for node in sorted(set(g.subjects(rdflib.RDF.type, _SH.SPARQLTargetType)), key=str):
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
        return frozenset(str(p) for p in self._triples.subjects(rdflib.RDF.type, rdflib.OWL.AnnotationProperty))

    # ----------------------------------------------------------------- shapes

    def name(self, node: Node) -> str:
        """A node as a person reads it in a message."""
        if isinstance(node, rdflib.URIRef):
            return self.graph.namespace_manager.normalizeUri(node)
        return f"a blank node shape ({node})"

    def _owned(self, node: Node) -> str:
        """A shape as a message names it: a blank node by the named node it hangs under (its own
        label is made afresh at each read)."""
        if isinstance(node, rdflib.URIRef):
            return self.name(node)
        owner = self._owner(node)
        return f"a blank node shape in {self.name(owner)}" if owner is not None else "a blank node shape"

    def _owner(self, node: Node) -> rdflib.URIRef | None:
        """The named node a blank node hangs under, the nearest first."""
        seen, pending = {node}, [node]
        while pending:  # each node visited once: linear in the shapes graph
            parents = list(dict.fromkeys(s for n in pending for s in self._into_subjects(n) if s not in seen))
            named = sorted(str(p) for p in parents if isinstance(p, rdflib.URIRef))
            if named:
                return rdflib.URIRef(named[0])
            seen.update(parents)
            pending = parents
        return None

    def _into_subjects(self, node: Node) -> list[Node]:
        return [s for subjects in self._triples._into.get(node, _NOTHING).values() for s in subjects]

    def _term(self, value: Node) -> str:
        """A parameter's value as written in Turtle, near enough for a message."""
        if isinstance(value, rdflib.URIRef):
            return self.name(value)
        if isinstance(value, rdflib.Literal):
            return value.n3(self.graph.namespace_manager)
        return "a blank node"

    def malformed(self, node: Node, predicate: str, value: Node, expected: str) -> ParameterError:
        """The error for a parameter value that is not what its component reads, at the file and
        line it is written on (found in the files the graph was read from)."""
        what = f"{self._owned(node)}: {self.name(rdflib.URIRef(predicate))} {self._term(value)} is not {expected}"
        file, line = self._place(node, predicate, value)
        return ParameterError(what, file, line, str(node) if isinstance(node, rdflib.URIRef) else None)

    def _place(self, node: Node, predicate: str, value: Node) -> tuple[str | None, int | None]:
        """(file, line) of a triple of the shapes graph: the line its predicate is written on, else
        its subject's first line; the first file that has it."""
        try:
            triple = (from_rdflib(node), from_rdflib(rdflib.URIRef(predicate)), from_rdflib(value))
        except TypeError:
            return None, None
        subject = (triple[0], None, None)
        fallback: tuple[str | None, int | None] = (None, None)
        for path in self.files:
            try:
                data = path.read_bytes()
            except OSError:
                continue
            found = locate(data, "turtle", {triple, subject})
            if triple in found:
                return str(path), found[triple]
            if subject in found and fallback[0] is None:
                fallback = (str(path), found[subject])
        owner = self._owner(node) if fallback[0] is None and isinstance(node, rdflib.BNode) else None
        if owner is not None:  # a blank node the walk cannot tell: the line of the shape it is in
            fallback = self._place(owner, RDF_TYPE, rdflib.URIRef(SH + "NodeShape"))
        return fallback

    def _checked(self, node: Node, predicate: str, value: Node, test: Callable[[Node], str | None]) -> Node:
        expected = test(value)
        if expected is not None:
            raise self.malformed(node, predicate, value, expected)
        return value

    def _list(self, node: Node, predicate: str, value: Node) -> list[Node]:
        """The members of a SHACL list parameter; anything else (a literal, a node that is no list,
        a list that loops) is malformed."""
        if value == _NIL:
            return []
        if not isinstance(value, (rdflib.BNode, rdflib.URIRef)) or not self._triples.has(value, _FIRST):
            raise self.malformed(node, predicate, value, "a SHACL list")
        try:
            return self._triples.items(value)
        except ValueError:
            raise self.malformed(node, predicate, value, "a SHACL list (its rdf:rest loops)") from None

    def _shape_nodes(self) -> list:
        """The shapes SHACL validates directly: typed shapes and every node with a target."""
        g = self._triples
        nodes = set(g.subjects(rdflib.RDF.type, _SH.NodeShape)) | set(g.subjects(rdflib.RDF.type, _SH.PropertyShape))
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
            if isinstance(path, rdflib.Literal):
                raise self.malformed(node, SH + "path", path, "a property path (an IRI or a path expression)")
            shape.path = self.path(path)
        deactivated = g.value(node, _SH.deactivated)
        shape.deactivated = deactivated is not None and deactivated.toPython() is True  # type: ignore[attr-defined]  # a Literal
        severity = g.value(node, _SH.severity)
        if severity is not None:
            shape.severity = str(severity)
        shape.messages = [str(m) for m in g.objects(node, _SH.message)]
        shape.targets = self._targets(node)
        if g.has(node, rdflib.RDF.type, rdflib.RDFS.Class) or g.has(node, rdflib.RDF.type, rdflib.OWL.Class):
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
            kinds = {str(t) for t in g.objects(target, rdflib.RDF.type)}
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

    def _value(self, node: Node, name: str, value: Node) -> Shape | list[Shape] | list[Node] | Node:
        """A parameter value as the engines want it, checked (``PARAMETER_KINDS``): lists unrolled,
        shapes read."""
        kind = SHAPE_PARAMETERS.get(name)
        test = PARAMETER_KINDS[name]
        if name in LIST_PARAMETERS:
            items = self._list(node, SH + name, value)
            cell: Node | None = value
            for item in items:
                expected = test(item)
                if expected is not None:  # reported where the member is written
                    error = self.malformed(node, SH + name, value, f"a list whose members are each {expected} "
                                           f"(it holds {self._term(item)})")
                    if cell is not None:
                        error = ParameterError(error.what, *self._place(cell, str(rdflib.RDF.first), item),
                                               error.shape)
                    raise error
                cell = self._triples.value(cell, rdflib.RDF.rest)
            return [self.shape(i) for i in items] if kind == "list" else items
        self._checked(node, SH + name, value, test)
        if name == "property" and not self._triples.has(value, _PATH):
            raise self.malformed(node, SH + name, value, "a property shape (it has no sh:path)")
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
            extras = {SH + p: self._value(node, p, by_predicate[SH + p][0]) for p in optional if SH + p in by_predicate}
            # One constraint per value of the parameter (two sh:class values are two constraints).
            for value in sorted(by_predicate[first], key=str):
                params = {first: self._value(node, mandatory[0], value), **extras}
                if first == SH + "pattern":  # compiled with its flags (x: verbose), as the engine compiles it
                    flags = extras.get(SH + "flags")
                    try:
                        compile_pattern(value, flags if isinstance(flags, rdflib.Literal) else None)
                    except re.error as exc:
                        raise self.malformed(node, first, value, f"a regular expression ({exc})") from None
                shape.constraints.append(Constraint(SH + local, params))
        for predicate, _values in by_predicate.items():
            component = self._parameters.get(predicate)
            if component is None or predicate in used:
                continue
            declared = self.components[component]
            if not all(m in by_predicate for m in declared.mandatory):
                continue
            used.update(declared.mandatory + declared.optional)
            params = {p: self._checked(node, p, by_predicate[p][0], declared.kinds.get(p, _anything))
                      for p in declared.mandatory + declared.optional if p in by_predicate}
            shape.constraints.append(Constraint(component, params))
        for predicate in by_predicate:
            if predicate in used or predicate in _SHAPE_FIELDS or predicate in annotations:
                continue
            # Known optional parameters without their component's mandatory one: SHACL ignores them.
            if predicate in _CORE_OPTIONAL:
                continue
            # A shape may be its own sh:sparql constraint (W3C sparql/node/sparql-002).
            if predicate == SH + "select" and (g.has(None, _SH.sparql, node) or
                                               g.has(node, rdflib.RDF.type, _SH.SPARQLConstraint)):
                continue
            if predicate.startswith(SH) or predicate.startswith(TGL):
                component = self._parameters.get(predicate)
                why = (f"a parameter of {self.graph.namespace_manager.normalizeUri(rdflib.URIRef(component))}, "
                       "whose other mandatory parameters are missing") if component else \
                    "a parameter of no constraint component the engine knows"
                raise ShapesError(f"{self.name(node)}: uses {self.name(rdflib.URIRef(predicate))}, {why}")

    def text(self, node: Node, predicate: str) -> str:
        """The text of a node's value for ``predicate`` ("" for none): an annotation a reader asks of
        a shape (the rule registry reads the rules' so)."""
        return self._text(node, predicate)

    @property
    def annotations(self) -> _Triples:
        """The shapes graph's triples as the reader holds them, for what reads annotations."""
        return self._triples

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
