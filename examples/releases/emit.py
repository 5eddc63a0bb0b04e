"""Build example traces with one TrustGraph release's own provenance builders.

Not run by hand and not imported by the project: ``generate.py`` runs this file
with the Python of a throwaway virtual environment that holds exactly one
release of ``trustgraph-base`` (installed with ``--no-deps``; its
``trustgraph.provenance`` module needs nothing beyond the standard library).
It prints one JSON document on stdout::

    {"release": "2.2.13", "traces": {"graph-rag": [{"s": ..., "p": ..., "o": ..., "g": ...}, ...], ...}}

Each trace is the list of triples in the order the services emit them, each
triple in the gateway's wire form (terms ``{"t": "i", "i": iri}``,
``{"t": "l", "v": text}``, ``{"t": "t", "tr": {...}}``).

Every triple comes from a builder of the installed release (``question_triples``,
``agent_iteration_triples``, ...), called with the arguments, and chained in the
order, that the same release's ``trustgraph-flow`` services use. Where a
service's chaining changed between releases, the code below branches on the
release and names the service file it follows. Session ids are uuid5 values
and timestamps are fixed, so every run prints the same bytes; ``uuid.uuid4``
is made to raise, so a builder that would mint a random id cannot go unnoticed.

Supported releases: the ones in ``SUPPORTED``, whose builders and services
were read for this file. Other releases are refused rather than guessed at.
"""

from __future__ import annotations

import json
import sys
import uuid
from datetime import UTC, datetime, timedelta
from importlib import metadata
from urllib.parse import quote

SUPPORTED = ("2.1.16", "2.1.22", "2.2.12", "2.2.13", "2.6.8", "2.6.9", "2.11.1")

RELEASE = metadata.version("trustgraph-base")
if RELEASE not in SUPPORTED:
    sys.exit(f"emit.py: trustgraph-base {RELEASE} is installed; supported: {', '.join(SUPPORTED)}")


def _no_random_ids():
    raise AssertionError("a builder called uuid.uuid4(): pass an explicit id so the output is reproducible")


uuid.uuid4 = _no_random_ids  # before the builders are imported and called

from trustgraph import provenance as prov  # noqa: E402
from trustgraph.schema import IRI, LITERAL, TRIPLE, Term, Triple  # noqa: E402


def _key(release: str) -> tuple[int, ...]:
    return tuple(int(part) for part in release.split("."))


def since(release: str) -> bool:
    """The installed release is ``release`` or newer."""
    return _key(RELEASE) >= _key(release)


# What changed, by the first release (of those read) that has it. The comment
# names the trustgraph-base / trustgraph-flow code the switch follows.
GROUNDING = since("2.1.22")          # grounding_triples; Thought/Observation sub-entities; tg:Answer
URN_CHUNKS = since("2.2.12")         # chunker mints urn:chunk:{uuid} (2.1.24 per the history; 2.1.22 does not)
ORCHESTRATOR = since("2.2.12")       # agent/orchestrator/ exists (react, plan-then-execute, supervisor)
DERIVED_LINKS = since("2.2.13")      # Question typed prov:Entity, standalone Observation, sub-trace links
TERM_EDGES = since("2.6.8")          # graph_rag.py passes Terms (literals stay literals), cross-encoder
                                     # concept/score, token usage; tg:EdgeSelection typed by focus_triples
AGENT_METADATA = since("2.6.8")      # PatternDecision, step numbers, durations, tokens, termination
                                     # reasons, sub-agent links, Observation from the sub-trace
RAG_USAGE = since("2.6.8")           # graph_rag.py / document_rag.py record token usage
DOCRAG_RERANKER = since("2.6.9")     # document_rag.py: optional reranker, Focus with ChunkSelections

ID_NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "https://trustgraph.ai/ns/examples/releases")
ENTITY_BASE = "http://trustgraph.ai/e/"
MODEL = "gpt-4o-mini"

