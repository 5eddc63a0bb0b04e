"""The structure of traces, and what changed between two sets of them: what `tg-trace diff`
compares and what the pytest plugin's snapshots hold.

A trace's structure is its entities by place (:class:`tgtrace.tracemodel.places.Place`: a step by its
kind and its position along the chain, a sub-trace by the step that started it, a sub-entity by
the link it hangs by; never by IRI). Each entity keeps its types and its mixins, the named
graphs its statements are in, and per predicate the kinds of its values: another entity of the
trace by its place (derivations, generations, thoughts, sub-traces), a literal by its datatype,
an IRI, a blank node, a triple term by the kinds of its terms. The values the trace model makes
part of the contract (``tracemodel.traces.CONTRACT_VALUES``: termination reasons, patterns, tool names)
are kept as they are; every other value (IDs, timestamps, token counts, free text) is reduced to
its kind, so the same query run twice has the same structure.

Two inputs compare as sets of traces: traces are paired by pattern and question, then by
position, and pairs that changed alike are counted together. Nothing here prints: the formats
(``tgtrace.formats.diff``) write a :class:`StructureDiff` as text, JSON or Markdown, and a
structure snapshot as TriG.
"""

from __future__ import annotations

import os
from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field
from typing import TypeVar
from urllib.parse import quote

import pyoxigraph as ox

from ..ground.graph import RDF_TYPE, Node, TraceGraph, collector_paused
from ..ground.limits import DEFAULT_BOUNDS, InputBounds
from ..inputs.loaders import MAX_STDIN_BYTES, STDIN_TIMEOUT, InputError, load
from ..tracemodel.places import Place, trace_layouts
from ..tracemodel.traces import CONTRACT_VALUES, MIXINS, QUERY

# Entities of a snapshot are named by place under this namespace; an IRI that names no entity
# of the trace is written as SNAPSHOT + "iri", a literal that is no contract value as PLACEHOLDER.
SNAPSHOT = "urn:tg-trace:snapshot:"
PLACEHOLDER = "…"

_Shared = TypeVar("_Shared", bound=Hashable)


@dataclass(frozen=True)
class Value:
    """What a value of a predicate is, as traces are compared: ``kind`` is "link" (another entity
    of the trace, by ``place``), "literal" (by ``datatype`` and ``language``; ``text`` only for a
    contract value), "iri", "blank" or "triple" (by the kinds of its ``terms``)."""

    kind: str
    datatype: str = ""
    language: str = ""
    text: str | None = None
    place: Place | None = None
    terms: tuple[Value, ...] = ()
    _hash: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Values key every comparison: hashed once.
        object.__setattr__(self, "_hash", hash((self.kind, self.datatype, self.language, self.text, self.place,
                                                self.terms)))

    def __hash__(self) -> int:
        return self._hash

    def sort_key(self) -> tuple:
        return (self.kind, str(self.place or ""), self.datatype, self.language, self.text or "",
                tuple(t.sort_key() for t in self.terms))


_IRI, _BLANK = Value("iri"), Value("blank")


@dataclass(frozen=True)
class Entity:
    """One place of a trace: what every entity there is (a place may hold several sub-entities:
    the edge selections of a Focus), merged."""

    place: Place
    types: frozenset[str]
    mixins: frozenset[str]
    graphs: frozenset[str]  # graph names; "" is the default graph
    values: tuple[tuple[str, frozenset[Value]], ...]  # (predicate, its values), by predicate
    _hash: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_hash", hash((self.place, self.types, self.mixins, self.graphs, self.values)))

    def __hash__(self) -> int:
        return self._hash

    def predicates(self) -> dict[str, frozenset[Value]]:
        return dict(self.values)


@dataclass
class TraceStructure:
    """One trace: its pattern, its question (for pairing; never compared) and its entities by place."""

    pattern: str
    question: str | None
    source: str
    entities: dict[Place, Entity] = field(default_factory=dict)  # in the order of the chain

    def shape(self) -> frozenset:
        """The structure alone, comparable and hashable: two traces with no structural difference
        have the same shape."""
        return frozenset(self.entities.items())


# ---------------------------------------------------------------------------
# Reading: an input's traces as structures.
# ---------------------------------------------------------------------------

