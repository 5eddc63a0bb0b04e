"""Pieces of traces: how a capture read in ranges is put back together trace by trace.

A range's quads fall into connected pieces: a quad joins its subject to every
node it links to (any object that is an IRI or blank node, rdf:type's classes
excepted) that is a subject in the range. Across ranges, pieces that share a
node which is a subject somewhere are joined: that is every way one entity can
reach another's triples, so each joined group holds whole traces, and a rule
(which reads a node, its values, what derives from it and what owns it) sees
in it what it sees in the whole capture.

A piece is summarised by 8-byte hashes of its subjects and of the nodes it
links to outside itself: the join reads only these. A hash collision can only
join two groups that need not be, which changes no finding.
"""

from __future__ import annotations

import hashlib
from array import array

import pyoxigraph as ox

from .graph import RDF_TYPE, KnownPlaces, TraceGraph, key

_LINKABLE = (ox.NamedNode, ox.BlankNode)


def node_hash(node) -> int:
    """A hash of a graph key that is the same in every process (str's hash is salted per process)."""
    return int.from_bytes(hashlib.blake2b(str(node).encode(), digest_size=8).digest(), "little")


class Piece:
    """A connected piece of a range: its quads' positions in the range, and its summary."""

    __slots__ = ("members", "subjects", "links", "size")

    def __init__(self, members: list[int], subjects: array, links: array) -> None:
        self.members, self.subjects, self.links, self.size = members, subjects, links, len(members)


def split(quads: list) -> list[Piece]:
    """The connected pieces of a range's quads."""
    parent: dict = {}

    def find(x):
        while parent[x] is not x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    subjects = [key(q.subject) for q in quads]
    for s in subjects:
        parent.setdefault(s, s)
    outside: dict = {}  # subject -> nodes it links to that are no subject here
    for s, q in zip(subjects, quads):
        o = q.object
        if not isinstance(o, _LINKABLE) or q.predicate.value == RDF_TYPE:
            continue
        o = key(o)
        if o in parent:
            a, b = find(s), find(o)
            if a is not b:
                parent[a] = b
        else:
            outside.setdefault(s, set()).add(o)
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
        pieces.append(Piece(members, array("Q", map(node_hash, own)), array("Q", map(node_hash, links))))
    return pieces


def join(summaries: list[tuple[array, array]]) -> list[int]:
    """The group of each piece, given (subject hashes, link hashes) of every piece of every range:
    pieces sharing a subject, or linking to a subject of another, are one group."""
    parent = list(range(len(summaries)))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    owner: dict = {}
    for piece, (subjects, _) in enumerate(summaries):
        for h in subjects:
            other = owner.setdefault(h, piece)
            if other != piece:
                parent[find(piece)] = find(other)
    for piece, (_, links) in enumerate(summaries):
        for h in links:
            other = owner.get(h)
            if other is not None:
                a, b = find(piece), find(other)
                if a != b:
                    parent[a] = b
    return [find(piece) for piece in range(len(summaries))]


def graph_of(name: str, names: list[str], quads: list, places: list[tuple[int, int]]) -> TraceGraph:
    """One graph of whole traces from their quads and the (part, line) of each, read in input order."""
    order = sorted(range(len(quads)), key=lambda i: (places[i][0], places[i][1] or 0))
    known: dict = {}
    for i in order:
        q = quads[i]
        known.setdefault((q.subject, q.predicate, q.object), places[i])
    graph = TraceGraph(name, KnownPlaces(names, known))
    graph.add_quads(quads[i] for i in order)
    return graph
