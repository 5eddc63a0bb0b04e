"""The default engine: SHACL evaluated by constraint components over the trace graph.

Every shape is read by ``tgtrace.shacl.shapes``; each constraint is one use of a
component, evaluated by its native implementation (``component.py`` says what
one is) from the table the engine is built with (SHACL Core's is ``core.CORE``;
the packaged rules add the project's own, ``rules/components.py``), or,
for a SHACL-SPARQL component or constraint that has none, by running its
SPARQL over the focus node's trace (``sparql.py``). Nothing here names a rule.

Speed comes from two things. Nodes of one kind (the same asserted types and
the same predicates) share a plan: what their types and predicates alone
decide (which shapes target them, the checks on rdf:type, absent properties,
static components) is decided once per kind. And the checks that read a
node's values for shapes whose path is a predicate are compiled into one
Python function per kind, with the compiled forms of the components that have
one (sh:in, sh:pattern, sh:nodeKind, sh:class, sh:or of class tests, the counts
and sh:hasValue) inlined.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

import pyoxigraph as ox
import rdflib

from ..ground.graph import DERIVED, RDF_TYPE, SUBCLASS, Node, TraceGraph, collector_paused, key_from_rdflib
from ..ground.model import Hit
from ..ground.namespaces import SH
from .component import ComponentTable, Context, Native
from .core.shape_based import QUALIFIED_RESULT_COMPONENTS
from .shapes import Constraint, Path, Shape, ShapesError, ShapesModel, SparqlConstraint, Target
from .sparql import SparqlRunner, refuse_services

PROPERTY = SH + "PropertyConstraintComponent"
SPARQL_CONSTRAINT = SH + "SPARQLConstraintComponent"
QUALIFIED = SH + "QualifiedValueShapeConstraintComponent"
_FOCUS = object()  # stands for "the focus node" in results shared by a kind of nodes
# A per-node runner of a kind's plan: (run(node, props) -> its hits, the only nodes it can report
# or None for any node).
_Runner = tuple[Callable[[Node, Mapping[str, Sequence[Node]]], Iterable[Hit]], "set | None"]
_EMPTY: frozenset = frozenset()
_NONE: tuple = ()


def _path_values(graph: TraceGraph, path: Path, node: Node) -> list:
    kind, arg = path.kind, path.arg
    if kind == "pred":
        return list(graph.values(node, arg))
    if kind == "inverse":
        if arg.kind == "pred":
            return list(graph.subjects(arg.arg, node))
        # An inverse is walked backwards from the node, through the inverse index, never by asking
        # every subject whether it reaches the node (that is quadratic in the graph).
        reversed_path = _inverted(arg)
        if reversed_path is not None:
            return _path_values(graph, reversed_path, node)
        return [s for s in graph.out if node in _path_values(graph, arg, s)]
    if kind == "alt":
        seen: dict = {}
        for p in arg:
            for v in _path_values(graph, p, node):
                seen.setdefault(v, None)
        return list(seen)
    if kind == "seq":
        current = [node]
        for p in arg:
            following: dict = {}
            for n in current:
                for v in _path_values(graph, p, n):
                    following.setdefault(v, None)
            current = list(following)
        return current
    if kind in ("zeroOrMore", "oneOrMore", "zeroOrOne"):
        found: dict = {}
        if kind != "oneOrMore":
            found[node] = None
        frontier = _path_values(graph, arg, node)
        if kind == "zeroOrOne":
            for v in frontier:
                found.setdefault(v, None)
            return list(found)
        while frontier:
            reached = []
            for v in frontier:
                if v not in found or (kind == "oneOrMore" and v == node and v not in found):
                    found[v] = None
                    reached.extend(_path_values(graph, arg, v))
            frontier = reached
        return list(found)
    raise ShapesError(f"unsupported path kind {kind}")


def _inverted(path: Path) -> Path | None:
    """The path that walks ``path`` backwards: ^^p is p, ^(a|b) is ^a|^b, ^(a/b) is ^b/^a, ^(p*)
    is (^p)*; None where the engine has no such form."""
    kind, arg = path.kind, path.arg
    if kind == "pred":
        return Path("inverse", path)
    if kind == "inverse":
        return arg
    if kind in ("alt", "seq"):
        parts = [_inverted(p) for p in arg]
        if any(p is None for p in parts):
            return None
        return Path(kind, tuple(parts if kind == "alt" else reversed(parts)))
    if kind in ("zeroOrMore", "oneOrMore", "zeroOrOne"):
        inner = _inverted(arg)
        return None if inner is None else Path(kind, inner)
    return None


def implemented(components: ComponentTable) -> frozenset[str]:
    """The constraint components an engine given ``components`` evaluates natively, by the IRIs
    its validation results name them with (sh:qualifiedValueShape reports QualifiedMinCount or
    QualifiedMaxCount; sh:property is the engine's own, SHACL-SPARQL constraints run through
    sparql.py); any other component runs by its SPARQL validator."""
    natives = components.constraints
    qualified = QUALIFIED_RESULT_COMPONENTS if QUALIFIED in natives else set()
    return frozenset({c for c in natives if c != QUALIFIED} | qualified | {PROPERTY, SPARQL_CONSTRAINT})


class Engine:
    """A shapes graph compiled for checking trace graphs."""

    def __init__(self, model: ShapesModel, codes: frozenset[str] | None = None,
                 declarations: Iterable[tuple] = (), *, components: ComponentTable) -> None:
        """codes: the rules to evaluate (None: every shape); shapes that carry none of them are
        not run at all, so an unselected rule costs nothing (an opt-in family may be costly).
        declarations: rdflib triples :meth:`prepare` adds to each graph (the ontology's, for the
        packaged rules: the caller knows which). components: the table of what the engine
        evaluates natively (``core.CORE`` for SHACL Core; the caller adds its own); a component
        or target type a shape uses that is neither in it nor declared with SPARQL is refused."""
        self.model = model
        self.table = components
        self.natives: Mapping[str, Native] = components.constraints
        self.target_types = components.target_types
        self.target_nodes = components.target_nodes
        # Components whose results depend on the value nodes alone, not on which focus node they belong to.
        self.value_only = frozenset(c for c, native in self.natives.items() if native.value_only)
        self._own_values: dict[Shape, bool] = {}
        self.declarations = tuple(declarations)
        self.codes: dict = {}  # shape or sparql node -> rule code
        for shape in model.shapes.values():
            code = model.code_of(shape.node)
            if code is not None:
                self.codes[shape] = code
            for constraint in shape.sparql:
                code = model.code_of(constraint.node) or model.code_of(shape.node)
                if code is not None:
                    self.codes[constraint.node] = code
        self._check_components()
        refuse_services(model)
        self.by_class: dict = defaultdict(list)
        self.by_subject_of: dict = defaultdict(list)
        self.by_custom: list = []  # (shape, matches, params)
        self.elsewhere: list = []  # shapes with targets decided per graph (node, objectsOf, SPARQL)
        for shape in model.top_level():
            if codes is not None and not model.codes_within(shape) & codes:
                continue
            for target in shape.targets:
                if target.kind == "class":
                    self.by_class[target.value].append(shape)
                elif target.kind == "subjectsOf":
                    self.by_subject_of[target.value].append(shape)
                elif target.kind == "custom" and target.value[0] in self.target_types:
                    self.by_custom.append((shape, self.target_types[target.value[0]],
                                           {p: v for p, v in target.value[1].items()}))
                else:
                    self.elsewhere.append(shape)
        self._generated: dict = {}

    @classmethod
    def from_graph(cls, graph: rdflib.Graph, *, components: ComponentTable) -> Engine:
        return cls(ShapesModel(graph), components=components)

    def _check_components(self) -> None:
        """Every component a shape uses has a native implementation or a SPARQL validator."""
        for shape in self.model.shapes.values():
            for constraint in shape.constraints:
                iri = constraint.component
                if iri in self.natives or iri == PROPERTY:
                    continue
                declared = self.model.components.get(iri)
                if declared is None or declared.validator_for(shape) is None:
                    raise ShapesError(f"{self.model.name(shape.node)}: uses the constraint component "
                                      f"{self.model.name(rdflib.URIRef(iri))}, which the engine does not know "
                                      "(no native implementation and no SPARQL validator for this kind of shape)")
            for target in shape.targets:
                if target.kind == "custom" and target.value[0] not in self.table.targets() \
                        and target.value[0] not in self.model.target_types:
                    raise ShapesError(f"{self.model.name(shape.node)}: uses the target type {target.value[0]}, "
                                      "which the engine does not know")

    @property
    def components(self) -> set[str]:
        """The constraint components the shapes use."""
        return {c.component for s in self.model.shapes.values() for c in s.constraints} | (
            {SPARQL_CONSTRAINT} if any(s.sparql for s in self.model.shapes.values()) else set())

    def inverse_reach(self) -> frozenset[str] | None:
        """The predicates whose subjects a shape reads from their object (inverse paths,
        sh:targetObjectsOf), or None when a SPARQL query runs (a constraint, a component without
        a native implementation, a target), which may read anything in the graph. Native
        components read a node's values and what derives from it, owns it or it generated."""
        reached: set = set()

        def inverted(path: Path | None, inverse: bool) -> None:
            if path is None:
                return
            if path.kind == "pred":
                if inverse:
                    reached.add(path.arg)
            elif path.kind in ("seq", "alt"):
                for step in path.arg:
                    inverted(step, inverse)
            else:
                inverted(path.arg, inverse or path.kind == "inverse")

        for shape in self.model.shapes.values():
            if shape.sparql:
                return None
            if any(c.component not in self.natives and c.component != PROPERTY for c in shape.constraints):
                return None
            inverted(shape.path, False)
            for target in shape.targets:
                if target.kind == "objectsOf":
                    reached.add(str(target.value))
                elif target.kind == "sparql" or (target.kind == "custom"
                                                 and target.value[0] not in self.table.targets()):
                    return None
        return frozenset(reached)

    def finds_own_values(self, shape: Shape) -> bool:
        """Every constraint of the shape finds its values itself, so its path need not be walked
        (computed once per shape: shapes are never mutated after they are read)."""
        known = self._own_values.get(shape)
        if known is None:
            known = self._own_values[shape] = bool(shape.constraints) and all(
                (native := self.natives.get(c.component)) is not None and native.own_values for c in shape.constraints)
        return known

    # ----------------------------------------------------------------- running

    def prepare(self, graph: TraceGraph) -> set:
        """Add the engine's declarations to a graph; returns the subjects added."""
        added = set()
        for s, p, o in self.declarations:
            subject = key_from_rdflib(s)
            graph.add(subject, str(p), key_from_rdflib(o))
            added.add(subject)
        return added

    def check(self, graph: TraceGraph, declared: set | None = None) -> Iterator[Hit]:
        """The rules' findings: results of shapes that carry a rule code."""
        for hit in self.validate(graph, declared):
            if hit.rule is not None:
                yield hit

    def validate(self, graph: TraceGraph, declared: set | None = None) -> Iterator[Hit]:
        """Every validation result of every active shape with targets, rule or not."""
        run = _Run(self, graph, declared or set())
        try:
            with collector_paused():
                yield from run.all()
        finally:
            run.release()


