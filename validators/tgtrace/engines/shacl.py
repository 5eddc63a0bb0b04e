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
from contextlib import contextmanager
from functools import cache

import pyoxigraph as ox
import rdflib
from rdflib.namespace import RDF

from ..graph import TraceGraph, key_from_rdflib, term, to_rdflib
from ..model import Hit
from ..namespaces import SH
from ..shapes import ShapesModel
from .paths import indexed_transitive_paths, nearest_of_type
from .sparql import refuse_services


class ToRdflib:
    """The trace graph as an rdflib graph, and back (triple terms via reification)."""

    def __init__(self) -> None:
        self.graph = rdflib.Graph()
        self.back: dict = {}

    def add(self, s, p, o) -> None:
        self.graph.add((self.term(s), rdflib.URIRef(p), self.term(o)))

    def term(self, node):
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

    def key(self, node):
        if node is None:
            return None
        if node in self.back:
            return self.back[node]
        return key_from_rdflib(node)


_PREPARED: dict = {}  # kept for the process: the shapes' queries are the same for every input


@contextmanager
def _each_query_parsed_once():
    """Parse (and check) each SPARQL text once while pySHACL runs.

    pySHACL hands rdflib a SPARQL constraint as text once per focus node, and
    rdflib parses text on every call: on large inputs most of the reference
    engine's time went to pyparsing. The parsed and translated query is what
    rdflib's own prepareQuery gives for repeated execution with different
    initial bindings, so the results are unchanged.

    The graph patterns of (NOT) EXISTS are translated into an attribute that
    rdflib's own pass over the query never visits, so their joins are never
    marked lazy: each EXISTS built the whole set of its pattern's solutions
    (every ancestor of the focus for ``prov:wasDerivedFrom+``) before looking
    at the first. :func:`_lazy_exists` runs that pass (rdflib's ``analyse``)
    on them; a lazy join is rdflib's nested loop, with the same solutions.
    """
    # rdflib's SPARQL engine (a pyparsing grammar, a third of a second to import) is only
    # needed when the reference engine runs.
    from rdflib.plugins.sparql import processor

    original = processor.SPARQLProcessor.query
    prepared = _PREPARED

    def query(self, strOrQuery, initBindings=None, initNs=None, base=None, DEBUG=False):
        if isinstance(strOrQuery, str):
            key = (strOrQuery, base, tuple(sorted((initNs or {}).items())))
            if key not in prepared:
                prepared[key] = processor.translateQuery(processor.parseQuery(strOrQuery), base, initNs)
                _lazy_exists(prepared[key].algebra)
                nearest_of_type(prepared[key].algebra)
                _remember_exists(prepared[key].algebra)
            strOrQuery = prepared[key]
        return original(self, strOrQuery, initBindings, initNs, base, DEBUG)

    # pySHACL also checks each query's text against SHACL's syntax rules with regular expressions
    # before every run (about a millisecond a focus node): the verdict depends on the text alone.
    from pyshacl.helper.sparql_query_helper import SPARQLQueryHelper

    original_check = SPARQLQueryHelper.check_invalid_sparql
    checked: set = set()

    def check_invalid_sparql(self, sparql_text, valuenode=None, extravars=None):
        key = (sparql_text, valuenode is not None, frozenset(extravars or ()))
        if key not in checked:
            original_check(self, sparql_text, valuenode, extravars)  # raises on a query SHACL forbids
            checked.add(key)
        return True

    processor.SPARQLProcessor.query = query  # type: ignore[method-assign]  # patched for the run, restored after
    SPARQLQueryHelper.check_invalid_sparql = check_invalid_sparql  # type: ignore[method-assign]
    _EXISTS_VERDICTS["run"] = {}
    try:
        yield
    finally:
        _EXISTS_VERDICTS.pop("run", None)
        processor.SPARQLProcessor.query = original  # type: ignore[method-assign]
        SPARQLQueryHelper.check_invalid_sparql = original_check  # type: ignore[method-assign]


class _Members(list):
    """pySHACL's list of constraint parameters, looked up as a set: it tests every predicate of
    a shape against the list each time the shape validates a node (a linear scan of URIRef
    comparisons). Same members, same order; only membership is faster."""

    def __init__(self, items=()):
        super().__init__(items)
        self._members = set(self)

    def __contains__(self, item) -> bool:
        return item in self._members

    def copy(self) -> _Members:
        return _Members(self)

    def append(self, item) -> None:
        super().append(item)
        self._members.add(item)


