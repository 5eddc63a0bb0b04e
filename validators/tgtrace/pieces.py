"""Pieces of traces: how a capture read in ranges is put back together trace by trace.

A range's quads fall into connected pieces: a quad joins its subject to every
node it links to (any object that is an IRI or blank node, rdf:type's classes
excepted) that is a subject in the range. Across ranges, pieces that share a
node which is a subject somewhere are joined: that is every way one entity can
reach another's triples, so each joined group holds whole traces, and a rule
(which reads a node, its values, what derives from it and what owns it) sees
in it what it sees in the whole capture.

The join is done where the ranges are, so that what reaches the client grows
with what crosses range boundaries, not with the entities. Each range deals
the 8-byte hashes of its pieces' subjects and of the nodes they link to
outside the range into partitions by hash (``keys``); one task per partition
meets the hashes of every range (``meet``) and returns only the edges between
pieces that share a subject or link to one another's subjects. The client
joins the pieces along those edges (``join``): a piece that no edge reaches
costs it its size alone. A hash collision can only join two groups that need
not be, which changes no finding.
"""

from __future__ import annotations

import hashlib
import sys
from array import array

import pyoxigraph as ox

from .graph import DERIVED, GENERATED, OWNING, RDF_TYPE, SUBCLASS, TG, StatementPlaces, TraceGraph, key

# What hangs a trace together: a node linked by these is a step of a trace, never a description.
STRUCTURAL = frozenset({DERIVED, GENERATED, *OWNING})
_NO_HASHES = array("Q")


def node_hash(node) -> int:
    """A hash of a graph key that is the same in every process (str's hash is salted per process)."""
    return int.from_bytes(hashlib.blake2b(str(node).encode(), digest_size=8).digest(), "little")


class Piece:
    """A connected piece of a range: its quads' positions in the range, and its summary.
    ``strong`` are the links by which a trace hangs together (derivation, generation,
    ownership); ``described`` says the piece is one subject that is no step of a trace (none of
    its statements hangs it in one or types it with a TrustGraph class): a description, such as
    an agent, a knowledge-graph entity or a vocabulary label, that many traces may name."""

    __slots__ = ("members", "subjects", "links", "strong", "size", "described", "axioms")

    def __init__(self, members: list[int], subjects: array, links: array, strong: array = _NO_HASHES,
                 described: bool = False, axioms: bool = False) -> None:
        self.members, self.subjects, self.links, self.size = members, subjects, links, len(members)
        self.strong, self.described, self.axioms = strong, described, axioms


# Roles of a predicate while splitting: what it says of its subject and of what it links to.
_PLAIN, _TYPE_ROLE, _STRUCTURAL, _AXIOM = 0, 1, 2, 3


def _role(predicate: str) -> int:
    if predicate == RDF_TYPE:
        return _TYPE_ROLE
    if predicate in STRUCTURAL:
        return _STRUCTURAL
    return _AXIOM if predicate == SUBCLASS else _PLAIN


def split(quads: list) -> list[Piece]:
    """The connected pieces of a range's quads. A link to a description (a subject that is no
    step of a trace) joins nothing here: it is kept as a link, so that the meeting of the ranges
    may treat a description every range repeats as a broadcast (see ``eligible``)."""
    parent: dict = {}

    def find(x):
        while parent[x] is not x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    subjects = []
    roles = []
    stepping: set = set()  # subjects that some statement of theirs hangs in a trace
    axioms: set = set()  # subjects of rdfs:subClassOf statements
    known: dict = {}
    last = k = None
    for q in quads:
        s = q.subject
        if s != last:  # emitters write an entity's triples together: one key per run
            last, k = s, key(s)
        subjects.append(k)
        p = q.predicate.value
        role = known.get(p)
        if role is None:
            role = known[p] = _role(p)
        roles.append(role)
        if role:
            if role == _STRUCTURAL:
                stepping.add(k)
            elif role == _TYPE_ROLE:
                o = q.object
                if type(o) is ox.NamedNode and o.value.startswith(TG):
                    stepping.add(k)
            else:
                axioms.add(k)
    parent.update((s, s) for s in dict.fromkeys(subjects))
    outside: dict = {}  # subject -> nodes it links to that are no step of a trace here
    strong: dict = {}  # subject -> nodes it links to by a structural predicate, outside its piece
    for s, role, q in zip(subjects, roles, quads):
        if role == _TYPE_ROLE:
            continue
        o = q.object
        kind = type(o)
        if kind is ox.NamedNode:
            o = sys.intern(o.value)
        elif kind is ox.BlankNode:
            o = "_:" + o.value
        else:
            continue
        if o in stepping:
            a, b = find(s), find(o)
            if a is not b:
                parent[a] = b
        else:
            outside.setdefault(s, set()).add(o)
            if role == _STRUCTURAL:
                strong.setdefault(s, set()).add(o)
    groups: dict = {}
    for index, s in enumerate(subjects):
        groups.setdefault(find(s), []).append(index)
    nodes: dict = {}
    for s in parent:
        nodes.setdefault(find(s), []).append(s)
    pieces = []
    for root, members in groups.items():
        own = nodes[root]
        links = {o for s in own for o in outside.get(s, ())}
        held = {o for s in own for o in strong.get(s, ())}
        pieces.append(Piece(members, array("Q", map(node_hash, own)), array("Q", map(node_hash, links)),
                            array("Q", map(node_hash, held)), len(own) == 1 and own[0] not in stepping,
                            any(s in axioms for s in own)))
    return pieces