# Traces are dated the day after the release came out.
RELEASE_DAY = {
    "2.1.16": (2026, 3, 12), "2.1.22": (2026, 3, 17), "2.2.12": (2026, 4, 1), "2.2.13": (2026, 4, 1),
    "2.6.8": (2026, 7, 3), "2.6.9": (2026, 7, 3), "2.11.1": (2026, 10, 28),
}
START = datetime(*RELEASE_DAY[RELEASE], 9, 0, 0, 125000, tzinfo=UTC)


def sid(seed: str) -> str:
    return str(uuid.uuid5(ID_NAMESPACE, f"{RELEASE}/{seed}"))


def stamp(minute: int, ms: int = 0) -> str:
    # The services' rendering: isoformat() of UTC with a "Z" (utcnow() + "Z" up to 2.2.x).
    return (START + timedelta(minutes=minute, milliseconds=ms)).isoformat().replace("+00:00", "Z")


def retrieval(triples: list) -> list:
    return prov.set_graph(triples, prov.GRAPH_RETRIEVAL)


def entity(label: str) -> str:
    return ENTITY_BASE + quote(label.replace(" ", "-").lower())


def usage(i: int, o: int) -> dict:
    return {"in_token": i, "out_token": o, "model": MODEL} if RAG_USAGE else {}


# ---------------------------------------------------------------------------
# GraphRAG  (trustgraph-flow retrieval/graph_rag/graph_rag.py, GraphRag.query)
# ---------------------------------------------------------------------------

# (subject, predicate, object, object is an entity, reasoning, concept, score)
FACTS = (
    ("Marie Curie", "awarded", "Nobel Prize in Physics", True,
     "Names the first of her two prizes.", "Marie Curie", 0.9731),
    ("Nobel Prize in Physics", "awarded in year", "1903", False,
     "Dates the Physics prize.", "Nobel Prize", 0.9558),
    ("Marie Curie", "awarded", "Nobel Prize in Chemistry", True,
     "Names the second of her two prizes.", "Marie Curie", 0.9385),
    ("Nobel Prize in Chemistry", "awarded in year", "1911", False,
     "Dates the Chemistry prize.", "Nobel Prize", 0.9212),
    ("Pierre Curie", "married to", "Marie Curie", True,
     "Her co-laureate of 1903.", "Marie Curie", 0.8411),
)


def graph_rag(seed: str, minute: int, query: str, parent_uri: str | None = None,
              ms: int = 0) -> tuple[list, str]:
    """Question [-> Grounding] -> Exploration -> Focus -> Synthesis; returns the triples and the
    last entity (what a forwarding agent's Observation derives from from 2.6.8 on)."""
    s = sid(seed)
    q_uri = prov.question_uri(s)
    exp_uri = prov.exploration_uri(s)
    foc_uri = prov.focus_uri(s)
    syn_uri = prov.synthesis_uri(s)
    concepts = ["Marie Curie", "Nobel Prize"]
    if TERM_EDGES:
        selected = FACTS[:4]
    else:
        # Up to 2.2.22 the service hands focus_triples plain strings and every term of the quoted
        # edge becomes an IRI, so an edge with a literal object ("1903") would carry the IRI <1903>,
        # which N-Quads cannot hold. These traces select edges between entities only.
        selected = [f for f in FACTS if f[3]]
    seeds = [entity("Marie Curie"), entity("Nobel Prize in Physics"), entity("Nobel Prize in Chemistry")]

    out = []
    if DERIVED_LINKS:
        out += retrieval(prov.question_triples(q_uri, query, stamp(minute, ms), parent_uri=parent_uri))
    else:
        out += retrieval(prov.question_triples(q_uri, query, stamp(minute, ms)))
    if GROUNDING:
        gnd_uri = prov.grounding_uri(s)
        out += retrieval(prov.grounding_triples(gnd_uri, q_uri, concepts, **usage(212, 19)))
        if TERM_EDGES:
            # The cross-encoder hop-and-filter: the edge count is the number of selected edges.
            out += retrieval(prov.exploration_triples(exp_uri, gnd_uri, len(selected), entities=seeds))
        else:
            # The edge count is the size of the retrieved label graph (len(kg)).
            out += retrieval(prov.exploration_triples(exp_uri, gnd_uri, 37, entities=seeds))
    else:
        # 2.1.16: no concept extraction; Exploration is generated by the Question.
        out += retrieval(prov.exploration_triples(exp_uri, q_uri, 37))

    selections = []
    for subj, pred, obj, obj_is_entity, reasoning, concept, score in selected:
        if TERM_EDGES:
            edge = (Term(type=IRI, iri=entity(subj)), Term(type=IRI, iri=entity(pred)),
                    Term(type=IRI, iri=entity(obj)) if obj_is_entity else Term(type=LITERAL, value=obj))
            selections.append({"edge": edge, "concept": concept, "score": score})
        else:
            selections.append({"edge": (entity(subj), entity(pred), entity(obj)), "reasoning": reasoning})
    out += retrieval(prov.focus_triples(foc_uri, exp_uri, selections, s))

    out += retrieval(prov.synthesis_triples(
        syn_uri, foc_uri, document_id=f"urn:trustgraph:synthesis:{s}", **usage(1486, 74)))
    return out, syn_uri


