"""TrustGraph's wire format: JSON triples with compact terms, and explain events."""

from __future__ import annotations

import json
from typing import Any

import pyoxigraph as ox

XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"


class WireError(Exception):
    def __init__(self, line: int | None, problem: str):
        self.line, self.problem = line, problem
        super().__init__(problem)


def is_wire_document(document: Any) -> bool:
    """A wire triple, a list of them, an explain event, or a list of events."""
    items = document if isinstance(document, list) else [document]
    if not items:
        return True  # an empty capture is an empty wire list, not JSON-LD
    first = items[0]
    return isinstance(first, dict) and ("explain_triples" in first or {"s", "p", "o"} <= first.keys())


def term(data: Any) -> ox.NamedNode | ox.BlankNode | ox.Literal | ox.Triple:
    if not isinstance(data, dict):
        raise WireError(None, f"a term must be an object, not {type(data).__name__}")
    kind = data.get("t")
    try:
        if kind == "i":
            return ox.NamedNode(_str(data, "i"))
        if kind == "l":
            value = _str(data, "v")
            if data.get("ln"):
                return ox.Literal(value, language=data["ln"])
            if data.get("dt") and data["dt"] != XSD_STRING:
                return ox.Literal(value, datatype=ox.NamedNode(data["dt"]))
            return ox.Literal(value)
        if kind == "b":
            return ox.BlankNode(_str(data, "d") or None)
        if kind == "t":
            inner = data.get("tr")
            if not isinstance(inner, dict):
                raise WireError(None, "a triple term ('t': 't') needs a 'tr' object")
            return ox.Triple(*_spo(inner))
    except ValueError as exc:
        raise WireError(None, f"bad term {json.dumps(data)[:80]}: {exc}") from None
    raise WireError(None, f"unknown term type {kind!r} (expected i, l, b or t)")


def _str(data: dict, key: str) -> str:
    value = data.get(key, "")
    if not isinstance(value, str):
        raise WireError(None, f"term field {key!r} must be a string")
    return value


def _spo(data: dict) -> tuple:
    missing = [k for k in ("s", "p", "o") if k not in data]
    if missing:
        raise WireError(None, f"triple is missing {', '.join(missing)}")
    s, p, o = term(data["s"]), term(data["p"]), term(data["o"])
    if not isinstance(p, ox.NamedNode):
        raise WireError(None, "a predicate must be an IRI term")
    if isinstance(s, ox.Literal):
        raise WireError(None, "a subject cannot be a literal")
    return s, p, o


def _graph(name: Any):
    if not name:
        return ox.DefaultGraph()
    if not isinstance(name, str):
        raise WireError(None, "'g' must be a graph IRI string")
    try:
        return ox.NamedNode(name)
    except ValueError as exc:
        raise WireError(None, f"bad graph name {name!r}: {exc}") from None


def triple_to_quad(data: Any, graph: str | None = None) -> ox.Quad:
    if not isinstance(data, dict):
        raise WireError(None, "a triple must be a JSON object with s, p and o")
    return ox.Quad(*_spo(data), _graph(data.get("g") or graph))


def triples_to_quads(items: list, graph: str | None = None) -> list[ox.Quad]:
    return [triple_to_quad(item, graph) for item in items]


def events_to_quads(events: list) -> list[ox.Quad]:
    quads = []
    for event in events:
        if not isinstance(event, dict):
            raise WireError(None, "an explain event must be a JSON object")
        triples = event.get("explain_triples") or []
        if not isinstance(triples, list):
            raise WireError(None, "'explain_triples' must be a list")
        quads.extend(triples_to_quads(triples, event.get("explain_graph")))
    return quads


def wire_lines(name: str, data: bytes, document: Any) -> tuple[list[ox.Quad], dict[tuple, int]]:
    """Quads of a wire document, with the line each triple starts on."""
    text = data.decode("utf-8")
    items = document if isinstance(document, list) else [document]
    starts = _element_lines(text) if isinstance(document, list) else [1]
    quads: list[ox.Quad] = []
    lines: dict[tuple, int] = {}
    for index, item in enumerate(items):
        line = starts[index] if index < len(starts) else None
        try:
            if isinstance(item, dict) and "explain_triples" in item:
                new = events_to_quads([item])
            else:
                new = [triple_to_quad(item)]
        except WireError as exc:
            raise WireError(line, f"item {index + 1}: {exc.problem}") from None
        for quad in new:
            lines.setdefault((quad.subject, quad.predicate, quad.object), line)
        quads.extend(new)
    return quads, lines


def _element_lines(text: str) -> list[int]:
    # Walk the top-level array with the C decoder to learn where each element
    # starts, so a finding can point at the line of its triple.
    decoder = json.JSONDecoder()
    starts: list[int] = []
    pos = text.index("[") + 1
    line = 1 + text.count("\n", 0, pos)
    length = len(text)
    while pos < length:
        while pos < length and text[pos] in " \t\r\n,":
            if text[pos] == "\n":
                line += 1
            pos += 1
        if pos >= length or text[pos] == "]":
            break
        starts.append(line)
        _, end = decoder.raw_decode(text, pos)
        line += text.count("\n", pos, end)
        pos = end
    return starts