class _Run:
    """One graph checked by one engine."""

    def __init__(self, engine: Engine, graph: TraceGraph, declared: set) -> None:
        self.engine = engine
        self.graph = graph
        self.declared = declared
        self.context = Context(graph, self.conforms, self.types_test)
        self._conforms: dict = {}
        self._compiled: dict = {}
        self._tests: dict = {}
        self._screens: dict = {}
        self._over: dict[int, set] = {}
        self._sparql: SparqlRunner | None = None
        self.subclass = SUBCLASS in graph._predicates()
        self.codes = engine.codes
        self.natives = engine.natives

    def hit(self, shape: Shape, component: str, focus: object, value: object, path: str | Path | None,
            constraint: rdflib.term.Node | None = None) -> Hit:
        """A validation result as a hit: the rule its shape (or SPARQL constraint) carries, the
        predicate at fault (the result's path, else the shape's), and the value (a node shape's
        result is about its focus node). ``path`` is a predicate IRI, a Path or None."""
        code = self.codes.get(constraint if constraint is not None else shape)
        if path is None:
            predicate = shape.path.iri if shape.path is not None else None
        else:
            predicate = path.iri if isinstance(path, Path) else path
        if value is None and not shape.is_property:
            value = focus
        return Hit(code, focus, predicate, value, shape, component, path, constraint)

    def release(self) -> None:
        """Forget the run. Its context and compiled tests refer back to it, and it holds the
        graph: left to the cyclic collector, the graph would outlive the check until a full
        pass, which would walk every object of the graph once more before freeing it."""
        self.__dict__.clear()

    # --------------------------------------------------------- generic evaluation

    def _constraint_types_test(self, constraint: Constraint) -> Callable | None:
        """A test of the focus's types that decides one constraint of a node shape, when the
        constraint reads only types (and the graph has no subclasses); else None."""
        if self.subclass:
            return None
        key = ("constraint types", id(constraint))
        if key not in self._screens:
            self._screens[key] = _constraint_types_test(constraint, self.natives)
        return self._screens[key]

    def types_test(self, shape: Shape) -> Callable | None:
        """The test of a node's types that decides whether it conforms to shape, when the shape reads
        only types and the graph has no subclasses; else None."""
        key = ("types", id(shape))
        if key not in self._screens:
            self._screens[key] = None if self.subclass else _types_test(shape, self.natives)
        return self._screens[key]

    def conforms(self, shape: Shape, node: Node) -> bool:
        """Does node conform to shape (shapes nested in sh:node, sh:or, ...)? Shapes made of
        common components are compiled into a test once per run; the others are evaluated."""
        compiled = self._compiled.get(shape, _UNKNOWN)
        if compiled is _UNKNOWN:
            compiled = self._compiled[shape] = self._compile(shape)
        if compiled is not None:
            return compiled(node)
        memo = (shape, node)
        known = self._conforms.get(memo)
        if known is None:
            self._conforms[memo] = True  # a shape that refers to itself conforms while being checked
            known = next(iter(self.evaluate(shape, node)), None) is None
            self._conforms[memo] = known
        return known

    def _compile(self, shape: Shape) -> Callable | None:
        """A test node -> conforms for a shape that holds only common components, else None."""
        graph = self.graph
        if not self.subclass:
            by_types = _types_test(shape, self.natives)
            if by_types is not None:
                return lambda node: by_types(graph.types_of(node))
        if shape.sparql or shape.deactivated or not shape.constraints:
            return None
        if shape.path is None:
            tests = []
            for constraint in shape.constraints:
                native = self.natives.get(constraint.component)
                if native is not None and native.value_test is not None:
                    tests.append(lambda node, f=self.test(constraint): f(graph, node))  # noqa: B008 (bound once, on purpose)
                elif constraint.component == PROPERTY:
                    nested = constraint.params[SH + "property"]
                    tests.append(lambda node, s=nested: self.conforms(s, node))
                else:
                    return None
            return _all_of(tests)
        values = _path_function(graph, shape.path)
        if values is None:
            return None
        tests = []
        for constraint in shape.constraints:
            iri, params = constraint.component, constraint.params
            native = self.natives.get(iri)
            compiled = _values_function(constraint, self.natives)
            if compiled is not None:
                tests.append(compiled)
            elif iri == SH + "QualifiedValueShapeConstraintComponent" and \
                    params.get(SH + "qualifiedValueShapesDisjoint") is None:
                low, high = params.get(SH + "qualifiedMinCount"), params.get(SH + "qualifiedMaxCount")
                nested = params[SH + "qualifiedValueShape"]

                def qualified(vs: Iterable[Node], s: Shape = nested, low: int | None = None if low is None else int(low),
                              high: int | None = None if high is None else int(high)) -> bool:
                    count = sum(1 for v in vs if self.conforms(s, v))
                    return (low is None or count >= low) and (high is None or count <= high)
                tests.append(qualified)
            elif native is not None and native.value_test is not None:
                tests.append(_every_value(self.test(constraint), graph))
            else:
                return None
        all_pass = _all_of(tests)
        return lambda node: all_pass(values(node))

    def evaluate(self, shape: Shape, focus: Node) -> Iterator[Hit]:
        if shape.deactivated:
            return
        values: Sequence
        if shape.path is None:
            values = [focus]
        elif self.engine.finds_own_values(shape):
            values = ()
        else:
            values = _path_values(self.graph, shape.path, focus)
        for constraint in shape.constraints:
            yield from self.constraint(shape, constraint, focus, values)
        for sparql in shape.sparql:
            if not sparql.deactivated:
                yield from self.sparql_constraint(shape, sparql, focus)

    def constraint(self, shape: Shape, constraint: Constraint, focus: Node, values: Sequence[Node]) -> Iterator[Hit]:
        iri = constraint.component
        if iri == PROPERTY:
            nested = constraint.params[SH + "property"]
            for value in values:
                yield from self.evaluate(nested, value)
            return
        native = self.natives.get(iri)
        if native is None:
            yield from self.sparql_component(shape, constraint, focus, values)
            return
        if native.static:
            found = native.check(self.context, shape, focus, tuple(self.graph.out.get(focus, {})), constraint.params)
        else:
            found = native.check(self.context, shape, focus, values, constraint.params)
        for value, path in found:
            if path in QUALIFIED_RESULT_COMPONENTS:
                yield self.hit(shape, path, focus, value, None)  # sh:qualifiedValueShape names one of two
            else:
                yield self.hit(shape, iri, focus, value, path)

    @property
    def sparql(self) -> SparqlRunner:
        if self._sparql is None:
            self._sparql = SparqlRunner(self.graph, self.declared, self.engine.model.graph)
        return self._sparql

    def sparql_constraint(self, shape: Shape, sparql: SparqlConstraint, focus: Node) -> Iterator[Hit]:
        path = shape.path.sparql() if shape.path is not None else None
        bindings = {"this": focus, "currentShape": key_from_rdflib(shape.node)}
        for row in self.sparql.select(sparql.select, sparql.prefixes, bindings, focus, path):
            if row.get("failure") is not None:
                continue
            yield self.hit(shape, SPARQL_CONSTRAINT, row.get("this", focus), row.get("value"),
                           row.get("path"), constraint=sparql.node)  # type: ignore[arg-type]  # ?path binds an IRI

    def sparql_component(self, shape: Shape, constraint: Constraint, focus: Node,
                         values: Iterable[Node]) -> Iterator[Hit]:
        declared = self.engine.model.components[constraint.component]
        validator = declared.validator_for(shape)
        if validator is None:  # refused when the engine was built (_check_components)
            raise ShapesError(f"{self.engine.model.name(shape.node)}: no SPARQL validator for {constraint.component}")
        bindings = {p.rsplit("#", 1)[-1].rsplit("/", 1)[-1]: key_from_rdflib(v)
                    for p, v in constraint.params.items()}
        bindings["this"], bindings["currentShape"] = focus, key_from_rdflib(shape.node)
        path = shape.path.sparql() if shape.path is not None else None
        if validator.kind == "ask":
            for value in values:
                if not self.sparql.ask(validator.query, validator.prefixes, {**bindings, "value": value}, focus, path):
                    yield self.hit(shape, constraint.component, focus, value, None)
            return
        for row in self.sparql.select(validator.query, validator.prefixes, bindings, focus, path):
            yield self.hit(shape, constraint.component, row.get("this", focus), row.get("value"),
                           row.get("path"))  # type: ignore[arg-type]  # ?path binds an IRI

    def test(self, constraint: Constraint) -> Callable:
        """The per-value test of a constraint, built once per run (it may ask the run whether a
        node conforms to a shape)."""
        test = self._tests.get(id(constraint))
        if test is None:
            make_test = self.natives[constraint.component].value_test
            if make_test is None:
                raise TypeError(f"{constraint.component} judges no value node alone")
            test = self._tests[id(constraint)] = make_test(self.context, constraint.params)
        return test

    # ------------------------------------------------------------------- targets

    def all(self) -> Iterator[Hit]:
        graph, engine, out = self.graph, self.engine, self.graph.out
        done: set = set()
        elsewhere = set(engine.elsewhere)
        # Nodes of one kind share a plan: what their types and predicates alone decide is decided
        # once; only checks that read values run per node.
        for (kinds, predicates), nodes in graph.kinds().items():
            static, dynamic, shapes = self.plan(kinds, predicates)
            if dynamic:
                dynamic = _reaching(dynamic, nodes)
            for node in nodes:
                for shape, component, value, path in static:
                    yield self.hit(shape, component, node, node if value is _FOCUS else value, path)
                if dynamic:
                    props = out[node]
                    # A runner's screen names the only nodes it can report: the others skip the call.
                    for run, screen in dynamic:
                        if screen is None or node in screen:
                            yield from run(node, props)
            # A shape targeted both here and per graph runs once at a node.
            for shape in shapes:
                if shape in elsewhere:
                    done.update((shape, node) for node in nodes)
        for shape in engine.elsewhere:
            candidates = self._candidates(shape)
            for focus in self.focus_nodes(shape):
                if (shape, focus) not in done and (candidates is None or focus in candidates):
                    done.add((shape, focus))
                    yield from self.evaluate(shape, focus)

    def _candidates(self, shape: Shape) -> set | None:
        """The only focus nodes a shape can report, when each of its constraints names them
        (native components with candidates); None when any node could fail."""
        if not shape.constraints or shape.sparql:
            return None
        for constraint in shape.constraints:
            native = self.natives.get(constraint.component)
            if native is None or native.candidates is None:
                return None
        return set().union(*(self.candidates_of(c) for c in shape.constraints))

    def focus_nodes(self, shape: Shape) -> list:
        graph = self.graph
        found: dict = {}
        for target in shape.targets:
            nodes: Iterable[Node]
            if target.kind == "class":
                nodes = graph.instances(target.value)
            elif target.kind == "node":
                nodes = [key_from_rdflib(target.value)]
            elif target.kind == "subjectsOf":
                nodes = [s for s, props in graph.out.items() if target.value in props]
            elif target.kind == "objectsOf":
                nodes = graph.objects_of(target.value)
            elif target.kind == "custom" and target.value[0] in self.engine.target_types:
                matches, params = self.engine.target_types[target.value[0]], target.value[1]
                nodes = [s for s, props in graph.out.items()
                         if matches(graph, graph.types_of(s), tuple(props), params)]
            elif target.kind == "custom" and target.value[0] in self.engine.target_nodes:
                nodes = self.engine.target_nodes[target.value[0]](graph, target.value[1])
            else:
                nodes = self.sparql_target(target)
            for node in nodes:
                found.setdefault(node, None)
        return list(found)

    def sparql_target(self, target: Target) -> list:
        if target.kind == "custom":
            kind = self.engine.model.target_types[target.value[0]]
            query, prefixes = kind.select, kind.prefixes
            bindings = {p.rsplit("#", 1)[-1].rsplit("/", 1)[-1]: key_from_rdflib(v)
                        for p, v in target.value[1].items() if v is not None and p in kind.parameters}
        else:
            query, prefixes, bindings = target.value, target.prefixes, {}
        found: dict = {}
        # A target query ranges over the whole graph: run it in every trace's store.
        roots = {self.graph.root_of(s) for s in self.graph.out}
        for root in sorted(roots, key=lambda r: (r is not None, str(r))):
            anchor = root if root is not None else next((s for s in self.graph.out if self.graph.root_of(s) is None), None)
            if anchor is None:
                continue
            for row in self.sparql.select(query, prefixes, bindings, anchor):
                if "this" in row:
                    found.setdefault(row["this"], None)
        return list(found)

    # --------------------------------------------------------------------- plans

    # One pass sorts each constraint of a kind into static results, per-node runners or generated code:
    # the three ways stay side by side, where a split would pass the pass's state between functions.
    def plan(self, kinds: frozenset, predicates: tuple) -> tuple[list, list, list]:  # noqa: C901, PLR0912
        """(static results, per-node runners, shapes) for nodes of one kind."""
        engine, graph = self.engine, self.graph
        chosen: dict = {}
        classes = set(kinds)
        if self.subclass:
            for cls in kinds:
                classes |= _superclasses(graph, cls)
        for cls in classes:
            for shape in engine.by_class.get(cls, ()):
                chosen[id(shape)] = shape
        for predicate in predicates:
            for shape in engine.by_subject_of.get(predicate, ()):
                chosen[id(shape)] = shape
        for shape, matches, params in engine.by_custom:
            if matches(graph, kinds, predicates, params):
                chosen[id(shape)] = shape
        shapes = sorted(chosen.values(), key=lambda s: str(s.node))
        # A node shape's property shapes run at the same focus: flatten them, each once.
        units: dict = {}
        for shape in shapes:
            units.setdefault(id(shape), (shape, [c for c in shape.constraints if c.component != PROPERTY]))
            if not shape.is_property:
                for constraint in shape.constraints:
                    if constraint.component == PROPERTY:
                        nested = constraint.params[SH + "property"]
                        units.setdefault(id(nested), (nested, list(nested.constraints)))
        present = set(predicates)
        static: list = []
        dynamic: list = []
        generated: list = []
        for shape, constraints in units.values():
            if shape.deactivated or (not constraints and not shape.sparql):
                continue
            path = shape.path
            simple = path.predicates() if path is not None else None
            if path is None:
                rest = []
                for constraint in constraints:
                    native = self.natives.get(constraint.component)
                    if native is not None and native.static:
                        found = native.check(self.context, shape, _FOCUS, predicates, constraint.params)
                        static.extend((shape, constraint.component, v, p) for v, p in found)
                    elif (by_types := self._constraint_types_test(constraint)) is not None:
                        # Decided by the focus's types alone: once for the kind.
                        if not by_types(kinds):
                            static.append((shape, constraint.component, _FOCUS, None))
                    else:
                        rest.append(constraint)
                if rest or shape.sparql:
                    runner = self._node_runner(shape, rest)
                    if runner is not None:
                        dynamic.append(runner)
            elif simple is not None and (simple == (RDF_TYPE,) or not present & set(simple)) \
                    and all(c.component in engine.value_only for c in constraints) and not shape.sparql:
                # The values are the node's types, or there are none: the same for every such node.
                values = sorted(kinds) if simple == (RDF_TYPE,) else []
                for constraint in constraints:
                    # The kind's stand-in focus (value-only components, all native, never read it).
                    for result in self.constraint(shape, constraint, _FOCUS, values):  # type: ignore[arg-type]
                        static.append((shape, result.component, result.value, result.result_path))
            elif simple is not None and not shape.sparql:
                generated.append((shape, constraints, tuple(p for p in simple if p in present)))
            else:
                runner = self._shape_runner(shape)
                if runner is not None:
                    dynamic.append(runner)
        if generated:
            dynamic.insert(0, self._generate(generated))
        return static, dynamic, shapes

    def _node_runner(self, shape: Shape, constraints: list) -> _Runner | None:
        """Per node, a node shape's constraints. A constraint that judges one value at a time is
        its test called directly (no generator per node); one that can name the only nodes it
        could report is skipped for the others (None: no node at all)."""
        tests, screened = [], []
        for constraint in constraints:
            native = self.natives.get(constraint.component)
            if native is not None and native.value_test is not None:
                tests.append((constraint.component, self.test(constraint)))
                continue
            has_candidates = native is not None and native.candidates is not None
            screened.append((constraint, self.candidates_of(constraint) if has_candidates else None))
        graph = self.graph
        sparql = [s for s in shape.sparql if not s.deactivated]

        def run(node: Node, props: Mapping[str, Sequence[Node]]) -> list[Hit]:
            found = [self.hit(shape, component, node, node, None) for component, test in tests if not test(graph, node)]
            values = [node]
            for constraint, candidates in screened:
                if candidates is None or node in candidates:
                    found.extend(self.constraint(shape, constraint, node, values))
            for constraint in sparql:
                found.extend(self.sparql_constraint(shape, constraint, node))
            return found

        screens = [candidates for _, candidates in screened if candidates is not None]
        if tests or sparql or len(screens) != len(screened):
            # Counts over what derives from a node can fail only where it has more than they allow:
            # those nodes are found once per run, and the others skip the shape.
            return run, None if sparql else self._screen_constraints(shape, constraints)
        # Every constraint screens its focus nodes: most nodes need no work at all.
        union = screens[0] if len(screens) == 1 else set().union(*screens)  # one screen is read, not copied
        if not union:
            return None
        return run, union

    def candidates_of(self, constraint: Constraint) -> set:
        """The only focus nodes a constraint's native component can report, found once per run."""
        key = ("candidates", id(constraint))
        if key not in self._screens:
            find = self.natives[constraint.component].candidates
            assert find is not None, "only a component with candidates is screened"
            self._screens[key] = find(self.graph, constraint.params)
        return self._screens[key]

    def _screen(self, shape: Shape) -> set | None:
        """The only nodes that can fail a shape, where its counts over what derives from a node
        name them; None when any node may."""
        key = id(shape)
        if key not in self._screens:
            self._screens[key] = None if shape.sparql or shape.deactivated else \
                self._screen_constraints(shape, shape.constraints)
        return self._screens[key]

    def _screen_constraints(self, shape: Shape, constraints: list) -> set | None:
        # A shape fails when one of its constraints does: the union of theirs.
        return _union(self._screen_constraint(shape, c) for c in constraints)

    def _screen_constraint(self, shape: Shape, constraint: Constraint) -> set | None:
        iri, params = constraint.component, constraint.params
        if iri == PROPERTY:
            return self._screen(params[SH + "property"])
        if shape.path is None and iri == SH + "NodeConstraintComponent":
            return self._screen(params[SH + "node"])
        if shape.path is None and iri == SH + "OrConstraintComponent":
            # Every member must fail: only nodes each screened member names.
            screens = [s for s in (self._screen(m) for m in params[SH + "or"]) if s is not None]
            return set.intersection(*screens) if screens else None
        if shape.path is None and iri == SH + "AndConstraintComponent":
            # One member failing fails the whole: the nodes any member names, when each names them.
            return _union(self._screen(m) for m in params[SH + "and"])
        if shape.path is None and iri == SH + "NotConstraintComponent":
            return self._may_conform(params[SH + "not"])
        path = shape.path
        if iri == QUALIFIED and params.get(SH + "qualifiedMinCount") is None \
                and params.get(SH + "qualifiedMaxCount") is not None \
                and params.get(SH + "qualifiedValueShapesDisjoint") is None \
                and not (path is not None and path.kind == "inverse" and path.arg == Path("pred", DERIVED)):
            # Too many qualified values: only nodes whose path reaches a node that may qualify.
            may_qualify = self._may_conform(params[SH + "qualifiedValueShape"])
            return None if may_qualify is None or path is None else _reached_backwards(self.graph, path, may_qualify)
        if iri == SH + "MaxCountConstraintComponent" and path is not None and path.kind == "pred" \
                and path.arg not in (DERIVED, RDF_TYPE):
            high = int(params[SH + "maxCount"])
            # The graph notes the subjects that state a predicate twice; none may state it at all.
            return set(self.graph.many_valued(path.arg)) if high >= 1 else \
                self._of_kinds(lambda kinds, predicates: path.arg in predicates)
        if iri == SH + "MaxCountConstraintComponent" and (backwards := _inverse_predicates(path)) is not None \
                and backwards != (DERIVED,):
            # At most n subjects through these predicates: only nodes with more can fail, counted
            # in each predicate's inverse index (a Thought or selection is named once or twice).
            return self._named_by_more_than(backwards, int(params[SH + "maxCount"]))
        if path is None or path.kind != "inverse" or path.arg.kind != "pred" or path.arg.arg != DERIVED:
            return None
        if iri == SH + "QualifiedValueShapeConstraintComponent" and params.get(SH + "qualifiedMinCount") is None \
                and params.get(SH + "qualifiedMaxCount") is not None \
                and params.get(SH + "qualifiedValueShapesDisjoint") is None:
            high, nested = int(params[SH + "qualifiedMaxCount"]), params[SH + "qualifiedValueShape"]
            by_types = self.types_test(nested)
            below_of = self.graph.derived_from()
            if by_types is not None:
                # The nodes that qualify, found kind by kind (a few hundred tests, not one per node),
                # then counted among each candidate's children by set intersection.
                qualified: set[Node] = set()
                for (kinds, predicates), nodes in self.graph.kinds().items():
                    if DERIVED in predicates and by_types(kinds):
                        qualified.update(nodes)
                among = qualified.intersection
                return {node for node in self._derived_by_more_than(high) if len(among(below_of[node])) > high}
            conforms = self.conforms
            return {node for node in self._derived_by_more_than(high)
                    if sum(1 for v in below_of[node] if conforms(nested, v)) > high}
        if iri == SH + "MaxCountConstraintComponent":
            return self._derived_by_more_than(int(params[SH + "maxCount"]))
        return None

    def _of_kinds(self, test: Callable[[frozenset, tuple], bool]) -> set:
        """The nodes of every kind (types, predicates) the test accepts."""
        return {node for (kinds, predicates), nodes in self.graph.kinds().items() if test(kinds, predicates)
                for node in nodes}

    def _may_conform(self, shape: Shape) -> set | None:
        """The only nodes that can conform to shape, where its constraints name them (a class, a
        path up to such nodes; some of them may not conform); None when any node may."""
        key = ("conforming", id(shape))
        if key not in self._screens:
            self._screens[key] = None  # a shape that refers to itself names no nodes
            # More nodes than conform, at times: a screen needs only to hold every node that does.
            self._screens[key] = self._conforming_candidates(shape)
        return self._screens[key]

    def _conforming_candidates(self, shape: Shape) -> set | None:
        if shape.sparql or shape.deactivated or shape.path is not None:
            return None
        by_types = self.types_test(shape)
        if by_types is not None:
            return self._of_kinds(lambda kinds, _: by_types(kinds))
        # A node conforms to each constraint: any one that names its nodes narrows them.
        narrowest: set | None = None
        for constraint in shape.constraints:
            found = self._conforming_to(constraint)
            if found is not None and (narrowest is None or len(found) < len(narrowest)):
                narrowest = found
        return narrowest

    def _conforming_to(self, constraint: Constraint) -> set | None:
        iri, params = constraint.component, constraint.params
        if iri == SH + "OrConstraintComponent":
            return _union(self._may_conform(m) for m in params[SH + "or"])
        if iri == SH + "NodeConstraintComponent":
            return self._may_conform(params[SH + "node"])
        if iri == SH + "InConstraintComponent":
            return {key_from_rdflib(member) for member in params[SH + "in"]}
        if (by_types := self._constraint_types_test(constraint)) is not None:
            return self._of_kinds(lambda kinds, _: by_types(kinds))
        if iri == PROPERTY:
            nested = params[SH + "property"]
            if nested.path is None:
                return None
            for inner in nested.constraints:
                low = inner.params.get(SH + "qualifiedMinCount") if inner.component == QUALIFIED else None
                if low is not None and int(low) >= 1 and inner.params.get(SH + "qualifiedValueShapesDisjoint") is None:
                    # At least one qualified value: only nodes whose path reaches one.
                    qualified = self._may_conform(inner.params[SH + "qualifiedValueShape"])
                    if qualified is not None:
                        return _reached_backwards(self.graph, nested.path, qualified)
        return None

    def _derived_by_more_than(self, high: int) -> set:
        """The nodes more than ``high`` nodes derive from: one pass over the graph per bound, however
        many shapes count with it."""
        found = self._over.get(high)
        if found is None:
            found = self._over[high] = {node for node, below in self.graph.derived_from().items() if len(below) > high}
        return found

    def _named_by_more_than(self, predicates: tuple[str, ...], high: int) -> set:
        """The nodes that more than ``high`` subjects name through the predicates, together."""
        graph = self.graph
        if set(predicates) <= graph.model.owning:
            # Links that own a sub-entity are indexed as they are read (its owners): only a node with
            # more owners than the bound is counted predicate by predicate.
            return {node for node, owners in graph.owners.items() if len(owners) > high
                    and sum(len(graph.subjects(p, node)) for p in predicates) > high}
        counts: dict = {}
        for predicate in predicates:
            for node, subjects in graph.inverse(predicate).items():
                counts[node] = counts.get(node, 0) + len(subjects)
        return {node for node, count in counts.items() if count > high}

    def _shape_runner(self, shape: Shape) -> _Runner | None:
        candidates = self._candidates(shape)
        if candidates is not None and not candidates:
            return None  # no node can fail
        return (lambda node, props: self.evaluate(shape, node)), candidates

    # ------------------------------------------------------------ generated code

    def _generate(self, rules: list) -> _Runner:
        key_ = (tuple((id(shape), present) for shape, _, present in rules), self.subclass)
        make = self.engine._generated.get(key_)
        if make is None:
            make = self.engine._generated[key_] = _generate_code(rules, self.subclass, self.natives)
        return make(self), None


