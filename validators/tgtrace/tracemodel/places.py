"""Where each entity sits in its trace, told without its IRI: what `tg-trace diff` matches entities
by, and what a structure snapshot names them by.

A trace is walked as TrustGraph chains it (:data:`~tgtrace.tracemodel.traces.CHAIN`: derivations,
and prov:wasGeneratedBy up to 2.2.12; a Question met on the way starts a sub-trace under the step
it derives from; the chain goes on from what derives from a sub-trace's answer), and every entity
is named by its place: a step by its kind and its position among the steps of that kind
(Analysis 2), a sub-trace or sub-agent by the step that started it, a sub-entity by the link it
hangs by (every edge selection of a Focus is one place), what an extraction's entities refer to
(its activities and agents) by the referring link. The links, answers, mixins and patterns are
the trace model's (:mod:`tgtrace.tracemodel.traces`); nothing here names another.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from ..ground.graph import DERIVED, GENERATED, RDF_TYPE, Node, TraceGraph, name
from ..ground.limits import MAX_DEPTH, TooDeep
from ..ground.namespaces import TG
from .naming import local_name
from .traces import (
    AGENT_QUESTION,
    ANSWERS,
    CHAIN,
    DOCUMENT,
    MIXINS,
    QUESTION,
    RAG_PATTERNS,
    agent_pattern,
    text_of,
    trace_roots,
)

# Kinds a trace holds one of per iteration, step, sub-agent or piece of a document: always named
# with their number (Analysis 1), where any other kind is numbered from its second (Synthesis 2).
_NUMBERED = frozenset(("Analysis", "Observation", "StepResult", "Finding", "Page", "Section", "Chunk", "Image",
                       "Subgraph", "sub-agent"))
_DECISION, _PATTERN = TG + "PatternDecision", TG + "pattern"


@dataclass(frozen=True)
class Place:
    """Where an entity sits: a step by its kind and its position among the steps of that kind of
    its trace or sub-trace (Analysis 2), a sub-trace or sub-agent by the step that started it, a
    sub-entity by the entity and link it hangs by (Focus › selectedEdge: every edge selection of
    the Focus is one place), so that two runs of one query name their entities alike."""

    within: Place | None
    name: str
    number: int = 1
    _hash: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Places key every comparison of a diff: hashed once, not once per level per lookup.
        object.__setattr__(self, "_hash", hash((self.within, self.name, self.number)))

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        # Level by level, not recursively: places nest as deep as a trace's entities refer to one
        # another (hundreds of levels in a valid trace).
        here: Place | None = self
        there: object = other
        while here is not None:
            if here is there:
                return True
            if type(there) is not Place or here._hash != there._hash or here.name != there.name or \
                    here.number != there.number:
                return False
            here, there = here.within, there.within
        return there is None

    def __repr__(self) -> str:
        return f"Place({str(self)!r})"

    @property
    def shown_number(self) -> int | None:
        """The number a person is shown (None: the place is named by its kind alone)."""
        return self.number if self.number > 1 or self.name in _NUMBERED else None

    @property
    def segment(self) -> str:
        number = self.shown_number
        return self.name if number is None else f"{self.name} {number}"

    def parts(self) -> tuple[tuple[str, int | None], ...]:
        """(name, shown number) of each place from the top of the trace down to this one."""
        found: list = []
        place: Place | None = self
        while place is not None:
            found.append((place.name, place.shown_number))
            place = place.within
        return tuple(reversed(found))

    @property
    def path(self) -> tuple[str, ...]:
        return tuple(name if number is None else f"{name} {number}" for name, number in self.parts())

    def __str__(self) -> str:
        return " › ".join(self.path)


@dataclass
class TraceLayout:
    """One trace's entities by place, in the order of its chain (a sub-entity after its owner, a
    sub-trace's entities after the step that started it)."""

    root: Node
    pattern: str
    places: dict = field(default_factory=dict)  # node -> Place


def step_kind(graph: TraceGraph, node: Node) -> str:
    """What kind of step an entity is, as its place names it: its tg: class less the mixins (any
    Question is a Question, its subclass naming its pattern), else its other class, else "entity"."""
    kinds = [k for k in graph.types_of(node) if type(k) is str]
    if QUESTION in kinds:
        return "Question"
    for candidates in ([k for k in kinds if k.startswith(TG) and k not in MIXINS], [k for k in kinds if k not in MIXINS],
                       kinds):
        if candidates:
            return local_name(min(candidates))
    return "entity"


