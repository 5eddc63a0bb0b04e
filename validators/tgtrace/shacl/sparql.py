"""SHACL-SPARQL evaluated with pyoxigraph, for what no native component implements.

A shapes file may hold a SHACL-SPARQL rule (sh:sparql) or declare a
constraint component with a SPARQL validator that the engine has no Python
for. Such a rule is correct the moment it is written: its query runs here,
over the trace its focus node belongs to (each trace gets its own small
pyoxigraph store, holding the trace's triples and the ontology declarations),
with $this, $value, $currentShape, $shapesGraph and the parameters pre-bound
as SHACL-SPARQL defines it (SHACL 1.0, Appendix A) and $PATH replaced by the
shape's path. The shipped rules never come here (the benchmark would show
it): every one of them uses a component with a native implementation, which
the tests prove equal to its SPARQL.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, NoReturn

import pyoxigraph as ox
import rdflib

from ..ground.graph import Node, TraceGraph, from_rdflib, key, term
from ..ground.namespaces import SH
from .shapes import ShapesError, ShapesModel

# The name $shapesGraph is bound to: the shapes graph is loaded as this named graph when a query uses it.
SHAPES_GRAPH = "urn:x-tgtrace:shapes-graph"
# Pre-bound in every query besides its own bindings; a subquery need not return them (Appendix A).
OPTIONAL_PREBOUND = frozenset({"shapesGraph", "currentShape"})


# ------------------------------------------------------------------ pre-binding
#
# SHACL pre-binds a variable everywhere in the query: nested groups, BIND,
# FILTER and subqueries included. pyoxigraph's `substitutions` binds it at the
# top only (an inner { FILTER (bound($this)) } sees it unbound), so IRIs and
# literals are written into the query text instead; blank nodes and triple
# terms, which query text cannot name, keep `substitutions`. To write them in
# safely the query is cut into tokens (strings, comments and IRIs stay whole),
# which also finds the constructs SHACL forbids.

_TOKEN = re.compile("|".join((
    r"(?P<space>\s+)",
    r"(?P<comment>#[^\r\n]*)",
    r"(?P<string>" + "|".join((
        r'"""(?:[^"\\]|\\.|"(?!""))*"""',
        r"'''(?:[^'\\]|\\.|'(?!''))*'''",
        r'"(?:[^"\\\r\n]|\\.)*"',
        r"'(?:[^'\\\r\n]|\\.)*'")) + ")",
    r"(?P<iri><[^<>\"{}|^`\\\x00-\x20]*>)",
    r"(?P<var>[?$][\w\u00B7\u0300-\u036F\u203F\u2040]+)",
    # A prefixed name (one token, so that ex:values is no keyword), a keyword or name, a number.
    r"(?P<word>(?:[^\W\d][\w.-]*)?:(?:[\w.:%-]|\\.)*|[^\W\d][\w-]*|\d[\w.]*)",
    r"(?P<other>.)")), re.DOTALL)
_IRI = re.compile(r"[^<>\"{}|^`\\\x00-\x20]*")
_FORBIDDEN = {"MINUS", "VALUES", "SERVICE"}


@dataclass(frozen=True)
class _Prepared:
    # (text, variable name or None[, text when written in]): the query, its pre-bindable variables marked
    parts: tuple
    names: frozenset  # every variable the query mentions
    returns: frozenset | None  # the variables a SELECT query returns; None: all (SELECT *) or not a SELECT
    insert_at: int | None  # where in parts more variables to return go (after SELECT [DISTINCT])


def _fail(what: str) -> NoReturn:
    raise ShapesError(f"a SPARQL query {what}, which SHACL-SPARQL does not allow (SHACL 1.0, Appendix A)")


@lru_cache(maxsize=1024)
def _prepare(text: str, prebound: frozenset) -> _Prepared:
    """The query cut into parts, once its syntax passes the rules of SHACL 1.0, Appendix A."""
    tokens = [(m.lastgroup, m.group()) for m in _TOKEN.finditer(text)]
    significant = [i for i, (kind, _) in enumerate(tokens) if kind not in ("space", "comment")]
    kept: set = set()  # indexes of variables left as variables (see below)
    bounds: dict = {}  # index of a BOUND keyword -> (index of its ")", the variable's name)
    depth = braces = 0
    mode = None  # "projection" (after SELECT) or "modifier" (after GROUP BY / ORDER BY)
    mode_depth, projected, star, nested = 0, set[str](), False, False
    returns, insert_after = None, None
    for n, i in enumerate(significant):
        kind, value = tokens[i]
        word = value.upper() if kind == "word" else None
        after = tokens[significant[n + 1]] if n + 1 < len(significant) else (None, "")
        before = tokens[significant[n - 1]][1].upper() if n else ""
        if word in _FORBIDDEN:
            _fail(f"uses {word}")
        if word == "AS" and after[0] == "var" and after[1][1:] in prebound:
            _fail(f"assigns the pre-bound variable {after[1]} (AS {after[1]})")
        if mode == "projection" and depth == mode_depth and (word in ("WHERE", "FROM") or value == "{"):
            if nested:
                # A subquery returns every pre-bound variable; SELECT * does not (w3c/data-shapes#84).
                if star:
                    _fail("has a subquery with SELECT *")
                missing = sorted(prebound - OPTIONAL_PREBOUND - projected)
                if missing:
                    _fail("has a subquery that does not return the pre-bound " + ", ".join("$" + m for m in missing))
            elif not star:
                returns = frozenset(projected)
            mode = None
        elif mode == "modifier" and depth == mode_depth and (word in ("HAVING", "LIMIT", "OFFSET") or value in "{}"):
            mode = None
        if word == "SELECT":
            mode, mode_depth, projected, star, nested = "projection", depth, set(), False, braces > 0
            if not nested:
                insert_after = significant[n + 1] if after[1].upper() in ("DISTINCT", "REDUCED") else i
        elif word in ("GROUP", "ORDER") and after[1].upper() == "BY":
            mode, mode_depth = "modifier", depth
        elif mode == "projection" and value == "*" and depth == mode_depth:
            star = True
        elif kind == "var" and mode is not None and (depth == mode_depth or before == "AS"):
            # What a query returns, groups or orders by stays a variable (a constant is no SELECT
            # or GROUP BY item); unbound there, it gives the same solutions.
            projected.add(value[1:])
            kept.add(i)
        elif kind == "var" and before == "(" and n >= 2 and tokens[significant[n - 2]][1].upper() == "BOUND" \
                and after[1] == ")":
            bounds[significant[n - 2]] = (significant[n + 1], value[1:])
        depth += (value == "(") - (value == ")")
        braces += (value == "{") - (value == "}")

    parts, names, pending, insert_at = [], set(), list[str](), None
    significant_set = set(significant)
    i = 0
    while i < len(tokens):
        kind, value = tokens[i]
        if i in bounds:
            # BOUND takes a variable, not a term: once written in, a pre-bound variable's
            # BOUND(...) is (true), bracketed as FILTER needs it.
            end, name = bounds[i]
            names.add(name)
            parts += [("".join(pending), None), ("".join(v for _, v in tokens[i:end + 1]), name, "(true)")]
            pending, i = [], end + 1
            continue
        if kind == "var" and i in significant_set:
            names.add(value[1:])
            if i not in kept:
                parts += [("".join(pending), None), (value, value[1:])]
                pending, i = [], i + 1
                continue
        pending.append(value)
        if i == insert_after:
            parts.append(("".join(pending), None))
            pending, insert_at = [], len(parts)
        i += 1
    parts.append(("".join(pending), None))
    return _Prepared(tuple(parts), frozenset(names), returns, insert_at)


def refuse_services(model: ShapesModel) -> None:
    """Raise ShapesError when any SPARQL text of the shapes (constraints, components' validators,
    targets) uses SERVICE, whichever engine runs and whether or not it runs that text: a rule
    must never fetch anything from the network, and pySHACL would run the query as written."""
    graph = model.graph
    for predicate in (SH + "select", SH + "ask"):
        for node, text in graph.subject_objects(rdflib.URIRef(predicate)):
            if any(m.lastgroup == "word" and m.group().upper() == "SERVICE" for m in _TOKEN.finditer(str(text))):
                owner = node if isinstance(node, rdflib.URIRef) else next(graph.subjects(None, node), node)
                raise ShapesError(f"{model.name(owner)}: a SPARQL query uses SERVICE, which tg-trace never runs "
                                  "(no rule may fetch anything from the network)")


def _written(value: Node) -> str | None:
    """A key as SPARQL text, or None when query text cannot name it (blank nodes, triple terms)."""
    if type(value) is str:
        return f"<{value}>" if not value.startswith("_:") and _IRI.fullmatch(value) else None
    if type(value) is ox.Literal:
        return str(value)  # N-Triples form, which SPARQL reads
    return None


class SparqlRunner:
    """Per-trace pyoxigraph stores over one graph, built when first asked for."""

    def __init__(self, graph: TraceGraph, declared: set, shapes: rdflib.Graph | None = None) -> None:
        self.graph = graph
        self.declared = declared  # subjects of the vocabulary added to the graph: in every store
        self.shapes = shapes  # the shapes graph (rdflib) for $shapesGraph; None leaves it unbound
        self._members: dict | None = None
        self._stores: dict = {}
        self._with_shapes: set = set()  # roots whose store holds the shapes graph

    def _store(self, focus: Node) -> ox.Store:
        graph = self.graph
        if self._members is None:
            members = defaultdict(list)
            for subject in graph.out:
                if subject not in self.declared:
                    members[graph.root_of(subject)].append(subject)
            self._members = members
        root = graph.root_of(focus)
        store = self._stores.get(root)
        if store is None:
            store = self._stores[root] = ox.Store()
            subjects = self._members.get(root, []) + sorted(self.declared, key=str)
            store.extend(ox.Quad(term(s), ox.NamedNode(p), term(o), ox.DefaultGraph())
                         for s in subjects for p, objects in graph.out.get(s, {}).items() for o in objects
                         if not isinstance(term(s), ox.Literal))
        return store

    def _load_shapes(self, focus: Node, store: ox.Store) -> None:
        root = self.graph.root_of(focus)
        if root not in self._with_shapes:
            self._with_shapes.add(root)
            name = ox.NamedNode(SHAPES_GRAPH)
            store.extend(ox.Quad(from_rdflib(s), from_rdflib(p), from_rdflib(o), name)
                         for s, p, o in self.shapes)  # type: ignore[union-attr]  # called with shapes only

    def query(self, text: str, prefixes: dict[str, str], bindings: Mapping[str, Node | None], focus: Node,
              path_sparql: str | None = None) -> Any:
        prepared = _prepare(text, frozenset(bindings) | OPTIONAL_PREBOUND)
        store = self._store(focus)
        if "shapesGraph" in prepared.names and self.shapes is not None:
            self._load_shapes(focus, store)
            bindings = {**bindings, "shapesGraph": SHAPES_GRAPH}
        written, substitutions = {}, {}
        for name, value in bindings.items():
            if value is None or name not in prepared.names:
                continue
            form = _written(value)
            if form is not None:
                written[name] = form
            else:
                substitutions[ox.Variable(name)] = term(value)
        if path_sparql is not None:
            written["PATH"] = path_sparql
        pieces = [part[0] if part[1] not in written else part[2] if len(part) > 2 else written[part[1]]
                  for part in prepared.parts]
        if substitutions and prepared.returns is not None:
            # pyoxigraph substitutes only variables the SELECT returns: return them too.
            missing = [v for v in substitutions if v.value not in prepared.returns]
            pieces.insert(prepared.insert_at, "".join(f" ?{v.value}" for v in missing))  # type: ignore[arg-type]  # set with returns
        text = "".join(pieces)
        return store.query(text, prefixes=prefixes, substitutions=substitutions)

    def select(self, text: str, prefixes: dict[str, str], bindings: Mapping[str, Node | None], focus: Node,
               path_sparql: str | None = None) -> list[dict[str, Node]]:
        """Solutions as {variable name: key}."""
        solutions = self.query(text, prefixes, bindings, focus, path_sparql)
        names = [v.value for v in solutions.variables]
        found = []
        for solution in solutions:
            row = {}
            for name in names:
                value = solution[name]
                if value is not None:
                    row[name] = key(value)
            found.append(row)
        return found

    def ask(self, text: str, prefixes: dict[str, str], bindings: Mapping[str, Node | None], focus: Node,
            path_sparql: str | None = None) -> bool:
        return bool(self.query(text, prefixes, bindings, focus, path_sparql))
