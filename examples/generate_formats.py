#!/usr/bin/env python3
"""Write every example trace in each format TrustGraph's own gateway and tools write, with their code.

TrustGraph 2.11.1's functions do the writing; only the network under them is replaced by the
example's triples (a triples store answering in its own order, a socket handing out messages):

- ``<name>.frames.jsonl``: export frames, one per emission, by the gateway's ``serialize_triples``
  (trustgraph-flow ``gateway/dispatch/serialize.py``), as ``/api/v1/flow/{flow}/export/triples`` sends them;
- ``<name>.envelopes.jsonl``: a recorded ``/api/v1/socket`` session: each explain message encoded by
  the service's response translator (``messaging/translators``) and wrapped as the gateway's mux wraps
  it, with the answer chunks (and an agent's thoughts) between them. Extraction is no request, so
  it has none;
- ``<name>.query.jsonl``: ``tg-query-graph --format jsonl`` (trustgraph-cli ``query_graph``), the
  store answering in its order (graph, subject, predicate, object), duplicates merged;
- ``<name>.msgpack``: ``tg-get-kg-core``'s ``write_triple`` (one core record per explain step) and
  ``write_ge`` for extraction's graph embeddings;
- ``<name>.dump.jsonl``: ``tg-dump-msgpack --records`` (``dump_msgpack.dump``) of that core;
- ``<name>.tgx``: ``tg-export-workspace`` (``export_workspace``), whose N-Quads serializer loses
  what the loss table says.

    python examples/generate_formats.py           # rewrite tests/data/trustgraph-formats/
    python examples/generate_formats.py --check   # exit 1 if a file is stale

A ``.tgx`` is compared by its members' names and contents (tar headers carry times and owners).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import tarfile
import tempfile
from collections.abc import Callable, Iterable, Sequence
from importlib import metadata
from pathlib import Path
from types import SimpleNamespace
from unittest import mock

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from examples.generate import AGENT, DOCUMENT_RAG, EMITTER_VERSION, EXAMPLES, GRAPH_RAG, Emission  # noqa: E402

TRUSTGRAPH_PACKAGES = ("trustgraph-base", "trustgraph-flow", "trustgraph-cli")
OUT_DIR = ROOT / "tests" / "data" / "trustgraph-formats"
COLLECTION = "default"
# A fixed time for the bundle's manifest and headers, so the bundle's members do not change.
EXPORT_TIME = 1_790_000_000
FORMAT_SUFFIXES = {
    "frames": ".frames.jsonl",
    "envelopes": ".envelopes.jsonl",
    "triples": ".query.jsonl",
    "kgcore": ".msgpack",
    "dump": ".dump.jsonl",
    "tgx": ".tgx",
}
# Services whose responses carry explain messages (extraction writes to the store only).
REQUESTS = {GRAPH_RAG, DOCUMENT_RAG, AGENT}


def _triples_message(emission: Emission):
    from trustgraph.schema import Metadata, Triples
    return Triples(metadata=Metadata(id=emission.explain_id, root=emission.explain_id, collection=COLLECTION),
                   triples=emission.triples)


def frames(emissions: Sequence[Emission]) -> bytes:
    """Each emission as the export endpoint sends it: the gateway's serializer, then JSON."""
    from trustgraph.gateway.dispatch.serialize import serialize_triples
    return b"".join(json.dumps(serialize_triples(_triples_message(e))).encode() + b"\n" for e in emissions)


def _responses(emissions: Sequence[Emission]) -> list[tuple[str, object]]:
    """The response messages of one session: explain messages with the answer between them."""
    from trustgraph.schema import AgentResponse, DocumentRagResponse, GraphRagResponse
    out: list[tuple[str, object]] = []
    for index, e in enumerate(emissions):
        common = dict(message_type="explain", explain_id=e.explain_id, explain_graph="urn:graph:retrieval",
                      explain_triples=e.triples)
        if e.channel == AGENT:
            out.append((AGENT, AgentResponse(message_type="thought", content=f"step {index}",
                                             end_of_message=True)))
            out.append((AGENT, AgentResponse(**common)))
        elif e.channel == GRAPH_RAG:
            out.append((GRAPH_RAG, GraphRagResponse(message_type="chunk", response=f"part {index} ")))
            out.append((GRAPH_RAG, GraphRagResponse(**common)))
        else:
            out.append((DOCUMENT_RAG, DocumentRagResponse(message_type="chunk", response=f"part {index} ")))
            out.append((DOCUMENT_RAG, DocumentRagResponse(**common)))
    last = emissions[0].channel
    if last == AGENT:
        out.append((AGENT, AgentResponse(message_type="answer", content="done", end_of_message=True,
                                         end_of_dialog=True)))
    elif last == GRAPH_RAG:
        out.append((GRAPH_RAG, GraphRagResponse(message_type="chunk", response="", end_of_stream=True,
                                                end_of_session=True)))
    else:
        out.append((DOCUMENT_RAG, DocumentRagResponse(message_type="chunk", response="", end_of_stream=True,
                                                      end_of_session=True)))
    return out