def chain_order(graph: TraceGraph, nodes: Iterable) -> list:
    """The nodes in the order of their chain: each after those it derives from (or was generated
    by) among them, ties in the order the input writes them; a derivation cycle (a rule reports
    it) is entered at its earliest written node."""
    steps = dict.fromkeys(nodes)
    position = graph.first_statement
    waiting = {n: {p for link in CHAIN for p in graph.values(n, link) if p in steps and p != n} for n in steps}
    dependants: dict = {}
    for node, before in waiting.items():
        for parent in before:
            dependants.setdefault(parent, []).append(node)
    ready = [(position.get(n, 0), i, n) for i, n in enumerate(steps) if not waiting[n]]
    heapq.heapify(ready)
    done: list = []
    placed: set = set()
    counter = len(steps)
    # Where a cycle is entered: the earliest written step not placed yet, found by a cursor that
    # only moves forward over the steps by position (a rescan per cycle was quadratic).
    by_position = sorted(steps, key=lambda n: position.get(n, 0))
    cursor = 0
    while len(done) < len(steps):
        if not ready:
            while by_position[cursor] in placed:
                cursor += 1
            rest = by_position[cursor]
            heapq.heappush(ready, (position.get(rest, 0), counter, rest))
            counter += 1
        _, _, node = heapq.heappop(ready)
        if node in placed:
            continue
        placed.add(node)
        done.append(node)
        for child in dependants.get(node, ()):
            waiting[child].discard(node)
            if not waiting[child] and child not in placed:
                heapq.heappush(ready, (position.get(child, 0), counter, child))
                counter += 1
    return done


def trace_layouts(graph: TraceGraph, max_depth: int = MAX_DEPTH) -> list[TraceLayout]:
    """Every trace of the graph (:func:`~tgtrace.tracemodel.traces.trace_roots`) with its entities
    by place, in the order the input writes the roots; computed once per graph. Sub-traces nested
    deeper than ``max_depth`` are refused (:class:`~tgtrace.ground.limits.TooDeep`)."""
    return graph.fact(f"trace layouts {max_depth}", lambda graph: _PlaceWalk(graph, max_depth).layouts())


@dataclass
class _Scope:
    """A trace or sub-trace as first walked: its steps, and its sub-traces with the step that started each."""

    root: Node
    steps: dict = field(default_factory=dict)  # node -> None, as reached
    subs: list = field(default_factory=list)  # (calling step or None, _Scope)


class ChainWalk:
    """The walk TrustGraph's chains are read by: down the chain links (what derives from a step
    and, up to 2.2.12, what it generated), a Question met on the way starting a sub-trace, and in
    a sub-trace what derives from its answer going back to its caller. Each entity is claimed by
    the first trace that reaches it; the sub-entities a step owns are its details, never steps.
    The trace views and the places read traces with it."""

    def __init__(self, graph: TraceGraph, max_depth: int = MAX_DEPTH) -> None:
        self.graph, self.max_depth = graph, max_depth
        self.generated: dict = {}  # what a step generated (releases up to 2.2.12), in input order
        for node, props in graph.out.items():
            for source in props.get(GENERATED, ()):
                self.generated.setdefault(source, []).append(node)
        self.assigned: set = set()

    def nest(self, level: int, question: Node) -> int:
        """``level``, the depth of a sub-trace about to be walked; past ``max_depth``, refused (the
        walks and what shows them nest as deep as the sub-traces do)."""
        if level > self.max_depth:
            raise TooDeep(self.graph.name, self.max_depth, "sub-traces", name(question))
        return level

    def owned(self, node: Node) -> list:
        """The sub-entities a node owns: values of an owning link that are entities and derive from
        nothing but their owner (a chunk an Exploration lists is the extraction's, not its own)."""
        graph = self.graph
        return [v for v in graph.owned(node)
                if v in graph.out and all(p == node for p in graph.values(v, DERIVED))]

    def next_nodes(self, node: Node) -> list:
        """What the chain goes on to from a node: what derives from it or it generated, and what
        derives from its sub-entities (a rule says nothing should; it is still reached)."""
        graph = self.graph
        found = [*graph.children(node), *self.generated.get(node, ())]
        owned = set(self.owned(node))
        for detail in owned:
            found.extend(graph.children(detail))
        return [n for n in found if n not in owned and n != node]

    def reach(self, start: Iterable, root: Node, sub: bool, nested: list, exits: list) -> Iterator:
        """Claim for the trace of ``root`` what is reached from ``start`` and no trace has claimed,
        yielding each step as it is claimed; Questions met are sub-traces (added to ``nested``); in
        a sub-trace (``sub``), what derives from its answer is its caller's (added to ``exits``)."""
        graph = self.graph
        stack = list(start)
        while stack:
            node = stack.pop()
            if node in self.assigned:
                continue
            if node != root and node in graph.heads:
                nested.append(node)
                continue
            self.assigned.add(node)
            self.assigned.update(self.owned(node))
            yield node
            after = self.next_nodes(node)
            if sub and not graph.types_of(node).isdisjoint(ANSWERS):
                exits.extend(after)
            else:
                stack.extend(after)


