"""The scenarios of ``emitter_faults`` that no committed capture shows, run through TrustGraph 2.11.1's
real services in-process (``examples/services/capture.py``'s scripted flow: the services' own request
handlers, TrustGraph's client classes answered from a script), so that the harness's twin can be held
to what the services write.

Needs trustgraph-flow 2.11.1 (CI installs it ``--no-deps``); ``REAL`` maps a scenario's name to the
coroutine that asks the services for it, and :func:`run` gives what they sent as N-Quads, with the
error messages they answered with.
"""

from __future__ import annotations

import asyncio
import importlib.util
import logging
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from unittest import mock

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("tgtrace_tests_capture", ROOT / "examples" / "services" / "capture.py")
capture = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(capture)

from trustgraph.schema import AgentRequest, DocumentRagQuery, GraphRagQuery  # noqa: E402

C = capture
E = C.E
REGISTRY = "1903 Nobel Prize in Physics: Henri Becquerel, Pierre Curie, Marie Curie"


async def _serve_or_raise(self, req):
    """The scripted prompt service, where a reply ``{"raise": message}`` makes the call fail."""
    queue = self.world.prompts.get(req.id)
    if queue and "raise" in queue[0]:
        raise RuntimeError(queue.pop(0)["raise"])
    return await _SERVE(self, req)


_SERVE = C.ScriptedPrompt.serve


def _route(world, task_type: str = "general", pattern: str | None = None) -> None:
    world.script("task-type-classify", {"text": task_type, "ms": 400, "in": 310, "out": 2})
    if pattern:
        world.script("pattern-select", {"text": pattern, "ms": 380, "in": 290, "out": 2})


def _agent(world, question: str, **request) -> AgentRequest:
    return AgentRequest(question=question, collection=C.COLLECTION, session_id=C.session_id(world.seed), **request)


async def _orchestrator(world, respond, request, max_iterations: int = 10) -> None:
    processor = await C.orchestrator_processor()
    processor.max_iterations = max_iterations
    await C.run_service(processor, request, world, respond)


def _registry_call(thought: str, category: str = "physics") -> dict:
    return C._react(thought, "nobel-registry", {"laureate": "Marie Curie", "category": category})


async def plan_step_without_goal(world, respond) -> None:
    _route(world, "research", "plan-then-execute")
    world.script("plan-create", {"object": [
        {"tool_hint": "nobel-registry", "depends_on": []},
        {"goal": "Find the elements Marie Curie discovered", "tool_hint": "nobel-registry", "depends_on": []},
    ], "ms": 1900, "in": 640, "out": 120})
    world.script("plan-step-execute", *({"object": {"tool": "nobel-registry", "arguments": {
        "laureate": "Marie Curie", "category": "chemistry"}}, "ms": 650} for _ in range(2)))
    world.tools = {"nobel-registry": [{"text": "1911 Nobel Prize in Chemistry: Marie Curie"}] * 2}
    world.script("plan-synthesise", {"text": "In 1911, for radium and polonium.", "ms": 1700, "in": 820, "out": 45})
    await _orchestrator(world, respond, _agent(
        world, "When did Marie Curie win the Nobel Prize in Chemistry, and what had she discovered?"))


async def two_graphrag_tools(world, respond) -> None:
    _route(world)
    world.script("agent-react",
                 C._react("The knowledge graph should list her discoveries.", "knowledge-query",
                          {"question": "Which elements did Marie Curie discover?"}),
                 C._react("Now the knowledge graph should list her prizes.", "knowledge-query",
                          {"question": "Which Nobel Prizes did Marie Curie receive?"}),
                 C._react("Both answered.", final="Polonium and radium; the 1903 and 1911 prizes."))
    world.script("extract-concepts", {"text": "Marie Curie\ndiscovered elements", "ms": 600, "in": 212, "out": 19},
                 {"text": "Marie Curie\nNobel Prize", "ms": 600, "in": 212, "out": 19})
    world.script("kg-synthesis", {"text": "Polonium and radium.", "ms": 2100, "in": 1532, "out": 64},
                 {"text": "The 1903 and 1911 prizes.", "ms": 2100, "in": 1532, "out": 64})
    await _orchestrator(world, respond, _agent(
        world, "What did Marie Curie discover, and which Nobel Prizes did she receive?"))


async def same_call_three_times(world, respond) -> None:
    _route(world)
    world.script("agent-react", *(_registry_call(t) for t in ("I need the year.", "Again.", "Once more.")),
                 C._react("Found it.", final="In 1903."))
    world.tools = {"nobel-registry": [{"text": REGISTRY}] * 3}
    await _orchestrator(world, respond, _agent(world, "In which year did Marie Curie receive the Nobel Prize in Physics?"))


