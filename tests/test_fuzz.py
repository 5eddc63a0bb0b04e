"""Fuzzing as a habit: any input ends in a report or an input error, never another exception.

Property tests (hypothesis) give every loader arbitrary bytes in every format
it declares, and JSON documents of any shape to the wire loader; the seeded
mutation fuzzer (tests/fuzz.py) mutates the real examples and their file names, and reads each
report back in one output format after another. A longer run:
``python tests/fuzz.py --cases 100000``.
"""

from __future__ import annotations

import io
import json

import pytest
import tgtrace
from fuzz import output_problem, run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tgtrace.inputs.loaders import INPUT_FORMATS, InputError

FUZZ_CASES = 3000


def lint_bytes(data: bytes, name: str, input_format: str | None = None) -> None:
    stream = io.BytesIO(data)
    stream.name = name
    try:
        tgtrace.lint(stream, input_format=input_format, fail_on="never")
    except InputError as exc:
        # The one line a user sees: the parser's message quotes the bytes.
        assert output_problem("text", str(exc)) is None and "\n" not in str(exc), str(exc)


@pytest.mark.parametrize("input_format", INPUT_FORMATS)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.binary(max_size=400))
def test_any_bytes_in_any_declared_format(input_format, data):
    lint_bytes(data, "fuzz", input_format)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["s", "p", "o", "t", "i", "v", "d", "dt", "ln", "tr", "g", "explain_triples",
                         "explain_graph", "message_type", "@id", "@context", "@graph"]), inner, max_size=5),
    max_leaves=30)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(document=JSON_VALUES)
def test_any_json_document(document):
    data = json.dumps(document).encode()
    lint_bytes(data, "fuzz.json")
    lint_bytes(data + b"\n" + data, "fuzz.jsonl")


# ---------------------------------------------------------------- nesting and fan-out, every reader

TG = "https://trustgraph.ai/ns/"
QUESTION = "urn:trustgraph:question:nested"
HEAD = (f"<{QUESTION}> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <{TG}Question> .\n"
        f"<{QUESTION}> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <{TG}GraphRagQuestion> .\n")


def _term(depth: int) -> str:
    term = "<urn:a> <urn:b> <urn:c>"
    for _ in range(depth):
        term = f"<<( <urn:a> <urn:b> {term if term.startswith('<<') else '<urn:c>'} )>>" if term.startswith("<<") \
            else f"<<( {term} )>>"
    return term if depth else "<urn:c>"


def _values(width: int) -> str:
    return "".join(f'<{QUESTION}> <{TG}concept> "value {n % max(1, width - 3)}" .\n' for n in range(width))


def _wire_term(depth: int) -> dict:
    term: dict = {"t": "i", "i": "urn:c"}
    for _ in range(depth):
        term = {"t": "t", "tr": {"s": {"t": "i", "i": "urn:a"}, "p": {"t": "i", "i": "urn:b"}, "o": term}}
    return term


def _wire(depth: int, width: int) -> list[dict]:
    q = {"t": "i", "i": QUESTION}
    return [{"s": q, "p": {"t": "i", "i": "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"}, "o": {"t": "i", "i": TG + "Question"}},
            {"s": q, "p": {"t": "i", "i": TG + "edge"}, "o": _wire_term(depth)},
            *({"s": q, "p": {"t": "i", "i": TG + "concept"}, "o": {"t": "l", "v": f"value {n}"}} for n in range(width))]


def _tgx(nquads: str) -> bytes:
    import gzip
    import tarfile

    data = nquads.replace(" .\n", " <urn:trustgraph:collection:c> .\n").encode()
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        member = tarfile.TarInfo("knowledge/c/triples.nq")
        member.size = len(data)
        archive.addfile(member, io.BytesIO(data))
    return gzip.compress(buffer.getvalue())


def _msgpack(depth: int, width: int) -> bytes:
    import msgpack

    return msgpack.packb(["t", {"m": {"id": "x", "collection": "c"}, "t": _wire(depth, width)}])


