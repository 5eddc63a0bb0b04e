"""SHACL 4.3, value range constraint components: sh:minExclusive, sh:minInclusive,
sh:maxExclusive, sh:maxInclusive (by SPARQL's ordering, xsd.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ...ground.graph import key_from_rdflib
from ..component import Native, param, per_value
from ..xsd import order_key

if TYPE_CHECKING:
    from ...ground.graph import Node, TraceGraph
    from ..component import Context, Params, ValueTest


def _range(local: str, accept: Callable[[int], bool]) -> Native:
    name = local[0].lower() + local[1:]

    @per_value(local + "ConstraintComponent", name)
    def make(ctx: Context, params: Params) -> ValueTest:
        bound = order_key(key_from_rdflib(param(params, name)))

        def test(graph: TraceGraph, v: Node) -> bool:  # xsd.compare with the bound's key read once
            key = order_key(v)
            return bound is not None and key is not None and key[0] == bound[0] and \
                accept((key[1] > bound[1]) - (key[1] < bound[1]))
        return test
    return make


_min_exclusive = _range("MinExclusive", lambda order: order > 0)
_min_inclusive = _range("MinInclusive", lambda order: order >= 0)
_max_exclusive = _range("MaxExclusive", lambda order: order < 0)
_max_inclusive = _range("MaxInclusive", lambda order: order <= 0)


# The section's components, for SHACL Core's table (shacl/core/).
COMPONENTS: tuple[Native, ...] = (_min_exclusive, _min_inclusive, _max_exclusive, _max_inclusive)
