"""SHACL 4.1, value type constraint components: sh:class, sh:datatype, sh:nodeKind."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import pyoxigraph as ox

from ...ground.graph import is_iri, to_rdflib
from ...ground.namespaces import RDF, SH
from ..component import Native, param, per_value
from ..xsd import well_formed

if TYPE_CHECKING:

    from ...ground.graph import Node, TraceGraph
    from ..component import CompilerLike, Context, Params, TypesTest, ValueTest


_Literal = ox.Literal
LANG_STRING = RDF + "langString"


def _class_compiled(params: Params, compiler: CompilerLike) -> str | None:
    if compiler.subclass:
        return None  # membership through rdfs:subClassOf needs the graph's walk
    return f"{compiler.bind(str(param(params, 'class')))} in types_of(v)"


def _class_types(params: Params, compiler: CompilerLike) -> TypesTest:
    cls = str(param(params, "class"))
    return lambda kinds: cls in kinds


@per_value("ClassConstraintComponent", "class", compiled=_class_compiled, types_test=_class_types)
def _class(ctx: Context, params: Params) -> ValueTest:
    cls = str(param(params, "class"))
    return lambda graph, v: type(v) is not _Literal and graph.has_class(v, cls)


@per_value("DatatypeConstraintComponent", "datatype")
def _datatype(ctx: Context, params: Params) -> ValueTest:
    datatype = str(param(params, "datatype"))

    def test(graph: TraceGraph, v: Node) -> bool:
        if type(v) is not _Literal:
            return False
        actual = LANG_STRING if v.language else v.datatype.value
        return actual == datatype and well_formed(to_rdflib(v))
    return test


def _blank_node(v: Node) -> bool:
    return type(v) is str and v.startswith("_:")  # an RDF 1.2 triple term is of no node kind of SHACL 1.0


NODE_KINDS: dict[str, Callable] = {
    SH + "IRI": is_iri,
    SH + "Literal": lambda v: type(v) is _Literal,
    SH + "BlankNode": _blank_node,
    SH + "BlankNodeOrIRI": lambda v: type(v) is str,
    SH + "BlankNodeOrLiteral": lambda v: _blank_node(v) or type(v) is _Literal,
    SH + "IRIOrLiteral": lambda v: is_iri(v) or type(v) is _Literal,
}
# The two kinds traces ask for most, written out so that generated code makes no call.
_SPELLED_OUT = {SH + "IRI": '(type(v) is str and not v.startswith("_:"))', SH + "Literal": "type(v) is Literal"}


def _node_kind_compiled(params: Params, compiler: CompilerLike) -> str:
    kind = str(param(params, "nodeKind"))
    spelled = _SPELLED_OUT.get(kind)
    if spelled is not None:
        compiler.bind(_Literal, "Literal")
        return spelled
    return f"{compiler.bind(NODE_KINDS[kind])}(v)"


@per_value("NodeKindConstraintComponent", "nodeKind", compiled=_node_kind_compiled)
def _node_kind(ctx: Context, params: Params) -> ValueTest:
    kind = NODE_KINDS[str(param(params, "nodeKind"))]
    return lambda graph, v: kind(v)


# The section's components, for SHACL Core's table (shacl/core/).
COMPONENTS: tuple[Native, ...] = (_class, _datatype, _node_kind)
