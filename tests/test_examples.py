"""The committed example traces: up to date, well-formed, and each .json
holding exactly the quads of its .nq twin."""

from __future__ import annotations

import importlib
import json
import re
import subprocess
import sys
from pathlib import Path

import pyoxigraph as ox
import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
RETRIEVAL = "urn:graph:retrieval"
SOURCE = "urn:graph:source"

NQ_FILES = sorted(EXAMPLES.glob("*.nq"))
EVENT_LISTS = sorted(EXAMPLES.glob("*.events.json"))
STREAMS = sorted(EXAMPLES.glob("*.jsonl"))
TRIPLE_LISTS = sorted(p for p in EXAMPLES.glob("*.json") if p not in EVENT_LISTS)

NEEDS_EMITTER = "trustgraph-base (the real emitter, a test-only dependency) is not importable"


# --- an independent reader of the wire format ------------------------------

def wire_term(term, where: str):
    assert isinstance(term, dict), f"{where}: term is not an object"
    kind = term.get("t")
    if kind == "i":
        assert isinstance(term.get("i"), str) and term["i"], f"{where}: IRI without 'i'"
        return ox.NamedNode(term["i"])
    if kind == "b":
        assert isinstance(term.get("d"), str), f"{where}: blank node without 'd'"
        return ox.BlankNode(term["d"])
    if kind == "l":
        assert isinstance(term.get("v"), str), f"{where}: literal without string 'v'"
        assert not ("dt" in term and "ln" in term), f"{where}: literal with both dt and ln"
        if "ln" in term:
            return ox.Literal(term["v"], language=term["ln"])
        if "dt" in term:
            return ox.Literal(term["v"], datatype=ox.NamedNode(term["dt"]))
        return ox.Literal(term["v"])
    if kind == "t":
        s, p, o, g = wire_parts(term.get("tr"), f"{where}.tr")
        assert g is None, f"{where}: quoted triple carries a graph"
        return ox.Triple(s, p, o)
    raise AssertionError(f"{where}: unknown term type {kind!r}")


def wire_parts(triple, where: str):
    assert isinstance(triple, dict), f"{where}: triple is not an object"
    extra = set(triple) - {"s", "p", "o", "g"}
    assert not extra, f"{where}: unexpected keys {sorted(extra)}"
    for key in ("s", "p", "o"):
        assert key in triple, f"{where}: missing '{key}'"
    g = triple.get("g")
    assert g is None or (isinstance(g, str) and g), f"{where}: bad graph {g!r}"
    return (wire_term(triple["s"], f"{where}.s"), wire_term(triple["p"], f"{where}.p"),
            wire_term(triple["o"], f"{where}.o"), g)


def wire_quad(triple, where: str) -> ox.Quad:
    s, p, o, g = wire_parts(triple, where)
    return ox.Quad(s, p, o, ox.NamedNode(g) if g else ox.DefaultGraph())


def quads_of_triple_list(path: Path) -> set:
    data = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(data, list) and data, f"{path.name}: not a non-empty JSON list"
    return {wire_quad(t, f"{path.name}[{i}]") for i, t in enumerate(data)}


def nq_quads(path: Path) -> set:
    return set(ox.parse(path=str(path), format=ox.RdfFormat.N_QUADS))


def check_event(event, where: str) -> set:
    assert isinstance(event, dict), f"{where}: event is not an object"
    assert event.get("message_type") == "explain", f"{where}: not an explain event"
    assert event.get("explain_graph") == RETRIEVAL, f"{where}: explain_graph"
    triples = event.get("explain_triples")
    assert isinstance(triples, list) and triples, f"{where}: no explain_triples"
    quads = [wire_quad(t, f"{where}.explain_triples[{i}]") for i, t in enumerate(triples)]
    # Each event describes the entity it is named after.
    assert ox.NamedNode(event["explain_id"]) in {q.subject for q in quads}, where
    assert all(q.graph_name == ox.NamedNode(RETRIEVAL) for q in quads), where
    return set(quads)


# --- (a) the files are what the generator makes -----------------------------