@contextmanager
def _shape_lookups_indexed():
    """While pySHACL runs, what a shape looks up about itself in the shapes graph is looked up once
    per shape: its custom constraint components (the shapes graph does not change during a run)
    and whether a predicate is a constraint parameter. Results are unchanged."""
    from pyshacl import shape as shape_module
    from pyshacl.constraints import ALL_CONSTRAINT_PARAMETERS, CONSTRAINT_PARAMETERS_MAP

    original_find = shape_module.Shape.find_custom_constraints
    found: dict = {}

    def find_custom_constraints(self):
        if id(self) not in found:
            found[id(self)] = (self, original_find(self))  # the shape is kept, so its id stays its own
        return found[id(self)][1]

    previous = getattr(shape_module, "CONSTRAINT_PARAMS", None)
    shape_module.Shape.find_custom_constraints = find_custom_constraints  # type: ignore[method-assign]  # patched for the run, restored after
    shape_module.CONSTRAINT_PARAMS = (_Members(ALL_CONSTRAINT_PARAMETERS), CONSTRAINT_PARAMETERS_MAP)  # type: ignore[attr-defined]
    try:
        yield
    finally:
        shape_module.Shape.find_custom_constraints = original_find  # type: ignore[method-assign]
        if previous is None:
            del shape_module.CONSTRAINT_PARAMS  # type: ignore[attr-defined]
        else:
            shape_module.CONSTRAINT_PARAMS = previous  # type: ignore[attr-defined]


# The verdicts of (NOT) EXISTS while a run lasts, by the pattern and the values of its variables.
_EXISTS_VERDICTS: dict = {}
_NOT_REPEATABLE = {"Builtin_RAND", "Builtin_NOW", "Builtin_UUID", "Builtin_STRUUID", "Builtin_BNODE",
                   "ServiceGraphPattern"}


def _remember_exists(node) -> None:
    """Have each (NOT) EXISTS in a translated query give its verdict once per run for the same
    values of its pattern's variables.

    An EXISTS pattern's verdict depends on nothing but the graph (which does not change while
    pySHACL runs) and the values of the variables it mentions; rdflib evaluates it anew for every
    solution it filters, so a query that filters every triple of the graph (the vocabulary rules'
    target) evaluated the same three patterns for every triple, and pySHACL ran that query once
    per shape. Patterns whose result may differ between evaluations (RAND, NOW, UUID, BNODE) are
    left alone."""
    from rdflib.plugins.sparql.parserutils import CompValue
    from rdflib.term import Variable

    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, CompValue):
            if current.name in ("Builtin_EXISTS", "Builtin_NOTEXISTS"):
                pattern = current.__dict__.get("graph")
                variables, repeatable = _variables_of(pattern, CompValue, Variable)
                evaluate = getattr(current, "_evalfn", None)
                if repeatable and evaluate is not None and not getattr(evaluate, "remembered", False):
                    current._evalfn = _remembering(current, evaluate, tuple(variables))
                stack.append(pattern)
            stack.extend(v for v in current.values() if v is not None)
        elif isinstance(current, (list, tuple)):
            stack.extend(current)


def _variables_of(pattern, compvalue, variable) -> tuple[set, bool]:
    """Every variable a translated pattern mentions, nested patterns included, and whether its
    verdict is the same each time for the same values of them."""
    found: set = set()
    stack = [pattern]
    while stack:
        current = stack.pop()
        if isinstance(current, variable):
            found.add(current)
        elif isinstance(current, compvalue):
            if current.name in _NOT_REPEATABLE:
                return found, False
            if "graph" in current.__dict__:
                stack.append(current.__dict__["graph"])
            stack.extend(current.values())
        elif isinstance(current, (list, tuple, set, frozenset)):
            stack.extend(current)
    return found, True


