"""SHACL 4.6, logical constraint components: sh:not, sh:and, sh:or, sh:xone."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..component import Native, param, per_value

if TYPE_CHECKING:
    from ...ground.graph import Node, TraceGraph
    from ..component import CompilerLike, Context, Params, TypesTest, ValueTest


def _not_types(params: Params, compiler: CompilerLike) -> TypesTest | None:
    nested = compiler.shape_types_test(param(params, "not"))
    return None if nested is None else (lambda kinds: not nested(kinds))


@per_value("NotConstraintComponent", "not", types_test=_not_types)
def _not(ctx: Context, params: Params) -> ValueTest:
    negated = param(params, "not")
    return lambda graph, v: not ctx.conforms(negated, v)


# The tests below run for every value of every node a shape targets: plain loops, not a
# generator per call.

def _and_types(params: Params, compiler: CompilerLike) -> TypesTest | None:
    tests = compiler.shape_types_tests(param(params, "and"))
    return None if tests is None else (lambda kinds: all(f(kinds) for f in tests))


@per_value("AndConstraintComponent", "and", types_test=_and_types)
def _and(ctx: Context, params: Params) -> ValueTest:
    members, conforms = tuple(param(params, "and")), ctx.conforms

    def test(graph: TraceGraph, v: Node) -> bool:
        for shape in members:
            if not conforms(shape, v):
                return False
        return True
    return test


def _or_compiled(params: Params, compiler: CompilerLike) -> str | None:
    # Members that read only a node's types (sh:class tests, mostly) are judged on its types, in
    # one test; the others are asked of the run only when none of those holds.
    members = list(param(params, "or"))
    whole = compiler.types_expression(members)
    if whole is not None:
        return whole
    typed = [m for m in members if compiler.shape_types_test(m) is not None]
    by_types = compiler.types_expression(typed) if typed else None
    others = [compiler.conforms_expression(m) for m in members if m not in typed]
    if by_types is None or None in others:
        return None
    return " or ".join([f"({by_types})", *others])  # type: ignore[list-item]  # None ruled out above


def _or_types(params: Params, compiler: CompilerLike) -> TypesTest | None:
    members = list(param(params, "or"))
    # Members that each require one class only: one set operation instead of a test per member.
    classes = compiler.classes_of(members)
    if classes is not None:
        return lambda kinds: not classes.isdisjoint(kinds)
    tests = compiler.shape_types_tests(members)
    return None if tests is None else (lambda kinds: any(f(kinds) for f in tests))


@per_value("OrConstraintComponent", "or", compiled=_or_compiled, types_test=_or_types)
def _or(ctx: Context, params: Params) -> ValueTest:
    members, conforms = tuple(param(params, "or")), ctx.conforms
    # The members judged on types are tried first, in one pass over the value's types; the
    # others (reading values, what derives from it) only when none of those holds.
    typed = tuple(test for test in map(ctx.types_test, members) if test is not None)
    others = tuple(m for m in members if ctx.types_test(m) is None)
    if typed:
        types_of = ctx.graph.types_of

        def mixed(graph: TraceGraph, v: Node) -> bool:
            kinds = types_of(v)
            for test in typed:
                if test(kinds):
                    return True
            for shape in others:
                if conforms(shape, v):
                    return True
            return False
        return mixed

    def test(graph: TraceGraph, v: Node) -> bool:
        for shape in members:
            if conforms(shape, v):
                return True
        return False
    return test


def _xone_types(params: Params, compiler: CompilerLike) -> TypesTest | None:
    tests = compiler.shape_types_tests(param(params, "xone"))
    return None if tests is None else (lambda kinds: sum(1 for f in tests if f(kinds)) == 1)


@per_value("XoneConstraintComponent", "xone", types_test=_xone_types)
def _xone(ctx: Context, params: Params) -> ValueTest:
    members = param(params, "xone")
    return lambda graph, v: sum(1 for s in members if ctx.conforms(s, v)) == 1


# The section's components, for SHACL Core's table (shacl/core/).
COMPONENTS: tuple[Native, ...] = (_not, _and, _or, _xone)