def _xml(depth: int, width: int) -> str:
    values = "".join(f"<tg:concept>value {n}</tg:concept>" for n in range(width))
    return ('<?xml version="1.0"?>\n<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" '
            f'xmlns:tg="{TG}"><rdf:Description rdf:about="{QUESTION}"><rdf:type rdf:resource="{TG}Question"/>'
            + values + "<tg:entity>" + '<rdf:Description rdf:about="urn:d"><tg:entity>' * depth + "x"
            + "</tg:entity></rdf:Description>" * depth + "</tg:entity></rdf:Description></rdf:RDF>\n")


def _jsonld(depth: int, width: int) -> str:
    inner = ('{"@id": "urn:d", "' + TG + 'entity": ') * depth + '"x"' + "}" * depth
    return json.dumps({"@id": QUESTION, "@type": TG + "Question", TG + "concept": [f"value {n}" for n in range(width)]}
                      )[:-1] + f', "{TG}entity": {inner}}}'


# Each reader's syntax for a trace whose edge nests ``depth`` deep (triple terms; JSON-LD's objects,
# RDF/XML's elements) and whose Question holds ``width`` values of one predicate (some repeated).
READERS = {
    "nquads": lambda d, w: ("nested.nq", (HEAD + f"<{QUESTION}> <{TG}edge> {_term(d)} .\n" + _values(w)).encode()),
    "ntriples": lambda d, w: ("nested.nt", (HEAD + f"<{QUESTION}> <{TG}edge> {_term(d)} .\n" + _values(w)).encode()),
    "turtle": lambda d, w: ("nested.ttl", (HEAD + f"<{QUESTION}> <{TG}edge> {_term(d)} .\n" + _values(w)).encode()),
    "trig": lambda d, w: ("nested.trig", ("<urn:g> {\n" + HEAD + f"<{QUESTION}> <{TG}edge> {_term(d)} .\n"
                                          + _values(w) + "}\n").encode()),
    "jsonld": lambda d, w: ("nested.jsonld", _jsonld(d, w).encode()),
    "rdfxml": lambda d, w: ("nested.rdf", _xml(d, w).encode()),
    "wire": lambda d, w: ("nested.json", json.dumps(_wire(d, w)).encode()),
    "jsonl": lambda d, w: ("nested.jsonl", (json.dumps({"message_type": "explain", "explain_graph": "urn:graph:retrieval",
                                                        "explain_triples": _wire(d, w)}) + "\n").encode()),
    "kgcore": lambda d, w: ("nested.msgpack", _msgpack(d, w)),
    "tgx": lambda d, w: ("nested.tgx", _tgx(HEAD + f"<{QUESTION}> <{TG}edge> {_term(d)} .\n" + _values(w))),
}


@pytest.mark.parametrize("reader", sorted(READERS))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(depth=st.integers(min_value=0, max_value=160), width=st.integers(min_value=1, max_value=400))
def test_any_nesting_and_fan_out_on_every_reader(reader, depth, width):
    """Nested up to 160 deep and fanned out to 400 values: a report or one line saying it nests too
    deep, from every reader; within the bound (64) never that."""
    name, data = READERS[reader](depth, width)
    stream = io.BytesIO(data)
    stream.name = name
    try:
        report = tgtrace.lint(stream, fail_on="never")
    except InputError as exc:
        text = str(exc)
        assert "\n" not in text and output_problem("text", text) is None, text
        assert depth > 30, f"{reader} nested {depth} deep: {text}"
        assert "deep" in text, text
        return
    assert depth <= 64 + 2, f"{reader} nested {depth} deep was read"
    assert report.triples >= width // 2


def test_mutations_of_the_examples_never_crash():
    crashes = [c for c in (run(seed) for seed in range(FUZZ_CASES)) if c]
    assert not crashes, "\n\n".join(crashes[:3])
