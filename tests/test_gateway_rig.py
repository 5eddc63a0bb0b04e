"""The TrustGraph deployment the gateway tests run against (``gateway_rig``) does what it says: TrustGraph's
own client reads back exactly what a publish wrote, with TrustGraph's graph semantics, and the live
export delivers a publish to a subscriber."""

from __future__ import annotations

import contextlib
import io
import json
import os
import uuid
from pathlib import Path

import gateway_rig
import pytest
from conftest import EXAMPLES
from gateway_rig import RDF_TYPE, RigError, capture_events, deployment, group_events

# Slow: starts the real TrustGraph deployment on RabbitMQ (`python -m pytest -m "not slow"` leaves it out; CI runs it).
pytestmark = pytest.mark.slow

websockets_sync = pytest.importorskip("websockets.sync.client")


def key(triple: dict) -> str:
    return json.dumps(triple, sort_keys=True)


def published(events: list[dict]) -> set[str]:
    return {key(t) for e in events for t in e["triples"]}


def tg_query_graph(rig, collection: str, graph: str | None = None, limit: int = 100000) -> list[dict]:
    """What ``tg-query-graph --format jsonl`` prints: TrustGraph's own CLI code, over the gateway's
    websocket, streaming."""
    from trustgraph.cli.query_graph import query_graph

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        query_graph(rig.url, rig.flow, collection, limit, 20, graph=graph, output_format="jsonl",
                    token=rig.token, workspace=rig.workspace)
    return [json.loads(line) for line in out.getvalue().splitlines()]


@pytest.mark.parametrize("name", ["graph-rag.json", "supervisor.nq", "services/supervisor.jsonl",
                                  "extraction.json"])
def test_tg_query_graph_reads_back_what_was_published(trustgraph, name):
    collection = f"readback-{uuid.uuid4().hex[:8]}"
    events = trustgraph.publish_capture(EXAMPLES / name, collection)
    found = tg_query_graph(trustgraph, collection)
    assert {key(t) for t in found} == published(events)
    assert len(found) == len(published(events)), "each stored quad comes back once"
    # The store's order, not the emission order: by graph, then subject.
    order = [(t.get("g", ""), t["s"]["i"]) for t in found]
    assert order == sorted(order)


def test_tg_list_explain_traces_finds_the_published_sessions(trustgraph, monkeypatch):
    """TrustGraph's own viewer, whose queries bind a predicate and a graph (the store's other path)."""
    from trustgraph.cli import list_explain_traces

    collection = f"sessions-{uuid.uuid4().hex[:8]}"
    questions = {}
    for name in ("graph-rag.json", "supervisor.json"):
        events = trustgraph.publish_capture(EXAMPLES / name, collection)
        question = next(t for e in events for t in e["triples"] if t["p"]["i"] == "https://trustgraph.ai/ns/query")
        questions[question["s"]["i"]] = question["o"]["v"]
    monkeypatch.setattr("sys.argv", ["tg-list-explain-traces", "-u", trustgraph.url, "-t", trustgraph.token,
                                     "-w", trustgraph.workspace, "-C", collection, "--format", "json"])
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        list_explain_traces.main()
    assert {s["id"]: s["question"] for s in json.loads(out.getvalue())} == questions


def test_graph_semantics_of_the_triples_service(trustgraph):
    collection = f"graphs-{uuid.uuid4().hex[:8]}"
    events = trustgraph.publish_capture(EXAMPLES / "extraction.json", collection)
    everything = published(events)
    by_graph = {}
    for t in map(json.loads, everything):
        by_graph.setdefault(t.get("g", ""), set()).add(key(t))
    assert set(by_graph) == {"", "urn:graph:source"}
    assert {key(t) for t in tg_query_graph(trustgraph, collection, "urn:graph:source")} == by_graph["urn:graph:source"]
    assert {key(t) for t in tg_query_graph(trustgraph, collection, "")} == by_graph[""]
    assert tg_query_graph(trustgraph, collection, "*") == []
    # The REST endpoint (not streaming): an absent g is every graph too; limit cuts.
    found = trustgraph.query({"collection": collection, "limit": 100000})["response"]
    assert {key(t) for t in found} == everything
    assert len(trustgraph.query({"collection": collection, "limit": 7})["response"]) == 7
    # Streaming: batches of batch-size, the last one shorter; limit cuts the scan in the store's order.
    from trustgraph.api import Api

    api = Api(trustgraph.url, token=trustgraph.token, workspace=trustgraph.workspace)
    try:
        flow = api.socket().flow(trustgraph.flow)
        batches = [b for b in flow.triples_query_stream(collection=collection, limit=100000, batch_size=7) if b]
        cut = [t for b in flow.triples_query_stream(collection=collection, limit=30, batch_size=7) for t in b]
    finally:
        api.close()
    assert {len(b) for b in batches[:-1]} == {7} and 0 < len(batches[-1]) <= 7
    assert [t for b in batches for t in b][:30] == cut
    # Collections are kept apart.
    assert tg_query_graph(trustgraph, f"empty-{uuid.uuid4().hex[:8]}") == []


