#!/usr/bin/env python3
"""Regenerate the example traces from TrustGraph 2.11.1's own emitter.

Every builder calls the triple builders of ``trustgraph.provenance`` and
chains them the way the TrustGraph service named in its docstring does
(which entity derives from which, which named graph, which optional
predicates are filled in), so the examples carry the shapes TrustGraph
really emits rather than an idea of them.

    python examples/generate.py           # rewrite every example file
    python examples/generate.py --check   # exit 1 if a file is stale

For reuse (for instance by a benchmark corpus generator), with the
repository root on ``sys.path``::

    from examples.generate import build_graphrag, to_wire, to_nquads
    triples = build_graphrag(seed="corpus-17", n_edges=40)

``build_*`` functions return a flat list of ``trustgraph.schema.Triple``;
the matching ``*_emissions`` functions return the same triples grouped as
the services emit them, one :class:`Emission` per explain event (or per
Triples message, for extraction). Output is deterministic: ids are uuid5
values derived from ``seed``; timestamps, durations and token counts are
fixed. The uuid patch used for extraction is not thread-safe.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import inspect
import itertools
import json
import sys
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from importlib import metadata
from pathlib import Path
from types import SimpleNamespace
from typing import NamedTuple
from urllib.parse import quote

EMITTER_VERSION = "2.11.1"

try:
    import pyoxigraph as ox
    from trustgraph import provenance as prov
    from trustgraph.provenance import uris as _prov_uris
    from trustgraph.schema import BLANK, IRI, LITERAL, TRIPLE, Term, Triple
except ImportError as exc:  # pragma: no cover - exercised by hand
    if __name__ != "__main__":
        raise
    print(
        f"error: {exc}; install the emitter with "
        f"'pip install --no-deps trustgraph-base=={EMITTER_VERSION}' and pyoxigraph",
        file=sys.stderr,
    )
    sys.exit(2)

__all__ = [
    "Emission", "Fact", "ReactStep", "PlanStep",
    "graphrag_emissions", "build_graphrag",
    "docrag_emissions", "build_docrag",
    "orchestrator_react_emissions", "build_orchestrator_react",
    "legacy_react_emissions", "build_legacy_react",
    "plan_then_execute_emissions", "build_plan_then_execute",
    "supervisor_emissions", "build_supervisor",
    "extraction_emissions", "build_extraction",
    "to_wire", "triple_to_wire", "term_to_wire", "to_quads", "to_nquads",
    "explain_event", "explain_events",
    "EXAMPLES", "BEHAVIOURS", "render_all",
]

EXAMPLES_DIR = Path(__file__).resolve().parent

# All example ids are uuid5 names under this namespace, so every run (and every
# machine) produces the same IRIs.
ID_NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "https://trustgraph.ai/ns/examples")

START = datetime(2026, 8, 5, 9, 0, 0, 125000, tzinfo=UTC)
MODEL = "gpt-4o-mini"
ENTITY_BASE = "http://trustgraph.ai/e/"

# Response channels, i.e. which service's response message carries an
# emission to the client. Extraction output goes to the triples queue only.
GRAPH_RAG = "graph-rag"
DOCUMENT_RAG = "document-rag"
AGENT = "agent"
TRIPLES = "triples"


# ---------------------------------------------------------------------------
# Deterministic ids, timestamps and the emission record
# ---------------------------------------------------------------------------

def _uuid(seed: str, role: str) -> str:
    return str(uuid.uuid5(ID_NAMESPACE, f"{seed}/{role}"))


def _iso(moment: datetime) -> str:
    # Same rendering as the services: isoformat() of an aware UTC time, "Z".
    return moment.isoformat().replace("+00:00", "Z")


def _at(start: datetime, ms: int) -> str:
    return _iso(start + timedelta(milliseconds=ms))


@contextlib.contextmanager
def _fixed_uuid4(seed: str):
    """Make the emitter's own uuid4() calls (page, chunk, activity and
    subgraph URIs) reproducible for the duration of the block.

    Only the ``uuid`` name inside ``trustgraph.provenance.uris`` is swapped,
    so nothing else in the process is affected.
    """
    counter = itertools.count()
    shim = SimpleNamespace(
        uuid4=lambda: uuid.uuid5(ID_NAMESPACE, f"{seed}/uuid4/{next(counter)}")
    )
    original = _prov_uris.uuid
    _prov_uris.uuid = shim
    try:
        yield
    finally:
        _prov_uris.uuid = original


@dataclass(frozen=True)
class Emission:
    """One unit of output as a service sends it: the triples of one explain
    event (``explain_id`` is the event's id) or of one Triples message.
    ``graph`` is the event's ``explain_graph``, as the service names it."""

    explain_id: str
    triples: list
    channel: str
    graph: str | None = prov.GRAPH_RETRIEVAL


class Emitter:
    """What a TrustGraph service does around the builders when it writes a
    trace: which builder it calls, which named graph it puts the triples in
    (and names in the explain event), how it mints session ids, how it
    passes a tool call's arguments, which IRI it links a step to, and what
    it sends. The methods answer as the 2.11.1 services do; every
    ``*_emissions`` function asks its ``emitter`` (this one by default), so
    a subclass that answers one question otherwise is one bug in a service
    (``tests/emitter_faults.py`` holds them).

    A step is named ``PIPELINE/STEP`` ("graph-rag/focus", "agent/iteration");
    ``service`` is the service that mints an id ("graph-rag",
    "document-rag", "agent").
    """

    def builder(self, name: str) -> Callable[..., list]:
        """The ``trustgraph.provenance`` builder the service calls by that name."""
        return getattr(prov, name)  # looked up per call: tests may patch a builder

    def graph(self, step: str) -> str | None:
        """The named graph the step's triples are put in (``set_graph``)."""
        if step.startswith("extraction/"):
            # The librarian writes the Document (and the vocabulary) without a
            # graph; the decoders, the chunker and the extractors put their
            # provenance in urn:graph:source; extracted facts have no graph.
            return None if step in ("extraction/document", "extraction/facts") else prov.GRAPH_SOURCE
        # Every query-time service puts its explain triples in urn:graph:retrieval.
        return prov.GRAPH_RETRIEVAL

    def event_graph(self, step: str) -> str | None:
        """The ``explain_graph`` the step's explain event names."""
        return prov.GRAPH_RETRIEVAL

    def session_id(self, service: str, seed: str, role: str = "session") -> str:
        """A new id (the services' ``uuid4()``; here uuid5 of the seed)."""
        return _uuid(seed, role)

    def selection_session(self, service: str, session_id: str) -> str:
        """The session id edge and chunk selections are minted under."""
        return session_id

    def arguments(self, arguments: dict):
        """What the service passes as a tool call's arguments (the builder
        ``json.dumps`` them)."""
        return arguments

    def pick(self, point: str, choice: str, options: dict):
        """The IRI (or IRIs) the service uses at ``point``: ``options[choice]``,
        what 2.11.1 uses; the other options are what the code at hand could
        use instead."""
        return options[choice]

    def emit(self, step: str, explain_id: str, channel: str, builder: str,
             *args, **kwargs) -> list[Emission]:
        """The emissions of one step: the builder's triples, in their graph."""
        return [self.emission(step, explain_id, self.builder(builder)(*args, **kwargs), channel)]

    def emission(self, step: str, explain_id: str, triples: list, channel: str) -> Emission:
        return Emission(explain_id, self.placed(step, triples), channel, self.event_graph(step))

    def placed(self, step: str, triples: list) -> list:
        """The triples in the step's graph."""
        graph = self.graph(step)
        return prov.set_graph(triples, graph) if graph else list(triples)

    def sent(self, emissions: list[Emission]) -> list[Emission]:
        """The emissions of one request, in the order the service sends them."""
        return emissions


# TrustGraph 2.11.1's services.
SERVICES = Emitter()


def _flatten(emissions: Iterable[Emission]) -> list:
    return [t for e in emissions for t in e.triples]


def _flattening(emitter: Callable[..., list]) -> Callable[..., list]:
    @functools.wraps(emitter)
    def build(**kwargs):
        return _flatten(emitter(**kwargs))

    build.__signature__ = inspect.signature(emitter).replace(
        return_annotation="list[Triple]")
    build.__name__ = build.__qualname__ = (
        "build_" + emitter.__name__.removesuffix("_emissions"))
    build.__doc__ = (
        f"Flat list of Triple objects; same arguments as {emitter.__name__}.\n\n"
        + (emitter.__doc__ or "")
    )
    return build


# ---------------------------------------------------------------------------
# A small, coherent domain shared by the examples
# ---------------------------------------------------------------------------

class Fact(NamedTuple):
    subject: str
    predicate: str
    object: str
    object_is_entity: bool


FACTS = (
    Fact("Marie Curie", "awarded", "Nobel Prize in Physics", True),
    Fact("Marie Curie", "awarded", "Nobel Prize in Chemistry", True),
    Fact("Nobel Prize in Physics", "awarded in year", "1903", False),
    Fact("Nobel Prize in Chemistry", "awarded in year", "1911", False),
    Fact("Marie Curie", "discovered", "polonium", True),
    Fact("Marie Curie", "discovered", "radium", True),
    Fact("radium", "discovered in year", "1898", False),
    Fact("polonium", "named after", "Poland", True),
    Fact("Marie Curie", "born in", "Warsaw", True),
    Fact("Pierre Curie", "married to", "Marie Curie", True),
)

DEFINITIONS = (
    ("polonium", "A rare, highly radioactive chemical element with symbol Po, "
                 "discovered by Marie and Pierre Curie in 1898."),
    ("radium", "A radioactive alkaline earth metal with symbol Ra, "
               "isolated by Marie Curie."),
)


def _facts(n: int, base: Sequence[Fact] = FACTS) -> list[Fact]:
    """The first n facts; beyond the fixture, numbered filler facts so that
    callers can ask for any size."""
    out = list(base[:n])
    for i in range(len(out), n):
        out.append(Fact(f"Entity {i}", "related to", f"Entity {i + 1}", True))
    return out


def _entity_iri(label: str) -> str:
    # The relationship/definition extractors' naming rule for entity IRIs.
    return ENTITY_BASE + quote(label.replace(" ", "-").lower().encode("utf-8"))


def _object_term(fact: Fact) -> Term:
    if fact.object_is_entity:
        return Term(type=IRI, iri=_entity_iri(fact.object))
    return Term(type=LITERAL, value=fact.object)


def _fact_triple(fact: Fact) -> Triple:
    return Triple(
        s=Term(type=IRI, iri=_entity_iri(fact.subject)),
        p=Term(type=IRI, iri=_entity_iri(fact.predicate)),
        o=_object_term(fact),
    )


# ---------------------------------------------------------------------------
# GraphRAG  (trustgraph-flow/.../retrieval/graph_rag/graph_rag.py)
# ---------------------------------------------------------------------------

def graphrag_emissions(
    *,
    seed: str = "graph-rag",
    session_id: str | None = None,
    query: str = "When did Marie Curie receive her Nobel Prizes?",
    concepts: Sequence[str] = ("Marie Curie", "Nobel Prize"),
    facts: Sequence[Fact] | None = None,
    n_edges: int = 4,
    entities: Sequence[str] | None = None,
    until: str | None = None,
    parent_uri: str | None = None,
    channel: str = GRAPH_RAG,
    start: datetime = START,
    with_usage: bool = True,
    model: str = MODEL,
    emitter: Emitter = SERVICES,
) -> list[Emission]:
    """Question -> Grounding -> Exploration -> Focus (EdgeSelections) -> Synthesis.

    ``parent_uri`` makes this a sub-trace (the agent passes the Analysis of
    the iteration whose knowledge-query tool ran it); ``channel`` names the
    response stream that carries the events (``agent`` when forwarded).
    Token usage is recorded on Grounding and Synthesis only, as the service
    does; the cross-encoder Focus has none. ``entities`` are the seed
    entities the concepts matched (by default the selected facts' subjects).
    ``until`` names the last step written ("grounding", "exploration",
    "focus"): the service raised in the step after it (an LLM or store call
    failed) and sent an error response instead.
    """
    em = emitter
    sid = session_id or em.session_id("graph-rag", seed)
    q_uri = prov.question_uri(sid)
    gnd_uri = prov.grounding_uri(sid)
    exp_uri = prov.exploration_uri(sid)
    foc_uri = prov.focus_uri(sid)
    syn_uri = prov.synthesis_uri(sid)
    selected = list(facts) if facts is not None else _facts(n_edges)

    def usage(i, o):
        return dict(in_token=i, out_token=o, model=model) if with_usage else {}

    out = em.emit("graph-rag/question", q_uri, channel, "question_triples",
                  q_uri, query, _at(start, 0), parent_uri=parent_uri or None)

    out += em.emit("graph-rag/grounding", gnd_uri, channel, "grounding_triples",
                   gnd_uri, q_uri, list(concepts), **usage(212, 19))
    if until == "grounding":
        return em.sent(out)

    # Seeds are the entities the concept embeddings matched; the service
    # records the number of *selected* edges as the edge count.
    seeds = (list(entities) if entities is not None
             else list(dict.fromkeys(_entity_iri(f.subject) for f in selected))[:3])
    out += em.emit("graph-rag/exploration", exp_uri, channel, "exploration_triples",
                   exp_uri, em.pick("graph-rag/exploration", "grounding",
                                    {"grounding": gnd_uri, "question": q_uri}),
                   len(selected), entities=seeds)
    if until == "exploration":
        return em.sent(out)

    selections = []
    for i, fact in enumerate(selected):
        quoted = _fact_triple(fact)
        concept = concepts[0] if fact.subject == "Marie Curie" else concepts[-1]
        selections.append({
            "edge": (quoted.s, quoted.p, quoted.o),
            "concept": concept,
            # Reranker scores arrive as floats, best first.
            "score": round(0.9731 - 0.0173 * i, 4),
        })
    out += em.emit("graph-rag/focus", foc_uri, channel, "focus_triples",
                   foc_uri, em.pick("graph-rag/focus", "exploration",
                                    {"exploration": exp_uri, "grounding": gnd_uri}),
                   selections, em.selection_session("graph-rag", sid))
    if until == "focus":
        return em.sent(out)

    out += em.emit("graph-rag/synthesis", syn_uri, channel, "synthesis_triples",
                   syn_uri, em.pick("graph-rag/synthesis", "focus",
                                    {"focus": foc_uri, "exploration": exp_uri}),
                   document_id=f"urn:trustgraph:synthesis:{sid}",
                   **usage(1486, 74))
    return em.sent(out)


build_graphrag = _flattening(graphrag_emissions)


# ---------------------------------------------------------------------------
# Document RAG  (trustgraph-flow/.../retrieval/document_rag/document_rag.py)
# ---------------------------------------------------------------------------

def docrag_emissions(
    *,
    seed: str = "document-rag",
    session_id: str | None = None,
    query: str = "What did Marie Curie discover in 1898?",
    concepts: Sequence[str] = ("Marie Curie", "discoveries of 1898"),
    doc_limit: int = 3,
    reranker: bool = False,
    fetch_limit: int = 0,
    n_found: int | None = None,
    start: datetime = START,
    with_usage: bool = True,
    model: str = MODEL,
    emitter: Emitter = SERVICES,
) -> list[Emission]:
    """Question -> Grounding -> Exploration [-> Focus (ChunkSelections)] -> Synthesis.

    Without a reranker Synthesis derives from Exploration; with one, the
    service over-fetches (3 x doc_limit unless ``fetch_limit``), adds a
    Focus whose ChunkSelections carry the reranker scores, and Synthesis
    derives from that Focus. ``n_found`` is how many chunks the vector store
    returned (by default all it was asked for); with none, no reranker runs.
    """
    em = emitter
    sid = session_id or em.session_id("document-rag", seed)
    q_uri = prov.docrag_question_uri(sid)
    gnd_uri = prov.docrag_grounding_uri(sid)
    exp_uri = prov.docrag_exploration_uri(sid)
    foc_uri = prov.docrag_focus_uri(sid)
    syn_uri = prov.docrag_synthesis_uri(sid)

    def usage(i, o):
        return dict(in_token=i, out_token=o, model=model) if with_usage else {}

    fetch = max(fetch_limit or 3 * doc_limit, doc_limit) if reranker else doc_limit
    found = fetch if n_found is None else min(n_found, fetch)
    chunk_ids = [f"urn:chunk:{_uuid(seed, f'chunk/{i}')}" for i in range(found)]

    out = em.emit("document-rag/question", q_uri, DOCUMENT_RAG, "docrag_question_triples",
                  q_uri, query, _at(start, 0))
    out += em.emit("document-rag/grounding", gnd_uri, DOCUMENT_RAG, "grounding_triples",
                   gnd_uri, q_uri, list(concepts), **usage(198, 14))
    # Exploration lists the full candidate set, before any reranking.
    out += em.emit("document-rag/exploration", exp_uri, DOCUMENT_RAG, "docrag_exploration_triples",
                   exp_uri, em.pick("document-rag/exploration", "grounding",
                                    {"grounding": gnd_uri, "question": q_uri}),
                   len(chunk_ids), chunk_ids)

    # The reranker runs only when it is wired and the store found chunks.
    reranked = reranker and bool(chunk_ids)
    if reranked:
        # The reranker returns the top doc_limit candidates, best first, in
        # an order that differs from the vector store's.
        order = sorted(range(found), key=lambda i: (7 * i + 3) % found)[:doc_limit]
        chosen = [
            {"chunk_id": chunk_ids[idx], "score": round(0.9914 - 0.0611 * rank, 4)}
            for rank, idx in enumerate(order)
        ]
        out += em.emit("document-rag/focus", foc_uri, DOCUMENT_RAG, "docrag_chunk_selection_triples",
                       foc_uri, em.pick("document-rag/focus", "exploration",
                                        {"exploration": exp_uri, "grounding": gnd_uri}),
                       chosen, em.selection_session("document-rag", sid))

    out += em.emit("document-rag/synthesis", syn_uri, DOCUMENT_RAG, "docrag_synthesis_triples",
                   syn_uri, em.pick("document-rag/synthesis", "focus" if reranked else "exploration",
                                    {"focus": foc_uri, "exploration": exp_uri}),
                   document_id=f"urn:trustgraph:docrag:{sid}/answer",
                   **usage(2874, 61))
    return em.sent(out)


build_docrag = _flattening(docrag_emissions)


# ---------------------------------------------------------------------------
# Agents
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class ReactStep:
    """One ReAct iteration: what the LLM chose and what the tool returned.

    ``tool_error`` is set when the tool raised (the observation is then
    ``"Error: <message>"``). ``graph_rag`` holds keyword arguments for
    :func:`graphrag_emissions` when the tool was knowledge-query, whose
    GraphRAG run becomes a linked sub-trace. ``stops``: the service raised
    once the Analysis was written (an unknown tool), so nothing follows it.
    """

    action: str
    arguments: dict
    thought: str
    observation: str
    tool_error: str | None = None
    llm_duration_ms: int = 1500
    tool_duration_ms: int = 300
    in_token: int = 1200
    out_token: int = 90
    graph_rag: dict | None = None
    stops: bool = False


TOOLS = ("knowledge-query", "nobel-registry", "calculator")

REACT_STEPS = (
    ReactStep("nobel-registry", {"laureate": "Marie Curie", "category": "physics"},
              "I need the year Marie Curie received the Physics prize.",
              "1903 Nobel Prize in Physics: Henri Becquerel, Pierre Curie, Marie Curie",
              llm_duration_ms=1843, tool_duration_ms=412, in_token=1211, out_token=96),
    ReactStep("nobel-registry", {"laureate": "Marie Curie", "category": "chemistry"},
              "Now I need the year of the Chemistry prize.",
              "1911 Nobel Prize in Chemistry: Marie Curie",
              llm_duration_ms=1522, tool_duration_ms=388, in_token=1398, out_token=88),
    ReactStep("calculator", {"expression": "1911 - 1903"},
              "Both years are known; compute the gap.",
              "8",
              llm_duration_ms=1377, tool_duration_ms=21, in_token=1507, out_token=71),
)


def _react_steps(n: int) -> list[ReactStep]:
    steps = []
    for i in range(n):
        base = REACT_STEPS[i % len(REACT_STEPS)]
        if i >= len(REACT_STEPS):
            # Vary the repeated steps a little so larger traces are not clones.
            base = ReactStep(base.action, dict(base.arguments), base.thought,
                             base.observation,
                             llm_duration_ms=base.llm_duration_ms + 7 * i,
                             tool_duration_ms=base.tool_duration_ms + 3 * i,
                             in_token=base.in_token + 97 * i,
                             out_token=base.out_token + i)
        steps.append(base)
    return steps


def orchestrator_react_emissions(
    *,
    seed: str = "orchestrator-react",
    session_id: str | None = None,
    question: str = "How many years passed between Marie Curie's two Nobel Prizes?",
    steps: Sequence[ReactStep] | None = None,
    n_iterations: int = 3,
    answer: str = "Eight years: the Physics prize came in 1903 and the Chemistry prize in 1911.",
    concluded: bool = True,
    pattern_decision: bool = True,
    task_type: str = "general",
    parent_session_id: str | None = None,
    tool_candidates: Sequence[str] = TOOLS,
    start: datetime = START,
    model: str = MODEL,
    emitter: Emitter = SERVICES,
) -> list[Emission]:
    """ReAct from the agent orchestrator (agent/orchestrator/react_pattern.py).

    [PatternDecision ->] Question -> Analysis i1 (+Thought) -> Observation i1
    -> Analysis i2 -> ... -> Conclusion (terminationReason final-answer).
    The service emits the PatternDecision only when the request carries a
    session id (always so for a supervisor's sub-agents), and it emits it
    *before* the Question. Analysis i1, or the Conclusion of a trace with no
    tool call, derives from the PatternDecision when there is one, else from
    the Question. ``parent_session_id`` makes this a supervisor's sub-agent
    whose Question derives from the parent's Decomposition.
    ``concluded=False`` stops after the last Observation, as when the
    service raises on too many iterations and emits no Conclusion; a step
    with ``stops`` ends the trace at its Analysis (the service raised on an
    unknown tool).
    """
    em = emitter
    sid = session_id or em.session_id("agent", seed)
    session_uri = prov.agent_session_uri(sid)
    steps = list(steps) if steps is not None else _react_steps(n_iterations)
    out: list[Emission] = []

    derive_from = session_uri
    if pattern_decision:
        pd_uri = prov.agent_pattern_decision_uri(sid)
        out += em.emit("agent/pattern-decision", pd_uri, AGENT, "agent_pattern_decision_triples",
                       pd_uri, session_uri, "react", task_type)
        derive_from = pd_uri

    parent = None
    if parent_session_id:
        parent = em.pick("agent/subagent-question", "decomposition", {
            "decomposition": prov.agent_decomposition_uri(parent_session_id),
            "question": prov.agent_session_uri(parent_session_id), "none": None})
    out += em.emit("agent/question", session_uri, AGENT, "agent_session_triples",
                   session_uri, question, _at(start, 0), parent_uri=parent)

    clock = 0
    for n, step in enumerate(steps, start=1):
        it_uri = prov.agent_iteration_uri(sid, n)
        # The thought is saved to the librarian under the Thought's own IRI;
        # an empty thought (a parse error) gets no Thought entity at all.
        thought_doc = f"urn:trustgraph:agent:{sid}/i{n}/thought" if step.thought else None
        first = {"decision": derive_from, "question": session_uri}
        later = {"observation": prov.agent_observation_uri(sid, n - 1),
                 "analysis": prov.agent_iteration_uri(sid, n - 1)}
        previous = em.pick("agent/iteration", "decision" if n == 1 else "observation",
                           first if n == 1 else later)
        out += em.emit(
            "agent/iteration", it_uri, AGENT, "agent_iteration_triples",
            it_uri,
            question_uri=previous if n == 1 else None,
            previous_uri=previous if n > 1 else None,
            action=step.action,
            arguments=em.arguments(step.arguments),
            thought_uri=em.pick("agent/thought", "own", {
                "own": prov.agent_thought_uri(sid, n), "previous": prov.agent_thought_uri(sid, n - 1),
            }) if thought_doc else None,
            thought_document_id=thought_doc,
            tool_candidates=list(tool_candidates),
            step_number=n,
            llm_duration_ms=step.llm_duration_ms,
            in_token=step.in_token,
            out_token=step.out_token,
            model=model,
        )
        clock += step.llm_duration_ms
        if step.stops:
            return em.sent(out)

        # The Observation derives from the last explain event the tool
        # forwarded (a GraphRAG Synthesis), else from its Analysis.
        obs_parent = it_uri
        if step.graph_rag is not None:
            sub = graphrag_emissions(
                **{"seed": f"{seed}/i{n}/graph-rag",
                   "query": step.arguments.get("question", question),
                   "start": start + timedelta(milliseconds=clock + 5),
                   "model": model,
                   **step.graph_rag},
                parent_uri=em.pick("agent/sub-trace", "analysis", {
                    "analysis": it_uri, "question": session_uri, "none": None,
                    "previous": prov.agent_observation_uri(sid, n - 1) if n > 1 else derive_from}),
                channel=AGENT, emitter=em)
            out.extend(sub)
            obs_parent = em.pick("agent/observation", "sub-trace",
                                 {"sub-trace": sub[-1].explain_id, "analysis": it_uri})
        clock += step.tool_duration_ms

        obs_uri = prov.agent_observation_uri(sid, n)
        out += em.emit("agent/observation", obs_uri, AGENT, "agent_observation_triples",
                       obs_uri, obs_parent,
                       document_id=obs_uri if step.observation else None,
                       tool_duration_ms=step.tool_duration_ms,
                       tool_error=step.tool_error)

    if concluded:
        final_uri = prov.agent_final_uri(sid)
        last = (em.pick("agent/conclusion", "observation", {
            "observation": prov.agent_observation_uri(sid, len(steps)),
            "analysis": prov.agent_iteration_uri(sid, len(steps))}) if steps
            else em.pick("agent/conclusion", "decision", {"decision": derive_from, "question": session_uri}))
        out += em.emit("agent/conclusion", final_uri, AGENT, "agent_final_triples",
                       final_uri,
                       question_uri=last if not steps else None,
                       previous_uri=last if steps else None,
                       document_id=f"urn:trustgraph:agent:{sid}/answer" if answer else None,
                       termination_reason="final-answer")
    return em.sent(out)


build_orchestrator_react = _flattening(orchestrator_react_emissions)


def legacy_react_emissions(
    *,
    seed: str = "legacy-react",
    session_id: str | None = None,
    question: str = "How many years passed between Marie Curie's two Nobel Prizes?",
    steps: Sequence[ReactStep] | None = None,
    n_iterations: int = 3,
    answer: str = "Eight years: the Physics prize came in 1903 and the Chemistry prize in 1911.",
    concluded: bool = True,
    start: datetime = START,
    emitter: Emitter = SERVICES,
) -> list[Emission]:
    """ReAct from the older agent service (agent/react/service.py).

    Question -> Analysis i1 (+Thought) -> Observation i1 -> ... -> Conclusion.
    No PatternDecision, no tool candidates, step numbers, durations, token
    usage or tool errors, and no termination reason on the Conclusion.
    The service neither links nor forwards GraphRAG sub-traces, so every
    Observation derives from its own Analysis. ``concluded=False`` stops
    after the last Observation (the service raised on too many iterations).
    """
    em = emitter
    sid = session_id or em.session_id("agent", seed)
    session_uri = prov.agent_session_uri(sid)
    steps = list(steps) if steps is not None else _react_steps(n_iterations)
    if any(s.graph_rag is not None for s in steps):
        raise ValueError("the older agent service does not link GraphRAG sub-traces")

    out = em.emit("agent/question", session_uri, AGENT, "agent_session_triples",
                  session_uri, question, _at(start, 0))
    for n, step in enumerate(steps, start=1):
        it_uri = prov.agent_iteration_uri(sid, n)
        thought_doc = f"urn:trustgraph:agent:{sid}/i{n}/thought" if step.thought else None
        previous = em.pick("agent/iteration", "question" if n == 1 else "observation", {
            "question": session_uri, "observation": prov.agent_observation_uri(sid, n - 1),
            "analysis": prov.agent_iteration_uri(sid, n - 1)})
        out += em.emit(
            "agent/iteration", it_uri, AGENT, "agent_iteration_triples",
            it_uri,
            question_uri=previous if n == 1 else None,
            previous_uri=previous if n > 1 else None,
            action=step.action,
            arguments=em.arguments(step.arguments),
            thought_uri=em.pick("agent/thought", "own", {
                "own": prov.agent_thought_uri(sid, n), "previous": prov.agent_thought_uri(sid, n - 1),
            }) if thought_doc else None,
            thought_document_id=thought_doc,
        )
        obs_uri = prov.agent_observation_uri(sid, n)
        out += em.emit("agent/observation", obs_uri, AGENT, "agent_observation_triples",
                       obs_uri, it_uri,
                       document_id=obs_uri if step.observation else None)

    if concluded:
        final_uri = prov.agent_final_uri(sid)
        last = em.pick("agent/conclusion", "observation" if steps else "question", {
            "question": session_uri,
            "observation": prov.agent_observation_uri(sid, len(steps)),
            "analysis": prov.agent_iteration_uri(sid, len(steps))})
        out += em.emit("agent/conclusion", final_uri, AGENT, "agent_final_triples",
                       final_uri,
                       question_uri=last if not steps else None,
                       previous_uri=last if steps else None,
                       document_id=f"urn:trustgraph:agent:{sid}/answer" if answer else None)
    return em.sent(out)


build_legacy_react = _flattening(legacy_react_emissions)


class PlanStep(NamedTuple):
    goal: str | None  # None: the LLM's plan gave the step no goal
    graph_rag: dict | None = None  # set when the step's tool was knowledge-query
    tool_hint: str = ""
    depends_on: tuple[int, ...] = ()


PLAN_STEPS = (
    PlanStep("Find the elements Marie Curie discovered",
             graph_rag={"concepts": ("Marie Curie", "discovered elements"),
                        "facts": (FACTS[4], FACTS[5], FACTS[6], FACTS[7])}),
    PlanStep("Find the Nobel Prizes Marie Curie received"),
    PlanStep("Compute the years between the discoveries and the Chemistry prize"),
)


def plan_then_execute_emissions(
    *,
    seed: str = "plan-then-execute",
    session_id: str | None = None,
    question: str = "Summarise Marie Curie's discoveries and the prizes that followed them.",
    plan: Sequence[PlanStep] | None = None,
    n_steps: int = 3,
    answer: str = ("Marie Curie discovered polonium and radium in 1898; she received "
                   "the Nobel Prize in Physics in 1903 and in Chemistry in 1911, "
                   "13 years after the discoveries."),
    executed: int | None = None,
    pattern_decision: bool = True,
    task_type: str = "research",
    start: datetime = START,
    model: str = MODEL,
    emitter: Emitter = SERVICES,
) -> list[Emission]:
    """Plan-then-execute (agent/orchestrator/plan_pattern.py).

    [PatternDecision ->] Question; Plan (from the PatternDecision or the
    Question) -> StepResult 0..n-1 (each from the Plan) -> Synthesis (from
    the last StepResult, terminationReason plan-complete). A step whose tool
    is knowledge-query runs GraphRAG with the step's StepResult as parent,
    so that sub-trace is emitted before the StepResult it derives from.
    ``executed`` stops after that many steps, with no Synthesis (the
    service raised on too many iterations). A step's ``goal`` of None is a
    plan step the LLM gave no goal: the Plan lists "" for it and the
    StepResult the ``str()`` of its ``trustgraph.schema.PlanStep``, as
    plan_pattern.py writes them.
    """
    em = emitter
    sid = session_id or em.session_id("agent", seed)
    session_uri = prov.agent_session_uri(sid)
    if plan is None:
        plan = [PLAN_STEPS[i] if i < len(PLAN_STEPS)
                else PlanStep(f"Follow-up step {i}")
                for i in range(n_steps)]
    out: list[Emission] = []

    derive_from = session_uri
    if pattern_decision:
        pd_uri = prov.agent_pattern_decision_uri(sid)
        out += em.emit("agent/pattern-decision", pd_uri, AGENT, "agent_pattern_decision_triples",
                       pd_uri, session_uri, "plan-then-execute", task_type)
        derive_from = pd_uri
    out += em.emit("agent/question", session_uri, AGENT, "agent_session_triples",
                   session_uri, question, _at(start, 0))

    plan_uri = prov.agent_plan_uri(sid)
    out += em.emit("agent/plan", plan_uri, AGENT, "agent_plan_triples",
                   plan_uri, em.pick("agent/plan", "decision", {"decision": derive_from, "question": session_uri}),
                   [s.goal or "" for s in plan])

    done = len(plan) if executed is None else executed
    for i, step in enumerate(plan[:done]):
        step_uri = prov.agent_step_result_uri(sid, i)
        goal = step.goal or str(_schema_plan_step(step))
        if step.graph_rag is not None:
            out.extend(graphrag_emissions(
                **{"seed": f"{seed}/step/{i}/graph-rag", "query": goal,
                   "start": start + timedelta(seconds=4 + 6 * i), "model": model,
                   **step.graph_rag},
                parent_uri=em.pick("agent/step-sub-trace", "step", {
                    "step": step_uri, "plan": plan_uri, "none": None,
                    "next": prov.agent_step_result_uri(sid, i + 1)}),
                channel=AGENT, emitter=em))
        out += em.emit("agent/step-result", step_uri, AGENT, "agent_step_result_triples",
                       step_uri, em.pick("agent/step-result", "plan", {
                           "plan": plan_uri, "previous": prov.agent_step_result_uri(sid, i - 1) if i else plan_uri}),
                       goal, f"urn:trustgraph:agent:{sid}/step/{i}/doc")

    if done < len(plan):
        return em.sent(out)
    syn_uri = prov.agent_synthesis_uri(sid)
    out += em.emit("agent/synthesis", syn_uri, AGENT, "agent_synthesis_triples",
                   syn_uri, em.pick("agent/plan-synthesis", "last", {
                       "last": prov.agent_step_result_uri(sid, len(plan) - 1),
                       "first": prov.agent_step_result_uri(sid, 0),
                       "every": [prov.agent_step_result_uri(sid, i) for i in range(len(plan))],
                       "plan": plan_uri}),
                   f"urn:trustgraph:agent:{sid}/synthesis/doc",
                   termination_reason="plan-complete")
    return em.sent(out)


def _schema_plan_step(step: PlanStep):
    """The ``trustgraph.schema.PlanStep`` plan_pattern.py makes of an LLM's plan step (its
    pending form, as the step is executed)."""
    from trustgraph.schema import PlanStep as SchemaPlanStep

    return SchemaPlanStep(goal=step.goal or "", tool_hint=step.tool_hint, depends_on=list(step.depends_on),
                          status="pending", result="")


build_plan_then_execute = _flattening(plan_then_execute_emissions)


SUBAGENT_GOALS = (
    "Find the elements Marie Curie discovered",
    "Find the Nobel Prizes Marie Curie received",
)

SUBAGENT_STEPS = (
    (ReactStep("knowledge-query", {"question": SUBAGENT_GOALS[0]},
               "The knowledge graph should list her discoveries.",
               "Marie Curie discovered polonium and radium, both in 1898.",
               llm_duration_ms=1611, tool_duration_ms=5320, in_token=1104, out_token=83,
               graph_rag={"concepts": ("Marie Curie", "discovered elements"),
                          "facts": (FACTS[4], FACTS[5], FACTS[6])}),),
    REACT_STEPS[:2],
)

SUBAGENT_ANSWERS = (
    "Polonium and radium, both discovered in 1898.",
    "The Nobel Prize in Physics (1903) and the Nobel Prize in Chemistry (1911).",
)


def supervisor_emissions(
    *,
    seed: str = "supervisor",
    session_id: str | None = None,
    question: str = "What did Marie Curie discover, and which Nobel Prizes did she receive?",
    goals: Sequence[str] = SUBAGENT_GOALS,
    subagent_steps: Sequence[Sequence[ReactStep]] | None = None,
    subagent_answers: Sequence[str] | None = None,
    answer: str = ("She discovered polonium and radium (1898) and received the Nobel "
                   "Prize in Physics (1903) and in Chemistry (1911)."),
    pattern_decision: bool = True,
    task_type: str = "research",
    start: datetime = START,
    model: str = MODEL,
    emitter: Emitter = SERVICES,
) -> list[Emission]:
    """Supervisor with ReAct sub-agents (agent/orchestrator/supervisor_pattern.py,
    service.py, aggregator.py).

    [PatternDecision ->] Question; Decomposition -> one sub-agent session
    per goal (its own PatternDecision "react", its Question derived from the
    Decomposition, ReAct to a Conclusion) -> Finding k (derived from that
    sub-agent's Conclusion) -> Synthesis (derived from every Finding,
    terminationReason subagents-complete). A sub-agent whose steps end in
    one that ``stops`` (the service raised) sends no completion: it gets no
    Finding, and the aggregator never dispatches the Synthesis.
    """
    em = emitter
    sid = session_id or em.session_id("agent", seed)
    session_uri = prov.agent_session_uri(sid)
    if subagent_steps is None:
        subagent_steps = [SUBAGENT_STEPS[k % len(SUBAGENT_STEPS)] for k in range(len(goals))]
    if subagent_answers is None:
        subagent_answers = [SUBAGENT_ANSWERS[k % len(SUBAGENT_ANSWERS)] for k in range(len(goals))]
    out: list[Emission] = []

    derive_from = session_uri
    if pattern_decision:
        pd_uri = prov.agent_pattern_decision_uri(sid)
        out += em.emit("agent/pattern-decision", pd_uri, AGENT, "agent_pattern_decision_triples",
                       pd_uri, session_uri, "supervisor", task_type)
        derive_from = pd_uri
    out += em.emit("agent/question", session_uri, AGENT, "agent_session_triples",
                   session_uri, question, _at(start, 0))

    dec_uri = prov.agent_decomposition_uri(sid)
    out += em.emit("agent/decomposition", dec_uri, AGENT, "agent_decomposition_triples",
                   dec_uri, em.pick("agent/decomposition", "decision",
                                    {"decision": derive_from, "question": session_uri}),
                   list(goals))

    finding_uris = []
    for k, (goal, steps, sub_answer) in enumerate(zip(goals, subagent_steps, subagent_answers)):
        sub_sid = em.session_id("agent", seed, f"subagent/{k}")
        # Sub-agent requests carry pattern "react" and a session id, so the
        # service emits a PatternDecision for each of them too.
        out.extend(orchestrator_react_emissions(
            seed=f"{seed}/subagent/{k}", session_id=sub_sid, question=goal,
            steps=steps, answer=sub_answer,
            pattern_decision=True,
            task_type=task_type, parent_session_id=sid,
            start=start + timedelta(seconds=3, milliseconds=250 * k), model=model,
            emitter=em))
        if any(s.stops for s in steps):
            continue
        # Findings are numbered in completion order.
        f_uri = prov.agent_finding_uri(sid, len(finding_uris))
        out += em.emit("agent/finding", f_uri, AGENT, "agent_finding_triples",
                       f_uri, em.pick("agent/finding", "conclusion", {
                           "conclusion": prov.agent_final_uri(sub_sid), "decomposition": dec_uri,
                           "question": prov.agent_session_uri(sub_sid)}),
                       goal, f"urn:trustgraph:agent:{sid}/finding/{len(finding_uris)}/doc")
        finding_uris.append(f_uri)

    if len(finding_uris) < len(goals):
        return em.sent(out)
    syn_uri = prov.agent_synthesis_uri(sid)
    out += em.emit("agent/synthesis", syn_uri, AGENT, "agent_synthesis_triples",
                   syn_uri, em.pick("agent/supervisor-synthesis", "every", {
                       "every": finding_uris, "last": finding_uris[-1], "decomposition": dec_uri}),
                   f"urn:trustgraph:agent:{sid}/synthesis/doc",
                   termination_reason="subagents-complete")
    return em.sent(out)


build_supervisor = _flattening(supervisor_emissions)


# ---------------------------------------------------------------------------
# Extraction provenance  (librarian/service.py, decoding/pdf/pdf_decoder.py,
# chunking/recursive/chunker.py, extract/kg/{relationships,definitions})
# ---------------------------------------------------------------------------

def extraction_emissions(
    *,
    seed: str = "extraction",
    doc_id: str | None = None,
    title: str = "Marie Curie: a short biography",
    n_pages: int = 2,
    chunks_per_page: int = 2,
    facts: Sequence[Fact] | None = None,
    n_facts: int = len(FACTS),
    definitions: Sequence[tuple[str, str]] = DEFINITIONS,
    vocabulary: bool = True,
    chunk_size: int = 2000,
    chunk_overlap: int = 100,
    start: datetime = START,
    llm_model: str | None = MODEL,
    extractor_version: str = EMITTER_VERSION,
    emitter: Emitter = SERVICES,
) -> list[Emission]:
    """Document -> pages -> chunks -> subgraphs, as the extraction flow emits
    them (one Emission per Triples message, channel ``triples``).

    The librarian sends the Document (and the vocabulary labels) without a
    graph, i.e. to the default graph; pages, chunks and subgraphs, with their
    activities and agents, go to urn:graph:source; the extracted facts and
    their labels to the default graph. Each subgraph holds its facts as
    quoted triples in ``tg:contains``.
    """
    em = emitter
    doc_uri = prov.document_uri(
        doc_id or f"https://trustgraph.ai/doc/{_uuid(seed, 'document')}")
    facts = list(facts) if facts is not None else _facts(n_facts)
    n_chunks = n_pages * chunks_per_page
    out: list[Emission] = []

    with _fixed_uuid4(seed):
        doc_triples = prov.document_triples(doc_uri, title=title, mime_type="application/pdf")
        out.append(em.emission(
            "extraction/document", doc_uri,
            (prov.get_vocabulary_triples() if vocabulary else []) + doc_triples, TRIPLES))

        chunks = []
        for p in range(1, n_pages + 1):
            pg_uri = prov.page_uri()
            out.append(em.emission("extraction/page", pg_uri, prov.derived_entity_triples(
                entity_uri=pg_uri, parent_uri=doc_uri,
                component_name="pdf-decoder", component_version="1.0.0",
                label=f"Page {p}", page_number=p,
                timestamp=_at(start, 1000 * p)), TRIPLES))

            # The chunker sees one page at a time: indexes restart at 1 and
            # the offset is advanced by length minus overlap.
            offset = 0
            for c in range(1, chunks_per_page + 1):
                ch_uri = prov.chunk_uri()
                length = chunk_size - 127 - (53 * (p + c)) % 200
                out.append(em.emission("extraction/chunk", ch_uri, prov.derived_entity_triples(
                    entity_uri=ch_uri, parent_uri=pg_uri,
                    component_name="chunker", component_version="1.0.0",
                    label=f"Chunk {c}", chunk_index=c,
                    char_offset=offset, char_length=length,
                    chunk_size=chunk_size, chunk_overlap=chunk_overlap,
                    timestamp=_at(start, 1000 * p + 40 * c)), TRIPLES))
                offset += length - chunk_overlap
                chunks.append(ch_uri)

        for i, ch_uri in enumerate(chunks):
            mine = facts[i::n_chunks]
            if mine:
                out.append(_relationships(ch_uri, mine, _at(start, 9000 + 700 * i),
                                          llm_model, extractor_version, em))
            if i == 0 and definitions:
                out.append(_definitions(ch_uri, definitions, _at(start, 9350),
                                        llm_model, extractor_version, em))
    return em.sent(out)


def _relationships(chunk: str, facts: Sequence[Fact], timestamp: str,
                   llm_model: str | None, version: str, em: Emitter) -> Emission:
    label = prov.RDFS_LABEL
    triples, extracted = [], []
    for fact in facts:
        t = _fact_triple(fact)
        triples.append(t)
        extracted.append(t)
        triples.append(Triple(s=t.s, p=Term(type=IRI, iri=label),
                              o=Term(type=LITERAL, value=fact.subject)))
        triples.append(Triple(s=t.p, p=Term(type=IRI, iri=label),
                              o=Term(type=LITERAL, value=fact.predicate)))
        if fact.object_is_entity:
            triples.append(Triple(s=t.o, p=Term(type=IRI, iri=label),
                                  o=Term(type=LITERAL, value=fact.object)))
    sg = prov.subgraph_uri()
    triples += em.placed("extraction/subgraph", prov.subgraph_provenance_triples(
        subgraph_uri=sg, extracted_triples=extracted, chunk_uri=chunk,
        component_name="kg-extract-relationships", component_version=version,
        llm_model=llm_model, timestamp=timestamp))
    return Emission(chunk, triples, TRIPLES)


def _definitions(chunk: str, definitions: Sequence[tuple[str, str]], timestamp: str,
                 llm_model: str | None, version: str, em: Emitter) -> Emission:
    definition = "http://www.w3.org/2004/02/skos/core#definition"
    triples, extracted = [], []
    for name, text in definitions:
        s = Term(type=IRI, iri=_entity_iri(name))
        triples.append(Triple(s=s, p=Term(type=IRI, iri=prov.RDFS_LABEL),
                              o=Term(type=LITERAL, value=name)))
        t = Triple(s=s, p=Term(type=IRI, iri=definition), o=Term(type=LITERAL, value=text))
        triples.append(t)
        extracted.append(t)
    sg = prov.subgraph_uri()
    triples += em.placed("extraction/subgraph", prov.subgraph_provenance_triples(
        subgraph_uri=sg, extracted_triples=extracted, chunk_uri=chunk,
        component_name="kg-extract-definitions", component_version=version,
        llm_model=llm_model, timestamp=timestamp))
    return Emission(chunk, triples, TRIPLES)


build_extraction = _flattening(extraction_emissions)


# ---------------------------------------------------------------------------
# Encoders
# ---------------------------------------------------------------------------

def term_to_wire(term: Term) -> dict:
    """A Term in the gateway's compact wire form (TermTranslator.encode)."""
    out: dict = {"t": term.type}
    if term.type == IRI:
        out["i"] = term.iri
    elif term.type == BLANK:
        out["d"] = term.id
    elif term.type == LITERAL:
        out["v"] = term.value
        if term.datatype:
            out["dt"] = term.datatype
        if term.language:
            out["ln"] = term.language
    elif term.type == TRIPLE and term.triple:
        out["tr"] = triple_to_wire(term.triple)
    return out


def triple_to_wire(triple: Triple) -> dict:
    """A Triple as ``{"s","p","o","g"?}``; ``g`` is left out for the default graph."""
    out: dict = {}
    for key in ("s", "p", "o"):
        term = getattr(triple, key)
        if term:
            out[key] = term_to_wire(term)
    if triple.g:
        out["g"] = triple.g
    return out


def to_wire(triples: Iterable[Triple]) -> list[dict]:
    return [triple_to_wire(t) for t in triples]


def explain_event(emission: Emission) -> dict:
    """The explain message a client receives, as the gateway's response
    translator of the carrying service encodes it."""
    body: dict = {"explain_id": emission.explain_id}
    if emission.graph is not None:  # the translators leave out an explain_graph of None
        body["explain_graph"] = emission.graph
    body["explain_triples"] = to_wire(emission.triples)
    if emission.channel == AGENT:
        return {"message_type": "explain", "end_of_message": False,
                "end_of_dialog": False, **body}
    if emission.channel == GRAPH_RAG:
        # GraphRagResponse.response defaults to "" and is always encoded.
        return {"message_type": "explain", "response": "", **body,
                "end_of_stream": False, "end_of_session": False}
    if emission.channel == DOCUMENT_RAG:
        # Document RAG sends response=None on explain messages, so it is omitted.
        return {"message_type": "explain", **body,
                "end_of_stream": False, "end_of_session": False}
    raise ValueError(f"{emission.channel!r} output is not sent as explain events")


def explain_events(emissions: Iterable[Emission]) -> list[dict]:
    return [explain_event(e) for e in emissions]


def _ox_term(term: Term):
    if term.type == IRI:
        return ox.NamedNode(term.iri)
    if term.type == BLANK:
        return ox.BlankNode(term.id)
    if term.type == LITERAL:
        if term.language:
            return ox.Literal(term.value, language=term.language)
        if term.datatype:
            return ox.Literal(term.value, datatype=ox.NamedNode(term.datatype))
        return ox.Literal(term.value)
    if term.type == TRIPLE:
        t = term.triple
        return ox.Triple(_ox_term(t.s), _ox_term(t.p), _ox_term(t.o))
    raise ValueError(f"unknown term type {term.type!r}")


def to_quads(triples: Iterable[Triple]) -> list:
    """pyoxigraph quads, duplicates dropped, first-emission order kept."""
    quads = (
        ox.Quad(_ox_term(t.s), _ox_term(t.p), _ox_term(t.o),
                ox.NamedNode(t.g) if t.g else ox.DefaultGraph())
        for t in triples
    )
    return list(dict.fromkeys(quads))


def to_nquads(triples: Iterable[Triple]) -> bytes:
    return ox.serialize(to_quads(triples), format=ox.RdfFormat.N_QUADS)


def _json_lines_list(items: Sequence) -> bytes:
    # One item per line: valid JSON that still diffs line by line.
    body = ",\n".join(json.dumps(i, ensure_ascii=False) for i in items)
    return f"[\n{body}\n]\n".encode()


# ---------------------------------------------------------------------------
# The committed examples
# ---------------------------------------------------------------------------

def _at_minute(minute: int) -> datetime:
    return START + timedelta(minutes=minute)


_GRAPH_RAG_TOOL_STEP = ReactStep(
    "knowledge-query", {"question": "Which elements did Marie Curie discover?"},
    "The knowledge graph should list her discoveries.",
    "Marie Curie discovered polonium and radium, both in 1898.",
    llm_duration_ms=1702, tool_duration_ms=6113, in_token=1088, out_token=79,
    graph_rag={"concepts": ("Marie Curie", "discovered elements"),
               "facts": (FACTS[4], FACTS[5], FACTS[6], FACTS[7])},
)

# Partials: EXAMPLES[name]() writes the example; keyword arguments (another seed, an
# ``emitter``) override the example's own.
EXAMPLES: dict[str, Callable[..., list[Emission]]] = {
    "graph-rag": functools.partial(graphrag_emissions, seed="graph-rag", start=_at_minute(0)),
    "document-rag": functools.partial(docrag_emissions,
        seed="document-rag", start=_at_minute(5)),
    "document-rag-reranked": functools.partial(docrag_emissions,
        seed="document-rag-reranked", reranker=True, doc_limit=2, start=_at_minute(10)),
    "orchestrator-react-one-shot": functools.partial(orchestrator_react_emissions,
        seed="orchestrator-react-one-shot", steps=[],
        question="In which city was Marie Curie born?",
        answer="Marie Curie was born in Warsaw.", start=_at_minute(15)),
    "orchestrator-react-multi-iteration": functools.partial(orchestrator_react_emissions,
        seed="orchestrator-react-multi-iteration", n_iterations=3, start=_at_minute(20)),
    # A request without a session id (the stock client's) gets no PatternDecision:
    # the first Analysis then derives from the Question.
    "orchestrator-react-no-pattern-decision": functools.partial(orchestrator_react_emissions,
        seed="orchestrator-react-no-pattern-decision", n_iterations=2, pattern_decision=False,
        start=_at_minute(22)),
    "orchestrator-react-tool-error": functools.partial(orchestrator_react_emissions,
        seed="orchestrator-react-tool-error",
        steps=[
            ReactStep("nobel-registry", {"laureate": "Marie Curie", "category": "physics"},
                      "I need the year Marie Curie received the Physics prize.",
                      "Error: MCP tool nobel-registry failed: connection refused",
                      tool_error="MCP tool nobel-registry failed: connection refused",
                      llm_duration_ms=1690, tool_duration_ms=5004,
                      in_token=1211, out_token=96),
            ReactStep("nobel-registry", {"laureate": "Marie Curie", "category": "physics"},
                      "The registry call failed; try it once more.",
                      "1903 Nobel Prize in Physics: Henri Becquerel, Pierre Curie, Marie Curie",
                      llm_duration_ms=1433, tool_duration_ms=397,
                      in_token=1362, out_token=84),
        ],
        question="In which year did Marie Curie receive the Nobel Prize in Physics?",
        answer="In 1903.", start=_at_minute(25)),
    "orchestrator-react-parse-error": functools.partial(orchestrator_react_emissions,
        seed="orchestrator-react-parse-error",
        steps=[
            ReactStep("__parse_error__", {}, "",
                      "Error: LLM parse error: no Action or Final Answer found",
                      tool_error="LLM parse error: no Action or Final Answer found",
                      llm_duration_ms=2210, tool_duration_ms=0,
                      in_token=1211, out_token=143),
            REACT_STEPS[0],
        ],
        question="In which year did Marie Curie receive the Nobel Prize in Physics?",
        answer="In 1903.", start=_at_minute(30)),
    "orchestrator-react-max-iterations": functools.partial(orchestrator_react_emissions,
        seed="orchestrator-react-max-iterations", n_iterations=3, concluded=False,
        start=_at_minute(35)),
    "orchestrator-react-graphrag-tool": functools.partial(orchestrator_react_emissions,
        seed="orchestrator-react-graphrag-tool", steps=[_GRAPH_RAG_TOOL_STEP],
        question="Which elements did Marie Curie discover?",
        answer="She discovered polonium and radium, both in 1898.",
        start=_at_minute(40)),
    "legacy-react-one-shot": functools.partial(legacy_react_emissions,
        seed="legacy-react-one-shot", steps=[],
        question="In which city was Marie Curie born?",
        answer="Marie Curie was born in Warsaw.", start=_at_minute(45)),
    "legacy-react-multi-iteration": functools.partial(legacy_react_emissions,
        seed="legacy-react-multi-iteration", n_iterations=3, start=_at_minute(50)),
    "plan-then-execute": functools.partial(plan_then_execute_emissions,
        seed="plan-then-execute", start=_at_minute(55)),
    "supervisor": functools.partial(supervisor_emissions, seed="supervisor", start=_at_minute(60)),
    "extraction": functools.partial(extraction_emissions, seed="extraction", start=_at_minute(-60)),
}


# ---------------------------------------------------------------------------
# Behaviours: correct traces that show how an agent behaved (a loop, a tool that always fails, an
# answer without evidence, the iteration limit, a sub-agent that failed), written to behaviours/:
# the real examples of the behaviour rules. Several are checked against the real services
# (tests/service_scenarios.py).
# ---------------------------------------------------------------------------

LOOP_STEP = ReactStep("nobel-registry", {"laureate": "Marie Curie", "category": "physics"},
                      "I need the year of the Physics prize.",
                      "1903 Nobel Prize in Physics: Henri Becquerel, Pierre Curie, Marie Curie",
                      llm_duration_ms=1610, tool_duration_ms=402, in_token=1211, out_token=96)
FAILING_STEP = replace(LOOP_STEP, observation="Error: MCP tool nobel-registry failed: connection refused",
                       tool_error="MCP tool nobel-registry failed: connection refused", tool_duration_ms=5004)
# The orchestrator's and the older agent's default --max-iterations.
MAX_ITERATIONS = 10
_PHYSICS_QUESTION = "In which year did Marie Curie receive the Nobel Prize in Physics?"

BEHAVIOURS: dict[str, Callable[..., list[Emission]]] = {
    # The same tool with equal arguments three times, then the answer.
    "react-same-call-three-times": functools.partial(orchestrator_react_emissions,
        seed="behaviour/same-call-three-times", question=_PHYSICS_QUESTION,
        steps=[LOOP_STEP, replace(LOOP_STEP, thought="Let me check that again."),
               replace(LOOP_STEP, thought="Once more, to be sure.")],
        answer="In 1903.", start=_at_minute(70)),
    # An error observation, then the same call twice in a row.
    "react-same-call-after-error": functools.partial(orchestrator_react_emissions,
        seed="behaviour/same-call-after-error", question=_PHYSICS_QUESTION,
        steps=[FAILING_STEP, replace(FAILING_STEP, thought="The registry failed; try again."),
               replace(LOOP_STEP, thought="And again.")],
        answer="In 1903.", start=_at_minute(72)),
    # Every tool call fails before the Conclusion.
    "react-tool-always-fails": functools.partial(orchestrator_react_emissions,
        seed="behaviour/tool-always-fails", question=_PHYSICS_QUESTION,
        steps=[FAILING_STEP, replace(FAILING_STEP, action="calculator", arguments={"expression": "1903"},
                                     thought="Try another tool.",
                                     observation="Error: MCP tool calculator failed: connection refused",
                                     tool_error="MCP tool calculator failed: connection refused")],
        answer="I could not find out.", start=_at_minute(74)),
    # GraphRAG: seeds found, the reranker kept no edge (2.11.1 counts the selected edges: 0).
    "graph-rag-focus-selects-nothing": functools.partial(graphrag_emissions,
        seed="behaviour/focus-selects-nothing", query="What did Marie Curie paint?",
        concepts=("Marie Curie", "paintings"), facts=(), entities=[_entity_iri("Marie Curie")],
        start=_at_minute(76)),
    # GraphRAG: the concepts matched no entity, so nothing was explored.
    "graph-rag-exploration-finds-nothing": functools.partial(graphrag_emissions,
        seed="behaviour/exploration-finds-nothing", query="Who discovered francium?",
        concepts=("francium", "discoverer"), facts=(), entities=[], start=_at_minute(77)),
    # Document RAG with a reranker wired: the store found no chunk, so no reranker ran (no Focus)
    # and the Synthesis derives from the empty Exploration.
    "document-rag-no-chunk": functools.partial(docrag_emissions,
        seed="behaviour/no-chunk", query="What did Marie Curie paint?", reranker=True, n_found=0,
        start=_at_minute(78)),
    "document-rag-no-chunk-unreranked": functools.partial(docrag_emissions,
        seed="behaviour/no-chunk-unreranked", query="What did Marie Curie paint?", n_found=0,
        start=_at_minute(79)),
    # The iteration limit: react_pattern.py raises "Too many agent iterations" once the history
    # holds max_iterations steps, before any Analysis: no Conclusion, no termination reason.
    "react-iteration-limit": functools.partial(orchestrator_react_emissions,
        seed="behaviour/iteration-limit", n_iterations=MAX_ITERATIONS, concluded=False, start=_at_minute(80)),
    "legacy-react-iteration-limit": functools.partial(legacy_react_emissions,
        seed="behaviour/legacy-iteration-limit", n_iterations=MAX_ITERATIONS, concluded=False,
        start=_at_minute(82)),
    # plan_pattern.py raises when iteration_num >= max_iterations: the planning iteration and
    # eight steps, then the ninth step's turn raises: no Synthesis.
    "plan-iteration-limit": functools.partial(plan_then_execute_emissions,
        seed="behaviour/plan-iteration-limit", n_steps=MAX_ITERATIONS - 1, executed=MAX_ITERATIONS - 2,
        start=_at_minute(84)),
    # A sub-agent that answered with an empty text: its Conclusion has no tg:document.
    "supervisor-empty-finding": functools.partial(supervisor_emissions,
        seed="behaviour/empty-finding", subagent_answers=("", SUBAGENT_ANSWERS[1]), start=_at_minute(86)),
    # A sub-agent that failed (an unknown tool: the service raised after its Analysis): no
    # completion reaches the aggregator, so no Finding for it and no Synthesis.
    "supervisor-subagent-error": functools.partial(supervisor_emissions,
        seed="behaviour/subagent-error",
        subagent_steps=[(replace(LOOP_STEP, action="nobel-archive", stops=True),), REACT_STEPS[:2]],
        start=_at_minute(88)),
    # The knowledge-query tool's GraphRAG run failed after its Focus: the tool raised, the
    # Observation carries the error and derives from the sub-trace's last step.
    "react-graphrag-tool-fails-before-synthesis": functools.partial(orchestrator_react_emissions,
        seed="behaviour/graphrag-tool-fails", question="Which elements did Marie Curie discover?",
        steps=[replace(_GRAPH_RAG_TOOL_STEP, graph_rag={**_GRAPH_RAG_TOOL_STEP.graph_rag, "until": "focus"},
                       observation="Error: prompt service timed out", tool_error="prompt service timed out"),
               replace(LOOP_STEP, action="knowledge-query", arguments={"question": "Which elements?"},
                       thought="Ask the graph once more.", observation="Polonium and radium.",
                       graph_rag={"concepts": ("Marie Curie",), "facts": (FACTS[4], FACTS[6])})],
        answer="Polonium and radium.", start=_at_minute(90)),
}
BEHAVIOURS_FOLDER = "behaviours"

# The explain stream interleaves these two sessions, as one client running
# both requests at once would receive them.
STREAM_EXAMPLES = ("orchestrator-react-multi-iteration", "graph-rag")
STREAM_FILE = "explain-stream.jsonl"
# One trace kept as its list of explain events rather than bare triples.
EVENTS_EXAMPLE = "orchestrator-react-graphrag-tool"
EVENTS_FILE = f"{EVENTS_EXAMPLE}.events.json"


def _interleave(*streams: Sequence) -> list:
    merged = []
    for group in itertools.zip_longest(*streams):
        merged.extend(item for item in group if item is not None)
    return merged


def render_all() -> dict[str, bytes]:
    """Every example file's name and exact content."""
    emissions = {name: build() for name, build in EXAMPLES.items()}
    files: dict[str, bytes] = {}
    for name, ems in emissions.items():
        triples = _flatten(ems)
        files[f"{name}.json"] = _json_lines_list(to_wire(triples))
        files[f"{name}.nq"] = to_nquads(triples)
    stream = _interleave(*(explain_events(emissions[n]) for n in STREAM_EXAMPLES))
    files[STREAM_FILE] = "".join(
        json.dumps(e, ensure_ascii=False) + "\n" for e in stream).encode("utf-8")
    files[EVENTS_FILE] = _json_lines_list(explain_events(emissions[EVENTS_EXAMPLE]))
    for name, build in BEHAVIOURS.items():
        triples = _flatten(build())
        files[f"{BEHAVIOURS_FOLDER}/{name}.json"] = _json_lines_list(to_wire(triples))
        files[f"{BEHAVIOURS_FOLDER}/{name}.nq"] = to_nquads(triples)
    return files


GENERATED_SUFFIXES = (".json", ".nq", ".jsonl")


def _check(files: dict[str, bytes], folder: Path) -> list[str]:
    problems = []
    for name, content in sorted(files.items()):
        path = folder / name
        if not path.exists():
            problems.append(f"{path}: missing")
        elif path.read_bytes() != content:
            problems.append(f"{path}: out of date")
    for path in sorted([*folder.iterdir(), *(folder / BEHAVIOURS_FOLDER).glob("*")]):
        if path.name.endswith(GENERATED_SUFFIXES) and path.relative_to(folder).as_posix() not in files:
            problems.append(f"{path}: not produced by generate.py (stale?)")
    return problems


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="generate.py",
        description="Regenerate the example traces from TrustGraph's emitter.")
    parser.add_argument("--check", action="store_true",
                        help="verify the committed files are up to date; exit 1 if not")
    args = parser.parse_args(argv)

    installed = metadata.version("trustgraph-base")
    if installed != EMITTER_VERSION:
        print(f"error: the examples come from trustgraph-base {EMITTER_VERSION}; "
              f"{installed} is installed", file=sys.stderr)
        return 2

    files = render_all()
    if args.check:
        problems = _check(files, EXAMPLES_DIR)
        for line in problems:
            print(line, file=sys.stderr)
        if problems:
            print("run 'python examples/generate.py' to regenerate", file=sys.stderr)
            return 1
        print(f"{len(files)} example files up to date")
        return 0

    (EXAMPLES_DIR / BEHAVIOURS_FOLDER).mkdir(exist_ok=True)
    for name, content in files.items():
        (EXAMPLES_DIR / name).write_bytes(content)
    print(f"wrote {len(files)} files to {EXAMPLES_DIR}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