_UNKNOWN = object()


def _path_function(graph: TraceGraph, path: Path) -> Callable[[Any], Iterable] | None:
    """node -> the path's values, for the paths the graph answers from its index: a predicate, an
    alternative of predicates, prov:wasDerivedFrom backwards (what derives from the node) and a
    sequence of those; None for any other path (walked by _path_values)."""
    kind, arg = path.kind, path.arg
    if kind == "pred":
        return lambda node: graph.values(node, arg)
    predicates = path.predicates()
    if predicates is not None:
        return lambda node: list(dict.fromkeys([v for p in predicates for v in graph.values(node, p)]))
    if kind == "inverse" and arg.kind == "pred" and arg.arg == DERIVED:
        return graph.children
    if kind == "seq":
        steps = [_path_function(graph, step) for step in arg]
        if None in steps:
            return None

        def walk(node: Node) -> list:
            current = [node]
            for step in steps:
                current = list(dict.fromkeys([v for n in current for v in step(n)]))  # type: ignore[misc]
            return current
        return walk
    return None


def _union(screens: Iterable[set | None]) -> set | None:
    """The nodes every screen names together; None (any node) as soon as one is None."""
    found: set = set()
    for screen in screens:
        if screen is None:
            return None
        found |= screen
    return found


def _reaching(runners: list, nodes: Sequence[Node]) -> list:
    """The runners whose screen names a node of ``nodes`` (or that have none): a small screen is
    asked of the kind once, not each of its nodes of every runner."""
    members: set | None = None
    kept = []
    for runner in runners:
        screen = runner[1]
        if screen is not None and len(screen) < len(nodes):
            if members is None:
                members = set(nodes)
            if members.isdisjoint(screen):
                continue
        kept.append(runner)
    return kept


