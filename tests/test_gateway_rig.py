"""The TrustGraph deployment the gateway tests run against (``gateway_rig``) does what it says: TrustGraph's
own client reads back exactly what a publish wrote, with TrustGraph's graph semantics, and the live
export delivers a publish to a subscriber."""

from __future__ import annotations

import contextlib
import io
import json
import uuid

import pytest

from conftest import EXAMPLES
from gateway_rig import capture_events, group_events, trustgraph  # noqa: F401  (the fixture)

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
def test_tg_query_graph_reads_back_what_was_published(trustgraph, name):  # noqa: F811
    collection = f"readback-{uuid.uuid4().hex[:8]}"
    events = trustgraph.publish_capture(EXAMPLES / name, collection)
    found = tg_query_graph(trustgraph, collection)
    assert {key(t) for t in found} == published(events)
    assert len(found) == len(published(events)), "each stored quad comes back once"
    # The store's order, not the emission order: by graph, then subject.
    order = [(t.get("g", ""), t["s"]["i"]) for t in found]
    assert order == sorted(order)


def test_graph_semantics_of_the_triples_service(trustgraph):  # noqa: F811
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
    extraction = capture_events(EXAMPLES / "extraction.json")
    document = extraction[0]
    assert document["id"].startswith("https://trustgraph.ai/doc/") or "doc" in document["id"]
    assert all("g" not in t for t in document["triples"]), "the document node is in the default graph"


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


def test_export_subscriber_receives_a_publish(trustgraph):  # noqa: F811
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


def test_gateway_restarts_on_the_same_port(trustgraph):  # noqa: F811
    import urllib.error

    trustgraph.stop_gateway()
    with pytest.raises(urllib.error.URLError):
        trustgraph.query({"collection": "default", "limit": 1})
    trustgraph.start_gateway()
    assert trustgraph.query({"collection": "default", "limit": 1}) == {"response": []}