# ---------------------------------------------------------------------------
# Document RAG  (retrieval/document_rag/document_rag.py, DocumentRag.query)
# ---------------------------------------------------------------------------

def chunk_iri(seed: str, i: int) -> str:
    if URN_CHUNKS:
        return f"urn:chunk:{uuid.uuid5(ID_NAMESPACE, f'{RELEASE}/{seed}/chunk/{i}')}"
    # 2.1.x: the chunker names a chunk after its page: {document}/p{n}/c{n}.
    doc = f"https://trustgraph.ai/doc/{uuid.uuid5(ID_NAMESPACE, f'{RELEASE}/{seed}/document')}"
    return f"{doc}/p{i // 2 + 1}/c{i % 2 + 1}"


def document_rag(seed: str, minute: int, reranked: bool = False) -> list:
    """Question [-> Grounding] -> Exploration [-> Focus] -> Synthesis."""
    s = sid(seed)
    q_uri = prov.docrag_question_uri(s)
    exp_uri = prov.docrag_exploration_uri(s)
    syn_uri = prov.docrag_synthesis_uri(s)
    query = "What did Marie Curie discover in 1898?"
    doc_limit = 2 if reranked else 3
    fetched = [chunk_iri(seed, i) for i in range(3 * doc_limit if reranked else doc_limit)]

    out = retrieval(prov.docrag_question_triples(q_uri, query, stamp(minute)))
    if GROUNDING:
        gnd_uri = prov.docrag_grounding_uri(s)
        out += retrieval(prov.grounding_triples(
            gnd_uri, q_uri, ["Marie Curie", "discoveries of 1898"], **usage(198, 14)))
        out += retrieval(prov.docrag_exploration_triples(exp_uri, gnd_uri, len(fetched), fetched))
    else:
        out += retrieval(prov.docrag_exploration_triples(exp_uri, q_uri, len(fetched), fetched))

    parent = exp_uri
    if reranked:
        # The reranker keeps doc_limit of the over-fetched candidates, best first.
        chosen = [{"chunk_id": fetched[i], "score": score} for i, score in ((4, 0.9914), (1, 0.9303))]
        foc_uri = prov.docrag_focus_uri(s)
        out += retrieval(prov.docrag_chunk_selection_triples(foc_uri, exp_uri, chosen, s))
        parent = foc_uri

    if GROUNDING:
        out += retrieval(prov.docrag_synthesis_triples(
            syn_uri, parent, document_id=f"urn:trustgraph:docrag:{s}/answer", **usage(2874, 61)))
    else:
        # 2.1.16's Document RAG service has no librarian callback: the answer is written inline.
        out += retrieval(prov.docrag_synthesis_triples(
            syn_uri, parent, "Marie and Pierre Curie discovered polonium and radium in 1898."))
    return out


# ---------------------------------------------------------------------------
# Agents
# ---------------------------------------------------------------------------

TOOLS = ["knowledge-query", "nobel-registry", "calculator"]

