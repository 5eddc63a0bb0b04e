"""SHACL 4.8, other constraint components: sh:closed, sh:hasValue, sh:in."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...ground.graph import key_from_rdflib
from ..component import Native, component, param, per_value, true

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ...ground.graph import Node
    from ..component import CompilerLike, Context, Params, Results, ValueTest
    from ..shapes import Shape


@component("ClosedConstraintComponent", "closed", "ignoredProperties")
def _closed(ctx: Context, shape: Shape, focus: Node, values: Sequence[Node], params: Params) -> Results:
    if not true(param(params, "closed")):
        return
    allowed = {p.path.iri for p in shape.properties if p.path is not None and p.path.iri}
    allowed |= {str(p) for p in param(params, "ignoredProperties") or ()}
    for value in values:
        for predicate, objects in ctx.graph.out.get(value, {}).items():
            if predicate not in allowed:
                for o in objects:
                    yield o, predicate


@component("HasValueConstraintComponent", "hasValue", value_only=True,
           compiled=lambda params, compiler: f"{compiler.bind(key_from_rdflib(param(params, 'hasValue')))} in values")
def _has_value(ctx: Context, shape: Shape, focus: Node, values: Sequence[Node], params: Params) -> Results:
    if key_from_rdflib(param(params, "hasValue")) not in values:
        yield None, None


def _in_compiled(params: Params, compiler: CompilerLike) -> str:
    return f"v in {compiler.bind(frozenset(key_from_rdflib(m) for m in param(params, 'in')))}"


@per_value("InConstraintComponent", "in", compiled=_in_compiled)
def _in(ctx: Context, params: Params) -> ValueTest:
    allowed = frozenset(key_from_rdflib(m) for m in param(params, "in"))
    return lambda graph, v: v in allowed


# The section's components, for SHACL Core's table (shacl/core/).
COMPONENTS: tuple[Native, ...] = (_closed, _has_value, _in)