class _PlaceWalk(ChainWalk):
    """Each trace walked, then its entities placed."""

    def layouts(self) -> list[TraceLayout]:
        graph = self.graph
        position = graph.first_statement
        roots = sorted(trace_roots(graph), key=lambda r: (position.get(r, 0), str(r)))
        scopes = [self.collect(root, sub=False, level=0)[0] for root in roots if root not in self.assigned]
        claimed = set(self.assigned)
        found = []
        for scope in scopes:
            layout = TraceLayout(scope.root, self.pattern(scope))
            self.place(scope, None, layout.places)
            self.refer(layout.places, claimed)
            layout.places = _in_tree_order(layout.places)
            found.append(layout)
        return found

    def collect(self, root: Node, sub: bool, level: int) -> tuple[_Scope, list]:
        """The scope rooted at ``root`` (``level`` sub-traces deep) and, for a sub-trace, what its
        caller's chain goes on from."""
        scope = _Scope(root)
        nested: list = []
        exits: list = []
        scope.steps.update(dict.fromkeys(self.reach([root], root, sub, nested, exits)))
        while nested:
            question = nested.pop(0)
            if question in self.assigned:
                continue
            caller = next((p for p in self.graph.values(question, DERIVED) if p in scope.steps), None)
            subscope, more = self.collect(question, True, self.nest(level + 1, question))
            scope.subs.append((caller, subscope))
            scope.steps.update(dict.fromkeys(self.reach(more, root, sub, nested, exits)))
        return scope, exits

    def pattern(self, scope: _Scope) -> str:
        """The trace's pattern: a RAG query's by its Question's subtype, extraction by its
        Document, an agent's as the trace model decides it (its PatternDecision's, else the steps
        only one pattern writes)."""
        graph = self.graph
        kinds = graph.types_of(scope.root)
        for kind, pattern in RAG_PATTERNS.items():
            if kind in kinds:
                return pattern
        if DOCUMENT in kinds and QUESTION not in kinds:
            return "extraction"
        decided = next((text_of(v) for node in scope.steps if _DECISION in graph.types_of(node)
                        for v in graph.values(node, _PATTERN)), None)
        return agent_pattern(decided, (step_kind(graph, node) for node in scope.steps))

    # -------------------------------------------------------------- places

    def place(self, scope: _Scope, within: Place | None, places: dict) -> None:
        graph = self.graph
        counts: dict = {}
        order = chain_order(graph, scope.steps)
        for node in order:
            name = step_kind(graph, node)
            counts[name] = counts.get(name, 0) + 1
            places[node] = Place(within, name, counts[name])
            by_link: dict = {}
            owned = set(self.owned(node))
            for predicate in sorted(graph.model.owning):
                for value in graph.values(node, predicate):
                    if value in owned and value not in places:
                        part = by_link.setdefault(predicate, Place(places[node], local_name(predicate)))
                        places[value] = part
        rank = {node: i for i, node in enumerate(order)}
        position = graph.first_statement
        subs = sorted(scope.subs, key=lambda s: (rank.get(s[0], -1), position.get(s[1].root, 0)))
        started: dict = {}
        for caller, sub in subs:
            step = places.get(caller, places[scope.root])
            word = "sub-agent" if AGENT_QUESTION in graph.types_of(sub.root) else "sub-trace"
            started[(step, word)] = started.get((step, word), 0) + 1
            self.place(sub, Place(step, word, started[(step, word)]), places)

    def refer(self, places: dict, claimed: set) -> None:
        """Place what the trace's entities refer to that is described in the graph and is no
        trace's step (an extraction's activities and agents) under the first entity and link that
        name it, each link's values as one place."""
        graph = self.graph
        queue = list(places)
        index = 0
        while index < len(queue):
            node = queue[index]
            index += 1
            props = graph.out.get(node)
            if not props:
                continue
            for predicate, values in props.items():
                if predicate is RDF_TYPE:  # a class, even one the input describes
                    continue
                for value in values:
                    if type(value) is str and value in graph.out and value not in places and value not in claimed:
                        places[value] = Place(places[node], local_name(predicate))
                        queue.append(value)


def _in_tree_order(places: dict) -> dict:
    """The nodes ordered as their places nest (depth first, each place's own places in the order
    first met): a sub-entity, sub-trace or referred entity right after what it hangs under."""
    below: dict = {}
    for place in dict.fromkeys(places.values()):
        step: Place | None = place
        while step is not None:
            siblings = below.setdefault(step.within, {})
            if step in siblings:
                break
            siblings[step] = None
            step = step.within
    rank: dict = {}
    stack = list(reversed(below.get(None, {})))
    while stack:
        place = stack.pop()
        rank[place] = len(rank)
        stack.extend(reversed(below.get(place, {})))
    return dict(sorted(places.items(), key=lambda item: rank[item[1]]))
