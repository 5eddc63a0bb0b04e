"""SHACL 4.7, shape-based constraint components: sh:node, sh:qualifiedValueShape (sh:property is
the engine's own: it walks into the nested shape)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...ground.namespaces import SH
from ..component import Native, component, param, per_value, true

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ...ground.graph import Node
    from ..component import CompilerLike, Context, Params, Results, TypesTest, ValueTest
    from ..shapes import Shape


def _node_compiled(params: Params, compiler: CompilerLike) -> str | None:
    return compiler.types_expression([param(params, "node")])  # a shape that reads only types


def _node_types(params: Params, compiler: CompilerLike) -> TypesTest | None:
    return compiler.shape_types_test(param(params, "node"))  # the nested shape's own, if it reads only types


@per_value("NodeConstraintComponent", "node", compiled=_node_compiled, types_test=_node_types)
def _node(ctx: Context, params: Params) -> ValueTest:
    nested = param(params, "node")
    return lambda graph, v: ctx.conforms(nested, v)


@component("QualifiedValueShapeConstraintComponent", "qualifiedValueShape", "qualifiedMinCount",
           "qualifiedMaxCount", "qualifiedValueShapesDisjoint", value_only=True)
def _qualified(ctx: Context, shape: Shape, focus: Node, values: Sequence[Node], params: Params) -> Results:
    nested = param(params, "qualifiedValueShape")
    siblings = shape.qualified_siblings if true(param(params, "qualifiedValueShapesDisjoint")) else ()
    count = sum(1 for v in values
                if ctx.conforms(nested, v) and not any(ctx.conforms(s, v) for s in siblings))
    low, high = param(params, "qualifiedMinCount"), param(params, "qualifiedMaxCount")
    if low is not None and count < int(low):
        yield None, SH + "QualifiedMinCountConstraintComponent"
    if high is not None and count > int(high):
        yield None, SH + "QualifiedMaxCountConstraintComponent"


# Qualified results name one of two components; the engine reads them from the path slot.
QUALIFIED_RESULT_COMPONENTS = {SH + "QualifiedMinCountConstraintComponent", SH + "QualifiedMaxCountConstraintComponent"}


# The section's components, for SHACL Core's table (shacl/core/); sh:property is the engine's own.
COMPONENTS: tuple[Native, ...] = (_node, _qualified)