def structures_of(graph: TraceGraph, source: str, shared: dict | None = None,
                  max_depth: int = DEFAULT_BOUNDS.depth) -> list[TraceStructure]:
    """The traces of a graph as structures, with the named graphs of their statements (where the
    input said). ``shared`` holds what traces have alike (values, entities), one object each:
    a capture of many traces of one kind costs little more than one."""
    shared = {} if shared is None else shared
    found = []
    for layout in trace_layouts(graph, max_depth):
        places = layout.places
        merged: dict[Place, tuple[set, set, set, dict]] = {}
        for node, place in places.items():
            types, mixins, graphs, values = merged.setdefault(place, (set(), set(), set(), {}))
            for kind in graph.types_of(node):
                if type(kind) is str:
                    (mixins if kind in MIXINS else types).add(kind)
            graphs.update(graph.graphs_of(node))
            for predicate, objects in graph.out.get(node, {}).items():
                described = values.get(predicate)
                if described is None:
                    described = values[predicate] = set()
                for value in objects:
                    if predicate is not RDF_TYPE or type(value) is not str:
                        described.add(_describe(value, predicate, places, shared))
        entities = {}
        for place, (types, mixins, graphs, values) in merged.items():
            fields = (place, _one(shared, frozenset(types)), _one(shared, frozenset(mixins)),
                      _one(shared, frozenset(graphs)),
                      tuple((p, _one(shared, frozenset(v))) for p, v in sorted(values.items()) if v))
            entity = shared.get(fields)
            if entity is None:
                entity = shared[fields] = Entity(*fields)
            entities[place] = entity
        questions = graph.values(layout.root, QUERY)
        question = questions[0].value if questions and type(questions[0]) is ox.Literal else None
        found.append(TraceStructure(layout.pattern, question, source, entities))
    return found


def _one(shared: dict, thing: _Shared) -> _Shared:
    """The one object equal to ``thing`` that ``shared`` holds (``thing`` itself the first time)."""
    return shared.setdefault(thing, thing)


def _describe(value: Node, predicate: str, places: dict, shared: dict) -> Value:
    if type(value) is str:
        place = places.get(value)
        if place is None:
            return _BLANK if value.startswith("_:") else _IRI
        found = shared.get(place)
        if found is None:
            found = shared[place] = Value("link", place=place)
        return found
    if type(value) is ox.Literal:
        key = (value.datatype.value, value.language or "", value.value if predicate in CONTRACT_VALUES else None)
        found = shared.get(key)
        if found is None:
            found = shared[key] = Value("literal", *key)
        return found
    return _one(shared, _term_kind(value))  # type: ignore[arg-type]  # a triple term: str is handled above


def _term_kind(term: ox.NamedNode | ox.BlankNode | ox.Literal | ox.Triple) -> Value:
    """A term inside a triple term, by its kind alone."""
    if isinstance(term, ox.NamedNode):
        return _IRI
    if isinstance(term, ox.BlankNode):
        return _BLANK
    if isinstance(term, ox.Literal):
        return Value("literal", term.datatype.value, term.language or "")
    return Value("triple", terms=(_term_kind(term.subject), _term_kind(term.predicate), _term_kind(term.object)))


def read(source: object, input_format: str | None = None, stdin_limit: int = MAX_STDIN_BYTES,
         stdin_timeout: float = STDIN_TIMEOUT, shared: dict | None = None,
         bounds: InputBounds = DEFAULT_BOUNDS) -> list[TraceStructure]:
    """The traces of one input (a path, a directory, "-", a file object, triples: anything
    ``tg-trace lint`` reads), as structures. An input that holds no trace is an InputError.
    ``shared``: as for :func:`structures_of` (given the same for two inputs, what they have
    alike is one object, and compares at once)."""
    traces: list[TraceStructure] = []
    names = []
    shared = {} if shared is None else shared
    for item in load(source, input_format, stdin_limit, stdin_timeout, bounds):
        names.append(item.name)
        # Read as lint reads it: the graph keeps where each statement was written, where the input says.
        with collector_paused():
            graph = item.graph()
        traces += structures_of(graph, item.name, shared, bounds.depth)
    if not traces:
        raise InputError(", ".join(names) or str(source), None,
                         "holds no TrustGraph trace (no root Question, no extraction Document)")
    return traces


# ---------------------------------------------------------------------------
# Comparing.
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Change:
    """One difference of an entity: a type or mixin (``term``) added or removed, its named graphs
    (``term`` empty), or a predicate's values. ``old`` and ``new`` hold the class, the graph names
    or the Values on each side; an empty side means added or removed."""

    aspect: str  # "type" | "mixin" | "graph" | "predicate"
    term: str
    old: tuple = ()
    new: tuple = ()

    @property
    def sign(self) -> str:
        return "+" if not self.old else "-" if not self.new else "~"


@dataclass(frozen=True)
class EntityDiff:
    """An entity added, removed (``entity`` is what it was on its side) or changed (``changes``)."""

    place: Place
    status: str  # "added" | "removed" | "changed"
    entity: Entity | None = None
    changes: tuple[Change, ...] = ()