# (action, arguments, thought, observation, llm ms, tool ms, in tokens, out tokens)
STEPS = (
    ("nobel-registry", {"laureate": "Marie Curie", "category": "physics"},
     "I need the year Marie Curie received the Physics prize.",
     "1903 Nobel Prize in Physics: Henri Becquerel, Pierre Curie, Marie Curie", 1843, 412, 1211, 96),
    ("nobel-registry", {"laureate": "Marie Curie", "category": "chemistry"},
     "Now I need the year of the Chemistry prize.",
     "1911 Nobel Prize in Chemistry: Marie Curie", 1522, 388, 1398, 88),
)
KNOWLEDGE_STEP = (
    "knowledge-query", {"question": "Which Nobel Prizes did Marie Curie receive, and when?"},
    "The knowledge graph should list her prizes.",
    "Physics in 1903 and Chemistry in 1911.", 1702, 6113, 1088, 79)
TWO_PRIZES = "Eight years: the Physics prize came in 1903 and the Chemistry prize in 1911."


def _doc(s: str, n: int, part: str) -> str:
    return f"urn:trustgraph:agent:{s}/i{n}/{part}"


def decide_pattern(s: str, session: str, pattern: str, task_type: str) -> tuple[list, str]:
    """The orchestrator's PatternDecision (from 2.6.8, emitted before the Question): its triples and
    what the first step then derives from (the Question itself in releases without it)."""
    if not AGENT_METADATA:
        return [], session
    pd_uri = prov.agent_pattern_decision_uri(s)
    return retrieval(prov.agent_pattern_decision_triples(pd_uri, session, pattern, task_type)), pd_uri


def react(seed: str, minute: int, question: str, steps, answer: str, *, orchestrator: bool = False,
          parent_session: str | None = None, pattern_decision: bool = False, ms: int = 0) -> list:
    """A ReAct session as agent/react/service.py (the older agent service) or, with
    ``orchestrator``, agent/orchestrator/{service,react_pattern,pattern_base}.py chain it.

    A step whose action is knowledge-query runs a GraphRAG sub-trace; releases before 2.2.13 do not
    link it to the agent, so it is only included from 2.2.13 on (and only by the orchestrator).
    """
    s = sid(seed)
    session = prov.agent_session_uri(s)
    out = []

    derive_from = session
    if orchestrator and pattern_decision:
        # service.py emits the decision (before the Question) when the request carries a session id.
        decided, derive_from = decide_pattern(s, session, "react", "general")
        out += decided

    if orchestrator and AGENT_METADATA and parent_session:
        out += retrieval(prov.agent_session_triples(
            session, question, stamp(minute, ms), parent_uri=prov.agent_decomposition_uri(parent_session)))
    else:
        out += retrieval(prov.agent_session_triples(session, question, stamp(minute, ms)))

    for n, (action, arguments, thought, observation, llm_ms, tool_ms, tin, tout) in enumerate(steps, start=1):
        it_uri = prov.agent_iteration_uri(s, n)
        if not GROUNDING:
            # 2.1.16: one Analysis per iteration with literal thought and observation, derived from
            # the previous Analysis (the first from the Question).
            parent = prov.agent_iteration_uri(s, n - 1) if n > 1 else session
            out += retrieval(prov.agent_iteration_triples(it_uri, parent, thought, action, arguments, observation))
            continue
        if not DERIVED_LINKS:
            # 2.1.22 to 2.2.12: emitted after the tool ran, Thought and Observation as sub-entities.
            out += retrieval(prov.agent_iteration_triples(
                it_uri,
                question_uri=session if n == 1 else None,
                previous_uri=prov.agent_iteration_uri(s, n - 1) if n > 1 else None,
                action=action, arguments=arguments,
                thought_uri=prov.agent_thought_uri(s, n), thought_document_id=_doc(s, n, "thought"),
                observation_uri=prov.agent_observation_uri(s, n),
                observation_document_id=_doc(s, n, "observation")))
            continue
        # 2.2.13 on: the Analysis (on_action, before the tool runs), then the tool, then the Observation.
        extra = {}
        if orchestrator and AGENT_METADATA:
            extra = dict(tool_candidates=TOOLS, step_number=n, llm_duration_ms=llm_ms,
                         in_token=tin, out_token=tout, model=MODEL)
        out += retrieval(prov.agent_iteration_triples(
            it_uri,
            question_uri=derive_from if n == 1 else None,
            previous_uri=prov.agent_observation_uri(s, n - 1) if n > 1 else None,
            action=action, arguments=arguments,
            thought_uri=prov.agent_thought_uri(s, n), thought_document_id=_doc(s, n, "thought"),
            **extra))
        obs_parent = it_uri
        if orchestrator and action == "knowledge-query":
            # tools.py KnowledgeQueryImpl passes the Analysis as the GraphRAG Question's parent; from
            # 2.6.8 the Observation derives from the last entity the sub-trace emitted.
            sub, last = graph_rag(f"{seed}/i{n}/graph-rag", minute, arguments["question"],
                                  parent_uri=it_uri, ms=ms + 2000 * n)
            out += sub
            if AGENT_METADATA:
                obs_parent = last
        obs_uri = prov.agent_observation_uri(s, n)
        if orchestrator and AGENT_METADATA:
            out += retrieval(prov.agent_observation_triples(
                obs_uri, obs_parent, document_id=_doc(s, n, "observation"), tool_duration_ms=tool_ms))
        else:
            out += retrieval(prov.agent_observation_triples(obs_uri, obs_parent, document_id=_doc(s, n, "observation")))

    final_uri = prov.agent_final_uri(s)
    last = len(steps)
    if not GROUNDING:
        parent = prov.agent_iteration_uri(s, last) if last else session
        out += retrieval(prov.agent_final_triples(final_uri, parent, answer))
        return out
    previous = None
    if last:
        previous = prov.agent_observation_uri(s, last) if DERIVED_LINKS else prov.agent_iteration_uri(s, last)
    extra = {"termination_reason": "final-answer"} if orchestrator and AGENT_METADATA else {}
    out += retrieval(prov.agent_final_triples(
        final_uri,
        question_uri=derive_from if not last else None,
        previous_uri=previous,
        document_id=f"urn:trustgraph:agent:{s}/answer",
        **extra))
    return out


