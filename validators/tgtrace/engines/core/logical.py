"""SHACL 4.6, logical constraint components: sh:not, sh:and, sh:or, sh:xone."""

from __future__ import annotations

from ..component import param, per_value


@per_value("NotConstraintComponent", "not")
def _not(ctx, params):
    negated = param(params, "not")
    return lambda graph, v: not ctx.conforms(negated, v)


# The tests below run for every value of every node a shape targets: plain loops, not a
# generator per call.

@per_value("AndConstraintComponent", "and")
def _and(ctx, params):
    members, conforms = tuple(param(params, "and")), ctx.conforms

    def test(graph, v):
        for shape in members:
            if not conforms(shape, v):
                return False
        return True
    return test


def _or_compiled(params, compiler) -> str | None:
    # Members that read only a node's types (sh:class tests, mostly) are judged on its types.
    return compiler.types_expression(list(param(params, "or")))


@per_value("OrConstraintComponent", "or", compiled=_or_compiled)
def _or(ctx, params):
    members, conforms = tuple(param(params, "or")), ctx.conforms

    def test(graph, v):
        for shape in members:
            if conforms(shape, v):
                return True
        return False
    return test


@per_value("XoneConstraintComponent", "xone")
def _xone(ctx, params):
    members = param(params, "xone")
    return lambda graph, v: sum(1 for s in members if ctx.conforms(s, v)) == 1