def _reached_backwards(graph: TraceGraph, path: Path, targets: set) -> set | None:
    """The nodes whose path reaches one of targets, walked from the targets backwards through the
    graph's indexes; None for a path of repetition (walked forwards, node by node)."""
    kind, arg = path.kind, path.arg
    if kind == "pred":
        return graph.subjects_of_any(arg, targets)
    if kind == "inverse" and arg.kind == "pred":
        values = graph.values
        return {v for t in targets for v in values(t, arg.arg)}
    if kind == "alt":
        return _union(_reached_backwards(graph, member, targets) for member in arg)
    if kind == "seq":
        current = targets
        # A run of one optional step (up to n steps up) walks on from what the step before it
        # added alone: the rest it reached already.
        optional: Path | None = None  # the member walked last, when it is an optional step
        added: set = set()
        for member in reversed(arg):
            if member.kind == "zeroOrOne" and member == optional:
                stepped = _reached_backwards(graph, member.arg, added)
                if stepped is None:
                    return None
                added = stepped - current
                current = current | added
                continue
            reached = _reached_backwards(graph, member, current)
            if reached is None:
                return None
            optional, added = (member, reached - current) if member.kind == "zeroOrOne" else (None, set())
            current = reached
        return current
    if kind == "zeroOrOne":
        reached = _reached_backwards(graph, arg, targets)
        return None if reached is None else reached | targets
    return None