def envelopes(emissions: Sequence[Emission], request_id: str) -> bytes:
    """A recorded socket session: the translators' encoding wrapped as the mux's responder wraps it."""
    from trustgraph.messaging.translators.agent import AgentResponseTranslator
    from trustgraph.messaging.translators.retrieval import DocumentRagResponseTranslator, GraphRagResponseTranslator
    translators = {AGENT: AgentResponseTranslator(), GRAPH_RAG: GraphRagResponseTranslator(),
                   DOCUMENT_RAG: DocumentRagResponseTranslator()}
    lines = [json.dumps({"type": "auth-ok", "default_workspace": "default"})]
    for channel, message in _responses(emissions):
        response, final = translators[channel].encode_with_completion(message)
        lines.append(json.dumps({"id": request_id, "response": response, "complete": final}))
    return ("\n".join(lines) + "\n").encode()


def _wire(emissions: Sequence[Emission]) -> list[dict]:
    from trustgraph.gateway.dispatch.serialize import serialize_subgraph
    return [t for e in emissions for t in serialize_subgraph(e.triples)]


def _store_order(wire: Iterable[dict]) -> list[dict]:
    """A store's answer: each triple once, sorted by graph, subject, predicate and object."""
    unique = {json.dumps(t, sort_keys=True): t for t in wire}
    return [unique[k] for k in sorted(unique, key=lambda k: (unique[k].get("g", ""), json.dumps(unique[k]["s"]),
                                                             json.dumps(unique[k]["p"]), json.dumps(unique[k]["o"])))]


class _Store:
    """What TrustGraph's Api hands a CLI tool, answering from the example's triples."""

    def __init__(self, wire: list[dict]):
        self.wire = wire

    def socket(self):
        return self

    def flow(self, flow_id):
        return self

    def close(self):
        pass

    def triples_query_stream(self, s=None, p=None, o=None, g=None, collection=None, limit=None, batch_size=100):
        answer = [t for t in _store_order(self.wire) if g is None or t.get("g", "") == g][:limit]
        for start in range(0, len(answer), batch_size):
            yield answer[start:start + batch_size]

    def config(self):
        return SimpleNamespace(all=lambda: ({}, 1))

    def collection(self):
        return SimpleNamespace(list_collections=lambda: [SimpleNamespace(collection=COLLECTION)])

    def library(self):
        return SimpleNamespace(get_documents=lambda include_children=True: [])


def query_output(emissions: Sequence[Emission]) -> bytes:
    import trustgraph.cli.query_graph as query_graph
    store = _Store(_wire(emissions))
    out = io.StringIO()
    with mock.patch.object(query_graph, "Api", lambda *a, **k: store), contextlib.redirect_stdout(out):
        query_graph.query_graph(url="http://localhost:8888/", flow_id="default", collection=COLLECTION,
                                limit=10000, batch_size=20, output_format="jsonl")
    return out.getvalue().encode()


def knowledge_core(emissions: Sequence[Emission]) -> bytes:
    """The core tg-get-kg-core writes: one triples record per explain step (as the kg-store keeps
    them), and a graph-embeddings record for extraction's entities."""
    from trustgraph.cli.get_kg_core import write_ge, write_triple
    from trustgraph.gateway.dispatch.serialize import serialize_triples
    out = io.BytesIO()
    for e in emissions:
        write_triple(out, serialize_triples(_triples_message(e)))
        if e.channel not in REQUESTS:
            entities = sorted({t.s.iri for t in e.triples if t.s.iri})[:2]
            write_ge(out, {"metadata": {"id": e.explain_id, "root": e.explain_id, "collection": COLLECTION},
                           "entities": [{"entity": {"t": "i", "i": i}, "vector": [0.25, 0.5]} for i in entities]})
    return out.getvalue()