PLAN = ("Find the Nobel Prizes Marie Curie received",
        "Find the years of those prizes",
        "Compute the years between the two prizes")


def plan_then_execute(seed: str, minute: int) -> list:
    """agent/orchestrator/plan_pattern.py: Plan, one StepResult per step, Synthesis."""
    s = sid(seed)
    session = prov.agent_session_uri(s)
    out = []
    decided, derive_from = decide_pattern(s, session, "plan-then-execute", "research")
    out += decided
    out += retrieval(prov.agent_session_triples(
        session, "How many years passed between Marie Curie's two Nobel Prizes?", stamp(minute)))
    plan_uri = prov.agent_plan_uri(s)
    out += retrieval(prov.agent_plan_triples(plan_uri, derive_from, list(PLAN)))
    for i, goal in enumerate(PLAN):
        step_uri = prov.agent_step_result_uri(s, i)
        if i == 0 and DERIVED_LINKS:
            # Step 0's tool is knowledge-query: from 2.2.13 its GraphRAG sub-trace names the step's
            # StepResult as parent (emitted before the StepResult itself).
            out += graph_rag(f"{seed}/step/0/graph-rag", minute, goal, parent_uri=step_uri, ms=4000)[0]
        out += retrieval(prov.agent_step_result_triples(
            step_uri, plan_uri, goal, f"urn:trustgraph:agent:{s}/step/{i}/doc"))
    extra = {"termination_reason": "plan-complete"} if AGENT_METADATA else {}
    out += retrieval(prov.agent_synthesis_triples(
        prov.agent_synthesis_uri(s), prov.agent_step_result_uri(s, len(PLAN) - 1),
        f"urn:trustgraph:agent:{s}/synthesis/doc", **extra))
    return out


