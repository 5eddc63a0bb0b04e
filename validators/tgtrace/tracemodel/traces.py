"""TrustGraph's trace model over the trace graph: what a trace's root is, which links own a
sub-entity, and what a trace ends in (its answers).

The trace graph (``tgtrace.ground.graph``) knows derivations, not TrustGraph: the loaders build
their graphs with :data:`TRUSTGRAPH`, and the rules and views that ask what a trace
answered read it here.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Iterator

import pyoxigraph as ox

from ..ground.graph import DERIVED, GENERATED, Node, TraceGraph, TraceModel
from ..ground.namespaces import PROV, TG, TGL
from .naming import UUID

QUESTION = TG + "Question"
# What a Question asked: the text a trace is paired by across runs.
QUERY = TG + "query"
AGENT_QUESTION = TG + "AgentQuestion"
# An extraction trace starts at a Document.
DOCUMENT = TG + "Document"
_EMPTY: frozenset = frozenset()
# Links that hang a sub-entity (a Thought, an EdgeSelection, a ChunkSelection) under its owner.
OWNING = frozenset(sys.intern(TG + name) for name in ("thought", "selectedEdge", "selectedChunk"))
# The links that chain a trace's steps: every release derives them; releases up to 2.2.12 also
# link some steps to the one that generated them.
CHAIN = (DERIVED, GENERATED)
# Every link that makes a trace: its chain and the sub-entities its steps own.
LINKS = frozenset({*CHAIN, *OWNING})
# Every trace TrustGraph writes starts at a Question.
TRUSTGRAPH = TraceModel(QUESTION, OWNING)
# The kinds of step a trace, or a sub-trace, answers with.
ANSWERS = frozenset((TG + "Conclusion", TG + "Synthesis"))
# The mixins: types that add to a step's kind rather than name it (the ontology's tg:mixinFor;
# a test holds this to it).
MIXINS = frozenset(TG + name for name in ("Answer", "ToolUse", "Error", "Reflection"))
# The values a consumer of traces relies on as they are (the contract): termination reasons, the
# pattern an agent chose, the tool it called and those it could call. Every other value (an ID, a
# timestamp, a token count, a text) differs from run to run.
CONTRACT_VALUES = frozenset(TG + name for name in ("terminationReason", "pattern", "action", "toolCandidate"))
# The named graphs TrustGraph writes explainability to (the ontology's tg:retrievalGraph and
# tg:sourceGraph, whose skos:notation tg-trace check holds these to): query-time traces, and
# extraction provenance.
RETRIEVAL_GRAPH = "urn:graph:retrieval"
SOURCE_GRAPH = "urn:graph:source"
EXPLAIN_GRAPHS = (RETRIEVAL_GRAPH, SOURCE_GRAPH)
# The classes whose entities TrustGraph writes in each graph: the ontology's tg:storedIn (a test
# holds these to it), with the mixins of query-time entities and PROV's activities and agents of
# extraction beside them. The librarian writes a tg:Document to the default graph, whose triples no
# export of explainability carries; extraction's provenance, which does, names it in the source graph.
RETRIEVAL_CLASSES = frozenset(TG + c for c in (
    "Question", "GraphRagQuestion", "DocRagQuestion", "AgentQuestion", "Grounding", "Exploration", "Focus",
    "EdgeSelection", "ChunkSelection", "Synthesis", "Answer", "PatternDecision", "Analysis", "ToolUse",
    "Reflection", "Thought", "Observation", "Error", "Conclusion", "Plan", "StepResult", "Decomposition",
    "Finding"))
SOURCE_CLASSES = frozenset({*(TG + c for c in ("Document", "Page", "Section", "Chunk", "Image", "Subgraph")),
                            PROV + "Activity", PROV + "Agent"})
DEFAULT_GRAPH_CLASSES = frozenset({DOCUMENT})
# How a named graph is named where a graph is a value (tgl:namedGraph): its IRI, or the ontology's
# tg:defaultGraph for the default graph, which has none.
DEFAULT_GRAPH_IRI = TG + "defaultGraph"


def graph_iri(name: str) -> str:
    """The IRI a graph name of the trace graph (``ground.graph.DEFAULT_GRAPH`` for the default
    graph) is written as."""
    return name or DEFAULT_GRAPH_IRI


# Where a subject's statements were written, stated as data for a SHACL engine, which sees one graph.
NAMED_GRAPH = TGL + "namedGraph"


def graph_statements(graph: TraceGraph) -> Iterator[tuple[Node, str, str]]:
    """(subject, tgl:namedGraph, graph IRI) for each graph a subject's statements were written in,
    where the graph knows it: what the shapes' tgl:writtenIn reads in an engine that sees one
    graph (the reference engine, ``convert --state-graphs`` for any other)."""
    for node in graph.index:
        for name in graph.graphs_of(node):
            yield node, NAMED_GRAPH, graph_iri(name)


_STARTED = PROV + "startedAtTime"
_STEP_RESULT = TG + "StepResult"
_DECOMPOSITION = TG + "Decomposition"
# A plan's steps are numbered only in their IRIs (provenance/uris.py make_step_result_uri): the one
# thing a trace holds that orders them.
_STEP_INDEX = re.compile(r"/step/([0-9]+)$")


def step_index(node: Node) -> int | None:
    """The index of a plan step's StepResult, from TrustGraph's IRI template (…/step/{i})."""
    found = _STEP_INDEX.search(node) if type(node) is str else None
    return int(found.group(1)) if found else None


def later_step(graph: TraceGraph, step: Node) -> bool:
    """Whether a StepResult of the same Plan as ``step`` has a higher index (both numbered so)."""
    index = step_index(step)
    if index is None or _STEP_RESULT not in graph.types_of(step):
        return False
    for plan in graph.values(step, DERIVED):
        for other in graph.children(plan):
            other_index = step_index(other)
            if other_index is not None and other_index > index and _STEP_RESULT in graph.types_of(other):
                return True
    return False


def answered_elsewhere(graph: TraceGraph, finding: Node, source: Node) -> bool:
    """Whether a Finding that derives from the Decomposition ``source`` has its sub-agent's answer
    in the input: a sub-agent Question under that Decomposition asked the Finding's goal, and its
    trace reached a Conclusion (which the Finding then derives from, in 2.11.1)."""
    if _DECOMPOSITION not in graph.types_of(source):
        return False
    goals = _texts(graph, finding, TG + "subagentGoal")
    for question in graph.children(source):
        if QUESTION in graph.types_of(question) and goals & _texts(graph, question, QUERY):
            if any(_CONCLUSION in graph.types_of(node) for node in graph.descendants(question)):
                return True
    return False


def what_was_asked(graph: TraceGraph, root: Node) -> frozenset[tuple[str, str]]:
    """What a trace's Question asked: ("query", text) and ("started", time) of each of its query
    texts and start times; what tells two queries written under one trace IRI apart."""
    return frozenset([*(("query", v.value) for v in graph.values(root, QUERY) if type(v) is ox.Literal),
                      *(("started", v.value) for v in graph.values(root, _STARTED) if type(v) is ox.Literal)])


def describe_asked(asked: frozenset[tuple[str, str]]) -> str:
    """What was asked, in words: the query texts quoted, and when."""
    queries = " and ".join(repr(text) for kind, text in sorted(asked) if kind == "query") or "no query text"
    times = " and ".join(text for kind, text in sorted(asked) if kind == "started")
    return f"{queries} at {times}" if times else queries


def hung_under(graph: TraceGraph, node: Node) -> Iterator[Node]:
    """What ``node`` hangs under in its trace: what it derives from or was generated by (releases
    up to 2.2.12), and the entities that own it (a Thought's Analysis, a selection's Focus)."""
    yield from graph.parents(node)
    yield from graph.values(node, GENERATED)
# The patterns a trace follows: a RAG query's, by its Question's subtype, and an agent's, each with
# the steps only it writes.
RAG_PATTERNS = {TG + "GraphRagQuestion": "graphrag", TG + "DocRagQuestion": "docrag"}
AGENT_PATTERNS = ("react", "plan-then-execute", "supervisor")
# Every pattern a trace can follow: a RAG query's, an agent's, and extraction (a Document's chain).
PATTERNS = (*RAG_PATTERNS.values(), *AGENT_PATTERNS, "extraction")
# How each pattern is named for a person.
PATTERN_TITLES = {"graphrag": "GraphRAG", "docrag": "Document RAG", "react": "ReAct",
                  "plan-then-execute": "plan-then-execute", "supervisor": "supervisor", "extraction": "extraction"}
_PATTERN_STEPS = (("plan-then-execute", frozenset({"Plan", "StepResult"})),
                  ("supervisor", frozenset({"Decomposition", "Finding"})))


def agent_pattern(decided: str | None, kinds: Iterable[str]) -> str:
    """The pattern an agent's trace follows: the one its PatternDecision names (when it is one of
    the three), else the one whose own steps it holds (``kinds``: the local names of its steps'
    classes); react when it holds neither a Plan's nor a Decomposition's."""
    if decided in AGENT_PATTERNS:
        return decided
    found = set(kinds)
    return next((pattern for pattern, steps in _PATTERN_STEPS if steps & found), "react")


def extraction_roots(graph: TraceGraph) -> list:
    """Documents that derive from nothing and lie in no Question's trace: the roots of extraction
    traces (a document's provenance: its pages, chunks and subgraphs)."""
    return sorted(n for n in graph.instances(DOCUMENT)
                  if not graph.values(n, DERIVED) and graph.root_of(n) is None)


def trace_roots(graph: TraceGraph) -> list:
    """The root of every trace of the graph: what every face counts as a trace. A query's or an
    agent's starts at a Question that derives from no other; an extraction trace at its Document.
    A trace held by several files is one trace, counted once."""
    return [*graph.roots(), *extraction_roots(graph)]


_SESSION = re.compile(rf"urn:trustgraph:(?:[a-z-]+:)*({UUID.pattern})")


def session_of(iri: object) -> str | None:
    """The session a query-time entity was written in, read from its IRI: TrustGraph names every
    entity of one query or agent session ``urn:trustgraph:…`` with the session's UUID in it (the
    Question, each step, its Thought and selections), so an entity whose link to its trace is lost
    still names its trace. None for other IRIs (extraction's, blank nodes, literals)."""
    if type(iri) is not str:
        return None
    found = _SESSION.match(iri)
    return found.group(1) if found else None


def is_root_question(graph: TraceGraph, node: Node) -> bool:
    """A Question that derives from no Question, itself included (through a cycle), as the SPARQL says."""
    return node in graph.heads and not graph.has_head_above(node)


_AGENT_QUESTION, _CONCLUSION, _SYNTHESIS = AGENT_QUESTION, TG + "Conclusion", TG + "Synthesis"
_TERMINAL_KINDS = frozenset((_CONCLUSION, _SYNTHESIS))
_AGENT_STEPS = (TG + "StepResult", TG + "Finding")


def _agent_synthesis(graph: TraceGraph, node: Node) -> bool:
    return any(s in graph.types_of(v) for v in graph.values(node, DERIVED) for s in _AGENT_STEPS)


def terminal_answers(graph: TraceGraph, root: Node) -> set:
    """The answers of the root's own kind that nothing derives from (found once per root)."""
    memo: dict = graph.fact("terminal answers", lambda graph: {})
    found = memo.get(root)
    if found is None:
        found = memo[root] = _find_terminal_answers(graph, root)
    return found


def _find_terminal_answers(graph: TraceGraph, root: Node) -> set:
    agent = _AGENT_QUESTION in graph.types_of(root)
    types = graph.types
    found = set()
    for node in graph.descendants(root):
        if graph.children(node):
            continue
        kinds = types.get(node)
        if not kinds or kinds.isdisjoint(_TERMINAL_KINDS):
            continue
        if agent:
            if _CONCLUSION in kinds and not _sub_agent_answer(graph, node, root):
                found.add(node)
            elif _SYNTHESIS in kinds and _agent_synthesis(graph, node):
                found.add(node)
        elif _SYNTHESIS in kinds and not _agent_synthesis(graph, node):
            found.add(node)
    return found


def _sub_agent_answer(graph: TraceGraph, node: Node, root: Node) -> bool:
    """A Conclusion below another agent Question than the root: a supervisor's sub-agent answered
    it. (TrustGraph 2.11.1 derives a Finding from it, or, when it does not know the Conclusion,
    from the Decomposition: then nothing derives from it, and it is still not the trace's answer.)"""
    return any(a != root and _AGENT_QUESTION in graph.types_of(a) for a in graph.ancestors(node))


def answer_pattern(graph: TraceGraph, node: Node) -> str | None:
    kinds = graph.types_of(node)
    if TG + "Conclusion" in kinds:
        return "react"
    if TG + "Synthesis" in kinds:
        sources = [graph.types_of(v) for v in graph.values(node, DERIVED)]
        if any(TG + "StepResult" in k for k in sources):
            return "plan-then-execute"
        if any(TG + "Finding" in k for k in sources):
            return "supervisor"
    return None


# ---------------------------------------------------------------------------
# What a termination reason claims, as the chain shows it.
# ---------------------------------------------------------------------------

_STEP_RESULT, _PLAN, _FINDING, _DECOMPOSITION = TG + "StepResult", TG + "Plan", TG + "Finding", TG + "Decomposition"
_PLAN_STEP, _SUBAGENT_GOAL = TG + "planStep", TG + "subagentGoal"


def text_of(node: Node) -> str | None:
    """SPARQL's STR(): a literal's text, an IRI's; None where STR() is an error (blank nodes, triple terms)."""
    if type(node) is str:
        return None if node.startswith("_:") else node
    return node.value if type(node) is ox.Literal else None


def _texts(graph: TraceGraph, node: Node, predicate: str) -> set:
    return {t for t in map(text_of, graph.values(node, predicate)) if t is not None}


def plan_unfinished(graph: TraceGraph, synthesis: Node) -> bool:
    """Whether a step of the Plan behind a Synthesis (the Plan of a StepResult it derives from) has
    no StepResult carrying its goal: what plan-complete denies."""
    for step in graph.values(synthesis, DERIVED):
        if _STEP_RESULT not in graph.types_of(step):
            continue
        for plan in graph.values(step, DERIVED):
            if _PLAN not in graph.types_of(plan):
                continue
            done = set()
            for result in graph.children(plan):
                if _STEP_RESULT in graph.types_of(result):
                    done |= _texts(graph, result, _PLAN_STEP)
            if any(not _carried_out(text_of(goal), done) for goal in graph.values(plan, _PLAN_STEP)):
                return True
    return False


# A step the LLM gave no goal: TrustGraph 2.11.1's plan_pattern.py lists it as "" on the Plan and writes
# its StepResult's goal as the repr of its PlanStep (str(current_step)).
_GOALLESS_STEP = "PlanStep(goal=''"


def _carried_out(goal: str | None, done: set) -> bool:
    return goal in done or (goal == "" and any(text.startswith(_GOALLESS_STEP) for text in done))


def goals_unanswered(graph: TraceGraph, synthesis: Node) -> bool:
    """Whether a goal of a Decomposition behind a Synthesis has no Finding the Synthesis derives
    from: what subagents-complete denies. A Finding's Decomposition is the one it derives from, or
    the one a sub-agent whose answer it derives from hangs from, and names the Finding's goal."""
    findings = [f for f in graph.values(synthesis, DERIVED) if _FINDING in graph.types_of(f)]
    answered: set = set()
    for finding in findings:
        answered |= _texts(graph, finding, _SUBAGENT_GOAL)
    for finding in findings:
        goals = _texts(graph, finding, _SUBAGENT_GOAL)
        if not goals:
            continue
        candidates = set()
        for source in graph.values(finding, DERIVED):
            candidates.add(source)
            for above in graph.ancestors(source):
                if _AGENT_QUESTION in graph.types_of(above):
                    candidates.update(graph.values(above, DERIVED))
        for decomposition in candidates:
            if _DECOMPOSITION not in graph.types_of(decomposition):
                continue
            named = _texts(graph, decomposition, _SUBAGENT_GOAL)
            if named & goals and any(text_of(g) not in answered for g in graph.values(decomposition, _SUBAGENT_GOAL)):
                return True
    return False


# ---------------------------------------------------------------------------
# Where a chain stops short: a step nothing follows, in a trace that goes on to its answer.
# ---------------------------------------------------------------------------

_THOUGHT, _OBSERVATION = TG + "Thought", TG + "Observation"


def leaves(graph: TraceGraph) -> set:
    """The nodes that derive from something and that nothing but a Thought follows (derives from
    them or, as old releases link steps, was generated by them); computed once per graph."""
    return graph.fact("chain leaves", _leaves, for_rules=True)


def _leaves(graph: TraceGraph) -> set:
    below = graph.derived_from()
    derived: set = set()
    thoughts: list = []
    for (kinds, predicates), nodes in graph.kinds().items():
        if DERIVED in predicates:
            derived.update(nodes)
            if _THOUGHT in kinds:
                thoughts += nodes
    found = derived.difference(below)  # nothing derives from them
    # Or only Thoughts do (the Analysis that ended a trace), found from the Thoughts.
    types = graph.types
    for thought in thoughts:
        for owner in graph.values(thought, DERIVED):
            if owner in derived and all(_THOUGHT in types.get(c, _EMPTY) for c in below[owner]):
                found.add(owner)
    for (_, predicates), nodes in graph.kinds().items():
        if GENERATED in predicates:
            for node in nodes:
                found.difference_update(graph.values(node, GENERATED))
    return found


def stops_short(graph: TraceGraph, node: Node) -> bool:
    """Whether a leaf is a step the chain should have continued from: a root Question of its trace
    reaches a terminal answer, and the nearest Questions above it include the root, a sub-agent's
    Question (a supervisor answers only once every sub-agent has) or a sub-trace's Question that
    an Observation follows (its tool's result came back to the chain). A sub-trace nothing comes
    back from (a plan step's, or one an Observation skips, as TrustGraph before 2.3.1 writes it)
    may stop where its service failed."""
    above = graph.ancestors(node)
    questions = [q for q in above if q in graph.heads]
    if not any(is_root_question(graph, q) and terminal_answers(graph, q) for q in questions):
        return False
    covered: set = set()
    for question in questions:
        covered |= graph.ancestors(question)
    return any(_rejoined(graph, q) for q in questions if q not in covered)


def _rejoined(graph: TraceGraph, question: Node) -> bool:
    memo: dict = graph.fact("rejoined questions", lambda graph: {}, for_rules=True)
    found = memo.get(question)
    if found is None:
        if is_root_question(graph, question) or _AGENT_QUESTION in graph.types_of(question):
            found = True
        else:
            found = any(_OBSERVATION in graph.types_of(d) for d in graph.descendants(question))
        memo[question] = found
    return found


def loop_never_ran(graph: TraceGraph, answer: Node) -> bool:
    """Whether an answer derives straight from a Question or a PatternDecision: no iteration ran,
    so none can have been the last one allowed (what max-iterations claims)."""
    return any(not graph.types_of(start).isdisjoint(_LOOP_STARTS) for start in graph.values(answer, DERIVED))


_LOOP_STARTS = frozenset((QUESTION, TG + "PatternDecision"))


def trace_subgraph(graph: TraceGraph, roots: Iterable) -> TraceGraph:
    """The part of ``graph`` that linting the traces of ``roots`` needs: their nodes, the traces
    linked to them either way (a link across traces is judged with both ends present), and what
    lies in no Question's trace (documents, extraction traces, declarations). Lines and the
    order of statements are the whole graph's, so findings read as in a lint of the whole file."""
    members = graph.trace_members()
    nodes_of: dict = {}
    for node, root in members.items():
        nodes_of.setdefault(root, []).append(node)
    generated: dict = {}  # inverse of prov:wasGeneratedBy: also a trace link (2.1.x chains)
    for node, props in graph.out.items():
        for source in props.get(GENERATED, ()):
            generated.setdefault(source, []).append(node)
    chosen = {r for r in roots if r in nodes_of}
    pending = list(chosen)
    while pending:
        for node in nodes_of[pending.pop()]:
            props = graph.out.get(node, {})
            linked = [o for values in props.values() for o in values]
            linked += [*graph.children(node), *graph.owners.get(node, ()), *generated.get(node, ())]
            for other in linked:
                linked_root = members.get(other)
                if linked_root is not None and linked_root not in chosen:
                    chosen.add(linked_root)
                    pending.append(linked_root)
    return graph.subgraph(lambda node: members.get(node) in chosen or node not in members)
