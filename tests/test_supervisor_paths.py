"""Supervisor traces as the real orchestrator writes and sends them.

- TrustGraph 2.11.1 derives a Finding from the Decomposition when it does not
  know the sub-agent's session: a normal path where the sub-agent's answer is
  not in the input, so no error, in either engine; where it is (2.11.1 always
  knows the session of a sub-agent that answered), C034 reports the Finding.
- Its explain stream delivers each sub-agent's Conclusion before any Finding:
  a sub-agent's Conclusion must not close the trace, and findings on the
  stream equal findings on the same triples as a file, in the service's
  order and in any interleaving of several traces that keeps each one's order.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pyoxigraph as ox
import pytest
import tgtrace
from conftest import EXAMPLES
from wire_support import wire

ROOT = "urn:trustgraph:agent:c5d169e8-f902-5f3a-82ff-7e61d4e506f0"
DERIVED = ox.NamedNode("http://www.w3.org/ns/prov#wasDerivedFrom")


def quads(name: str) -> list[ox.Quad]:
    return list(ox.parse(path=str(EXAMPLES / name), format=ox.RdfFormat.N_QUADS))


def findings(report) -> set:
    return {(f.rule, f.severity, f.focus, f.trace) for f in report}


def _from_the_decomposition(items: list[ox.Quad]) -> list[ox.Quad]:
    decomposition = ox.NamedNode(ROOT + "/decompose")
    return [ox.Quad(q.subject, q.predicate, decomposition, q.graph_name)
            if q.predicate == DERIVED and "/finding/" in q.subject.value else q for q in items]


@pytest.mark.parametrize("engine", ["fast", "shacl"])
def test_findings_derived_from_the_decomposition_are_a_normal_path_without_the_sub_agents(engine):
    # The supervisor's own trace, the sub-agents' (their Questions and all below) not in the input.
    own = [q for q in quads("supervisor.nq") if q.subject.value.startswith(ROOT)]
    fallback = _from_the_decomposition(own)
    assert fallback != own
    report = tgtrace.lint(fallback, engine=engine, fail_on="never")
    assert not [f for f in report if f.severity >= tgtrace.Severity.ERROR], [str(f.rule) for f in report]


@pytest.mark.parametrize("engine", ["fast", "shacl"])
def test_findings_derived_from_the_decomposition_though_the_sub_agents_answered_are_reported(engine):
    report = tgtrace.lint(_from_the_decomposition(quads("supervisor.nq")), engine=engine, fail_on="never")
    assert {(f.rule, f.focus) for f in report if f.severity >= tgtrace.Severity.ERROR} == {
        ("C034", ROOT + "/finding/0"), ("C034", ROOT + "/finding/1")}


def events(items: list[ox.Quad]) -> list[list[ox.Quad]]:
    """One explain event per entity, as the services send them: each run of one subject."""
    found: list[list[ox.Quad]] = []
    for quad in items:
        if found and found[-1][0].subject == quad.subject:
            found[-1].append(quad)
        else:
            found.append([quad])
    return found


def service_order(items: list[ox.Quad]) -> list[list[ox.Quad]]:
    """The supervisor's own events last but one: every sub-agent's Conclusion arrives before any
    Finding, then the Findings, then the Synthesis (the order the 2.11.1 orchestrator sends)."""
    all_events = events(items)
    own = [e for e in all_events if e[0].subject.value.startswith(ROOT + "/finding/")]
    synthesis = [e for e in all_events if e[0].subject.value == ROOT + "/synthesis"]
    rest = [e for e in all_events if e not in own and e not in synthesis]
    return rest + own + synthesis


def write_stream(path: Path, streams: list[list[list[ox.Quad]]], seed: int | None) -> Path:
    """Events of several traces, interleaved at random (each trace keeps its own order)."""
    rng = random.Random(seed)
    queues = [list(s) for s in streams]
    lines = []
    while any(queues):
        queue = rng.choice([q for q in queues if q]) if seed is not None else next(q for q in queues if q)
        event = queue.pop(0)
        lines.append(json.dumps({"message_type": "explain", "explain_id": event[0].subject.value,
                                 "explain_graph": "urn:graph:retrieval",
                                 "explain_triples": [{"s": wire(q.subject), "p": wire(q.predicate),
                                                      "o": wire(q.object)} for q in event]}))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_supervisor_stream_in_service_order_lints_as_its_file(tmp_path):
    stream = write_stream(tmp_path / "supervisor.jsonl", [service_order(quads("supervisor.nq"))], None)
    streamed, whole = tgtrace.lint(str(stream), fail_on="never"), tgtrace.lint(quads("supervisor.nq"), fail_on="never")
    assert findings(streamed) == findings(whole)
    assert not [f for f in streamed if f.rule == "C002"]
    assert set(streamed.traces) == {ROOT}


@pytest.mark.parametrize("seed", range(12))
def test_any_interleaving_lints_as_the_files(tmp_path, seed):
    names = ["supervisor.nq", "graph-rag.nq", "orchestrator-react-graphrag-tool.nq", "plan-then-execute.nq",
             "document-rag-reranked.nq"]
    streams = [service_order(quads(n)) if n == "supervisor.nq" else events(quads(n)) for n in names]
    stream = write_stream(tmp_path / "mixed.jsonl", streams, seed)
    streamed = tgtrace.lint(str(stream), fail_on="never")
    whole = tgtrace.lint([q for n in names for q in quads(n)], fail_on="never")
    assert findings(streamed) == findings(whole)
    assert len(streamed.traces) == len(names)