GOALS = ("Find the year of Marie Curie's Nobel Prize in Physics",
         "Find the year of Marie Curie's Nobel Prize in Chemistry")


def supervisor(seed: str, minute: int) -> list:
    """agent/orchestrator/{supervisor_pattern,service,aggregator}.py: Decomposition, one ReAct
    sub-agent per goal, a Finding per completed sub-agent, Synthesis."""
    s = sid(seed)
    session = prov.agent_session_uri(s)
    out = []
    decided, derive_from = decide_pattern(s, session, "supervisor", "research")
    out += decided
    out += retrieval(prov.agent_session_triples(
        session, "In which years did Marie Curie receive her two Nobel Prizes?", stamp(minute)))
    dec_uri = prov.agent_decomposition_uri(s)
    out += retrieval(prov.agent_decomposition_triples(dec_uri, derive_from, list(GOALS)))

    answers = ("1903.", "1911.")
    sub_steps = ((STEPS[0],), ())  # the first sub-agent calls a tool; the second answers at once
    findings = []
    for k, goal in enumerate(GOALS):
        sub_seed = f"{seed}/subagent/{k}"
        # Sub-agent requests carry a session id and pattern "react": from 2.6.8 they get a
        # PatternDecision and their Question derives from the parent's Decomposition.
        out += react(sub_seed, minute, goal, sub_steps[k], answers[k], orchestrator=True,
                     parent_session=s, pattern_decision=True, ms=3000 + 250 * k)
        f_uri = prov.agent_finding_uri(s, k)
        # service.py: from 2.6.8 a Finding derives from the sub-agent's Conclusion, before that
        # from the Decomposition.
        parent = prov.agent_final_uri(sid(sub_seed)) if AGENT_METADATA else dec_uri
        out += retrieval(prov.agent_finding_triples(f_uri, parent, goal, f"urn:trustgraph:agent:{s}/finding/{k}/doc"))
        findings.append(f_uri)
    syn_uri = prov.agent_synthesis_uri(s)
    if AGENT_METADATA:
        out += retrieval(prov.agent_synthesis_triples(
            syn_uri, findings, f"urn:trustgraph:agent:{s}/synthesis/doc", termination_reason="subagents-complete"))
    else:
        out += retrieval(prov.agent_synthesis_triples(syn_uri, findings[-1], f"urn:trustgraph:agent:{s}/synthesis/doc"))
    return out


# ---------------------------------------------------------------------------
# Extraction provenance as 2.1.16 writes it: librarian/service.py (document_triples and the
# vocabulary), decoding/pdf/pdf_decoder.py (a page per PDF page), chunking/recursive/chunker.py
# (chunks of a page), extract/kg/relationships/extract.py (a tg:reifies statement per extracted
# triple). Every entity is typed prov:Entity alone and carries tg: predicates. From 2.1.22 on the
# builders type them tg:Document, tg:Page, tg:Chunk and tg:Subgraph instead.
# ---------------------------------------------------------------------------

class _numbered_ids:
    """The activity and statement builders of 2.1.16 mint ids with uuid.uuid4() (the services
    pass none): while building, uuid4 gives uuid5 values numbered in call order, so the output
    is reproducible and each id is still distinct."""

    def __init__(self, seed: str):
        self.seed, self.count = seed, 0

    def __enter__(self):
        def numbered():
            self.count += 1
            return uuid.uuid5(ID_NAMESPACE, f"{RELEASE}/{self.seed}/{self.count}")
        uuid.uuid4 = numbered

    def __exit__(self, *exc):
        uuid.uuid4 = _no_random_ids