def _inverse_predicates(path: Path | None) -> tuple[str, ...] | None:
    """The predicates of a path that is a predicate walked backwards, or an alternative of such
    (sh:alternativePath of sh:inversePath), else None."""
    if path is None:
        return None
    if path.kind == "inverse" and path.arg.kind == "pred":
        return (path.arg.arg,)
    if path.kind == "alt" and all(p.kind == "inverse" and p.arg.kind == "pred" for p in path.arg):
        return tuple(p.arg.arg for p in path.arg)
    return None


def _superclasses(graph: TraceGraph, cls: str) -> set:
    found: set = set()
    stack: list = [cls]
    while stack:
        for parent in graph.values(stack.pop(), SUBCLASS):
            if parent not in found:
                found.add(parent)
                stack.append(parent)
    return found


def _types_test(shape: Shape, natives: Mapping[str, Native]) -> Callable | None:
    """A test on a node's asserted types alone, when that is all the shape checks (and the graph
    has no rdfs:subClassOf, which the caller rules out): class tests, counts and values of
    rdf:type, and their and/or/not/xone."""
    if shape.path is not None or shape.sparql or shape.deactivated or not shape.constraints:
        return None
    tests = []
    for constraint in shape.constraints:
        test = _constraint_types_test(constraint, natives)
        if test is None:
            return None
        tests.append(test)
    return _all_of(tests)


