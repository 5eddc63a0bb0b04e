"""SHACL 4.2, cardinality constraint components: sh:minCount, sh:maxCount."""

from __future__ import annotations

from ..component import component, param


@component("MinCountConstraintComponent", "minCount", value_only=True,
           compiled=lambda params, compiler: f"len(values) >= {int(param(params, 'minCount'))}")
def _min_count(ctx, shape, focus, values, params):
    if len(values) < int(param(params, "minCount")):
        yield None, None


@component("MaxCountConstraintComponent", "maxCount", value_only=True,
           compiled=lambda params, compiler: f"len(values) <= {int(param(params, 'maxCount'))}")
def _max_count(ctx, shape, focus, values, params):
    if len(values) > int(param(params, "maxCount")):
        yield None, None
