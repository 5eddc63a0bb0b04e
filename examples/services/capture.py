#!/usr/bin/env python3
"""Capture explain traces from TrustGraph 2.11.1's real service code, in-process.

Unlike ``examples/generate.py``, which chains the provenance builders itself,
this drives the services' own request handlers (``Processor.on_request`` of
GraphRAG, Document RAG, the agent orchestrator and the older ReAct agent)
with scripted clients behind the flow: LLM prompts, embeddings, vector
stores, the triple store, the reranker, the librarian and MCP tools. The
clients are TrustGraph's own client classes (``trustgraph.base``) whose
``request`` is answered from a script instead of a message queue, so the
services' and clients' code runs unchanged. An agent's ``next`` requests are
fed back to the same service in FIFO order, as the request queue would. A
knowledge-query tool reaches a real GraphRAG service the same way.

Every explain message a service sends to its ``response`` producer is
recorded in order and encoded by the gateway's own response translators
(``trustgraph.messaging``).

Needs ``trustgraph-base==2.11.1`` and ``trustgraph-flow==2.11.1`` installed
with ``pip install --no-deps``, and pyoxigraph. Modules the services import
but do not need here (``prometheus_client``) are stubbed when missing.

    python examples/services/capture.py                 # rewrite the captures
    python examples/services/capture.py --check         # exit 1 if one is stale
    python examples/services/capture.py --out DIR       # write elsewhere

Output is deterministic: ``uuid.uuid4`` yields uuid5 values named by the
scenario and a counter, and one scripted clock (advanced by each scripted
call's latency) stands behind ``datetime.now`` and ``time.monotonic`` where
the services read them. GraphRAG walks its frontier as a Python ``set``, so
string hashing orders the edges it sends the reranker: the script runs
itself under ``PYTHONHASHSEED=0``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import sys
import types
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from importlib import metadata
from pathlib import Path
from unittest import mock

RELEASE = "2.11.1"
HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
ID_NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "https://trustgraph.ai/ns/examples/services")
MODEL = "gpt-4o-mini"
WORKSPACE = "default"
COLLECTION = "default"


# ---------------------------------------------------------------------------
# Stubs for modules the services import but that are not installed
# ---------------------------------------------------------------------------

class _NoMetric:
    """Stands for any prometheus metric: every call is accepted and ignored."""

    def __init__(self, *args, **kwargs):
        pass

    def labels(self, *args, **kwargs):
        return self

    def __getattr__(self, name):
        return lambda *args, **kwargs: None


def _stub_missing_modules() -> None:
    try:
        import prometheus_client  # noqa: F401
    except ImportError:
        stub = types.ModuleType("prometheus_client")
        stub.__getattr__ = lambda name: _NoMetric  # Counter, Histogram, Info, start_http_server...
        sys.modules["prometheus_client"] = stub


_stub_missing_modules()

try:
    import pyoxigraph  # noqa: F401
    from trustgraph.agent.orchestrator import pattern_base
    from trustgraph.agent.orchestrator import service as orchestrator_service
    from trustgraph.agent.orchestrator.aggregator import Aggregator
    from trustgraph.agent.orchestrator.plan_pattern import PlanThenExecutePattern
    from trustgraph.agent.orchestrator.react_pattern import ReactPattern
    from trustgraph.agent.orchestrator.supervisor_pattern import SupervisorPattern
    from trustgraph.agent.react import agent_manager
    from trustgraph.agent.react import service as react_service
    from trustgraph.base.document_embeddings_client import DocumentEmbeddingsClient
    from trustgraph.base.embeddings_client import EmbeddingsClient
    from trustgraph.base.graph_embeddings_client import GraphEmbeddingsClient
    from trustgraph.base.graph_rag_client import GraphRagClient
    from trustgraph.base.prompt_client import PromptClient
    from trustgraph.base.reranker_client import RerankerClient
    from trustgraph.base.tool_client import ToolClient
    from trustgraph.base.triples_client import TriplesClient
    from trustgraph.messaging.translators.agent import AgentResponseTranslator
    from trustgraph.messaging.translators.retrieval import (
        DocumentRagResponseTranslator,
        GraphRagResponseTranslator,
    )
    from trustgraph.retrieval.document_rag import document_rag as document_rag_core
    from trustgraph.retrieval.document_rag import rag as document_rag_service
    from trustgraph.retrieval.graph_rag import graph_rag as graph_rag_core
    from trustgraph.retrieval.graph_rag import rag as graph_rag_service
    from trustgraph.schema import (
        IRI,
        LITERAL,
        AgentRequest,
        ChunkMatch,
        DocumentEmbeddingsResponse,
        DocumentRagQuery,
        EmbeddingsResponse,
        EntityMatch,
        GraphEmbeddingsResponse,
        GraphRagQuery,
        PromptResponse,
        RerankerResponse,
        RerankerResult,
        Term,
        ToolResponse,
        Triple,
        TriplesQueryResponse,
    )
except ImportError as exc:  # pragma: no cover - exercised by hand
    if __name__ != "__main__":
        raise
    print(f"error: {exc}; install the services with 'pip install --no-deps "
          f"trustgraph-base=={RELEASE} trustgraph-flow=={RELEASE}' and pyoxigraph", file=sys.stderr)
    sys.exit(2)

sys.path.insert(0, str(ROOT))
from examples.generate import _json_lines_list, to_nquads  # noqa: E402  (same encoders as the examples)

# ---------------------------------------------------------------------------
# Determinism: ids and one clock
# ---------------------------------------------------------------------------

class Clock:
    """The one clock behind every time the services read. Scripted calls advance it by their latency."""

    STEP = timedelta(milliseconds=5)  # what every read of the wall clock costs, so stamps differ

    def __init__(self, start: datetime):
        self.now = start
        self.start = start

    def advance(self, ms: int) -> None:
        self.now += timedelta(milliseconds=ms)

    def wall(self) -> datetime:
        self.now += self.STEP
        return self.now

    def monotonic(self) -> float:
        return (self.now - self.start).total_seconds()


def _patched(clock: Clock, seed: str):
    counter = iter(range(1, 1_000_000))

    def uuid4():
        return uuid.uuid5(ID_NAMESPACE, f"{seed}/{next(counter)}")

    class FixedDatetime(datetime):
        @classmethod
        def now(cls, tz=None):
            return clock.wall().astimezone(tz) if tz else clock.wall().replace(tzinfo=None)

    fake_time = types.SimpleNamespace(monotonic=clock.monotonic, time=lambda: clock.monotonic())
    stack = contextlib.ExitStack()
    stack.enter_context(mock.patch("uuid.uuid4", uuid4))
    for module in (graph_rag_core, document_rag_core, pattern_base, react_service):
        stack.enter_context(mock.patch.object(module, "datetime", FixedDatetime))
    stack.enter_context(mock.patch.object(agent_manager, "time", fake_time))
    return stack


def session_id(seed: str, role: str = "session") -> str:
    return str(uuid.uuid5(ID_NAMESPACE, f"{seed}/{role}"))


# ---------------------------------------------------------------------------
# Scripted clients: TrustGraph's client classes, answered from a script
# ---------------------------------------------------------------------------

class Served:
    """The ``request`` of a flow client (RequestResponseSpec's wrapper), answered by ``serve``."""

    def __init__(self, world: World):
        self.world = world

    async def serve(self, req):  # pragma: no cover - overridden
        raise NotImplementedError

    async def request(self, req, timeout=None, recipient=None):
        responses = await self.serve(req)
        if not isinstance(responses, list):
            responses = [responses]
        if recipient is None:
            return responses[-1]
        for resp in responses:
            if await recipient(resp):
                return resp
        return None


class ScriptedPrompt(Served, PromptClient):
    """The prompt service: each template id answers from its own queue of scripted replies."""

    async def serve(self, req):
        queue = self.world.prompts.get(req.id)
        if not queue:
            raise AssertionError(f"no scripted reply for prompt {req.id!r}")
        reply = queue.pop(0)
        self.world.clock.advance(reply.get("ms", 900))
        body = {"text": reply["text"]} if "text" in reply else {"object": json.dumps(reply["object"])}
        return PromptResponse(in_token=reply.get("in", 1000), out_token=reply.get("out", 80),
                              model=MODEL, end_of_stream=True, **body)


class ScriptedEmbeddings(Served, EmbeddingsClient):
    """Each text embeds as a one-dimensional vector holding its index in the world's text table."""

    async def serve(self, req):
        self.world.clock.advance(40)
        return EmbeddingsResponse(vectors=[[float(self.world.text_index(t))] for t in req.texts])


class ScriptedGraphEmbeddings(Served, GraphEmbeddingsClient):
    async def serve(self, req):
        self.world.clock.advance(25)
        text = self.world.texts[int(req.vector[0])]
        entities = self.world.concept_entities.get(text, [])[: req.limit]
        return GraphEmbeddingsResponse(entities=[
            EntityMatch(entity=Term(type=IRI, iri=e), score=round(0.9 - 0.05 * i, 4))
            for i, e in enumerate(entities)])


class ScriptedDocumentEmbeddings(Served, DocumentEmbeddingsClient):
    async def serve(self, req):
        self.world.clock.advance(25)
        text = self.world.texts[int(req.vector[0])]
        chunks = self.world.concept_chunks.get(text, [])[: req.limit]
        return DocumentEmbeddingsResponse(chunks=[
            ChunkMatch(chunk_id=c, score=round(0.88 - 0.04 * i, 4)) for i, c in enumerate(chunks)])


class InMemoryTriples(Served, TriplesClient):
    """A triple store over the world's facts; ``g`` as the store reads it (None: every graph)."""

    async def serve(self, req):
        self.world.clock.advance(10)
        found = []
        for t in self.world.store:
            if req.g is not None and (t.g or "") != req.g:
                continue
            if any(want is not None and want != have for want, have in ((req.s, t.s), (req.p, t.p), (req.o, t.o))):
                continue
            found.append(Triple(s=t.s, p=t.p, o=t.o))
        return TriplesQueryResponse(triples=found[: req.limit], is_final=True)


def _words(text: str) -> set:
    return {w.strip(".,?!'\"").lower() for w in text.split() if len(w.strip(".,?!'\"")) > 2}


class ScriptedReranker(Served, RerankerClient):
    """A cross-encoder stand-in: scores by shared words (best query per document), then by order."""

    async def serve(self, req):
        self.world.clock.advance(120)
        scored = []
        for position, doc in enumerate(req.documents):
            best = max(((len(_words(q.query_text) & _words(doc.document_text)), q.query_id)
                        for q in req.queries), key=lambda x: x[0])
            score = round(min(0.99, 0.2 + 0.15 * best[0]) - 0.001 * position, 4)
            scored.append(RerankerResult(document_id=doc.document_id, query_id=best[1], score=score))
        scored.sort(key=lambda r: -r.score)
        return RerankerResponse(results=scored[: req.limit])


class ScriptedTools(Served, ToolClient):
    """The MCP tool service: each tool answers from its queue; a reply with ``error`` fails the call."""

    async def serve(self, req):
        reply = self.world.tools[req.name].pop(0)
        self.world.clock.advance(reply.get("ms", 400))
        if "error" in reply:
            from trustgraph.schema import Error
            return ToolResponse(error=Error(type="tool-error", message=reply["error"]))
        return ToolResponse(text=reply["text"])


class LocalGraphRag(Served, GraphRagClient):
    """The graph-rag-request client of an agent, answered by a real GraphRAG service in-process."""

    async def request(self, req, timeout=None, recipient=None):
        responses = []
        await run_service(graph_rag_processor(), req, self.world, responses.append)
        for resp in responses:
            if await recipient(resp):
                return resp
        return None


class Librarian:
    """The librarian: stores answers, thoughts and observations; serves chunk text."""

    def __init__(self, world: World):
        self.world = world
        self.saved: dict[str, str] = {}

    async def save_document(self, doc_id, content, title=None, document_type=None, **kwargs):
        self.world.clock.advance(15)
        self.saved[doc_id] = content

    async def fetch_document_text(self, document_id, timeout=None):
        self.world.clock.advance(20)
        return self.world.chunks[document_id]


class World:
    """Everything behind a flow: the script, the stores and the clock."""

    def __init__(self, seed: str, start: datetime, *, reranker: bool = True):
        self.seed = seed
        self.clock = Clock(start)
        self.prompts: dict[str, list] = {}
        self.tools: dict[str, list] = {}
        self.store: list = []
        self.concept_entities: dict[str, list] = {}
        self.concept_chunks: dict[str, list] = {}
        self.chunks: dict[str, str] = {}
        self.texts: list[str] = []
        self.reranker = reranker
        self.librarian = Librarian(self)

    def text_index(self, text: str) -> int:
        if text not in self.texts:
            self.texts.append(text)
        return self.texts.index(text)

    def script(self, template: str, *replies: dict) -> None:
        self.prompts.setdefault(template, []).extend(replies)


class Producer:
    def __init__(self, sink: Callable):
        self.sink = sink

    async def send(self, message, properties=None):
        result = self.sink(message)
        if asyncio.iscoroutine(result):
            await result


class Flow:
    """The flow a service's handler is given: producers, clients by name, the librarian."""

    def __init__(self, world: World, on_response: Callable, on_next: Callable | None = None):
        self.world = world
        self.workspace = WORKSPACE
        self.librarian = world.librarian
        self.producers = {
            "response": Producer(on_response),
            "explainability": Producer(lambda message: None),  # the store's copy; the events carry the same
            "next": Producer(on_next or (lambda message: None)),
        }
        self.clients = {
            "prompt-request": ScriptedPrompt(world),
            "embeddings-request": ScriptedEmbeddings(world),
            "graph-embeddings-request": ScriptedGraphEmbeddings(world),
            "document-embeddings-request": ScriptedDocumentEmbeddings(world),
            "triples-request": InMemoryTriples(world),
            "mcp-tool-request": ScriptedTools(world),
            "graph-rag-request": LocalGraphRag(world),
        }
        if world.reranker:
            self.clients["reranker-request"] = ScriptedReranker(world)

    def __call__(self, name):
        # A spec the flow does not declare (no reranker wired, keyword index off) is None, as in Flow.
        return self.producers.get(name) or self.clients.get(name)


class Message:
    def __init__(self, value, id: str):
        self._value, self._id = value, id

    def value(self):
        return self._value

    def properties(self):
        return {"id": self._id}


async def run_service(processor, request, world: World, on_response: Callable) -> None:
    """Deliver a request to a service's handler, then every ``next`` request it emits, in FIFO order."""
    queue = [request]
    while queue:
        flow = Flow(world, on_response, queue.append)
        await processor.on_request(Message(queue.pop(0), "req-1"), None, flow)


# ---------------------------------------------------------------------------
# The services, built as their __init__ would leave them (without the message bus)
# ---------------------------------------------------------------------------

def graph_rag_processor(**overrides):
    p = graph_rag_service.Processor.__new__(graph_rag_service.Processor)
    defaults = dict(entity_limit=50, triple_limit=30, max_subgraph_size=150, max_path_length=2,
                    edge_limit=25, max_reranker_input=350, max_reranker_text_length=240)
    for key, value in (defaults | overrides).items():
        setattr(p, f"default_{key}", value)
    return p


def document_rag_processor():
    p = document_rag_service.Processor.__new__(document_rag_service.Processor)
    p.doc_limit, p.fetch_limit = 5, 0
    p.rerank_diversity_mode, p.rerank_diversity_lambda = "none", 0.7
    p.fetch_chunk_timeout, p.retrieval_mode = 120, "vector"
    p.vector_weight = p.keyword_weight = 1.0
    return p


def _tool_config() -> dict:
    tools = {
        "knowledge-query": {"type": "knowledge-query", "name": "knowledge-query",
                            "description": "Ask the knowledge graph a question"},
        "nobel-registry": {"type": "mcp-tool", "name": "nobel-registry", "mcp-tool": "nobel-registry",
                           "description": "Look up Nobel Prize laureates",
                           "arguments": [{"name": "laureate", "type": "string", "description": "Name"},
                                         {"name": "category", "type": "string", "description": "Prize category"}]},
        "calculator": {"type": "mcp-tool", "name": "calculator", "mcp-tool": "calculator",
                       "description": "Evaluate an arithmetic expression",
                       "arguments": [{"name": "expression", "type": "string", "description": "Expression"}]},
    }
    return {"tool": {k: json.dumps(v) for k, v in tools.items()}}


ROUTER_CONFIG = {
    "agent-pattern": {
        "react": json.dumps({"name": "react", "description": "Interleaved reasoning and action"}),
        "plan-then-execute": json.dumps({"name": "plan-then-execute", "description": "Plan, then run each step"}),
        "supervisor": json.dumps({"name": "supervisor", "description": "Split into sub-agents, then combine"}),
    },
    "agent-task-type": {
        "general": json.dumps({"name": "general", "description": "General questions",
                               "valid_patterns": ["react"], "framing": ""}),
        "research": json.dumps({"name": "research", "description": "Multi-part research questions",
                                "valid_patterns": ["react", "plan-then-execute", "supervisor"],
                                "framing": "Cite the knowledge graph where you can."}),
    },
}


async def orchestrator_processor():
    p = orchestrator_service.Processor.__new__(orchestrator_service.Processor)
    p.id, p.max_iterations, p.config_key = "agent-manager", 10, "agent"
    p.agents, p.meta_routers, p.tool_service_clients = {}, {}, {}
    p.react_pattern = ReactPattern(p)
    p.plan_pattern = PlanThenExecutePattern(p)
    p.supervisor_pattern = SupervisorPattern(p)
    p.aggregator = Aggregator()
    await p.on_tools_config(WORKSPACE, _tool_config() | ROUTER_CONFIG, 1)
    return p


async def react_processor():
    p = react_service.Processor.__new__(react_service.Processor)
    p.id, p.max_iterations, p.config_key = "agent-manager", 10, "agent"
    p.agents, p.tool_service_clients = {}, {}
    for name in ("agent_session_metric", "agent_iteration_metric", "agent_tool_invocation_metric",
                 "agent_tool_duration_metric", "agent_tool_error_metric", "agent_llm_duration_metric"):
        if not hasattr(react_service.Processor, name):
            setattr(react_service.Processor, name, _NoMetric())
    await p.on_tools_config(WORKSPACE, _tool_config(), 1)
    return p


# ---------------------------------------------------------------------------
# The knowledge behind the stores
# ---------------------------------------------------------------------------

E = "http://trustgraph.ai/e/"
RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
FACTS = [  # (subject, predicate, object, object is a literal)
    ("marie-curie", "discovered", "polonium", False),
    ("marie-curie", "discovered", "radium", False),
    ("marie-curie", "born-in", "warsaw", False),
    ("marie-curie", "awarded", "nobel-prize-in-physics", False),
    ("marie-curie", "awarded", "nobel-prize-in-chemistry", False),
    ("nobel-prize-in-physics", "awarded-in-year", "1903", True),
    ("nobel-prize-in-chemistry", "awarded-in-year", "1911", True),
    ("polonium", "discovered-in-year", "1898", True),
    ("radium", "discovered-in-year", "1898", True),
]
LABELS = {
    "marie-curie": "Marie Curie", "polonium": "polonium", "radium": "radium", "warsaw": "Warsaw",
    "nobel-prize-in-physics": "Nobel Prize in Physics", "nobel-prize-in-chemistry": "Nobel Prize in Chemistry",
    "discovered": "discovered", "born-in": "born in", "awarded": "awarded",
    "awarded-in-year": "awarded in year", "discovered-in-year": "discovered in year",
}
CHUNKS = [
    "Marie Curie was born in Warsaw in 1867 and moved to Paris in 1891.",
    "In 1898 Marie and Pierre Curie announced the discovery of polonium and radium.",
    "Marie Curie shared the 1903 Nobel Prize in Physics with Pierre Curie and Henri Becquerel.",
    "She received the 1911 Nobel Prize in Chemistry for her work on radium and polonium.",
    "The Curie Institute in Paris continues research on radioactivity and cancer treatment.",
]


def _iri(name: str) -> Term:
    return Term(type=IRI, iri=E + name)


def knowledge(world: World) -> None:
    """The facts and labels (in the default graph) and the chunks, for every scenario."""
    for s, p, o, literal in FACTS:
        world.store.append(Triple(s=_iri(s), p=_iri(p), o=Term(type=LITERAL, value=o) if literal else _iri(o)))
    for name, label in LABELS.items():
        world.store.append(Triple(s=_iri(name), p=Term(type=IRI, iri=RDFS_LABEL), o=Term(type=LITERAL, value=label)))
    world.concept_entities = {
        "Marie Curie": [E + "marie-curie"],
        "Nobel Prize": [E + "nobel-prize-in-physics", E + "nobel-prize-in-chemistry"],
        "discovered elements": [E + "polonium", E + "radium"],
    }
    ids = [f"urn:chunk:{uuid.uuid5(ID_NAMESPACE, f'chunk/{i}')}" for i in range(len(CHUNKS))]
    world.chunks = dict(zip(ids, CHUNKS))
    world.concept_chunks = {
        "Marie Curie": [ids[0], ids[2], ids[4]],
        "Nobel Prize": [ids[2], ids[3]],
        "discovered elements": [ids[1], ids[3]],
    }


# ---------------------------------------------------------------------------
# Scenarios
# ---------------------------------------------------------------------------

START = datetime(2026, 8, 6, 9, 0, tzinfo=UTC)  # the day after the examples' 2.11.1 traces


def _react(thought: str, action: str | None = None, args: dict | None = None,
           final: str | None = None, ms: int = 1500, tokens=(1200, 90)) -> dict:
    """One agent-react reply in the text form AgentManager parses."""
    text = f"Thought: {thought}\n"
    text += f"Final Answer: {final}" if final is not None else f"Action: {action}\nArgs: {json.dumps(args or {})}"
    return {"text": text, "ms": ms, "in": tokens[0], "out": tokens[1]}


def _graph_rag_script(world: World, concepts: list[str], answer: str) -> None:
    world.script("extract-concepts", {"text": "\n".join(concepts), "ms": 600, "in": 212, "out": 19})
    world.script("kg-synthesis", {"text": answer, "ms": 2100, "in": 1532, "out": 64})


async def graph_rag(world: World, respond: Callable) -> None:
    _graph_rag_script(world, ["Marie Curie", "Nobel Prize"],
                      "Marie Curie received the Nobel Prize in Physics in 1903 and in Chemistry in 1911.")
    request = GraphRagQuery(query="When did Marie Curie receive her Nobel Prizes?", collection=COLLECTION,
                            edge_limit=4, max_path_length=2)
    await run_service(graph_rag_processor(), request, world, respond)


async def document_rag(world: World, respond: Callable) -> None:
    world.script("extract-concepts", {"text": "Marie Curie\nNobel Prize", "ms": 550, "in": 198, "out": 15})
    world.script("document-prompt", {"text": "She won the Physics prize in 1903 and the Chemistry prize in 1911.",
                                     "ms": 1800, "in": 1410, "out": 41})
    request = DocumentRagQuery(query="Which Nobel Prizes did Marie Curie win?", collection=COLLECTION, doc_limit=3)
    await run_service(document_rag_processor(), request, world, respond)


async def orchestrator_react(world: World, respond: Callable) -> None:
    world.script("task-type-classify", {"text": "research", "ms": 400, "in": 310, "out": 2})
    world.script("pattern-select", {"text": "react", "ms": 380, "in": 290, "out": 2})
    world.script("agent-react",
                 _react("I need the years of both prizes.", "nobel-registry",
                        {"laureate": "Marie Curie", "category": "physics"}),
                 _react("Now the chemistry prize.", "nobel-registry",
                        {"laureate": "Marie Curie", "category": "chemistry"}, tokens=(1350, 88)),
                 _react("1911 minus 1903.", "calculator", {"expression": "1911 - 1903"}, tokens=(1490, 70)),
                 _react("I have the answer.", final="Eight years passed between her two Nobel Prizes.",
                        tokens=(1600, 40)))
    world.tools = {
        "nobel-registry": [{"text": "1903 Nobel Prize in Physics: Henri Becquerel, Pierre Curie, Marie Curie"},
                           {"text": "1911 Nobel Prize in Chemistry: Marie Curie"}],
        "calculator": [{"text": "8", "ms": 30}],
    }
    request = AgentRequest(question="How many years passed between Marie Curie's two Nobel Prizes?",
                           collection=COLLECTION, session_id=session_id(world.seed))
    await run_service(await orchestrator_processor(), request, world, respond)


async def orchestrator_react_tool_error(world: World, respond: Callable) -> None:
    world.script("agent-react",
                 _react("I need the year of the physics prize.", "nobel-registry",
                        {"laureate": "Marie Curie", "category": "physics"}),
                 {"text": "I am not sure what to do next.", "ms": 1300, "in": 1300, "out": 12},
                 _react("The registry failed; ask it again.", "nobel-registry",
                        {"laureate": "Marie Curie", "category": "physics"}),
                 _react("Found it.", final="In 1903."))
    world.tools = {"nobel-registry": [{"error": "connection refused", "ms": 5000},
                                      {"text": "1903 Nobel Prize in Physics: Henri Becquerel, Pierre Curie, Marie Curie"}]}
    # The request names its pattern, as a client may: no meta-routing, an empty task type.
    request = AgentRequest(question="In which year did Marie Curie receive the Nobel Prize in Physics?",
                           collection=COLLECTION, session_id=session_id(world.seed), pattern="react")
    await run_service(await orchestrator_processor(), request, world, respond)


async def orchestrator_react_graphrag_tool(world: World, respond: Callable) -> None:
    world.script("agent-react",
                 _react("The knowledge graph should list her discoveries.", "knowledge-query",
                        {"question": "Which elements did Marie Curie discover?"}),
                 _react("The graph answered.", final="She discovered polonium and radium, both in 1898."))
    _graph_rag_script(world, ["Marie Curie", "discovered elements"],
                      "Marie Curie discovered polonium and radium, both in 1898.")
    request = AgentRequest(question="Which elements did Marie Curie discover?", collection=COLLECTION,
                           session_id=session_id(world.seed), pattern="react")
    await run_service(await orchestrator_processor(), request, world, respond)


async def plan_then_execute(world: World, respond: Callable) -> None:
    world.script("task-type-classify", {"text": "research", "ms": 400, "in": 310, "out": 2})
    world.script("pattern-select", {"text": "plan-then-execute", "ms": 380, "in": 290, "out": 3})
    world.script("plan-create", {"object": [
        {"goal": "Find which elements Marie Curie discovered", "tool_hint": "knowledge-query", "depends_on": []},
        {"goal": "Find when she won the Nobel Prize in Chemistry", "tool_hint": "nobel-registry", "depends_on": []},
    ], "ms": 1900, "in": 640, "out": 120})
    world.script("plan-step-execute",
                 {"object": {"tool": "knowledge-query",
                             "arguments": {"question": "Which elements did Marie Curie discover?"}}, "ms": 700},
                 {"object": {"tool": "nobel-registry",
                             "arguments": {"laureate": "Marie Curie", "category": "chemistry"}}, "ms": 650})
    _graph_rag_script(world, ["Marie Curie", "discovered elements"],
                      "Marie Curie discovered polonium and radium, both in 1898.")
    world.tools = {"nobel-registry": [{"text": "1911 Nobel Prize in Chemistry: Marie Curie"}]}
    world.script("plan-synthesise", {"text": "She discovered polonium and radium (1898), and the 1911 Chemistry "
                                             "prize recognised that work.", "ms": 1700, "in": 820, "out": 45})
    request = AgentRequest(question="What did Marie Curie discover, and when was it recognised with a Nobel Prize?",
                           collection=COLLECTION, session_id=session_id(world.seed))
    await run_service(await orchestrator_processor(), request, world, respond)


async def supervisor(world: World, respond: Callable) -> None:
    world.script("task-type-classify", {"text": "research", "ms": 400, "in": 310, "out": 2})
    world.script("pattern-select", {"text": "supervisor", "ms": 380, "in": 290, "out": 2})
    world.script("supervisor-decompose", {"object": [
        "When did Marie Curie win the Nobel Prize in Physics?",
        "Where was Marie Curie born?",
    ], "ms": 1200, "in": 520, "out": 40})
    # FIFO: both sub-agents' first iterations, then the first one's second.
    world.script("agent-react",
                 _react("Ask the registry.", "nobel-registry", {"laureate": "Marie Curie", "category": "physics"}),
                 _react("I know this.", final="Marie Curie was born in Warsaw."),
                 _react("The registry answered.", final="In 1903."))
    world.tools = {"nobel-registry": [{"text": "1903 Nobel Prize in Physics: Henri Becquerel, Pierre Curie, Marie Curie"}]}
    world.script("supervisor-synthesise", {"text": "Born in Warsaw, Marie Curie won the Physics prize in 1903.",
                                           "ms": 1500, "in": 700, "out": 30})
    request = AgentRequest(question="Where was Marie Curie born, and when did she win the Nobel Prize in Physics?",
                           collection=COLLECTION, session_id=session_id(world.seed))
    await run_service(await orchestrator_processor(), request, world, respond)


async def legacy_react(world: World, respond: Callable) -> None:
    world.script("agent-react",
                 _react("I need the year of the physics prize.", "nobel-registry",
                        {"laureate": "Marie Curie", "category": "physics"}),
                 _react("Now the chemistry prize.", "nobel-registry",
                        {"laureate": "Marie Curie", "category": "chemistry"}),
                 _react("I have both.", final="Eight years: 1903 and 1911."))
    world.tools = {"nobel-registry": [{"text": "1903 Nobel Prize in Physics: Henri Becquerel, Pierre Curie, Marie Curie"},
                                      {"text": "1911 Nobel Prize in Chemistry: Marie Curie"}]}
    request = AgentRequest(question="How many years passed between Marie Curie's two Nobel Prizes?",
                           collection=COLLECTION, session_id=session_id(world.seed))
    await run_service(await react_processor(), request, world, respond)


async def legacy_react_one_shot(world: World, respond: Callable) -> None:
    world.script("agent-react", _react("I know this.", final="Marie Curie was born in Warsaw."))
    request = AgentRequest(question="In which city was Marie Curie born?", collection=COLLECTION,
                           session_id=session_id(world.seed))
    await run_service(await react_processor(), request, world, respond)


# name -> (scenario, response translator, minutes after START, reranker wired)
SCENARIOS: dict[str, tuple] = {
    "graph-rag": (graph_rag, GraphRagResponseTranslator, 0, True),
    "document-rag": (document_rag, DocumentRagResponseTranslator, 5, False),
    "document-rag-reranked": (document_rag, DocumentRagResponseTranslator, 10, True),
    "orchestrator-react": (orchestrator_react, AgentResponseTranslator, 15, True),
    "orchestrator-react-tool-error": (orchestrator_react_tool_error, AgentResponseTranslator, 20, True),
    "orchestrator-react-graphrag-tool": (orchestrator_react_graphrag_tool, AgentResponseTranslator, 25, True),
    "plan-then-execute": (plan_then_execute, AgentResponseTranslator, 30, True),
    "supervisor": (supervisor, AgentResponseTranslator, 35, True),
    "legacy-react": (legacy_react, AgentResponseTranslator, 40, True),
    "legacy-react-one-shot": (legacy_react_one_shot, AgentResponseTranslator, 45, True),
}


def capture(name: str) -> list[tuple]:
    """Run one scenario; the explain responses in the order the service sent them, each with its
    wire encoding."""
    scenario, translator, minute, reranker = SCENARIOS[name]
    world = World(name, START + timedelta(minutes=minute), reranker=reranker)
    knowledge(world)
    encoder = translator()
    sent: list[tuple] = []

    def respond(message):
        if getattr(message, "message_type", "") == "explain":
            sent.append((message, encoder.encode(message)))
        elif getattr(message, "error", None) and message.error.message:
            raise RuntimeError(f"{name}: the service answered with an error: {message.error.message}")

    with _patched(world.clock, name):
        asyncio.run(scenario(world, respond))
    return sent


def render(name: str) -> dict[str, bytes]:
    sent = capture(name)
    triples = [t for message, _ in sent for t in message.explain_triples]
    wire = [t for _, event in sent for t in event["explain_triples"]]
    return {
        f"{name}.json": _json_lines_list(wire),
        f"{name}.nq": to_nquads(triples),
        f"{name}.jsonl": "".join(json.dumps(e, ensure_ascii=False) + "\n" for _, e in sent).encode("utf-8"),
    }


def render_all() -> dict[str, bytes]:
    if os.environ.get("PYTHONHASHSEED") != "0":
        raise RuntimeError("run under PYTHONHASHSEED=0: GraphRAG's edge order follows string hashing")
    files: dict[str, bytes] = {}
    for name in SCENARIOS:
        files.update(render(name))
    return files


GENERATED_SUFFIXES = (".json", ".nq", ".jsonl")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="capture.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a committed capture is stale")
    parser.add_argument("--out", type=Path, default=HERE, help="folder to write (default: beside this script)")
    args = parser.parse_args(argv)
    if os.environ.get("PYTHONHASHSEED") != "0":
        os.execve(sys.executable, [sys.executable, __file__, *(sys.argv[1:] if argv is None else argv)],
                  {**os.environ, "PYTHONHASHSEED": "0"})
    for package in ("trustgraph-base", "trustgraph-flow"):
        if metadata.version(package) != RELEASE:
            print(f"error: the captures come from {package} {RELEASE}; "
                  f"{metadata.version(package)} is installed", file=sys.stderr)
            return 2
    logging.basicConfig(level=logging.CRITICAL)  # the services log every step at INFO
    files = render_all()
    if args.check:
        problems = [f"{args.out / n}: {'missing' if not (args.out / n).exists() else 'out of date'}"
                    for n, content in sorted(files.items())
                    if not (args.out / n).exists() or (args.out / n).read_bytes() != content]
        problems += [f"{p}: not produced by capture.py" for p in sorted(args.out.iterdir())
                     if p.name.endswith(GENERATED_SUFFIXES) and p.name not in files]
        for line in problems:
            print(line, file=sys.stderr)
        return 1 if problems else 0
    args.out.mkdir(parents=True, exist_ok=True)
    for name, content in files.items():
        (args.out / name).write_bytes(content)
    print(f"wrote {len(files)} files to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
