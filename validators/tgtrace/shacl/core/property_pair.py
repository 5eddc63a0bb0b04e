"""SHACL 4.5, property pair constraint components: sh:equals, sh:disjoint, sh:lessThan,
sh:lessThanOrEquals."""

from __future__ import annotations

from collections.abc import Callable

from ..component import component, param
from ..xsd import compare


@component("EqualsConstraintComponent", "equals")
def _equals(ctx, shape, focus, values, params):
    other = list(ctx.graph.values(focus, str(param(params, "equals"))))
    for v in values:
        if v not in other:
            yield v, None
    for v in other:
        if v not in values:
            yield v, None


@component("DisjointConstraintComponent", "disjoint")
def _disjoint(ctx, shape, focus, values, params):
    other = ctx.graph.values(focus, str(param(params, "disjoint")))
    for v in values:
        if v in other:
            yield v, None


def _less(local: str, accept: Callable[[int], bool]):
    @component(local[0].upper() + local[1:] + "ConstraintComponent", local)
    def check(ctx, shape, focus, values, params):
        others = ctx.graph.values(focus, str(param(params, local)))
        for v in values:
            for w in others:
                order = compare(v, w)
                if order is None or not accept(order):
                    yield v, None


_less("lessThan", lambda order: order < 0)
_less("lessThanOrEquals", lambda order: order <= 0)