def _constraint_types_test(constraint: Constraint, natives: Mapping[str, Native]) -> Callable | None:
    """A test on a node's asserted types that decides one constraint at the node itself (of a
    node shape), when the constraint reads nothing else: the component's own types test (see
    ``Native.types_test``; sh:property, the engine's own, is ``_types_property_test``)."""
    if constraint.component == PROPERTY:
        return _types_property_test(constraint.params[SH + "property"], natives)
    native = natives.get(constraint.component)
    if native is None or native.types_test is None:
        return None
    # What the components' types tests are built with: graphs that reach them have no subclasses.
    return native.types_test(constraint.params, Compiler(False, natives=natives))


def _all_of(tests: list) -> Callable:
    """x -> every test passes on x. These run for every node of a capture: a plain loop, not a
    generator per call."""
    if len(tests) == 1:
        return tests[0]
    each = tuple(tests)

    def all_pass(x: object) -> bool:
        for test in each:
            if not test(x):
                return False
        return True
    return all_pass


def _every_value(test: Callable, graph: TraceGraph) -> Callable:
    """values -> the per-value test passes on each."""
    def every(values: Iterable[Node]) -> bool:
        for value in values:
            if not test(graph, value):
                return False
        return True
    return every


def _single_class(shape: Shape) -> str | None:
    """The class a shape requires, when that is all it checks (one sh:class, nothing else)."""
    if shape.path is not None or shape.sparql or shape.deactivated or len(shape.constraints) != 1:
        return None
    (constraint,) = shape.constraints
    return str(constraint.params[SH + "class"]) if constraint.component == SH + "ClassConstraintComponent" else None


