"""TrustGraph's wire format: JSON triples with compact terms, and explain events."""

from __future__ import annotations

import hashlib
import json
from typing import Any
from urllib.parse import quote

import pyoxigraph as ox

from ..ground.errors import TgTraceError
from ..ground.limits import MAX_DEPTH
from ..ground.namespaces import TGL

XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"
# A term the input holds but RDF cannot (an IRI term "Quantum Computing", a relative IRI
# "doc/c1", a literal whose datatype is no IRI, a quoted triple as subject) enters the
# graph as a placeholder, the same one wherever the same text recurs, so its entity keeps
# its links and the other rules still run on it. The subject of its triple is annotated
# with what was written (tgl:invalidTerm), and the shapes report that (D008) on the line.
PLACEHOLDER = "urn:tg-trace:invalid:"
INVALID_TERM = ox.NamedNode(TGL + "invalidTerm")


class WireError(TgTraceError):
    def __init__(self, line: int | None, problem: str) -> None:
        self.line, self.problem = line, problem
        super().__init__(problem)


WIRE_KEYS = {"s", "p", "o"}


def is_wire_document(document: Any) -> bool:
    """A wire triple, a list of them, an explain event, or a list of events (judged by the first item,
    which only needs one of s, p, o: a triple missing one is a wire triple with a fault)."""
    items = document if isinstance(document, list) else [document]
    if not items:
        return True  # an empty list is an empty capture, which the loader refuses as such
    first = items[0]
    return isinstance(first, dict) and ("explain_triples" in first or "message_type" in first
                                        or bool(WIRE_KEYS & first.keys()))


def is_jsonld_document(document: Any) -> bool:
    """JSON-LD's own keywords: a node object, a @graph, a @context (alone or in a list)."""
    items = document if isinstance(document, list) else [document]
    return bool(items) and all(isinstance(i, dict) for i in items) and any(
        any(k.startswith("@") for k in i) for i in items)


def _placeholder(text: str) -> ox.NamedNode:
    return ox.NamedNode(PLACEHOLDER + quote(text, safe=""))


def term(data: Any, invalid: list[str] | None = None, depth: int = MAX_DEPTH,
         level: int = 1) -> ox.NamedNode | ox.BlankNode | ox.Literal | ox.Triple:
    """The term of a wire term object. A term RDF cannot hold is replaced by a placeholder and
    described in ``invalid``; without that list it is an error. Triple terms may nest ``depth``
    deep (the reading's bound; ``level``: how deep this term is)."""
    if not isinstance(data, dict):
        raise WireError(None, f"a term must be an object, not {type(data).__name__}")
    kind = data.get("t")
    try:
        if kind == "i":
            iri = _str(data, "i")
            try:
                return ox.NamedNode(iri)
            except ValueError:
                if invalid is None:
                    raise
                invalid.append(f"IRI term {json.dumps(iri, ensure_ascii=False)} is not an absolute IRI")
                return _placeholder(iri)
        if kind == "l":
            value = _str(data, "v")
            language, datatype = _str(data, "ln"), _str(data, "dt")
            if language:
                return ox.Literal(value, language=language)
            if datatype and datatype != XSD_STRING:
                try:
                    return ox.Literal(value, datatype=ox.NamedNode(datatype))
                except ValueError:
                    if invalid is None:
                        raise
                    invalid.append(f"literal datatype {json.dumps(datatype, ensure_ascii=False)} is not an IRI")
                    return ox.Literal(value)
            return ox.Literal(value)
        if kind == "b":
            return ox.BlankNode(_str(data, "d") or None)
        if kind == "t":
            if level > depth:
                raise WireError(None, f"nests more than {depth} deep (triple terms within triple terms): "
                                      "refused; raise --max-depth if it is genuine")
            inner = data.get("tr")
            if not isinstance(inner, dict):
                raise WireError(None, "a triple term ('t': 't') needs a 'tr' object")
            return ox.Triple(*_spo(inner, invalid, depth, level + 1))
    except ValueError as exc:
        raise WireError(None, f"bad term {json.dumps(data)[:80]}: {exc}") from None
    raise WireError(None, f"unknown term type {kind!r} (expected i, l, b or t)")


