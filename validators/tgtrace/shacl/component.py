"""What a constraint component is, and the tables that hand components to an engine.

A component is one unit: the IRIs of its parameters, its check, and, where
the default engine compiles it into generated code, its compiled form beside
the check. tests/test_component_units.py runs each compiled form against its
check on the same value nodes, so the two cannot drift apart.

A check is ``check(ctx, shape, focus, values, params)`` and yields
``(value, path)`` for each validation result: ``value`` is the result's
sh:value (None for results without one, such as sh:minCount), and ``path`` is
None (the shape's own path) or a predicate IRI the component reports instead
(as a SPARQL validator binding ?path does). ``values`` is the list of value
nodes (for a node shape, the focus alone). A per-value component is written as
``make_test(ctx, params) -> test(graph, value) -> conforms`` instead.

A compiled form is ``compiled(params, compiler) -> str | None``: a Python
expression, True when the constraint holds, over ``v`` (one value node; with
``types_of(node)``, the node's asserted types) for a per-value component, or
over ``values`` (the value nodes) for any other; None when it cannot be written
for these parameters. ``compiler.bind(x)`` names a Python object inside the
expression; ``compiler.subclass`` says whether the graph has rdfs:subClassOf;
``compiler.types_expression(shapes)`` is the engine's test, on ``types_of(v)``,
that v conforms to one of shapes (None when they read more than types);
``compiler.conforms_expression(shape)`` asks the run whether v conforms to any
shape (None where no run is at hand).

A component is declared by decorating its check with :func:`component` (or its test maker with
:func:`per_value`), which returns the :class:`Native`; a module lists its components in a
:class:`ComponentTable` (SHACL Core's is ``shacl/core/``'s ``CORE``, the project's
``rules/components.py``'s ``TRUSTGRAPH``), and whoever builds an engine hands it the table it
runs, as python-jsonschema's ``validators.create`` is handed its keywords: the engine knows no
other component, and nothing registers one by being imported. What a parameter's value must be
is the shapes reader's to check (``shapes.py``), before any component sees it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, TypeAlias

import rdflib

from ..ground.graph import Node, TraceGraph
from ..ground.namespaces import SH

if TYPE_CHECKING:
    from typing import Protocol

    from .shapes import Shape

    # The types components are written with (the contract above), for the type checker only.
    # A per-value component's test of one value node: (graph, value) -> conforms.
    ValueTest: TypeAlias = Callable[[TraceGraph, Node], bool]
    # A types test: a node's set of asserted types -> the constraint holds.
    TypesTest: TypeAlias = Callable[[AbstractSet[str]], bool]
    # What a check yields: (sh:value or None, None or the predicate / component it reports).
    Results: TypeAlias = Iterator[tuple[Node | None, str | None]]
    # A constraint's parameters: IRI -> value (shapes.Constraint.params).
    Params: TypeAlias = dict[str, Any]

    class CompilerLike(Protocol):
        """What compiled forms and types tests are given: the engine's ``fast.Compiler``, which
        components cannot import (fast imports them: the import contract forbids the cycle)."""

        subclass: bool

        def bind(self, value: object, name: str | None = None) -> str: ...

        def shape_types_test(self, shape: Shape) -> TypesTest | None: ...

        def shape_types_tests(self, shapes: Iterable[Shape]) -> tuple[TypesTest, ...] | None: ...

        def classes_of(self, shapes: list[Shape]) -> frozenset[str] | None: ...

        def types_expression(self, shapes: list[Shape]) -> str | None: ...

        def conforms_expression(self, shape: Shape) -> str | None: ...



# A target type decided per kind of node: (graph, types, predicates, params) -> it is a focus node.
TargetMatch: TypeAlias = Callable[[TraceGraph, AbstractSet[str], tuple[str, ...], dict[str, Any]], bool]
# A target type decided per graph: (graph, params) -> the focus nodes.
TargetNodes: TypeAlias = Callable[[TraceGraph, dict[str, Any]], Iterable[Node]]


@dataclass(frozen=True, kw_only=True)
class Native:
    """A constraint component's native implementation: its IRI, the parameters it reads, its check
    and what the engine may do instead of calling the check."""

    iri: str
    check: Callable
    parameters: tuple[str, ...] = ()  # the IRIs of the parameters it reads
    static: bool = False  # decided by the focus node's types and predicates alone
    # A test of one value node (graph, value) -> conforms, for components that judge values one by one.
    value_test: Callable | None = None
    # The component finds the values it reports itself (among the path's values, by construction of
    # its SPARQL): the engine need not walk the shape's path first.
    own_values: bool = False
    # (graph, params) -> the only focus nodes that can fail, so that the others are not visited.
    candidates: Callable | None = None
    compiled: Callable | None = None  # (params, compiler) -> a Python expression, or None
    # Its results depend on the value nodes alone, not on which focus node they belong to, so
    # nodes of one kind with the same values (none, or their types) share them.
    value_only: bool = False
    # (params, compiler) -> a test of a node's set of asserted types that decides the constraint at
    # the node itself (of a node shape), or None when the constraint reads more than types. Asked
    # only of graphs without rdfs:subClassOf.
    types_test: Callable | None = None


def _frozen(mapping: Mapping[str, Any]) -> Mapping[str, Any]:
    return MappingProxyType(dict(mapping))


@dataclass(frozen=True, kw_only=True, eq=False)
class ComponentTable:
    """What an engine evaluates natively, by IRI: constraint components, and the target types
    decided per kind of node (``target_types``) or per graph (``target_nodes``). Anything else a
    shape uses runs by the SPARQL the shapes graph declares for it, or is refused when the engine
    is built. ``a | b`` is both tables; an IRI in both is refused (two implementations of one
    component would leave which one runs to the order of a merge)."""

    constraints: Mapping[str, Native] = field(default_factory=dict)
    target_types: Mapping[str, TargetMatch] = field(default_factory=dict)
    target_nodes: Mapping[str, TargetNodes] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in ("constraints", "target_types", "target_nodes"):
            object.__setattr__(self, name, _frozen(getattr(self, name)))
        wrong = [iri for iri, native in self.constraints.items() if native.iri != iri]
        if wrong:
            raise ValueError(f"components listed under another IRI than their own: {sorted(wrong)}")

    def __or__(self, other: ComponentTable) -> ComponentTable:
        both = sorted(set(self.constraints) & set(other.constraints) | set(self.target_types) & set(other.target_types)
                      | set(self.target_nodes) & set(other.target_nodes))
        if both:
            raise ValueError(f"implemented in both tables: {both}")
        return ComponentTable(constraints={**self.constraints, **other.constraints},
                              target_types={**self.target_types, **other.target_types},
                              target_nodes={**self.target_nodes, **other.target_nodes})

    def targets(self) -> frozenset[str]:
        """The target types implemented, of either kind."""
        return frozenset(self.target_types) | frozenset(self.target_nodes)


def table(*natives: Native, target_types: Mapping[str, TargetMatch] | None = None,
          target_nodes: Mapping[str, TargetNodes] | None = None) -> ComponentTable:
    """A table of the components given (each under its own IRI, once) and of the target types."""
    constraints: dict[str, Native] = {}
    for native in natives:
        if native.iri in constraints:
            raise ValueError(f"{native.iri} is listed twice")
        constraints[native.iri] = native
    return ComponentTable(constraints=constraints, target_types=target_types or {}, target_nodes=target_nodes or {})


def _names(namespace: str, parameters: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(namespace + name for name in parameters)


def component(local: str, *parameters: str, namespace: str = SH, static: bool = False, own_values: bool = False,
              candidates: Callable | None = None, compiled: Callable | None = None, value_only: bool = False,
              types_test: Callable | None = None) -> Callable[[Callable], Native]:
    """The component namespace + local, reading the parameters named (in namespace), whose check is
    the function decorated: the decorator returns the :class:`Native` for a table to list."""
    def declare(check: Callable) -> Native:
        return Native(iri=namespace + local, check=check, parameters=_names(namespace, parameters), static=static,
                      own_values=own_values, candidates=candidates, compiled=compiled, value_only=value_only,
                      types_test=types_test)
    return declare


def per_value(local: str, *parameters: str, namespace: str = SH, compiled: Callable | None = None,
              types_test: Callable | None = None) -> Callable[[Callable], Native]:
    """A component whose results are exactly the values failing a test built from the params (the
    function decorated: ``make_test(ctx, params) -> test(graph, value) -> conforms``)."""
    def declare(make_test: Callable) -> Native:
        def check(ctx: Context, shape: Shape, focus: object, values: Iterable[Node],
                  params: dict[str, Any]) -> Iterator[tuple[Node, None]]:
            test = make_test(ctx, params)
            for value in values:
                if not test(ctx.graph, value):
                    yield value, None
        return Native(iri=namespace + local, check=check, parameters=_names(namespace, parameters),
                      value_test=make_test, compiled=compiled, value_only=True, types_test=types_test)
    return declare


class Context:
    """What a component sees: the graph, and how to ask whether a node conforms to a shape."""

    def __init__(self, graph: TraceGraph, conforms: Callable, types_test: Callable | None = None) -> None:
        self.graph = graph
        self.conforms = conforms  # (shape, node) -> bool
        # shape -> a test of a node's asserted types that decides conformance, or None when the
        # shape reads more than types (or the graph has subclasses): a set operation instead of a call.
        self.types_test = types_test or (lambda shape: None)


def param(params: dict, local: str, namespace: str = SH) -> Any:
    return params.get(namespace + local)


_BOOLEAN = rdflib.URIRef("http://www.w3.org/2001/XMLSchema#boolean")


def true(term: object) -> bool:
    # SHACL switches a boolean parameter on with the literal true alone: "1"^^xsd:boolean,
    # the same value, is another term and leaves the constraint off (W3C uniqueLang-002).
    return isinstance(term, rdflib.Literal) and term.datatype == _BOOLEAN and str(term) == "true"
