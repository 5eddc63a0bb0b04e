"""SHACL 4.2, cardinality constraint components: sh:minCount, sh:maxCount."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..component import Native, component, param

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ...ground.graph import Node
    from ..component import Context, Params, Results
    from ..shapes import Shape


@component("MinCountConstraintComponent", "minCount", value_only=True,
           compiled=lambda params, compiler: f"len(values) >= {int(param(params, 'minCount'))}")
def _min_count(ctx: Context, shape: Shape, focus: Node, values: Sequence[Node], params: Params) -> Results:
    if len(values) < int(param(params, "minCount")):
        yield None, None


@component("MaxCountConstraintComponent", "maxCount", value_only=True,
           compiled=lambda params, compiler: f"len(values) <= {int(param(params, 'maxCount'))}")
def _max_count(ctx: Context, shape: Shape, focus: Node, values: Sequence[Node], params: Params) -> Results:
    if len(values) > int(param(params, "maxCount")):
        yield None, None


# The section's components, for SHACL Core's table (shacl/core/).
COMPONENTS: tuple[Native, ...] = (_min_count, _max_count)
