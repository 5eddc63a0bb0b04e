"""Transitive property paths (p+, p*) for rdflib, evaluated from one index per graph.

rdflib evaluates ``$this prov:wasDerivedFrom+ $this`` by a recursive walk from the
focus node, a new walk for every focus node: on one derivation chain of n links
the reference engine did n walks of up to n steps (1,500 links 11 s, 3,000
links 40 s). While the reference engine runs, the same solutions come from an
index built once per graph and inner path: the one-step relation as adjacency
lists and its strongly connected components (graph.strong_components: Tarjan, iterative).

- both ends bound: a node derives from itself iff its component has more than
  one node or a loop, an answer in constant time; between two components the
  search visits only the components that topological order leaves possible;
- one end bound: a breadth-first walk, lazily, so an EXISTS stops at the first
  solution; one pass at most, with no recursion at all;
- no end bound, or an inner path that is not a predicate, an inverse or an
  alternative of those: rdflib's own evaluation.

The solutions are rdflib's, each (subject, object) once, plus (node, node) for
``*`` as rdflib yields it; only their order differs, which SPARQL leaves open.
The graph must not change while the index is in use: the reference engine's
data graph does not (no inference, no SHACL rules write to it).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from rdflib.graph import Graph
from rdflib.namespace import RDF
from rdflib.paths import AlternativePath, InvPath, MulPath, Path
from rdflib.term import Node, URIRef, Variable

from ..ground.graph import strong_components

if TYPE_CHECKING:
    from typing import TypeAlias

    # A node of rdflib's translated SPARQL algebra: a CompValue read by its name and attributes, a
    # term, a list of them, or None; rdflib's algebra is untyped, so its nodes are taken as they come.
    Algebra: TypeAlias = Any


def _one_step(path: Path | URIRef) -> bool:
    """Whether path is a single step: a predicate, an inverse or alternative of such."""
    if isinstance(path, URIRef):
        return True
    if isinstance(path, InvPath):
        return _one_step(path.arg)
    if isinstance(path, AlternativePath):
        return all(_one_step(arg) for arg in path.args)
    return False


class StepIndex:
    """The one-step relation of a path over one graph, forwards and backwards."""

    def __init__(self, graph: Graph, step: Path | URIRef) -> None:
        forward: dict = {}
        backward: dict = {}
        for s, o in ((s, o) for s, _, o in graph.triples((None, step, None))):
            forward.setdefault(s, []).append(o)
            backward.setdefault(o, []).append(s)
        self.forward = forward
        self.backward = backward
        self._components: dict | None = None
        self._cyclic: set | None = None
        self._forest: tuple | None = None

    def cyclic(self) -> set:
        """The nodes one or more steps from themselves."""
        if self._cyclic is None:
            self._strong_components()
        assert self._cyclic is not None  # _strong_components made it
        return self._cyclic

    def reachable(self, start: object, adjacency: dict) -> Iterator:
        """The nodes one or more steps from start, breadth first, each once."""
        seen = set()
        queue = deque(adjacency.get(start, ()))
        while queue:
            node = queue.popleft()
            if node in seen:
                continue
            seen.add(node)
            yield node
            queue.extend(adjacency.get(node, ()))

    def _strong_components(self) -> None:
        forward = self.forward
        self._components, self._cyclic = strong_components(forward, lambda node: forward.get(node, ()))
        if not self._cyclic and all(len(successors) == 1 for successors in forward.values()):
            self._number_forest()

    def _number_forest(self) -> None:
        # Every node steps to one node at most and nothing loops: the relation is a forest
        # and reach is ancestry, told by the entry and exit numbers of a depth-first walk.
        entry: dict = {}
        exit_: dict = {}
        clock = 0
        backward = self.backward
        for root in backward:
            if root in self.forward:
                continue  # not a root: it steps somewhere
            entry[root] = clock
            clock += 1
            work = [(root, iter(backward.get(root, ())))]
            while work:
                node, children = work[-1]
                child = next(children, None)
                if child is None:
                    work.pop()
                    exit_[node] = clock
                    clock += 1
                else:
                    entry[child] = clock
                    clock += 1
                    work.append((child, iter(backward.get(child, ()))))
        self._forest = (entry, exit_)

    def reaches(self, start: Node, end: Node) -> bool:
        """Whether end is one or more steps from start."""
        if self._components is None:
            self._strong_components()
        components = self._components
        assert components is not None and self._cyclic is not None  # _strong_components made them
        if start not in components or end not in self.backward:
            return False
        if start == end:
            return start in self._cyclic
        target = components.get(end)
        if target is None or target > components[start]:
            return False
        if target == components[start]:
            return True  # two nodes of one component
        if self._forest is not None:
            entry, exit_ = self._forest
            return entry[end] < entry[start] and exit_[start] < exit_[end]
        seen = set()
        queue = deque(self.forward.get(start, ()))
        while queue:
            node = queue.popleft()
            if node == end:
                return True
            if node in seen or components.get(node, -1) < target:
                continue  # a node numbered below end's component cannot reach it
            seen.add(node)
            queue.extend(self.forward.get(node, ()))
        return False


class NearestPath(MulPath):
    """``step+`` from a bound subject, not walked on past nodes of type ``stop``.

    It stands in for ``step+`` where the query keeps only the nearest nodes of type stop (see
    :func:`nearest_of_type`): every solution the query keeps is among these, so the query's
    solutions are unchanged, and the walk costs the distance to the nearest such nodes instead
    of every ancestor. With no subject bound, or the object bound, it is ``step+`` itself.
    """

    def __init__(self, step: URIRef, stop: URIRef) -> None:
        super().__init__(step, "+")
        self.stop = stop

    def eval(self, graph: Graph, subj: Node | None = None, obj: Node | None = None,  # type: ignore[override]
             first: bool = True) -> Iterator[tuple[Node, Node]]:
        if not subj or obj:
            yield from MulPath.eval(self, graph, subj, obj, first)  # the index's, while the engine runs
            return
        rdf_type = RDF.type
        seen = set()
        queue = deque(graph.objects(subj, self.path))
        while queue:
            node = queue.popleft()
            if node in seen:
                continue
            seen.add(node)
            yield subj, node
            if (node, rdf_type, self.stop) not in graph:
                queue.extend(graph.objects(node, self.path))


class CyclePath(MulPath):
    """``step+`` in a triple pattern whose two ends are one variable (``?x p+ ?x``): the nodes on a
    cycle, each paired with itself.

    rdflib evaluates the pattern as every pair ``step+`` relates, neither end bound, and keeps the
    pairs whose ends are the same node: a walk from every node, quadratic on a chain. The pairs of
    a node with itself are exactly the nodes the index finds on a cycle (a strongly connected
    component of more than one node, or a loop), so the pattern's solutions are unchanged. An end
    bound (a node the query already knows) is answered from the index too."""

    def __init__(self, step: Path | URIRef) -> None:
        super().__init__(step, "+")

    def eval(self, graph: Graph, subj: Node | None = None, obj: Node | None = None,  # type: ignore[override]
             first: bool = True) -> Iterator[tuple[Node, Node]]:
        if subj is not None and obj is not None and subj != obj:
            yield from MulPath.eval(self, graph, subj, obj, first)  # two nodes: the index's reach
            return
        index = step_index(graph, self.path)
        node = subj if subj is not None else obj
        if node is not None:
            if node in index.cyclic():
                yield node, node
            return
        for node in index.cyclic():
            yield node, node


_STEP_INDEXES: dict = {}  # (id of graph, inner path) -> (graph, StepIndex), while the engine runs


def step_index(graph: Graph, step: Path | URIRef) -> StepIndex:
    """The index of ``step`` over ``graph``, made once while the engine runs (the graph kept
    alive beside it, so that its id names no other graph)."""
    key = (id(graph), repr(step))
    entry = _STEP_INDEXES.get(key)
    if entry is None or entry[0] is not graph:
        entry = _STEP_INDEXES[key] = (graph, StepIndex(graph, step))
    return entry[1]


def forget_step_indexes() -> None:
    """Once the engine has run: the graphs and their indexes let go."""
    _STEP_INDEXES.clear()


def algebra_nodes(node: Algebra) -> Iterator[Any]:
    """Each node of a translated query once, the pattern of every (NOT) EXISTS included (rdflib
    keeps it as an attribute of the expression, not among its values)."""
    stack = [node]
    seen = set()
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        if getattr(current, "name", None) in ("Builtin_EXISTS", "Builtin_NOTEXISTS"):
            stack.append(current.__dict__.get("graph"))
        if isinstance(current, dict):
            stack.extend(value for value in current.values() if value is not None)
        elif isinstance(current, (list, tuple)):
            stack.extend(current)


def cycles_of_one_variable(node: Algebra) -> int:
    """Turn every triple pattern ``?x p+ ?x`` of a translated query (a single step p, the same
    variable at both ends) into a :class:`CyclePath`; how many."""
    marked = 0
    for current in algebra_nodes(node):
        if getattr(current, "name", None) == "BGP":
            triples = []
            for s, p, o in current.triples:
                if (isinstance(s, Variable) and s == o and type(p) is MulPath and p.mod == "+"
                        and _one_step(p.path)):
                    p = CyclePath(p.path)
                    marked += 1
                triples.append((s, p, o))
            current["triples"] = triples
    return marked


def _conjuncts(expression: Algebra) -> list:
    """The operands of a chain of && (rdflib's ConditionalAndExpression), in order."""
    if getattr(expression, "name", None) != "ConditionalAndExpression":
        return [expression]
    return [part for operand in [expression.expr, *(expression.other or ())] for part in _conjuncts(operand)]


def _only_triple(pattern: Algebra) -> tuple | None:
    """The one triple pattern of a translated group of basic graph patterns, else None."""
    triples = []
    stack = [pattern]
    while stack:
        node = stack.pop()
        name = getattr(node, "name", None)
        if name == "BGP":
            triples.extend(node.triples)
        elif name == "Join":
            stack.extend((node.p1, node.p2))
        else:
            return None  # a filter, union, optional ...: not a plain pattern
    return triples[0] if len(triples) == 1 else None


def _exists_triple(expression: Algebra, name: str = "Builtin_EXISTS") -> tuple | None:
    if getattr(expression, "name", None) != name:
        return None
    return _only_triple(expression.__dict__.get("graph"))  # the translated pattern


def _transitive_step(path: object) -> URIRef | None:
    """The predicate of ``predicate+``, else None."""
    if type(path) is MulPath and path.mod == "+" and isinstance(path.path, URIRef):
        return path.path
    return None


def nearest_of_type(node: Algebra) -> int:
    """Mark the walks of "the nearest ancestors of a type" in a translated query; how many.

    SPARQL can only say "the nearest X above ?s" as: ``?s p+ ?x`` where ``?x`` is an X and
    no X lies between::

        ?s p+ ?x . FILTER (... EXISTS { ?x a X } ...
                          && NOT EXISTS { ?s p+ ?y . FILTER (EXISTS { ?y a X } && EXISTS { ?y p+ ?x }) })

    rdflib lists every ancestor of ?s for ?x, and for the nearest again for ?y: on a chain of n
    such X, n ancestors for each of n nodes. Where the filter is exactly this, both walks
    become :class:`NearestPath`, which does not walk on past an X: each ?x the filter keeps is
    reached (no X lies on any path to it), and a ?y exists past an X only if that X is itself
    one (it lies between ?s and ?x), so the filter's verdicts are unchanged.
    """
    return sum(_mark_nearest(current, RDF.type) for current in algebra_nodes(node)
               if getattr(current, "name", None) == "Filter")


def _mark_nearest(filter_: Algebra, rdf_type: URIRef) -> int:
    outer = _only_triple(filter_.p)
    if outer is None:
        return 0
    start, path, found = outer
    step = _transitive_step(path)
    if step is None or not isinstance(found, Variable):
        return 0
    conjuncts = _conjuncts(filter_.expr)
    kinds = {t[2] for t in map(_exists_triple, conjuncts)
             if t is not None and t[0] == found and t[1] == rdf_type and isinstance(t[2], URIRef)}
    for negation in conjuncts:
        if getattr(negation, "name", None) != "Builtin_NOTEXISTS":
            continue
        inner = negation.__dict__.get("graph")
        if getattr(inner, "name", None) != "Filter":
            continue
        walk = _only_triple(inner.p)
        if walk is None or walk[0] != start or _transitive_step(walk[1]) != step:
            continue
        between = walk[2]
        tests: list[Any] = [_exists_triple(c) for c in _conjuncts(inner.expr)]  # triples once None is ruled out
        if len(tests) != 2 or None in tests or not isinstance(between, Variable) or between in (start, found):
            continue
        typed = [t for t in tests if t[0] == between and t[1] == rdf_type and t[2] in kinds]
        above = [t for t in tests if t[0] == between and _transitive_step(t[1]) == step and t[2] == found]
        if len(typed) == 1 and len(above) == 1:
            stop = typed[0][2]
            _replace_path(filter_.p, outer, NearestPath(step, stop))
            _replace_path(inner.p, walk, NearestPath(step, stop))
            return 1
    return 0


def _replace_path(pattern: Algebra, triple: tuple, path: NearestPath) -> None:
    stack = [pattern]
    while stack:
        node = stack.pop()
        if node.name == "BGP":
            node["triples"] = [(s, path, o) if (s, p, o) == triple else (s, p, o) for s, p, o in node.triples]
        elif node.name == "Join":
            stack.extend((node.p1, node.p2))
