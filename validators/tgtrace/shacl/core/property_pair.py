"""SHACL 4.5, property pair constraint components: sh:equals, sh:disjoint, sh:lessThan,
sh:lessThanOrEquals."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ..component import Native, component, param
from ..xsd import compare

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ...ground.graph import Node
    from ..component import Context, Params, Results
    from ..shapes import Shape


@component("EqualsConstraintComponent", "equals")
def _equals(ctx: Context, shape: Shape, focus: Node, values: Sequence[Node], params: Params) -> Results:
    other = list(ctx.graph.values(focus, str(param(params, "equals"))))
    for v in values:
        if v not in other:
            yield v, None
    for v in other:
        if v not in values:
            yield v, None


@component("DisjointConstraintComponent", "disjoint")
def _disjoint(ctx: Context, shape: Shape, focus: Node, values: Sequence[Node], params: Params) -> Results:
    other = ctx.graph.values(focus, str(param(params, "disjoint")))
    for v in values:
        if v in other:
            yield v, None


def _less(local: str, accept: Callable[[int], bool]) -> Native:
    @component(local[0].upper() + local[1:] + "ConstraintComponent", local)
    def check(ctx: Context, shape: Shape, focus: Node, values: Sequence[Node], params: Params) -> Results:
        others = ctx.graph.values(focus, str(param(params, local)))
        for v in values:
            for w in others:
                order = compare(v, w)
                if order is None or not accept(order):
                    yield v, None
    return check


_less_than = _less("lessThan", lambda order: order < 0)
_less_than_or_equals = _less("lessThanOrEquals", lambda order: order <= 0)


# The section's components, for SHACL Core's table (shacl/core/).
COMPONENTS: tuple[Native, ...] = (_equals, _disjoint, _less_than, _less_than_or_equals)