def _remembering(node, evaluate, variables: tuple):
    def value(ctx, name):
        try:
            return ctx[name]
        except (KeyError, TypeError):  # unbound (rdflib looks in the initial bindings last)
            return None

    def remembered(ctx):
        verdicts = _EXISTS_VERDICTS.get("run")
        if verdicts is None:
            return evaluate(ctx)
        graph = ctx.ctx.graph
        key = (id(node), id(graph), tuple(value(ctx, name) for name in variables))
        entry = verdicts.get(key)
        if entry is None or entry[0] is not graph:
            entry = verdicts[key] = (graph, evaluate(ctx))  # the graph kept, so its id stays its own
        return entry[1]

    remembered.remembered = True  # type: ignore[attr-defined]  # a mark on the function: wrapped once
    return remembered


@contextmanager
def _filters_evaluated_first():
    """While pySHACL runs, rdflib judges a FILTER's expression by evaluating it first.

    rdflib's filter test (``_ebv``) first asks whether the expression, unevaluated, is itself a
    boolean; for an expression it never is, and the refusal formats the whole expression tree
    as text, for every solution filtered (a twentieth of the reference engine's time on long
    chains). Evaluating the expression straight away gives the same verdict, errors included."""
    from rdflib.plugins.sparql import evaluate, evalutils
    from rdflib.plugins.sparql.operators import EBV
    from rdflib.plugins.sparql.parserutils import Expr
    from rdflib.plugins.sparql.sparql import SPARQLError

    original = evalutils._ebv

    def ebv(expr, ctx):
        if not isinstance(expr, Expr):
            return original(expr, ctx)  # a literal or a variable: rdflib's own test
        try:
            return EBV(expr.eval(ctx))
        except SPARQLError:
            return False  # an error filters the solution out, as in rdflib

    evalutils._ebv = evaluate._ebv = ebv
    try:
        yield
    finally:
        evalutils._ebv = evaluate._ebv = original


def _lazy_exists(node) -> None:
    """Mark the joins of every (NOT) EXISTS pattern in a translated query lazy where rdflib's
    ``analyse`` would, nested EXISTS included."""
    from rdflib.plugins.sparql.algebra import _traverseAgg, analyse
    from rdflib.plugins.sparql.parserutils import CompValue

    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, CompValue):
            if current.name in ("Builtin_EXISTS", "Builtin_NOTEXISTS"):
                pattern = current.__dict__.get("graph")  # the translated pattern, set as an attribute
                if isinstance(pattern, CompValue):
                    _traverseAgg(pattern, visitor=analyse)
                    stack.append(pattern)
            stack.extend(v for v in current.values() if v is not None)
        elif isinstance(current, (list, tuple)):
            stack.extend(current)


def _with_deep_stack(function, depth: int):
    """Run function where recursion as deep as the graph is long cannot overflow.

    rdflib evaluates a property path such as prov:wasDerivedFrom+ by recursion, one level per
    link, where paths.py leaves it to rdflib (neither end bound), so a long derivation chain
    could exceed Python's recursion limit (and, raised alone, the C stack). The function runs
    in a thread with a stack sized for the depth."""
    outcome: dict = {}
    limit = max(sys.getrecursionlimit(), 4 * depth + 10_000)

    def run():
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
def _literal_casts_unlogged():
    """rdflib logs every literal whose text does not fit its datatype, with a traceback, on
    standard error: the input's text, raw, where the exit contract allows one line. Such a
    literal is a finding of the rules (D002, D003), not a log line."""
    logger = logging.getLogger("rdflib.term")
    before, logger.disabled = logger.disabled, True
    try:
        yield
    finally:
        logger.disabled = before


def check(graph: TraceGraph, shapes: ShapesModel, codes: frozenset[str] | None = None) -> list[Hit]:
    """Validate with pySHACL; the graph already holds the ontology's declarations.

    shapes: the shapes as the caller runs them (the opt-in rules it selected activated);
    codes: the rules to evaluate (None: all)."""
    import pyshacl  # imported when the reference engine is asked for: it loads slowly

    refuse_services(shapes)  # before pySHACL could run one
    converter = ToRdflib()
    with _literal_casts_unlogged():
        for s, p, o in graph.triples():
            converter.add(s, p, o)
    def validate():
        with _each_query_parsed_once(), _shape_lookups_indexed(), indexed_transitive_paths(), _literal_casts_unlogged(), \
                _filters_evaluated_first():
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