def _classes_of(members: list) -> frozenset | None:
    """The classes of an sh:or whose every member only requires a class: a node conforms when
    its types meet the set, one set operation instead of a test per member."""
    classes = [_single_class(m) for m in members]
    return None if None in classes else frozenset(classes)


def _types_property_test(prop: Shape, natives: Mapping[str, Native]) -> Callable | None:
    """sh:property on rdf:type whose constraints all judge the set of values (the counts,
    sh:hasValue) by their compiled forms: a test of the types set."""
    if prop.path is None or prop.path.iri != RDF_TYPE or prop.sparql or prop.deactivated:
        return None
    tests = []
    for c in prop.constraints:
        compiled = _values_function(c, natives)  # the types are the values of rdf:type
        if compiled is None:
            return None
        tests.append(compiled)
    return _all_of(tests)


class Compiler:
    """What the components' compiled forms are written with (see component.py): Python
    objects bound to names of one namespace, and the engine's tests of shapes on a node's types."""

    def __init__(self, subclass: bool, namespace: dict | None = None, in_run: bool = False, *,
                 natives: Mapping[str, Native]) -> None:
        self.subclass = subclass
        self.natives = natives  # the engine's components, by IRI
        self.namespace = {"Literal": ox.Literal} if namespace is None else namespace
        # Whether expressions run inside a run's generated code, where ``conforms`` is the run's.
        self.in_run = in_run

    def bind(self, value: object, name: str | None = None) -> str:
        name = name or f"t{len(self.namespace)}"
        self.namespace[name] = value
        return name

    def shape_types_test(self, shape: Shape) -> Callable | None:
        """A test of a node's types that decides whether it conforms to shape, when the shape reads
        only types; None when it reads more (or the graph has subclasses)."""
        return None if self.subclass else _types_test(shape, self.natives)

    def shape_types_tests(self, shapes: Iterable[Shape]) -> tuple[Callable, ...] | None:
        """``shape_types_test`` of each shape, or None unless every shape has one."""
        tests = [self.shape_types_test(s) for s in shapes]
        return None if None in tests else tuple(t for t in tests if t is not None)

    def classes_of(self, shapes: list) -> frozenset | None:
        """The classes of shapes that each require one class and nothing else, else None."""
        return _classes_of(shapes)

    def types_expression(self, shapes: list) -> str | None:
        """v conforms to one of shapes, judged on types_of(v) alone; None when that cannot be."""
        if self.subclass:
            return None
        classes = _classes_of(shapes)
        if classes is not None:
            return f"not {self.bind(classes)}.isdisjoint(types_of(v))"
        tests = [_types_test(m, self.natives) for m in shapes]
        if None in tests:
            return None
        # Each test called in turn on the types read once: no generator per value.
        first, *rest = (self.bind(test) for test in tests)
        if not rest:
            return f"{first}(types_of(v))"
        return "(" + " or ".join([f"{first}(_kinds := types_of(v))", *(f"{name}(_kinds)" for name in rest)]) + ")"

    def conforms_expression(self, shape: Shape) -> str | None:
        """v conforms to shape, asked of the run (which evaluates or compiles it once); None
        outside a run's generated code."""
        return f"conforms({self.bind(shape)}, v)" if self.in_run else None

    def expression(self, constraint: Constraint) -> str | None:
        """The constraint's compiled form, or None when its component has none for these parameters."""
        native = self.natives.get(constraint.component)
        if native is None or native.compiled is None:
            return None
        return native.compiled(constraint.params, self)

    def function(self, constraint: Constraint) -> Callable | None:
        """The compiled form as a function: of (types_of, v) for a per-value component, of values
        for any other; True when the constraint holds."""
        expression = self.expression(constraint)
        if expression is None:
            return None
        arguments = "types_of, v" if self.natives[constraint.component].value_test is not None else "values"
        return eval(f"lambda {arguments}: {expression}", self.namespace)


