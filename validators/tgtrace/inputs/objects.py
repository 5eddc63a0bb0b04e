"""Python objects an emitter's own tests hold: rdflib graphs, wire dicts, TrustGraph Triples.

A list's items are where its findings are: each triple's place is the item that holds it (a wire
triple, a ``Triple``, an explain event, a quad), numbered from 1 as lines are and shown as the
list's index (``<objects>[3]``, ``ground.locations.place``); the summary counts the items.
"""

from __future__ import annotations

from typing import Any

import pyoxigraph as ox
import rdflib

from ..ground.graph import from_rdflib
from ..ground.limits import MAX_DEPTH
from ..ground.locations import OBJECTS
from .base import Input, InputError
from .depth import term_depth
from .wire import WireError, events_to_quads, triple_to_quads


def from_object(source: Any, depth: int = MAX_DEPTH) -> Input:
    """The quads of Python objects; triple terms may nest ``depth`` deep."""
    if _is_rdflib(source):
        quads = _from_rdflib(source)
        # A graph has no order: it is the one item given, its triples placed nowhere in it. A Graph
        # holds no graph names; a Dataset does.
        return Input(f"<{type(source).__name__}>", "objects", lambda: iter(quads), extra={"items": 1},
                     graph_names=isinstance(source, (rdflib.Dataset, rdflib.ConjunctiveGraph)))
    try:
        items, quads = _quads(source, depth)
    except WireError as exc:
        raise InputError(OBJECTS, None, exc.problem) from None
    lines: dict[tuple, int | None] = {}
    for number, batch in enumerate(items, start=1):
        for quad in batch:
            lines.setdefault((quad.subject, quad.predicate, quad.object), number)
    # Wire dicts, events, quads and TrustGraph Triples carry graph names (an rdflib Graph, above,
    # carries none).
    return Input(OBJECTS, "objects", lambda: iter(quads), _lines=lines, extra={"items": len(items)})


def _quads(source: Any, depth: int = MAX_DEPTH) -> tuple[list[list[ox.Quad]], list[ox.Quad]]:
    """The quads of each item of a list, and all of them in order."""
    items = list(source)
    if not items:
        return [], []
    first = items[0]
    if isinstance(first, ox.Quad):
        for index, quad in enumerate(items):
            if isinstance(quad, ox.Quad) and term_depth(quad.object, depth) > depth:
                raise WireError(None, f"item [{index}]: nests more than {depth} deep (triple terms within triple "
                                      "terms): refused; raise --max-depth if it is genuine")
        return [[quad] for quad in items], items
    if isinstance(first, dict):
        convert = ((lambda item: events_to_quads([item], depth)) if "explain_triples" in first
                   else (lambda item: triple_to_quads(item, None, depth)))
    elif hasattr(first, "s") and hasattr(first, "p") and hasattr(first, "o"):
        convert = lambda item: triple_to_quads(_wire_triple(item, depth), None, depth)  # noqa: E731
    else:
        raise WireError(None, f"cannot lint a list of {type(first).__name__}")
    batches, quads = [], []
    for index, item in enumerate(items):
        try:
            batch = convert(item)
        except WireError as exc:
            # An emitter's test names the item by its index and shows it, as pytest would.
            raise WireError(None, f"item [{index}] {_shown(item)}: {exc.problem}") from None
        batches.append(batch)
        quads.extend(batch)
    return batches, quads


def _shown(item: Any) -> str:
    text = repr(item)
    return text if len(text) <= 120 else text[:117] + "..."


def _wire_triple(triple: Any, depth: int = MAX_DEPTH) -> dict:
    """A duck-typed TrustGraph Triple (``.s .p .o`` terms, ``.g``) as a wire triple, so both
    are read by one term reader (which refuses triple terms nested past ``depth``: here, one
    level past it is as far as the objects are read)."""
    if isinstance(triple, dict):
        return triple
    out = {"s": _wire_term(triple.s, depth), "p": _wire_term(triple.p, depth), "o": _wire_term(triple.o, depth)}
    graph = getattr(triple, "g", None)
    if graph:
        out["g"] = graph
    return out


def _wire_term(term: Any, depth: int) -> dict:
    # A TrustGraph Term: type "i" (iri), "b" (id), "l" (value, language, datatype) or "t" (triple).
    kind = getattr(term, "type", None)
    if kind == "i":
        return {"t": "i", "i": getattr(term, "iri", None)}
    if kind == "b":
        return {"t": "b", "d": getattr(term, "id", "") or ""}
    if kind == "l":
        return {"t": "l", "v": getattr(term, "value", None), "ln": getattr(term, "language", "") or "",
                "dt": getattr(term, "datatype", "") or ""}
    if kind == "t":
        # Past the bound, a stand-in the wire reader refuses as nested too deep, read no further.
        return {"t": "t", "tr": _wire_triple(term.triple, depth - 1) if depth > 0 else _TOO_DEEP}
    raise WireError(None, f"unknown TrustGraph term type {kind!r} in {_shown(term)}")


_TOO_DEEP: dict = {}  # the wire reader refuses the triple term holding it before reading it


def _is_rdflib(source: Any) -> bool:
    return type(source).__module__.startswith("rdflib")


def _from_rdflib(graph: rdflib.Graph) -> list[ox.Quad]:
    quads = []
    if isinstance(graph, (rdflib.Dataset, rdflib.ConjunctiveGraph)):
        for s, p, o, g in graph.quads((None, None, None, None)):
            name = getattr(g, "identifier", g)
            default = name is None or name == rdflib.graph.DATASET_DEFAULT_GRAPH_ID or isinstance(name, rdflib.BNode)
            quads.append(ox.Quad(from_rdflib(s), from_rdflib(p), from_rdflib(o),
                                 ox.DefaultGraph() if default else ox.NamedNode(str(name))))
    else:
        for s, p, o in graph:
            quads.append(ox.Quad(from_rdflib(s), from_rdflib(p), from_rdflib(o)))
    return quads
