"""tg-trace convert: any input the linter reads, written as N-Quads or TriG 1.2, is the graph it judged."""

from __future__ import annotations

import json
import subprocess
import sys

import pyoxigraph as ox
import pytest
import tgtrace
from conftest import EXAMPLES, example_traces
from test_invalid_terms import _with_bad_terms

FORMATS = {"nquads": ox.RdfFormat.N_QUADS, "trig": ox.RdfFormat.TRIG}


def _tg_trace(*args):
    return subprocess.run([sys.executable, "-m", "tgtrace.cli", *args], capture_output=True, timeout=120)


def _pairs(source) -> set:
    return {(f.rule, f.focus, f.value) for f in tgtrace.lint(source, fail_on="never")}


@pytest.mark.parametrize("fmt", FORMATS)
def test_wire_json_converts_to_the_quads_of_its_nquads_twin(fmt, tmp_path):
    """A wire JSON example and its N-Quads twin hold the same quads: converted, the JSON is them."""
    out = tmp_path / f"graph-rag.{fmt}"
    proc = _tg_trace("convert", str(EXAMPLES / "graph-rag.json"), "--to", fmt, "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    written = set(ox.parse(path=str(out), format=FORMATS[fmt]))
    assert written == set(ox.parse(path=str(EXAMPLES / "graph-rag.nq"), format=ox.RdfFormat.N_QUADS))
    assert any(isinstance(q.object, ox.Triple) for q in written), "the triple terms are kept as triple terms"


@pytest.mark.parametrize("path", [p for p in example_traces(".json") if p.with_suffix(".nq").exists()]
                         + [EXAMPLES / "explain-stream.jsonl"], ids=lambda p: p.name)
def test_converted_input_lints_as_the_input(path, tmp_path):
    out = tmp_path / "converted.nq"
    proc = _tg_trace("convert", str(path), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert _pairs(str(out)) == _pairs(str(path))


def test_terms_rdf_cannot_hold_stay_as_the_linter_judged_them(tmp_path):
    source = tmp_path / "bad.json"
    source.write_text(json.dumps(_with_bad_terms()))
    proc = _tg_trace("convert", str(source), "--to", "trig")
    assert proc.returncode == 0, proc.stderr
    converted = tmp_path / "bad.trig"
    converted.write_bytes(proc.stdout)
    d008 = {pair for pair in _pairs(str(source)) if pair[0] == "D008"}
    assert len(d008) == 3
    assert {pair for pair in _pairs(str(converted)) if pair[0] == "D008"} == d008


def test_standard_input_converts(tmp_path):
    data = (EXAMPLES / "document-rag.json").read_bytes()
    proc = subprocess.run([sys.executable, "-m", "tgtrace.cli", "convert", "-"], input=data, capture_output=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert set(ox.parse(proc.stdout, format=ox.RdfFormat.N_QUADS)) == \
        set(ox.parse(path=str(EXAMPLES / "document-rag.nq"), format=ox.RdfFormat.N_QUADS))


def test_unreadable_input_is_one_line_and_exit_2(tmp_path):
    bad = tmp_path / "bad\x1b[31m.json"
    bad.write_text('{"s":')
    proc = _tg_trace("convert", str(bad))
    assert proc.returncode == 2
    assert proc.stdout == b""
    lines = proc.stderr.decode().splitlines()
    assert len(lines) == 1 and "\x1b" not in lines[0] and "Traceback" not in lines[0], lines


def test_empty_input_is_refused(tmp_path):
    empty = tmp_path / "empty.nq"
    empty.write_text("")
    proc = _tg_trace("convert", str(empty))
    assert proc.returncode == 2 and b"holds no triples" in proc.stderr


def test_never_writes_over_an_input(tmp_path):
    source = tmp_path / "trace.json"
    source.write_bytes((EXAMPLES / "graph-rag.json").read_bytes())
    before = source.read_bytes()
    proc = _tg_trace("convert", str(source), "-o", str(source))
    assert proc.returncode == 2 and b"refusing to overwrite" in proc.stderr
    assert source.read_bytes() == before


# Every character no output shows raw: C0 (in a literal), C1, the bidi controls, the separators, U+FFFE/F.
UNSAFE = "\x01\x1b\x7f\x85\x9b\u061c\u200e\u200f\u202a\u202e\u2066\u2069\u2028\u2029\ufffe\uffff"
UNSAFE_IN_IRI = UNSAFE[5:-2]  # an IRI holds no C0 control, DEL or noncharacter


@pytest.mark.parametrize("fmt, syntax", [("nquads", ox.RdfFormat.N_QUADS), ("trig", ox.RdfFormat.TRIG),
                                         ("ntriples", ox.RdfFormat.N_TRIPLES)])
def test_unsafe_characters_are_written_as_the_syntaxs_escapes_losslessly(fmt, syntax, tmp_path):
    """In literals, IRIs (one a prefixed name in TriG), blank node labels and graph names: the
    output holds none of them raw, and reads back as the same graph (blank nodes renamed)."""
    tg = "https://trustgraph.ai/ns/"
    question = ox.NamedNode(f"{tg}question{UNSAFE_IN_IRI}")
    blank = ox.BlankNode("b\u061cx")  # the one unsafe character a label may hold
    graph = ox.NamedNode("urn:graph:retrieval")
    quads = [ox.Quad(question, ox.NamedNode(tg + "query"), ox.Literal(f"what{UNSAFE}?"), graph),
             ox.Quad(question, ox.NamedNode(tg + "query"), ox.Literal(f"was{UNSAFE}", language="en"), graph),
             ox.Quad(blank, ox.NamedNode(tg + "label"), ox.Literal(UNSAFE), graph),
             ox.Quad(question, ox.NamedNode(tg + "edge"), ox.Triple(blank, ox.NamedNode(tg + "p"), question), graph)]
    source = tmp_path / "hostile.nq"
    source.write_bytes(ox.serialize(quads, format=ox.RdfFormat.N_QUADS))
    out = tmp_path / f"out.{fmt}"
    proc = _tg_trace("convert", str(source), "--to", fmt, "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    data = out.read_bytes()
    text = data.decode("utf-8")
    assert not [c for c in UNSAFE if c in text], [c for c in UNSAFE if c in text]
    assert proc.stdout == b""
    stdout = _tg_trace("convert", str(source), "--to", fmt).stdout
    assert not [c for c in UNSAFE if c in stdout.decode("utf-8")]
    back = list(ox.parse(data, format=syntax))
    expected = quads if fmt != "ntriples" else [ox.Quad(q.subject, q.predicate, q.object) for q in quads]
    assert _canonical(back) == _canonical(expected)


def _canonical(quads) -> set:
    """The quads with blank nodes named by their first appearance (the labels are no part of the graph)."""
    names: dict = {}

    def term(t):
        if isinstance(t, ox.BlankNode):
            return names.setdefault(t.value, f"_:{len(names)}")
        if isinstance(t, ox.Triple):
            return (term(t.subject), term(t.predicate), term(t.object))
        return t

    return {(term(q.subject), q.predicate, term(q.object), q.graph_name) for q in quads}