def _values_function(constraint: Constraint, natives: Mapping[str, Native]) -> Callable | None:
    """values -> the constraint holds, by the compiled form of a component that judges the set of values."""
    native = natives.get(constraint.component)
    if native is None or native.value_test is not None:
        return None
    return Compiler(False, natives=natives).function(constraint)


def _generate_code(rules: list, subclass: bool, natives: Mapping[str, Native]) -> Callable:
    """One Python function running the value-reading checks of every predicate-path shape of a
    kind, made per run: ``make(runner)`` binds what the run gives (the graph, the tests built for
    it) once, and returns ``run(node, props)``, called per node."""
    namespace: dict = {"Literal": ox.Literal}
    compiler = Compiler(subclass, namespace, in_run=True, natives=natives)
    # Per run: what every node's checks read, bound once.
    head = ["def make(runner):", "    index = runner.graph", "    types_of = index.types_of",
            "    context = runner.context", "    conforms = runner.conforms", "    hit = runner.hit",
            "    constraint = runner.constraint"]
    lines = ["    def run(node, props):"]

    bind = compiler.bind
    for shape, constraints, present in rules:
        s = bind(shape)
        if len(present) == 1:
            lines.append(f"        values = props[{present[0]!r}]")
        elif present:
            # The values of each predicate once (SHACL's value nodes are a set), in order.
            joined = ", ".join(f"*props[{p!r}]" for p in present)
            lines.append(f"        values = list(dict.fromkeys([{joined}]))")
        else:
            lines.append("        values = ()")
        for checked in constraints:
            iri = checked.component
            c = bind(iri)
            native = natives.get(iri)
            expression = compiler.expression(checked)
            if expression is not None and native is not None and native.value_test is None:  # of the set of values
                lines.append(f"        if not ({expression}): yield hit({s}, {c}, node, None, None)")
                continue
            if expression is None and native is not None and native.value_test is not None:
                # Built once per run (the test may ask the run whether a node conforms to a shape).
                test = f"test{len(head)}"
                head.append(f"    {test} = runner.test({bind(checked)})")
                expression = f"{test}(index, v)"
            if expression is not None:
                lines.append("        for v in values:")
                lines.append(f"            if not ({expression}): yield hit({s}, {c}, node, v, None)")
            elif native is not None and native.candidates is not None:
                # A component that names the only focus nodes it can report is asked of those alone.
                screen, bound = f"screen{len(head)}", bind(checked)
                head.append(f"    {screen} = runner.candidates_of({bound})")
                lines.append(f"        if node in {screen}:")
                lines.append(f"            yield from constraint({s}, {bound}, node, list(values))")
            else:
                lines.append(f"        yield from constraint({s}, {bind(checked)}, node, list(values))")
    lines.append("    return run")
    exec(compile("\n".join(head + lines), "<tgtrace compiled shapes>", "exec"), namespace)
    return namespace["make"]


def lint(graph: TraceGraph, engine: Engine) -> list[Hit]:
    """Every rule's hits on a graph (the engine's declarations are added to it first)."""
    declared = engine.prepare(graph)
    return list(engine.check(graph, declared))


__all__ = ["Engine", "implemented", "lint"]