def _str(data: dict, key: str) -> str:
    value = data.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."
        raise WireError(None, f"term field {key!r} must be a string, got {shown}")
    return value


def _spo(data: dict, invalid: list[str] | None = None, depth: int = MAX_DEPTH, level: int = 1) -> tuple:
    missing = [k for k in ("s", "p", "o") if k not in data]
    if missing:
        raise WireError(None, f"triple is missing {', '.join(missing)}")
    s, p, o = (term(data[k], invalid, depth, level) for k in ("s", "p", "o"))
    if not isinstance(p, ox.NamedNode):
        raise WireError(None, "a predicate must be an IRI term")
    if isinstance(s, (ox.Literal, ox.Triple)):
        kind = "literal" if isinstance(s, ox.Literal) else "quoted triple"
        if invalid is None:
            raise WireError(None, f"a subject cannot be a {kind}")
        invalid.append(f"a {kind} as subject: {f'<<( {s} )>>' if isinstance(s, ox.Triple) else s}")
        s = _placeholder(hashlib.sha256(str(s).encode("utf-8")).hexdigest()[:16])
    return s, p, o


def _graph(name: Any) -> ox.DefaultGraph | ox.NamedNode:
    if not name:
        return ox.DefaultGraph()
    if not isinstance(name, str):
        raise WireError(None, "'g' must be a graph IRI string")
    try:
        return ox.NamedNode(name)
    except ValueError as exc:
        raise WireError(None, f"bad graph name {name!r}: {exc}") from None


def triple_to_quads(data: Any, graph: str | None = None, depth: int = MAX_DEPTH) -> list[ox.Quad]:
    """The quad of a wire triple, and the annotations of any term in it RDF cannot hold; its
    triple terms may nest ``depth`` deep."""
    if not isinstance(data, dict):
        raise WireError(None, "a triple must be a JSON object with s, p and o")
    invalid: list[str] = []
    s, p, o = _spo(data, invalid, depth)
    graph_name = _graph(data.get("g") or graph)
    return [ox.Quad(s, p, o, graph_name)] + [ox.Quad(s, INVALID_TERM, ox.Literal(text), graph_name)
                                             for text in invalid]


def triples_to_quads(items: list, graph: str | None = None, depth: int = MAX_DEPTH) -> list[ox.Quad]:
    return [quad for item in items for quad in triple_to_quads(item, graph, depth)]


def events_to_quads(events: list, depth: int = MAX_DEPTH) -> list[ox.Quad]:
    quads = []
    for event in events:
        if not isinstance(event, dict):
            raise WireError(None, "an explain event must be a JSON object")
        triples = event.get("explain_triples") or []
        if not isinstance(triples, list):
            raise WireError(None, "'explain_triples' must be a list")
        quads.extend(triples_to_quads(triples, event.get("explain_graph"), depth))
    return quads


def wire_lines(name: str, data: bytes, document: Any,
               depth: int = MAX_DEPTH) -> tuple[list[ox.Quad], dict[tuple, int | None]]:
    """Quads of a wire document, with the line each triple starts on."""
    text = data.decode("utf-8")
    items = document if isinstance(document, list) else [document]
    starts = element_lines(text) if isinstance(document, list) else [1]
    quads: list[ox.Quad] = []
    lines: dict[tuple, int | None] = {}
    for index, item in enumerate(items):
        line = starts[index] if index < len(starts) else None
        try:
            if isinstance(item, dict) and "explain_triples" in item:
                new = events_to_quads([item], depth)
            else:
                new = triple_to_quads(item, None, depth)
        except WireError as exc:
            raise WireError(line, f"item {index + 1}: {exc.problem}") from None
        for quad in new:
            lines.setdefault((quad.subject, quad.predicate, quad.object), line)
        quads.extend(new)
    return quads, lines


def element_lines(text: str) -> list[int]:
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
