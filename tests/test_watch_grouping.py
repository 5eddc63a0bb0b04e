"""How tg-trace watch groups the explain events of a flow's export into traces, on the real
example traces (the network side is tests/test_gateway.py): when a trace is linted, what
becomes of one that never completes, and that memory holds only the traces in flight."""

from __future__ import annotations

import json

from conftest import EXAMPLES
from tgtrace.api import check_graph, lint
from tgtrace.inputs.gateway import kept_triples
from tgtrace.inputs.wire import triples_to_quads
from tgtrace.run.watch import LiveTraces

QUIET, TIMEOUT = 5.0, 600.0


def events(name: str) -> list[list[dict]]:
    """The triples of each explain event of an explain stream."""
    found = []
    for line in (EXAMPLES / name).read_text().splitlines():
        event = json.loads(line)
        found.append([{**t, "g": t.get("g") or event["explain_graph"]} for t in event["explain_triples"]])
    return found


def feed(traces: LiveTraces, batches, start: float = 0.0) -> float:
    now = start
    for line, triples in enumerate(batches, start=1):
        now += 0.1
        traces.add(line, triples_to_quads(kept_triples(triples)), now)
    return now


def test_each_trace_is_linted_once_complete_and_quiet_and_then_released():
    traces = LiveTraces("<export>")
    last = feed(traces, events("explain-stream.jsonl"))  # a GraphRAG and an agent session, interleaved
    assert list(traces.due(last + QUIET / 2, QUIET, TIMEOUT)) == []  # complete, but not yet quiet
    due = list(traces.due(last + QUIET, QUIET, TIMEOUT))
    assert [why for _, why in due] == ["complete", "complete"]
    results = [check_graph(graph) for graph, _ in due]
    assert sorted(root for r in results for root in r.traces) == sorted(lint(EXAMPLES / "explain-stream.jsonl").traces)
    assert [r.findings for r in results] == [[], []]
    assert traces.held == 0 and traces.open == 0


def test_a_trace_without_its_answer_is_given_up_after_the_timeout():
    triples = json.loads((EXAMPLES / "orchestrator-react-max-iterations.json").read_text())  # no Conclusion
    traces = LiveTraces("<export>")
    last = feed(traces, [triples])
    assert list(traces.due(last + QUIET, QUIET, TIMEOUT)) == []
    assert traces.open == 1
    (graph, why), = traces.due(last + TIMEOUT, QUIET, TIMEOUT)
    assert why == "timeout"
    assert sorted(f.rule for f in check_graph(graph).findings) == sorted(
        f.rule for f in lint(EXAMPLES / "orchestrator-react-max-iterations.json").findings)
    assert traces.held == 0


def test_memory_holds_only_the_traces_in_flight():
    text = (EXAMPLES / "orchestrator-react-one-shot.json").read_text()
    one = len(json.loads(text))
    traces = LiveTraces("<export>")
    now = 0.0
    for number in range(300):
        now = feed(traces, [json.loads(text.replace("ce3416ed-11d7-525f-adf1-8f83153e5791", f"run-{number}"))], now)
        now += QUIET + 1
        assert [why for _, why in traces.due(now, QUIET, TIMEOUT)] == ["complete"]
    assert traces.held == 0 and not traces.owner
    assert traces.peak <= one


def test_only_the_explainability_graphs_and_the_documents_they_derive_from_are_kept():
    triples = json.loads((EXAMPLES / "extraction.json").read_text())
    kept = kept_triples(triples)
    assert {t.get("g") for t in kept} == {"urn:graph:source", None}
    documents = {t["s"]["i"] for t in kept if not t.get("g")}
    assert documents and all("/doc/" in d for d in documents)
    facts = [t for t in triples if not t.get("g") and t["s"]["i"] not in documents]
    assert facts and not any(t in kept for t in facts)  # the extracted knowledge is left out


def test_a_repeated_event_is_held_once():
    triples = json.loads((EXAMPLES / "orchestrator-react-max-iterations.json").read_text())
    traces = LiveTraces("<export>")
    feed(traces, [triples])
    held = traces.held
    for _ in range(20):
        feed(traces, [triples])
    assert traces.held == held == len(set(triples_to_quads(kept_triples(triples))))


def test_a_growing_trace_is_released_at_its_bounds():
    text = (EXAMPLES / "orchestrator-react-max-iterations.json").read_text()
    # Remembering nothing: the same events sent again are a trace of their own, not a redelivery.
    traces = LiveTraces("<export>", remember=0)
    last = feed(traces, [json.loads(text)])
    # Still arriving (never quiet), but at its triple bound or its age bound it is linted.
    (graph, why), = traces.due(last, QUIET, TIMEOUT, max_age=3600, max_triples=traces.held)
    assert why == "triples" and traces.held == 0 and graph.statements
    last = feed(traces, [json.loads(text)], start=100.0)
    (graph, why), = traces.due(last + 1.0, QUIET, TIMEOUT, max_age=1.0)
    assert why == "age" and traces.held == 0


def test_past_the_total_bound_the_oldest_traces_go_first():
    text = (EXAMPLES / "orchestrator-react-one-shot.json").read_text()
    traces = LiveTraces("<export>")
    now = 0.0
    for number in range(5):
        now = feed(traces, [json.loads(text.replace("ce3416ed-11d7-525f-adf1-8f83153e5791", f"run-{number}"))], now)
    one = traces.held // 5
    released = list(traces.crowded(traces.held - one - 1))
    assert len(released) == 2 and traces.open == 3
    assert [sorted(check_graph(g).traces)[0].endswith(f"run-{n}") for n, g in enumerate(released)] == [True, True]