@dataclass
class DiffGroup:
    """Paired traces that changed alike (or not at all: ``entities`` empty), counted together."""

    pattern: str
    new_pattern: str
    entities: tuple[EntityDiff, ...]
    pairs: list[tuple[TraceStructure, TraceStructure]] = field(default_factory=list)

    @property
    def count(self) -> int:
        return len(self.pairs)

    @property
    def differs(self) -> bool:
        return bool(self.entities) or self.pattern != self.new_pattern


@dataclass
class StructureDiff:
    """What changed between two inputs' traces."""

    old: str
    new: str
    groups: list[DiffGroup] = field(default_factory=list)  # in the order of the old input
    only_old: list[TraceStructure] = field(default_factory=list)
    only_new: list[TraceStructure] = field(default_factory=list)

    @property
    def same(self) -> bool:
        return not self.only_old and not self.only_new and not any(g.differs for g in self.groups)

    def counts(self) -> dict[str, int]:
        paired = sum(g.count for g in self.groups)
        changed = sum(g.count for g in self.groups if g.differs)
        return {"paired": paired, "changed": changed, "unchanged": paired - changed,
                "only_old": len(self.only_old), "only_new": len(self.only_new)}


def compare(old: list[TraceStructure], new: list[TraceStructure], old_name: str = "OLD",
            new_name: str = "NEW") -> StructureDiff:
    """Pair the traces (by pattern and question, then by position among the traces of their
    pattern, those alike first; one trace against one trace is paired whatever its pattern) and
    compare each pair."""
    pairs, only_old, only_new = _pair(old, new)
    result = StructureDiff(old_name, new_name, only_old=only_old, only_new=only_new)
    groups: dict = {}
    for before, after in pairs:
        entities = diff_traces(before, after)
        group = groups.get((before.pattern, after.pattern, entities))
        if group is None:
            group = groups[(before.pattern, after.pattern, entities)] = DiffGroup(before.pattern, after.pattern,
                                                                                 entities)
            result.groups.append(group)
        group.pairs.append((before, after))
    return result


def compare_inputs(old: object, new: object, input_format: str | None = None, stdin_limit: int = MAX_STDIN_BYTES,
                   stdin_timeout: float = STDIN_TIMEOUT, bounds: InputBounds = DEFAULT_BOUNDS) -> StructureDiff:
    """Read two inputs (anything ``read`` takes) and compare their traces."""
    if str(old) == "-" and str(new) == "-":
        raise InputError("-", None, "standard input can be only one of the two inputs")
    shared: dict = {}
    before = read(old, input_format, stdin_limit, stdin_timeout, shared, bounds)
    after = read(new, input_format, stdin_limit, stdin_timeout, shared, bounds)
    return compare(before, after, _name(old), _name(new))


def _name(source: object) -> str:
    """An input as the diff names it (as the loaders name it where it is no file)."""
    if isinstance(source, (str, os.PathLike)):
        return "<stdin>" if str(source) == "-" else str(source)
    name = getattr(source, "name", None)
    return name if isinstance(name, str) else "<objects>"


def _pair(old: list[TraceStructure], new: list[TraceStructure]) -> tuple[
        list[tuple[TraceStructure, TraceStructure]], list[TraceStructure], list[TraceStructure]]:
    """Pairs of traces, most alike first: the same pattern and question and the same structure;
    the same pattern and question; the same pattern and structure; the same pattern, by position.
    An input of one trace against another is that trace, whatever its pattern became."""
    shapes_old = [t.shape() for t in old]
    shapes_new = [t.shape() for t in new]
    keys = (lambda t, shape: (t.pattern, t.question, shape) if t.question is not None else None,
            lambda t, shape: (t.pattern, t.question) if t.question is not None else None,
            lambda t, shape: (t.pattern, shape),
            lambda t, shape: t.pattern)
    pairs: list = []
    left_old = list(range(len(old)))
    left_new = list(range(len(new)))
    for key_of in keys:
        waiting: dict = {}
        for j in left_new:
            key = key_of(new[j], shapes_new[j])
            if key is not None:
                waiting.setdefault(key, []).append(j)
        taken: set = set()
        still_old = []
        for i in left_old:
            key = key_of(old[i], shapes_old[i])
            candidates = waiting.get(key) if key is not None else None
            if candidates:
                j = candidates.pop(0)
                pairs.append((i, j))
                taken.add(j)
            else:
                still_old.append(i)
        left_old = still_old
        left_new = [j for j in left_new if j not in taken]
    if len(old) == 1 and len(new) == 1 and left_old and left_new:
        pairs.append((left_old.pop(), left_new.pop()))
    pairs.sort()
    return [(old[i], new[j]) for i, j in pairs], [old[i] for i in left_old], [new[j] for j in left_new]