def test_generate_check():
    pytest.importorskip("trustgraph.provenance", reason=NEEDS_EMITTER, exc_type=ImportError)
    proc = subprocess.run(
        [sys.executable, str(EXAMPLES / "generate.py"), "--check"],
        capture_output=True, text=True, cwd=ROOT, timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


# --- (b) well-formed --------------------------------------------------------

def test_examples_present_in_pairs():
    assert len(NQ_FILES) >= 10, "expected the committed example traces"
    assert {p.stem for p in NQ_FILES} == {p.stem for p in TRIPLE_LISTS}
    assert EVENT_LISTS and STREAMS, "expected explain-event examples"


@pytest.mark.parametrize("path", NQ_FILES, ids=lambda p: p.name)
def test_nquads_parse(path):
    quads = nq_quads(path)
    assert quads, f"{path.name}: no quads"


@pytest.mark.parametrize("path", TRIPLE_LISTS, ids=lambda p: p.name)
def test_json_is_wire_triples(path):
    assert quads_of_triple_list(path)


@pytest.mark.parametrize("path", NQ_FILES, ids=lambda p: p.name)
def test_named_graphs(path):
    graphs = {q.graph_name for q in nq_quads(path)}
    if path.stem == "extraction":
        assert graphs == {ox.DefaultGraph(), ox.NamedNode(SOURCE)}
    else:
        assert graphs == {ox.NamedNode(RETRIEVAL)}


# --- (c) .json and .nq agree ------------------------------------------------

@pytest.mark.parametrize("path", NQ_FILES, ids=lambda p: p.stem)
def test_json_and_nquads_hold_the_same_quads(path):
    assert quads_of_triple_list(path.with_suffix(".json")) == nq_quads(path)


@pytest.mark.parametrize("path", EVENT_LISTS, ids=lambda p: p.name)
def test_event_list_matches_its_trace(path):
    events = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(events, list) and events
    quads = set()
    for i, event in enumerate(events):
        quads |= check_event(event, f"{path.name}[{i}]")
    twin = EXAMPLES / (path.name.removesuffix(".events.json") + ".nq")
    assert quads == nq_quads(twin)


@pytest.mark.parametrize("path", STREAMS, ids=lambda p: p.name)
def test_explain_stream(path):
    lines = path.read_text(encoding="utf-8").splitlines()
    quads, sessions = set(), []
    for n, line in enumerate(lines, start=1):
        quads |= check_event(json.loads(line), f"{path.name}:{n}")
        sessions.append(re.search(r"[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}",
                                  json.loads(line)["explain_id"]).group(0))
    # Interleaved: some session's events are not contiguous.
    runs = [s for i, s in enumerate(sessions) if i == 0 or s != sessions[i - 1]]
    assert len(set(sessions)) >= 2 and len(runs) > len(set(runs))
    # Every streamed quad belongs to one of the committed traces.
    committed = set().union(*(nq_quads(p) for p in NQ_FILES))
    assert quads <= committed


# --- the builders are reusable ----------------------------------------------

@pytest.fixture
def generate(monkeypatch):
    pytest.importorskip("trustgraph.provenance", reason=NEEDS_EMITTER, exc_type=ImportError)
    monkeypatch.syspath_prepend(str(ROOT))
    return importlib.import_module("examples.generate")


def _typed(triples, cls):
    return {t.s.iri for t in triples
            if t.p.iri.endswith("#type") and t.o.iri == f"https://trustgraph.ai/ns/{cls}"}


def test_builders_scale_and_are_deterministic(generate):
    react = generate.build_orchestrator_react(seed="scale", n_iterations=7)
    assert len(_typed(react, "Analysis")) == 7
    assert react == generate.build_orchestrator_react(seed="scale", n_iterations=7)
    other = generate.build_orchestrator_react(seed="other", n_iterations=7)
    assert _typed(other, "Analysis").isdisjoint(_typed(react, "Analysis"))

    assert len(_typed(generate.build_graphrag(seed="scale", n_edges=40), "EdgeSelection")) == 40
    assert len(_typed(generate.build_plan_then_execute(seed="scale", n_steps=6), "StepResult")) == 6

    import uuid

    import trustgraph.provenance.uris as uris
    extraction = generate.build_extraction(seed="scale", n_pages=3, chunks_per_page=4)
    assert len(_typed(extraction, "Chunk")) == 12
    assert extraction == generate.build_extraction(seed="scale", n_pages=3, chunks_per_page=4)
    assert uris.uuid is uuid, "the emitter's uuid module must be restored"