async def same_call_after_error(world, respond) -> None:
    _route(world)
    world.script("agent-react", *(_registry_call(t) for t in ("I need the year.", "It failed; again.", "And again.")),
                 C._react("Found it.", final="In 1903."))
    world.tools = {"nobel-registry": [{"error": "connection refused", "ms": 5000}] * 2 + [{"text": REGISTRY}]}
    await _orchestrator(world, respond, _agent(world, "In which year did Marie Curie receive the Nobel Prize in Physics?"))


async def tool_always_fails(world, respond) -> None:
    _route(world)
    world.script("agent-react", _registry_call("I need the year."),
                 C._react("Try another tool.", "calculator", {"expression": "1903"}),
                 C._react("Nothing works.", final="I could not find out."))
    world.tools = {"nobel-registry": [{"error": "connection refused", "ms": 5000}],
                   "calculator": [{"error": "connection refused", "ms": 5000}]}
    await _orchestrator(world, respond, _agent(world, "In which year did Marie Curie receive the Nobel Prize in Physics?"))


def _ten_calls(world) -> None:
    """Ten tool calls, as the harness's steps cycle: the registry twice, then the calculator."""
    world.script("agent-react", *(C._react(f"Step {i}.", "calculator", {"expression": "1911 - 1903"}) if i % 3 == 2
                                  else _registry_call(f"Step {i}.") for i in range(10)))
    world.tools = {"nobel-registry": [{"text": REGISTRY}] * 7, "calculator": [{"text": "8", "ms": 30}] * 3}


async def iteration_limit(world, respond) -> None:
    _route(world)
    _ten_calls(world)
    await _orchestrator(world, respond, _agent(world, "How many years passed between Marie Curie's two Nobel Prizes?"))


async def legacy_iteration_limit(world, respond) -> None:
    _ten_calls(world)
    await C.run_service(await C.react_processor(), _agent(
        world, "How many years passed between Marie Curie's two Nobel Prizes?"), world, respond)


async def plan_iteration_limit(world, respond) -> None:
    _route(world, "research", "plan-then-execute")
    steps = [{"goal": f"Step {i}", "tool_hint": "nobel-registry", "depends_on": []} for i in range(9)]
    steps[0]["tool_hint"] = "knowledge-query"
    world.script("plan-create", {"object": steps, "ms": 1900, "in": 640, "out": 120})
    world.script("plan-step-execute", {"object": {"tool": "knowledge-query", "arguments": {
        "question": "Which elements did Marie Curie discover?"}}, "ms": 700},
        *({"object": {"tool": "nobel-registry", "arguments": {"laureate": "Marie Curie"}}, "ms": 650}
          for _ in range(8)))
    C._graph_rag_script(world, ["Marie Curie", "discovered elements"], "Polonium and radium.")
    world.tools = {"nobel-registry": [{"text": REGISTRY}] * 8}
    await _orchestrator(world, respond, _agent(world, "Summarise Marie Curie's discoveries and prizes."))


def _supervised(world, answers: list[dict]) -> None:
    _route(world, "research", "supervisor")
    world.script("supervisor-decompose", {"object": [
        "Find the elements Marie Curie discovered", "Find the Nobel Prizes Marie Curie received"],
        "ms": 1200, "in": 520, "out": 40})
    world.script("agent-react", *answers)
    world.script("supervisor-synthesise", {"text": "Polonium and radium; the 1903 and 1911 prizes.",
                                           "ms": 1500, "in": 700, "out": 30})


async def supervisor_empty_finding(world, respond) -> None:
    # FIFO: both sub-agents' first iterations, then the second one's later ones.
    _supervised(world, [
        C._react("The graph should know.", "knowledge-query", {"question": "Which elements did Marie Curie discover?"}),
        _registry_call("Ask the registry."),
        C._react("Nothing to add.", final=""),
        _registry_call("Now chemistry.", "chemistry"),
        C._react("Both found.", final="Physics in 1903, Chemistry in 1911.")])
    C._graph_rag_script(world, ["Marie Curie", "discovered elements"], "Polonium and radium.")
    world.tools = {"nobel-registry": [{"text": REGISTRY}, {"text": "1911 Nobel Prize in Chemistry: Marie Curie"}]}
    await _orchestrator(world, respond, _agent(world, "What did Marie Curie discover, and which prizes did she receive?"))


async def supervisor_subagent_error(world, respond) -> None:
    _supervised(world, [
        C._react("Ask the archive.", "nobel-archive", {"laureate": "Marie Curie"}),
        _registry_call("Ask the registry."),
        _registry_call("Now chemistry.", "chemistry"),
        C._react("Both found.", final="Physics in 1903, Chemistry in 1911.")])
    world.tools = {"nobel-registry": [{"text": REGISTRY}, {"text": "1911 Nobel Prize in Chemistry: Marie Curie"}]}
    await _orchestrator(world, respond, _agent(world, "What did Marie Curie discover, and which prizes did she receive?"))