def diff_traces(old: TraceStructure, new: TraceStructure) -> tuple[EntityDiff, ...]:
    """What changed from one trace to the other, place by place, in the order of the chain."""
    found = []
    for place in _merged(list(old.entities), list(new.entities)):
        before, after = old.entities.get(place), new.entities.get(place)
        if before is None:
            found.append(EntityDiff(place, "added", after))
        elif after is None:
            found.append(EntityDiff(place, "removed", before))
        elif before is not after and (hash(before) != hash(after) or before != after):
            changes = entity_changes(before, after)
            if changes:
                found.append(EntityDiff(place, "changed", changes=changes))
    return tuple(found)


def entity_changes(old: Entity, new: Entity) -> tuple[Change, ...]:
    changes = []
    for aspect, before, after in (("type", old.types, new.types), ("mixin", old.mixins, new.mixins)):
        changes += [Change(aspect, t, new=(t,)) for t in sorted(after - before)]
        changes += [Change(aspect, t, old=(t,)) for t in sorted(before - after)]
    if old.graphs != new.graphs:
        changes.append(Change("graph", "", tuple(sorted(old.graphs)), tuple(sorted(new.graphs))))
    before_values, after_values = old.predicates(), new.predicates()
    for predicate in sorted(before_values.keys() | after_values.keys()):
        before_set = before_values.get(predicate, frozenset())
        after_set = after_values.get(predicate, frozenset())
        if before_set != after_set:
            changes.append(Change("predicate", predicate, _sorted(before_set), _sorted(after_set)))
    return tuple(changes)


def _sorted(values: Iterable[Value]) -> tuple[Value, ...]:
    return tuple(sorted(values, key=Value.sort_key))


def _merged(old: list, new: list) -> list:
    """Both sides' places in one order: the old side's, each place only the new side has after
    the place it follows there."""
    known = set(old)
    inserted: dict = {}
    anchor = None
    for place in new:
        if place in known:
            anchor = place
        else:
            inserted.setdefault(anchor, []).append(place)
    merged = list(inserted.get(None, ()))
    for place in old:
        merged.append(place)
        merged += inserted.get(place, ())
    return merged


# ---------------------------------------------------------------------------
# Snapshots: a structure written as a trace of its own.
# ---------------------------------------------------------------------------

def snapshot_quads(traces: list[TraceStructure]) -> list[ox.Quad]:
    """The traces' structures as quads: each entity under an IRI that names its place
    (``urn:tg-trace:snapshot:t1:Analysis.1:thought``), with its types, named graphs and one value
    of each kind of each predicate (a placeholder literal of its datatype, ``SNAPSHOT + "iri"``,
    a blank node, a link to the entity's place); contract values and the root's question as they
    are. Read back, it has the same structure."""
    quads: list[ox.Quad] = []
    for number, trace in enumerate(traces, start=1):
        names = {place: ox.NamedNode(f"{SNAPSHOT}t{number}:" + ":".join(map(_segment, place.parts())))
                 for place in trace.entities}
        root = next(iter(trace.entities), None)
        for place, entity in trace.entities.items():
            subject = names[place]
            graphs = [ox.DefaultGraph() if g == "" else ox.NamedNode(g) for g in sorted(entity.graphs)] or \
                [ox.DefaultGraph()]
            for graph in graphs:
                for kind in sorted(entity.types | entity.mixins):
                    quads.append(ox.Quad(subject, ox.NamedNode(RDF_TYPE), ox.NamedNode(kind), graph))
                for predicate, values in entity.values:
                    question = trace.question if place == root and predicate == QUERY else None
                    for value in _sorted(values):
                        quads.append(ox.Quad(subject, ox.NamedNode(predicate), _term(value, names, question), graph))
    return quads


def _segment(part: tuple[str, int | None]) -> str:
    """A place's segment in an IRI: its name (percent-encoded, dots too) and, where shown, its number."""
    name, number = part
    encoded = quote(name, safe="").replace(".", "%2E")
    return encoded if number is None else f"{encoded}.{number}"


def _term(value: Value, names: dict,
          question: str | None = None) -> ox.NamedNode | ox.BlankNode | ox.Literal | ox.Triple:
    if value.kind == "link":
        return names[value.place]
    if value.kind == "literal":
        text = question if question is not None else value.text if value.text is not None else PLACEHOLDER
        if value.language:
            return ox.Literal(text, language=value.language)
        return ox.Literal(text, datatype=ox.NamedNode(value.datatype))
    if value.kind == "triple":
        subject, predicate, object_ = (_term(t, names) for t in value.terms)
        return ox.Triple(subject, predicate, object_)  # type: ignore[arg-type]  # as the terms were read
    return ox.BlankNode() if value.kind == "blank" else ox.NamedNode(SNAPSHOT + "iri")
