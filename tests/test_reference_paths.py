"""The reference engine's transitive paths: rdflib's solutions, from one index per graph."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st
from rdflib import Graph, URIRef
from rdflib.paths import AlternativePath, InvPath, MulPath, OneOrMore, ZeroOrMore, ZeroOrOne

from tgtrace.engines.paths import indexed_transitive_paths

from test_hostile_inputs import DERIVED, TG, TYPE, _write_nq, tg_trace

P, Q = URIRef("urn:p"), URIRef("urn:q")
NODES = [URIRef(f"urn:n{i}") for i in range(7)]

PATHS = [
    MulPath(P, OneOrMore), MulPath(P, ZeroOrMore), MulPath(P, ZeroOrOne),
    MulPath(InvPath(P), OneOrMore), MulPath(AlternativePath(P, Q), OneOrMore),
    MulPath(AlternativePath(P, InvPath(Q)), ZeroOrMore),
]

edges = st.lists(st.tuples(st.sampled_from(NODES), st.sampled_from([P, Q]), st.sampled_from(NODES)), max_size=14)
ends = st.one_of(st.none(), st.sampled_from(NODES))


@settings(max_examples=300, deadline=None)
@given(edges, st.sampled_from(PATHS), ends, ends)
def test_solutions_are_rdflibs(triples, path, subject, object_):
    graph = Graph()
    for triple in triples:
        graph.add(triple)
    rdflibs = MulPath.eval
    expected = sorted(path.eval(graph, subject, object_))
    with indexed_transitive_paths():
        assert sorted(path.eval(graph, subject, object_)) == expected
        assert sorted(path.eval(graph, subject, object_)) == expected  # from the kept index
    assert MulPath.eval is rdflibs


def _findings(engine: str, path, timeout: int) -> list:
    result = tg_trace("lint", "--engine", engine, "--format", "json", str(path), timeout=timeout)
    assert result.returncode == 1, result.stderr[-2000:]
    return sorted((f["rule"], f["focus"], f["value"]) for f in json.loads(result.stdout)["findings"])


def test_reference_engine_is_linear_on_long_chains(tmp_path):
    # Generous limits, several times what a linear run takes on a slow machine; the quadratic
    # engine walked the whole chain from every focus node (3,000 links took 40 s, 10,000 about
    # 7 minutes) and listed every ancestor inside EXISTS (3,000 Questions took 5 minutes).
    n = 10_000
    chain = _write_nq(tmp_path / "chain.nq", (
        line for i in range(n) for line in ((f"<urn:e:{i}> <{TYPE}> <{TG}Focus> .",)
                                            + ((f"<urn:e:{i}> <{DERIVED}> <urn:e:{i - 1}> .",) if i else ()))))
    cycle = _write_nq(tmp_path / "cycle.nq", (
        line for i in range(2_000) for line in (f"<urn:e:{i}> <{TYPE}> <{TG}Focus> .",
                                                f"<urn:e:{i}> <{DERIVED}> <urn:e:{(i + 1) % 2_000}> .")))
    questions = _write_nq(tmp_path / "questions.nq", (
        line for i in range(3_000) for line in (f"<urn:q:{i}> <{TYPE}> <{TG}Question> .",
                                                f"<urn:q:{i}> <{TYPE}> <{TG}AgentQuestion> .")
        + ((f"<urn:q:{i}> <{DERIVED}> <urn:q:{i - 1}> .",) if i else ())))
    for path in (chain, cycle, questions):
        assert _findings("shacl", path, timeout=240) == _findings("fast", path, timeout=60)
