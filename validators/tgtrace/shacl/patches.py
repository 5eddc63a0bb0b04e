"""Where the reference engine changes rdflib and pySHACL while it runs: every patch of their
classes and modules, in one place, each restored when the run ends.

Each patch makes pySHACL faster and leaves its results as they are (its docstring says why). They
reach into the internals of the versions they were written against, so they apply only to those
(``PATCHED_PYSHACL``): with any other pySHACL the reference engine runs pySHACL stock, correct
and slower, and says so once on standard error. ``TGTRACE_STOCK_PYSHACL=1`` runs it stock on
purpose, so that the reference can itself be checked against its own reference (the tests compare
the two on every example).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Collection, Generator, Iterable, Iterator, Mapping
from contextlib import ExitStack, contextmanager
from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING, Any

from rdflib.paths import MulPath

from .paths import _one_step, algebra_nodes, cycles_of_one_variable, forget_step_indexes, nearest_of_type, step_index

if TYPE_CHECKING:
    from pyshacl.constraints.constraint_component import CustomConstraintComponent
    from pyshacl.helper.sparql_query_helper import SPARQLQueryHelper
    from pyshacl.shape import Shape
    from rdflib.graph import Graph
    from rdflib.plugins.sparql.parserutils import CompValue, Expr
    from rdflib.plugins.sparql.processor import SPARQLProcessor
    from rdflib.plugins.sparql.sparql import FrozenBindings, FrozenDict, Query
    from rdflib.term import Identifier, Literal, Node, URIRef, Variable

    from .paths import Algebra

# The pySHACL releases (major.minor) whose internals the patches were written against and tested on.
PATCHED_PYSHACL = ("0.40",)
# Set to 1 to run pySHACL with none of the patches.
STOCK_ENV = "TGTRACE_STOCK_PYSHACL"
_told: list[str] = []


def pyshacl_version() -> str:
    try:
        return version("pyshacl")
    except PackageNotFoundError:  # pragma: no cover - pySHACL is a dependency
        return "unknown"


def patched() -> bool:
    """Whether the reference engine runs pySHACL patched: not asked to run it stock, and a pySHACL
    the patches were written for (else a note, once, on standard error)."""
    if os.environ.get(STOCK_ENV, "") not in ("", "0"):
        return False
    installed = pyshacl_version()
    if ".".join(installed.split(".")[:2]) in PATCHED_PYSHACL:
        return True
    if not _told:
        _told.append(installed)
        sys.stderr.write(f"tg-trace: pySHACL {installed} is not a release the reference engine's speed-ups "
                         f"were written for ({', '.join(PATCHED_PYSHACL)}): running it stock (slower)\n")
    return False


@contextmanager
def speedups() -> Iterator[bool]:
    """Every patch while the block runs, where ``patched()`` allows them; yields whether they apply."""
    if not patched():
        yield False
        return
    with ExitStack() as stack:
        for patch in (each_query_parsed_once, shape_lookups_indexed, indexed_transitive_paths,
                      filters_evaluated_first, results_without_text, nested_verdicts_once):
            stack.enter_context(patch())
        yield True


_PREPARED: dict = {}  # kept for the process: the shapes' queries are the same for every input


@contextmanager
def each_query_parsed_once() -> Iterator[None]:
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

    def query(self: SPARQLProcessor, strOrQuery: str | Query, initBindings: Mapping[str, Identifier] | None = None,
              initNs: Mapping[str, Any] | None = None, base: str | None = None,
              DEBUG: bool = False) -> Mapping[str, Any]:
        if isinstance(strOrQuery, str):
            key = (strOrQuery, base, tuple(sorted((initNs or {}).items())))
            if key not in prepared:
                prepared[key] = processor.translateQuery(processor.parseQuery(strOrQuery), base, initNs)
                _lazy_exists(prepared[key].algebra)
                nearest_of_type(prepared[key].algebra)
                cycles_of_one_variable(prepared[key].algebra)
                _remember_exists(prepared[key].algebra)
            strOrQuery = prepared[key]
        return original(self, strOrQuery, initBindings, initNs, base, DEBUG)

    # pySHACL also checks each query's text against SHACL's syntax rules with regular expressions
    # before every run (about a millisecond a focus node): the verdict depends on the text alone.
    from pyshacl.helper.sparql_query_helper import SPARQLQueryHelper

    original_check = SPARQLQueryHelper.check_invalid_sparql
    checked: set = set()

    def check_invalid_sparql(self: SPARQLQueryHelper, sparql_text: str, valuenode: Node | None = None,
                             extravars: Collection[str] | None = None) -> bool:
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
        forget_step_indexes()
        processor.SPARQLProcessor.query = original  # type: ignore[method-assign]
        SPARQLQueryHelper.check_invalid_sparql = original_check  # type: ignore[method-assign]


class _Members(list):
    """pySHACL's list of constraint parameters, looked up as a set: it tests every predicate of
    a shape against the list each time the shape validates a node (a linear scan of URIRef
    comparisons). Same members, same order; only membership is faster."""

    def __init__(self, items: Iterable[URIRef] = ()) -> None:
        super().__init__(items)
        self._members = set(self)

    def __contains__(self, item: object) -> bool:
        return item in self._members

    def copy(self) -> _Members:
        return _Members(self)

    def append(self, item: URIRef) -> None:
        super().append(item)
        self._members.add(item)


@contextmanager
def shape_lookups_indexed() -> Iterator[None]:
    """While pySHACL runs, what a shape looks up about itself in the shapes graph is looked up once
    per shape: its custom constraint components (the shapes graph does not change during a run)
    and whether a predicate is a constraint parameter. Results are unchanged."""
    from pyshacl import shape as shape_module
    from pyshacl.constraints import ALL_CONSTRAINT_PARAMETERS, CONSTRAINT_PARAMETERS_MAP

    original_find = shape_module.Shape.find_custom_constraints
    found: dict = {}

    def find_custom_constraints(self: Shape) -> set[CustomConstraintComponent]:
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


def _remember_exists(node: Algebra) -> None:
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

    for current in algebra_nodes(node):
        if isinstance(current, CompValue) and current.name in ("Builtin_EXISTS", "Builtin_NOTEXISTS"):
            variables, repeatable = _variables_of(current.__dict__.get("graph"), CompValue, Variable)
            evaluate = getattr(current, "_evalfn", None)
            if repeatable and evaluate is not None and not getattr(evaluate, "remembered", False):
                current._evalfn = _remembering(current, evaluate, tuple(variables))


def _variables_of(pattern: Algebra, compvalue: type[CompValue], variable: type[Variable]) -> tuple[set, bool]:
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


def _remembering(node: CompValue, evaluate: Callable[[FrozenBindings], Literal],
                 variables: tuple[Variable, ...]) -> Callable[[FrozenBindings], Literal]:
    def value(ctx: FrozenBindings, name: Variable) -> Identifier | None:
        try:
            return ctx[name]
        except (KeyError, TypeError):  # unbound (rdflib looks in the initial bindings last)
            return None

    def remembered(ctx: FrozenBindings) -> Literal:
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
def filters_evaluated_first() -> Iterator[None]:
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

    def ebv(expr: Literal | Variable | Expr, ctx: FrozenDict) -> bool:
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


def _lazy_exists(node: Algebra) -> None:
    """Mark the joins of every (NOT) EXISTS pattern in a translated query lazy where rdflib's
    ``analyse`` would, nested EXISTS included."""
    from rdflib.plugins.sparql.algebra import _traverseAgg, analyse
    from rdflib.plugins.sparql.parserutils import CompValue

    for current in algebra_nodes(node):
        if isinstance(current, CompValue) and current.name in ("Builtin_EXISTS", "Builtin_NOTEXISTS"):
            pattern = current.__dict__.get("graph")  # the translated pattern, set as an attribute
            if isinstance(pattern, CompValue):
                _traverseAgg(pattern, visitor=analyse)



@contextmanager
def indexed_transitive_paths() -> Iterator[None]:
    """Evaluate p+ and p* from indexes while the block runs (rdflib's MulPath.eval patched)."""
    original = MulPath.eval

    def evaluate(self: MulPath, graph: Graph, subj: Node | None = None, obj: Node | None = None,
                 first: bool = True) -> Generator[tuple[Node, Node], None, None]:
        # The same tests of subj and obj as rdflib's (truth values, not None checks).
        if not first or not self.more or not (subj or obj) or not _one_step(self.path):
            yield from original(self, graph, subj, obj, first)  # p?, or every pair: rdflib's own
            return
        if self.zero:
            if subj and obj:
                if subj == obj:
                    yield subj, obj
            elif subj:
                yield subj, subj
            else:
                yield obj, obj  # type: ignore[misc]  # not None: subj or obj is set
        index = step_index(graph, self.path)
        if subj and obj:
            if index.reaches(subj, obj):
                yield subj, obj
        elif subj:
            for node in index.reachable(subj, index.forward):
                yield subj, node
        else:
            for node in index.reachable(obj, index.backward):
                yield node, obj  # type: ignore[misc]  # not None: subj or obj is set

    MulPath.eval = evaluate  # type: ignore[method-assign]  # patched for the run, restored after
    try:
        yield
    finally:
        MulPath.eval = original  # type: ignore[method-assign]
        forget_step_indexes()


@contextmanager
def results_without_text() -> Iterator[None]:
    """While pySHACL runs, a validation result is made without its text.

    For each result (the ones a shape nested in sh:or, sh:not or sh:node makes and drops
    included) pySHACL writes a description, every node of it formatted, and its validation report
    adds each one to the text of the report, a string copied at every addition: quadratic in the
    findings (a ReAct loop of 4,000 links and 12,000 findings spent a third of its time there).
    The reference engine reads the report's graph, which is made as before, and never its text."""
    from pyshacl.constraints.constraint_component import ConstraintComponent

    original = ConstraintComponent.make_v_result_description

    def description(self: ConstraintComponent, *args: object, **kwargs: object) -> str:
        return ""

    ConstraintComponent.make_v_result_description = description  # type: ignore[method-assign]  # patched for the run, restored after
    try:
        yield
    finally:
        ConstraintComponent.make_v_result_description = original  # type: ignore[method-assign]


_NESTED_VERDICTS: dict = {}


@contextmanager
def nested_verdicts_once() -> Iterator[None]:
    """While pySHACL runs, a shape nested in sh:or, sh:and, sh:not, sh:xone or
    sh:qualifiedValueShape gives its verdict on a node once, and sh:or and sh:and stop at the
    first member that decides.

    pySHACL discards what such a nested shape reports (it only logs it) and keeps whether it
    conforms, yet validates it anew at each use: a step's pipeline (S022) asked the same
    Question-type shapes of the same ancestors from four members of one sh:and, evaluated in full
    even after the first had decided. The verdict of a shape on a node depends on nothing else
    while the graph does not change, so the reference engine's results are unchanged; a shape
    that is a top-level target's, or an sh:property or sh:node of one, reports as before."""
    from pyshacl.constraints.core import logical_constraints as logical
    from pyshacl.constraints.core import shape_based_constraints as shape_based
    from pyshacl.shape import Shape
    from rdflib.term import IdentifiedNode
    from rdflib.term import Literal as RdfLiteral

    original_validate = Shape.validate
    inside = [0]  # nesting depth of verdict-only evaluations

    def validate(self: Shape, executor: Any, target_graph: Any, focus: Any = None,
                 _evaluation_path: Any = None) -> Any:
        if not inside[0] or not isinstance(focus, (IdentifiedNode, RdfLiteral)):  # one node, as pySHACL tells it
            return original_validate(self, executor, target_graph, focus, _evaluation_path)
        key = (id(self), id(target_graph), focus)
        entry = _NESTED_VERDICTS.get(key)
        if entry is None or entry[0] is not self or entry[1] is not target_graph:
            verdict = original_validate(self, executor, target_graph, focus, _evaluation_path)
            entry = _NESTED_VERDICTS[key] = (self, target_graph, verdict)  # both kept: their ids stay theirs
        return entry[2]

    def verdict_only(method: Callable[..., Any]) -> Callable[..., Any]:
        def evaluate(*args: Any, **kwargs: Any) -> Any:
            inside[0] += 1
            try:
                return method(*args, **kwargs)
            finally:
                inside[0] -= 1
        return evaluate

    def deciding_first(component: Any, decides: bool) -> Callable[..., Any]:
        """sh:or (a member that conforms decides) or sh:and (one that does not), its members in
        the shapes graph's order, stopping at the first that decides; the result as pySHACL's."""
        def evaluate(self: Any, executor: Any, members: Any, target_graph: Any, focus_value_nodes: Any,
                     _evaluation_path: Any) -> tuple[bool, list]:
            shapes = []
            for node in self.shape.sg.graph.items(members):
                if self.shape.sg.is_filtered_out_shape(node):
                    continue
                member = self.shape.get_other_shape(node)
                if not member:
                    return original[component](self, executor, members, target_graph, focus_value_nodes, _evaluation_path)  # pySHACL's own error
                if member not in shapes:
                    shapes.append(member)
            if not shapes:
                return False, []
            reports, non_conformant = [], False
            for focus, values in focus_value_nodes.items():
                for value in values:
                    found = any(bool(member.validate(executor, target_graph, focus=value,
                                                     _evaluation_path=_evaluation_path[:])[0]) is decides
                                for member in shapes)
                    if found is not decides:
                        non_conformant = True
                        reports.append(self.make_v_result(target_graph, focus, value_node=value))
            return non_conformant, reports
        return evaluate

    methods = [(logical.OrConstraintComponent, "_evaluate_or_constraint"),
               (logical.AndConstraintComponent, "_evaluate_and_constraint"),
               (logical.NotConstraintComponent, "_evaluate_not_constraint"),
               (logical.XoneConstraintComponent, "_evaluate_xone_constraint"),
               (shape_based.QualifiedValueShapeConstraintComponent, "_evaluate_value_shape")]
    original = {component: getattr(component, name) for component, name in methods}
    replaced = {logical.OrConstraintComponent: deciding_first(logical.OrConstraintComponent, True),
                logical.AndConstraintComponent: deciding_first(logical.AndConstraintComponent, False)}
    Shape.validate = validate  # type: ignore[method-assign]  # patched for the run, restored after
    for component, name in methods:
        setattr(component, name, verdict_only(replaced.get(component, original[component])))
    try:
        yield
    finally:
        Shape.validate = original_validate  # type: ignore[method-assign]
        for component, name in methods:
            setattr(component, name, original[component])
        _NESTED_VERDICTS.clear()