def dump_lines(core: bytes) -> bytes:
    from trustgraph.cli.dump_msgpack import dump
    with tempfile.NamedTemporaryFile(suffix=".msgpack") as handle:
        handle.write(core)
        handle.flush()
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            dump(handle.name, "records")
    return out.getvalue().encode()


def workspace_bundle(emissions: Sequence[Emission]) -> bytes:
    import trustgraph.cli.export_workspace as export_workspace
    store = _Store(_wire(emissions))
    clock = SimpleNamespace(time=lambda: EXPORT_TIME, gmtime=lambda *a: __import__("time").gmtime(EXPORT_TIME),
                            strftime=__import__("time").strftime)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "workspace.tgx"
        with mock.patch.object(export_workspace, "Api", lambda *a, **k: store), \
                mock.patch.object(export_workspace, "time", clock), \
                contextlib.redirect_stdout(io.StringIO()):
            export_workspace.export_workspace(url="http://localhost:8888/", workspace="default", output=str(path),
                                              triples_limit=export_workspace.DEFAULT_TRIPLES_LIMIT)
        return path.read_bytes()


def bundle_members(data: bytes) -> dict[str, bytes]:
    """A bundle's regular members and their contents (what a .tgx is compared by)."""
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
        return {m.name: archive.extractfile(m).read() for m in archive if m.isfile()}


WRITERS: dict[str, Callable[[str, Sequence[Emission]], bytes]] = {
    "frames": lambda name, ems: frames(ems),
    "envelopes": lambda name, ems: envelopes(ems, f"{name}-1"),
    "triples": lambda name, ems: query_output(ems),
    "kgcore": lambda name, ems: knowledge_core(ems),
    "dump": lambda name, ems: dump_lines(knowledge_core(ems)),
    "tgx": lambda name, ems: workspace_bundle(ems),
}


def written_formats(name: str, emissions: Sequence[Emission]) -> list[str]:
    """The formats an example is written in: every one, but envelopes only for a request's trace."""
    return [f for f in WRITERS if f != "envelopes" or emissions[0].channel in REQUESTS]


def render_all() -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    for name, build in EXAMPLES.items():
        emissions = build()
        for fmt in written_formats(name, emissions):
            files[name + FORMAT_SUFFIXES[fmt]] = WRITERS[fmt](name, emissions)
    return files


def same(name: str, expected: bytes, actual: bytes) -> bool:
    if name.endswith(".tgx"):
        return bundle_members(expected) == bundle_members(actual)
    return expected == actual


def _check(files: dict[str, bytes], folder: Path) -> list[str]:
    problems = [f"{folder / n}: missing" if not (folder / n).exists() else f"{folder / n}: out of date"
                for n, content in sorted(files.items())
                if not (folder / n).exists() or not same(n, (folder / n).read_bytes(), content)]
    problems += [f"{p}: not produced by generate_formats.py (stale?)" for p in sorted(folder.iterdir())
                 if p.name not in files and p.name != "README.md"]
    return problems


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="generate_formats.py", description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="verify the committed files; exit 1 if stale")
    args = parser.parse_args(argv)
    for package in TRUSTGRAPH_PACKAGES:
        try:
            installed = metadata.version(package)
        except metadata.PackageNotFoundError:
            installed = None
        if installed != EMITTER_VERSION:
            print(f"error: needs {package}=={EMITTER_VERSION} (pip install --no-deps); found {installed}",
                  file=sys.stderr)
            return 2
    files = render_all()
    if args.check:
        problems = _check(files, OUT_DIR)
        for line in problems:
            print(line, file=sys.stderr)
        if problems:
            print("run 'python examples/generate_formats.py' to regenerate", file=sys.stderr)
            return 1
        print(f"{len(files)} format files up to date")
        return 0
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    for name, content in files.items():
        (OUT_DIR / name).write_bytes(content)
    print(f"wrote {len(files)} files to {OUT_DIR}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
