"""The reference engine: pySHACL running the shapes as written.

rdflib cannot hold RDF 1.2 triple terms, so each one becomes a blank node
described as a classic rdf:Statement (rdf:subject, rdf:predicate, rdf:object);
D007 accepts that form as it accepts a triple term. The graph arrives with the
ontology's declarations mixed in (rdf:type and owl:deprecated of every tg:
term, no subclass axioms); no rule reads them any more: the vocabulary rules
take the declared terms from the shapes.
"""

from __future__ import annotations

import hashlib
import logging
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from functools import cache
from typing import TypeVar

import pyoxigraph as ox
import rdflib
from rdflib.namespace import RDF

from ..ground.graph import Node, TraceGraph, key_from_rdflib, term, to_rdflib
from ..ground.model import Hit
from ..ground.namespaces import SH
from .patches import speedups
from .shapes import ShapesModel
from .sparql import refuse_services

_T = TypeVar("_T")


class ToRdflib:
    """The trace graph as an rdflib graph, and back (triple terms via reification)."""

    def __init__(self) -> None:
        self.graph = rdflib.Graph()
        self.back: dict = {}

    def add(self, s: Node, p: str, o: Node) -> None:
        self.graph.add((self.term(s), rdflib.URIRef(p), self.term(o)))

    def term(self, node: object) -> rdflib.term.Node:
        value = term(node)
        if isinstance(value, ox.Triple):
            bnode = rdflib.BNode("t" + hashlib.sha1(str(value).encode()).hexdigest()[:20])
            if bnode not in self.back:
                self.back[bnode] = node
                self.graph.add((bnode, RDF.type, RDF.Statement))
                self.graph.add((bnode, RDF.subject, self.term(value.subject)))
                self.graph.add((bnode, RDF.predicate, self.term(value.predicate)))
                self.graph.add((bnode, RDF.object, self.term(value.object)))
            return bnode
        converted = to_rdflib(value)
        if isinstance(converted, rdflib.BNode):
            self.back[converted] = node
        return converted

    def key(self, node: rdflib.term.Node | None) -> Node | None:
        if node is None:
            return None
        if node in self.back:
            return self.back[node]
        return key_from_rdflib(node)


def _with_deep_stack(function: Callable[[], _T], depth: int) -> _T:
    """Run function where recursion as deep as the graph is long cannot overflow.

    rdflib evaluates a property path such as prov:wasDerivedFrom+ by recursion, one level per
    link, where paths.py leaves it to rdflib (neither end bound), so a long derivation chain
    could exceed Python's recursion limit (and, raised alone, the C stack). The function runs
    in a thread with a stack sized for the depth."""
    outcome: dict = {}
    limit = max(sys.getrecursionlimit(), 4 * depth + 10_000)

    def run() -> None:
        sys.setrecursionlimit(limit)
        try:
            outcome["value"] = function()
        except BaseException as exc:  # handed back to the caller's thread as it is
            outcome["error"] = exc

    previous_size = threading.stack_size()
    previous_limit = sys.getrecursionlimit()
    threading.stack_size(min(max(64 << 20, limit * 2048), 1 << 30))  # about 500 bytes a frame, with room
    try:
        worker = threading.Thread(target=run, name="tgtrace-pyshacl")
        worker.start()
        worker.join()
    finally:
        threading.stack_size(previous_size)
        sys.setrecursionlimit(previous_limit)
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


_TARGETS = [rdflib.URIRef(SH + name) for name in
            ("targetClass", "targetNode", "targetSubjectsOf", "targetObjectsOf", "target")]


@cache
def _shapes_for(shapes: ShapesModel, codes: frozenset[str] | None) -> rdflib.Graph:
    """The shapes graph as tg-trace runs it for the rules, with the targets of shapes that carry
    none of the rules removed: pySHACL then never evaluates them, and shapes other shapes use
    still work where they are used."""
    if codes is None:
        return shapes.graph
    graph = rdflib.Graph()
    graph += shapes.graph  # a copy: the packaged graph is shared
    for shape in shapes.top_level():
        if not shapes.codes_within(shape) & codes:
            for predicate in _TARGETS:
                graph.remove((shape.node, predicate, None))
    return graph


@contextmanager
def _literal_casts_unlogged() -> Iterator[None]:
    """rdflib logs every literal whose text does not fit its datatype, with a traceback, on
    standard error: the input's text, raw, where the exit contract allows one line. Such a
    literal is a finding of the rules (D002, D003), not a log line."""
    logger = logging.getLogger("rdflib.term")
    before, logger.disabled = logger.disabled, True
    try:
        yield
    finally:
        logger.disabled = before


def check(graph: TraceGraph, shapes: ShapesModel, codes: frozenset[str] | None = None,
          stated: Iterable[tuple[Node, str, Node]] = ()) -> list[Hit]:
    """Validate with pySHACL; the graph already holds the ontology's declarations.

    shapes: the shapes as the caller runs them (the opt-in rules it selected activated);
    codes: the rules to evaluate (None: all); stated: statements the data graph holds beside the
    graph's own, of what one graph cannot say (where each subject was written)."""
    import pyshacl  # imported when the reference engine is asked for: it loads slowly

    refuse_services(shapes)  # before pySHACL could run one
    converter = ToRdflib()
    with _literal_casts_unlogged():
        for s, p, o in graph.triples():
            converter.add(s, p, o)
        for s, p, o in stated:
            converter.add(s, p, o)

    def validate() -> tuple[bool, rdflib.Graph, str]:
        with speedups(), _literal_casts_unlogged():
            return pyshacl.validate(converter.graph, shacl_graph=_shapes_for(shapes, codes), advanced=True, inference="none",
                                    allow_warnings=True, allow_infos=True)

    conforms, results, _ = _with_deep_stack(validate, depth=len(converter.graph))
    sh = rdflib.Namespace(SH)
    hits = []
    # Only the report's own results: pySHACL also nests the inner shapes' results as sh:detail.
    for result in results.objects(None, sh.result):
        constraint = results.value(result, sh.sourceConstraint)
        shape = results.value(result, sh.sourceShape)
        code = (shapes.code_of(constraint) if constraint is not None else None) or shapes.code_of(shape)
        if code is None:
            continue  # a shape without a rule code; tg-trace check reports such shapes
        path = results.value(result, sh.resultPath)
        predicate = str(path) if isinstance(path, rdflib.URIRef) else None
        hits.append(Hit(
            code,
            converter.key(results.value(result, sh.focusNode)),
            predicate,
            converter.key(results.value(result, sh.value)),
            shape=shapes.shapes.get(shape),
            component=str(results.value(result, sh.sourceConstraintComponent)),
            # A path other than a predicate is a node of pySHACL's report, not of the shapes.
            result_path=predicate,
            constraint=constraint,
        ))
    return hits