def test_events_are_one_per_explain_entity():
    """Grouping wire triples gives the events TrustGraph's services sent (their captured explain
    streams beside the same triples)."""
    for stream in sorted((EXAMPLES / "services").glob("*.jsonl")):
        sent = capture_events(stream)
        regrouped = group_events(json.loads(stream.with_suffix(".json").read_text()))
        assert [(e["id"], e["triples"]) for e in regrouped] == [(e["id"], e["triples"]) for e in sent], stream.name
    # N-Quads keep the emission order (without repeats): the same events.
    for nq in sorted(EXAMPLES.glob("*.nq")):
        assert [e["id"] for e in capture_events(nq)] == [e["id"] for e in capture_events(nq.with_suffix(".json"))]
    # Extraction: the tg:Document node is one message, in the default graph, as the librarian writes it;
    # pages, chunks and subgraphs follow, one message each, in urn:graph:source.
    document, *parts = capture_events(EXAMPLES / "extraction.json")
    assert {"s": {"t": "i", "i": document["id"]}, "p": {"t": "i", "i": RDF_TYPE},
            "o": {"t": "i", "i": "https://trustgraph.ai/ns/Document"}} in document["triples"]
    assert all("g" not in t for t in document["triples"])
    assert parts and all(p["triples"][0].get("g") == "urn:graph:source" for p in parts)


def export_url(rig) -> str:
    return (f"ws://127.0.0.1:{rig.url.split(':')[2].rstrip('/')}/api/v1/flow/{rig.flow}/export/triples"
            f"?token={rig.token}&workspace={rig.workspace}")


def receive_until(ws, ids: set[str], timeout: float = 20.0) -> list[dict]:
    frames = []
    import time

    deadline = time.monotonic() + timeout
    while ids - {f["metadata"]["id"] for f in frames} and time.monotonic() < deadline:
        try:
            frames.append(json.loads(ws.recv(timeout=max(0.1, deadline - time.monotonic()))))
        except TimeoutError:
            break
    return frames


def test_export_subscriber_receives_a_publish(trustgraph):
    with websockets_sync.connect(export_url(trustgraph)) as ws:
        # The subscriber's queue is bound shortly after the socket opens: publish probes until one
        # arrives, so what follows is published after it subscribed.
        for _ in range(50):
            probe = f"urn:probe:{uuid.uuid4()}"
            trustgraph.publish([{"id": probe, "triples": [
                {"s": {"t": "i", "i": probe}, "p": {"t": "i", "i": "urn:p"}, "o": {"t": "l", "v": "x"}}]}],
                "probes")
            if any(f["metadata"]["id"] == probe for f in receive_until(ws, {probe}, timeout=0.5)):
                break
        else:
            pytest.fail("the export never delivered a probe")
        collection = f"export-{uuid.uuid4().hex[:8]}"
        events = trustgraph.publish_capture(EXAMPLES / "graph-rag.json", collection)
        frames = [f for f in receive_until(ws, {e["id"] for e in events}) if f["metadata"]["id"] != probe]
    assert [f["metadata"]["id"] for f in frames] == [e["id"] for e in events]
    assert {f["metadata"]["collection"] for f in frames} == {collection}
    for frame, event in zip(frames, events):
        assert [key(t) for t in frame["triples"]] == [key(t) for t in event["triples"]]


def test_gateway_restarts_on_the_same_port(trustgraph):
    import urllib.error

    collection = f"restart-{uuid.uuid4().hex[:8]}"
    events = trustgraph.publish_capture(EXAMPLES / "document-rag.json", collection)
    trustgraph.stop_gateway()
    try:
        with pytest.raises(urllib.error.URLError):
            trustgraph.query({"collection": collection, "limit": 1})
    finally:
        trustgraph.start_gateway()
    # The store outlived the gateway.
    assert {key(t) for t in tg_query_graph(trustgraph, collection)} == published(events)


def processes_in(folder: Path) -> list[int]:
    """Processes whose working directory is under ``folder`` (the rig starts every one there)."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and Path(os.readlink(proc / "cwd")).is_relative_to(folder):
                found.append(int(proc.name))
        except OSError:
            continue
    return found


def test_a_failure_to_start_is_an_error_with_the_logs_and_leaves_nothing(tmp_path, monkeypatch):
    broken = tmp_path / "rabbitmq-server"
    broken.write_text("#!/bin/sh\necho 'cannot start: port in use' >&2\nexit 1\n")
    broken.chmod(0o755)
    monkeypatch.setattr(gateway_rig, "RABBITMQ_SERVER", broken)
    parent = tmp_path / "rigs"
    parent.mkdir()
    with pytest.raises(RigError) as failed:
        with deployment(parent):
            pytest.fail("started with a RabbitMQ that exits")
    assert "rabbitmq exited (1)" in str(failed.value)
    assert "cannot start: port in use" in str(failed.value), "the process's log is in the error"
    assert list(parent.iterdir()) == [], "the rig's directory is removed"
    assert processes_in(parent) == [], "epmd, started before RabbitMQ, is stopped"