def extraction(seed: str, minute: int) -> list:
    s = sid(seed)
    doc_uri = prov.document_uri(f"https://trustgraph.ai/doc/{s}")
    out = []
    with _numbered_ids(seed):
        # The librarian: vocabulary labels and the document, in the default graph.
        out += prov.get_vocabulary_triples()
        out += prov.document_triples(doc_uri=doc_uri, title="Marie Curie: a biography", mime_type="application/pdf")
        pages = ("Marie Curie received the Nobel Prize in Physics in 1903.",
                 "She received the Nobel Prize in Chemistry in 1911.")
        facts = ((FACTS[0], FACTS[1]), (FACTS[2], FACTS[3]))
        for number, (text, page_facts) in enumerate(zip(pages, facts), start=1):
            page = prov.page_uri(doc_uri, number)
            out += prov.set_graph(prov.derived_entity_triples(
                entity_uri=page, parent_uri=doc_uri, component_name="pdf-decoder", component_version="1.0.0",
                label=f"Page {number}", page_number=number, timestamp=stamp(minute, number * 100)), prov.GRAPH_SOURCE)
            chunk = prov.chunk_uri_from_page(doc_uri, number, 1)
            out += prov.set_graph(prov.derived_entity_triples(
                entity_uri=chunk, parent_uri=page, component_name="chunker", component_version="1.0.0",
                label="Chunk 1", chunk_index=1, char_offset=0, char_length=len(text), chunk_size=2000,
                chunk_overlap=100, timestamp=stamp(minute, number * 100 + 10)), prov.GRAPH_SOURCE)
            for subject, predicate, obj, is_entity, *_ in page_facts:
                extracted = Triple(s=Term(type=IRI, iri=entity(subject)), p=Term(type=IRI, iri=entity(predicate)),
                                   o=Term(type=IRI, iri=entity(obj)) if is_entity else Term(type=LITERAL, value=obj))
                out.append(extracted)
                out += prov.set_graph(prov.triple_provenance_triples(
                    stmt_uri=prov.statement_uri(), extracted_triple=extracted, chunk_uri=chunk,
                    component_name="kg-extract-relationships", component_version="1.0.0", llm_model=MODEL,
                    timestamp=stamp(minute, number * 100 + 20)), prov.GRAPH_SOURCE)
    return out


# ---------------------------------------------------------------------------

def traces() -> dict[str, list]:
    out = {
        "graph-rag": graph_rag("graph-rag", 0, "When did Marie Curie receive her Nobel Prizes?")[0],
        "document-rag": document_rag("document-rag", 5),
        "react": react("react", 10, "How many years passed between Marie Curie's two Nobel Prizes?",
                       STEPS, TWO_PRIZES),
        "react-one-shot": react("react-one-shot", 15, "In which city was Marie Curie born?", (),
                                "Marie Curie was born in Warsaw."),
    }
    if not GROUNDING:  # extraction as the 2.1 line's first builders write it (2.1.16 here)
        out["extraction"] = extraction("extraction", 18)
    if DOCRAG_RERANKER:
        out["document-rag-reranked"] = document_rag("document-rag-reranked", 20, reranked=True)
    if ORCHESTRATOR:
        out["orchestrator-react"] = react(
            "orchestrator-react", 25, "How many years passed between Marie Curie's two Nobel Prizes?",
            (KNOWLEDGE_STEP, STEPS[1]), TWO_PRIZES, orchestrator=True, pattern_decision=True)
        out["plan-then-execute"] = plan_then_execute("plan-then-execute", 30)
        out["supervisor"] = supervisor("supervisor", 35)
    return out


def _term(term) -> dict:
    if term.type == IRI:
        return {"t": "i", "i": term.iri}
    if term.type == LITERAL:
        out = {"t": "l", "v": term.value}
        if term.datatype:
            out["dt"] = term.datatype
        if term.language:
            out["ln"] = term.language
        return out
    if term.type == TRIPLE:
        return {"t": "t", "tr": _triple(term.triple)}
    raise ValueError(f"unexpected term type {term.type!r}")


def _triple(triple) -> dict:
    out = {"s": _term(triple.s), "p": _term(triple.p), "o": _term(triple.o)}
    if getattr(triple, "g", None):
        out["g"] = triple.g
    return out


if __name__ == "__main__":
    json.dump({"release": RELEASE, "traces": {name: [_triple(t) for t in triples]
                                              for name, triples in traces().items()}},
              sys.stdout, ensure_ascii=False)