async def graphrag_tool_fails(world, respond) -> None:
    _route(world)
    world.script("agent-react",
                 C._react("The knowledge graph should list her discoveries.", "knowledge-query",
                          {"question": "Which elements did Marie Curie discover?"}),
                 C._react("Ask the graph once more.", "knowledge-query", {"question": "Which elements?"}),
                 C._react("The graph answered.", final="Polonium and radium."))
    world.script("extract-concepts", {"text": "Marie Curie\ndiscovered elements", "ms": 600, "in": 212, "out": 19},
                 {"text": "Marie Curie", "ms": 600, "in": 212, "out": 19})
    world.script("kg-synthesis", {"raise": "prompt service timed out"},
                 {"text": "Polonium and radium.", "ms": 2100, "in": 1532, "out": 64})
    await _orchestrator(world, respond, _agent(world, "Which elements did Marie Curie discover?"))


def _graph_rag(concepts: list[str], entities: dict) -> Callable:
    async def scenario(world, respond) -> None:
        world.concept_entities.update(entities)
        C._graph_rag_script(world, concepts, "The graph holds nothing on that.")
        await C.run_service(C.graph_rag_processor(), GraphRagQuery(
            query="What did Marie Curie paint?", collection=C.COLLECTION, edge_limit=4, max_path_length=2),
            world, respond)
    return scenario


async def document_rag_no_chunk(world, respond) -> None:
    world.concept_chunks = {}
    world.script("extract-concepts", {"text": "Marie Curie\npaintings", "ms": 550, "in": 198, "out": 15})
    world.script("document-prompt", {"text": "The documents do not say.", "ms": 1800, "in": 410, "out": 9})
    await C.run_service(C.document_rag_processor(), DocumentRagQuery(
        query="What did Marie Curie paint?", collection=C.COLLECTION, doc_limit=3), world, respond)


async def arguments_not_an_object(world, respond) -> None:
    _route(world)
    world.script("agent-react", {"text": 'Thought: Ask the registry.\nAction: nobel-registry\n'
                                         'Args: ["Marie Curie", "physics"]', "ms": 900, "in": 1000, "out": 30})
    world.tools = {"nobel-registry": []}
    await _orchestrator(world, respond, _agent(world, "In which year?"))


# Harness scenario -> (the coroutine asking the services for it, reranker wired).
REAL: dict[str, tuple[Callable, bool]] = {
    "plan-step-without-goal": (plan_step_without_goal, True),
    "orchestrator-react-arguments-not-an-object": (arguments_not_an_object, True),
    "orchestrator-react-two-graphrag-tools": (two_graphrag_tools, True),
    "react-same-call-three-times": (same_call_three_times, True),
    "react-same-call-after-error": (same_call_after_error, True),
    "react-tool-always-fails": (tool_always_fails, True),
    "react-iteration-limit": (iteration_limit, True),
    "legacy-react-iteration-limit": (legacy_iteration_limit, True),
    "plan-iteration-limit": (plan_iteration_limit, True),
    "supervisor-empty-finding": (supervisor_empty_finding, True),
    "supervisor-subagent-error": (supervisor_subagent_error, True),
    "react-graphrag-tool-fails-before-synthesis": (graphrag_tool_fails, True),
    # A concept that matches an entity with no edge: seeds, nothing to select.
    "graph-rag-focus-selects-nothing": (_graph_rag(["paintings"], {"paintings": [E + "curie-paintings"]}), True),
    # Concepts that match no entity: no seed, nothing explored.
    "graph-rag-exploration-finds-nothing": (_graph_rag(["francium"], {}), True),
    "document-rag-no-chunk": (document_rag_no_chunk, True),
    "document-rag-no-chunk-unreranked": (document_rag_no_chunk, False),
}


def run(name: str) -> tuple[bytes, list[str]]:
    """The scenario as the services answer it: the explain triples they sent, as N-Quads, and the
    error messages of their error responses."""
    scenario, reranker = REAL[name]
    world = C.World(name, C.START + timedelta(hours=1), reranker=reranker)
    C.knowledge(world)
    sent, errors = [], []

    def respond(message) -> None:
        if getattr(message, "message_type", "") == "explain":
            sent.extend(message.explain_triples)
        elif getattr(message, "error", None) and message.error.message:
            errors.append(message.error.message)

    logging.getLogger("trustgraph").setLevel(logging.CRITICAL)
    with C._patched(world.clock, name), mock.patch.object(C.ScriptedPrompt, "serve", _serve_or_raise):
        asyncio.run(scenario(world, respond))
    return C.to_nquads(sent), errors


def literal_values(nquads: bytes, predicate: str) -> dict[str, set[str]]:
    """Subject -> the values of ``predicate`` (a tg: local name) in an N-Quads capture."""
    import pyoxigraph as ox

    found: dict[str, set[str]] = {}
    for quad in ox.parse(nquads, format=ox.RdfFormat.N_QUADS):
        if quad.predicate.value == f"https://trustgraph.ai/ns/{predicate}":
            found.setdefault(quad.subject.value, set()).add(quad.object.value)
    return found


__all__ = ["REAL", "literal_values", "run"]
