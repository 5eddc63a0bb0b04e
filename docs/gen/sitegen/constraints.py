"""What the shapes say about classes and predicates, read from the linter's shapes model.

Nothing here reads a shapes graph: the shapes come parsed from
``tgtrace.rules.model()`` (a ``tgtrace.shacl.shapes.ShapesModel``), each constraint
one use of a constraint component with its parameters, so the pages describe
the shapes exactly as the engines run them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rdflib import RDF
from tgtrace.ground.namespaces import PROV, RDF_TYPE, SH
from tgtrace.shacl.shapes import Shape, ShapesModel
from tgtrace.tracemodel.naming import curie, local_name

from .ontology import ClassInfo

PROV_DERIVED = PROV + "wasDerivedFrom"
RDF_STATEMENT = str(RDF.Statement)
NODE_KINDS = {
    SH + "IRI": "IRI",
    SH + "Literal": "literal",
    SH + "BlankNode": "blank node",
    SH + "BlankNodeOrIRI": "IRI or blank node",
    SH + "IRIOrLiteral": "IRI or literal",
    SH + "BlankNodeOrLiteral": "blank node or literal",
}
# Constraint components that combine other shapes; their members' value
# constraints describe the same values, so they are read through.
LOGICAL = ("or", "xone", "and")


def values(shape: Shape, parameter: str) -> list:
    """The values a shape gives a SHACL Core parameter (sh:<parameter>), one per constraint."""
    key = SH + parameter
    return [c.params[key] for c in shape.constraints if key in c.params and c.component.startswith(SH)]


def paths(shape: Shape | None) -> list[str]:
    """The predicates a property shape is about: its path, or each alternative of it."""
    if shape is None or shape.path is None:
        return []
    return list(shape.path.predicates() or ())


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

    def merge_values(self, other: PropertyUse) -> None:
        """Take over what another shape says about the values (not how many there are)."""
        self.kinds |= other.kinds
        self.classes |= other.classes
        self.datatypes |= other.datatypes
        self.patterns |= other.patterns
        self.values += [v for v in other.values if v not in self.values]
        self.rules |= other.rules


@dataclass
class Condition:
    """A type a node must assert because it carries a predicate (a node shape with sh:targetSubjectsOf)."""

    predicate: str
    required_type: str
    rules: set[str]


def read_constraints(use: PropertyUse, shape: Shape, depth: int = 0, counts: bool = True) -> None:
    """Add to ``use`` what ``shape`` (and the shapes it combines) says about the values."""
    if depth > 4:
        return
    for kind in values(shape, "nodeKind"):
        use.kinds.add(NODE_KINDS.get(str(kind), curie(str(kind))))
    for cls in values(shape, "class"):
        if str(cls) == RDF_STATEMENT:
            # The linter reifies RDF 1.2 triple terms as rdf:Statement nodes
            # for SHACL engines that cannot hold them (rule D007).
            use.kinds.add("triple term")
            continue
        use.classes.add(str(cls))
        use.kinds.add("IRI")
    for datatype in values(shape, "datatype"):
        use.datatypes.add(str(datatype))
        use.kinds.add("literal")
    for pattern in values(shape, "pattern"):
        use.patterns.add(str(pattern))
    for members in values(shape, "in"):
        for value in members:
            if str(value) not in use.values:
                use.values.append(str(value))
    for value in values(shape, "hasValue"):
        if str(value) not in use.values:
            use.values.append(str(value))
    if counts:
        for low in values(shape, "minCount"):
            use.min_count = max(use.min_count or 0, int(low))
        for high in values(shape, "maxCount"):
            use.max_count = int(high) if use.max_count is None else min(use.max_count, int(high))
    for logical in LOGICAL:
        for members in values(shape, logical):
            for member in members:
                read_constraints(use, member, depth + 1, counts=False)
    for member in values(shape, "node"):
        # sh:node names a shape every value conforms to; its counts are the value's own.
        read_constraints(use, member, depth + 1, counts=False)


def _codes(code: str | None) -> set[str]:
    return {code} if code else set()


def _targets(shape: Shape, kind: str) -> list[str]:
    return [t.value for t in shape.targets if t.kind == kind]


class ShapeIndex:
    """The shapes model, indexed by what the class and predicate pages ask of it."""

    def __init__(self, model: ShapesModel):
        self.model = model
        # In the order the previous reader of the shapes graph visited them (rdflib's term order).
        self.shapes = sorted(model.shapes.values(), key=lambda s: s.node)
        self.by_iri = {str(s.node): s for s in model.shapes.values()}
        # Per predicate: what value-level shapes (sh:targetSubjectsOf) say about its values.
        self.value_constraints: dict[str, PropertyUse] = {}
        self.conditions: list[Condition] = []
        self._read_value_shapes()

    def code(self, node) -> str | None:
        return self.model.code_of(node)

    def _read_value_shapes(self) -> None:
        """Node shapes that target the subjects of a predicate: rules about its values anywhere."""
        for node_shape in self.shapes:
            targets = _targets(node_shape, "subjectsOf")
            if not targets:
                continue
            for prop in node_shape.properties:
                found = paths(prop)
                code = self.code(prop.node)
                if found == [RDF_TYPE]:
                    for value in values(prop, "hasValue"):
                        for predicate in targets:
                            self.conditions.append(Condition(predicate, str(value), _codes(code)))
                    continue
                for path in found:
                    use = self.value_constraints.setdefault(path, PropertyUse(path=path))
                    read_constraints(use, prop, counts=False)
                    if code:
                        use.rules.add(code)
            # SPARQL constraints on the same node shape check the values of the
            # targeted predicates (e.g. tg:arguments holding JSON text).
            for constraint in node_shape.sparql:
                code = self.code(constraint.node)
                if code:
                    for predicate in targets:
                        self.value_constraints.setdefault(predicate, PropertyUse(path=predicate)).rules.add(code)

    def read_classes(self, classes: dict[str, ClassInfo]) -> None:
        """Fill in each class's shape-derived facts from the node shapes that target it."""
        for node_shape in self.shapes:
            for target in _targets(node_shape, "class"):
                info = classes.get(target)
                if info is None:
                    continue
                info.node_shapes.append(node_shape.iri)
                self._read_node_shape(info, node_shape)

    def _read_node_shape(self, info: ClassInfo, node_shape: Shape) -> None:
        node_code = self.code(node_shape.node)
        for prop in node_shape.properties:
            self._read_property(info, prop)
        # Node-level "exactly one of" (sh:xone of node shapes with one property each).
        for members in values(node_shape, "xone"):
            alternatives = []
            for member in members:
                for prop in member.properties:
                    found = paths(prop)
                    if len(found) == 1:
                        use = info.properties.setdefault(found[0], PropertyUse(path=found[0]))
                        read_constraints(use, prop, counts=False)
                        for high in values(prop, "maxCount")[:1]:
                            use.max_count = int(high)
                        alternatives.append(found[0])
            for path in alternatives:
                info.properties[path].one_of = [p for p in alternatives if p != path]
                if node_code:
                    info.properties[path].rules.add(node_code)
        # A type the class must not assert (sh:not of a shape requiring that type).
        for negated in values(node_shape, "not"):
            for prop in negated.properties:
                if paths(prop) == [RDF_TYPE]:
                    for value in values(prop, "hasValue"):
                        info.must_not_assert.setdefault(str(value), set()).update(_codes(node_code))

    def _read_property(self, info: ClassInfo, prop: Shape) -> None:
        found = paths(prop)
        if len(found) != 1:
            return  # a shape about several predicates at once is read as a value shape
        path = found[0]
        code = self.code(prop.node)
        if path == RDF_TYPE:
            for value in values(prop, "hasValue"):
                info.must_assert.setdefault(str(value), set()).update(_codes(code))
            for qualified in values(prop, "qualifiedValueShape")[:1]:
                choices = [str(v) for members in values(qualified, "in")[:1] for v in members]
                if choices:
                    info.one_of_types.append((choices, _codes(code)))
            return
        use = info.properties.setdefault(path, PropertyUse(path=path))
        read_constraints(use, prop)
        if code is not None:
            use.rules.add(code)
        if path == PROV_DERIVED:
            for parent in sorted(use.classes, key=local_name):
                if parent not in info.derives_from:
                    info.derives_from.append(parent)

    def rule_scope(self, rule) -> tuple[list[tuple[str, str]], list[str]]:
        """Which predicates' subjects or objects a rule's shapes target, and the predicates it is about."""
        predicates = paths(self.by_iri.get(rule.shape))
        scope = []
        owners = [self.by_iri.get(o) for o in rule.node_shapes] or [self.by_iri.get(rule.shape)]
        for owner in owners:
            if owner is None:
                continue
            for predicate in _targets(owner, "subjectsOf"):
                scope.append(("subject", predicate))
                if not predicates or RDF_TYPE in predicates:
                    predicates.append(predicate)
            for predicate in _targets(owner, "objectsOf"):
                scope.append(("object", predicate))
        return sorted(set(scope)), sorted(set(p for p in predicates if p != RDF_TYPE))