def keys(pieces: list[Piece], partitions: int) -> list[tuple]:
    """A range's hashes dealt into ``partitions`` by hash: for each, (subject hashes, their
    pieces, whether each is a description, link hashes, their pieces, hashes linked to by a
    structural predicate), pieces numbered in the range."""
    dealt = [(array("Q"), array("I"), array("B"), array("Q"), array("I"), array("Q")) for _ in range(partitions)]
    for index, piece in enumerate(pieces):
        for h in piece.subjects:
            share = dealt[h % partitions]
            share[0].append(h)
            share[1].append(index)
            share[2].append(piece.described)
        for h in piece.links:
            share = dealt[h % partitions]
            share[3].append(h)
            share[4].append(index)
        for h in piece.strong:
            dealt[h % partitions][5].append(h)
    return dealt


def eligible(shares: list[tuple]) -> array:
    """The subjects of one partition whose descriptions may be broadcast rather than joined,
    given its share of every range: described in more than one range, and in each by a
    description piece (the subject alone, no step of a trace), and linked to by no structural
    predicate anywhere (nothing derives from it, owns it or was generated by it). Whether what
    they link to may be broadcast too is the client's to decide (``escapes``)."""
    ranges_of: dict = {}
    refused: set = set()
    for number, (subjects, _, described, _, _, held) in enumerate(shares):
        for h, alone in zip(subjects, described):
            if not alone:
                refused.add(h)
            if ranges_of.setdefault(h, number) != number:
                ranges_of[h] = -1
        refused.update(held)
    return array("Q", sorted(h for h, r in ranges_of.items() if r == -1 and h not in refused))


def escapes(pieces: list[Piece], broadcast: set) -> tuple[set, list[int]]:
    """(the subjects of ``broadcast`` whose description in this range links to a node outside
    it, the numbers of this range's pieces that describe a subject of ``broadcast``)."""
    leaving: set = set()
    chosen = []
    for number, piece in enumerate(pieces):
        if piece.described and piece.subjects[0] in broadcast:
            chosen.append(number)
            if any(h not in broadcast for h in piece.links):
                leaving.add(piece.subjects[0])
    return leaving, chosen


def meet(shares: list[tuple], broadcast: set | frozenset = frozenset()) -> array:
    """The edges of one partition, given its share of every range in order: pairs of pieces,
    each ``range << 32 | piece``, that hold one subject or of which one links to the other's
    subject. Subjects of ``broadcast`` join nothing: their descriptions are given to every
    trace instead. Only edges that join what was apart are kept: at most one fewer than the
    pieces met."""
    owner: dict = {}
    parent: dict = {}
    edges = array("Q")

    def find(x: int) -> int:
        root = x
        while (up := parent.get(root, root)) != root:
            root = up
        while x != root:  # path compression, so long chains stay cheap
            up = parent[x]
            parent[x] = root
            x = up
        return root

    def union(a: int, b: int) -> None:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[ra] = rb
            edges.extend((a, b))

    for number, (subjects, pieces, *_) in enumerate(shares):
        base = number << 32
        for h, piece in zip(subjects, pieces):
            if h in broadcast:
                continue
            node = base | piece
            other = owner.setdefault(h, node)
            if other != node:
                union(other, node)
    # Links after every subject: a link may name a subject of a later range.
    for number, (_, _, _, links, pieces, _) in enumerate(shares):
        base = number << 32
        for h, piece in zip(links, pieces):
            other = owner.get(h)
            if other is not None:
                union(other, base | piece)
    return edges


def join(counts: list[int], edges: list[array]) -> array:
    """The group of each piece of every range (numbered across ranges in order), given how many
    pieces each range holds and the edges of every partition."""
    first = [0]
    for count in counts:
        first.append(first[-1] + count)
    # An array, not a list: 8 bytes a piece on the client, however many pieces.
    parent = array("q", range(first[-1]))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    low = (1 << 32) - 1
    for found in edges:
        for i in range(0, len(found), 2):
            a, b = found[i], found[i + 1]
            ra, rb = find(first[a >> 32] + (a & low)), find(first[b >> 32] + (b & low))
            if ra != rb:
                parent[ra] = rb
    return array("q", map(find, range(first[-1])))


def graph_of(name: str, names: list[str], quads: list, places: list[tuple[int, int]]) -> TraceGraph:
    """One graph of whole traces from their quads and the (part, line) of each, read in input order."""
    order = sorted(range(len(quads)), key=lambda i: (places[i][0], places[i][1] or 0))
    quads = [quads[i] for i in order]
    graph = TraceGraph(name, StatementPlaces(names, quads, [places[i] for i in order]))
    graph.add_quads(quads)
    return graph
