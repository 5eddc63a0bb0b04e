"""The opt-in family "reader" (R001) reports exactly what TrustGraph 2.11.1's own trace reader misses.

The real reader, ``trustgraph.api.explainability.ExplainabilityClient`` of trustgraph-base, reads
each example through a small stand-in for a TrustGraph flow that answers ``triples_query`` from a
pyoxigraph store holding the example, in the wire format the socket API returns. The entities of
every trace it does not return must be R001's findings, no more and no fewer; the same holds on
traces built to cross the reader's limits (20 entities per agent step, 100 triples per entity, 50
steps deep, which only the native engine follows), its first-match choice and its session detection.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import sys
import types
from pathlib import Path

import pyoxigraph as ox
import pytest
import tgtrace
from conftest import example_traces
from wire_support import wire


def _real_reader():
    """The installed trustgraph-base's explainability module and build_term, read from its files.

    ``import trustgraph.api`` runs the package's __init__, which imports the whole client (websockets,
    prometheus_client); the reader needs none of it. explainability.py is loaded as it is, under a
    package of its own, and build_term (what the socket flow makes of the reader's arguments) is
    taken from socket_client.py's source."""
    spec = importlib.util.find_spec("trustgraph")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("the real reader comes with trustgraph-base", allow_module_level=True)
    api = Path(list(spec.submodule_search_locations)[0]) / "api"
    if not (api / "explainability.py").exists():
        pytest.skip("trustgraph-base has no trustgraph.api.explainability", allow_module_level=True)
    package = types.ModuleType("_trustgraph_reader")
    package.__path__ = [str(api)]
    sys.modules.setdefault("_trustgraph_reader", package)
    explainability = importlib.import_module("_trustgraph_reader.explainability")
    source = (api / "socket_client.py").read_text(encoding="utf-8")
    function = next(node for node in ast.parse(source).body
                    if isinstance(node, ast.FunctionDef) and node.name == "build_term")
    namespace: dict = {}
    exec("from typing import Any, Dict, Optional\n" + ast.get_source_segment(source, function), namespace)
    return explainability, namespace["build_term"]


_explainability, build_term = _real_reader()
ExplainabilityClient = _explainability.ExplainabilityClient
ExplainEntity = _explainability.ExplainEntity
EdgeSelection = _explainability.EdgeSelection

RETRIEVAL = "urn:graph:retrieval"
PREFIXES = """PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
PREFIX prov: <http://www.w3.org/ns/prov#>
PREFIX tg: <https://trustgraph.ai/ns/>
"""
EXAMPLES = example_traces(".nq")


# ----------------------------------------------------------------- the real reader

def unwire(value):
    """What the API makes of a query argument (build_term), as a pyoxigraph pattern term."""
    term = build_term(value)
    if term is None:
        return None
    if term["t"] == "i":
        return ox.NamedNode(term["i"])
    datatype = term.get("dt")
    return ox.Literal(term["v"], language=term.get("ln") or None,
                      datatype=ox.NamedNode(datatype) if datatype and not term.get("ln") else None)


class StoreFlow:
    """The part of a TrustGraph flow the reader uses: triples_query over one store. The store's
    order is TrustGraph's to choose; this one answers in term order (N-Triples text), the order
    tg-trace assumes, and applies the limit as the triples service does."""

    def __init__(self, store: ox.Store):
        self.store = store
        self.queries = 0

    def triples_query(self, s=None, p=None, o=None, g=None, collection=None, limit=100, **kwargs):
        self.queries += 1
        subject, predicate, object_ = unwire(s), unwire(p), unwire(o)
        if isinstance(subject, ox.Literal) or isinstance(predicate, ox.Literal):
            return []  # no literal is a subject or predicate
        graph = ox.NamedNode(g) if g is not None else None
        found = {(q.subject, q.predicate, q.object) for q in self.store.quads_for_pattern(subject, predicate, object_, graph)}
        ordered = sorted(found, key=lambda t: (str(t[0]), str(t[1]), str(t[2])))
        return [{"s": wire(a), "p": wire(b), "o": wire(c)} for a, b, c in ordered[:limit]]


def returned(value) -> set[str]:
    """Every entity IRI in what the reader returned: steps, sub-traces, edge selections."""
    found: set[str] = set()
    if isinstance(value, (ExplainEntity, EdgeSelection)):
        found.add(value.uri)
        for selection in getattr(value, "edge_selections", ()):
            found.add(selection.uri)
    elif isinstance(value, dict):
        for item in value.values():
            found |= returned(item)
    elif isinstance(value, list):
        for item in value:
            found |= returned(item)
    return found


def read_sessions(store: ox.Store, roots) -> set[str]:
    """What the reader returns for each session, as tg-show-explain-trace reads it."""
    client = ExplainabilityClient(StoreFlow(store), retry_delay=0, max_retries=2)
    reached: set[str] = set()
    for root in roots:
        kind = client.detect_session_type(root, graph=RETRIEVAL)
        fetch = {"agent": client.fetch_agent_trace, "docrag": client.fetch_docrag_trace}.get(kind, client.fetch_graphrag_trace)
        reached |= returned(fetch(root, graph=RETRIEVAL))
    return reached


# ----------------------------------------------------------------- the traces, read independently

def load(path) -> ox.Store:
    store = ox.Store()
    store.bulk_load(path=str(path), format=ox.RdfFormat.N_QUADS)
    return store


def roots(store: ox.Store) -> list[str]:
    """Questions that derive, transitively, from no Question."""
    rows = store.query(PREFIXES + """SELECT DISTINCT ?q WHERE {
        ?q rdf:type tg:Question . FILTER isIRI(?q)
        FILTER NOT EXISTS { ?q prov:wasDerivedFrom+ ?above . ?above rdf:type tg:Question }
    }""", use_default_graph_as_union=True)
    return sorted(row["q"].value for row in rows)


def entities(store: ox.Store) -> set[str]:
    """The trace entities R001 judges: IRIs with triples of their own under a root Question, through
    derivation, tg:thought, tg:selectedEdge, tg:selectedChunk and (old releases) prov:wasGeneratedBy."""
    rows = store.query(PREFIXES + """SELECT DISTINCT ?e WHERE {
        ?q rdf:type tg:Question .
        FILTER NOT EXISTS { ?q prov:wasDerivedFrom+ ?above . ?above rdf:type tg:Question }
        ?q (^prov:wasDerivedFrom|tg:thought|tg:selectedEdge|tg:selectedChunk|^prov:wasGeneratedBy)* ?e .
        FILTER (isIRI(?e) && EXISTS { ?e ?p ?o })
    }""", use_default_graph_as_union=True)
    return {row["e"].value for row in rows}


def findings(path, engine: str = "fast") -> set[str]:
    report = tgtrace.lint(str(path), select=["reader"], engine=engine, fail_on="never")
    assert {f.rule for f in report.findings} <= {"R001"}
    return {f.focus for f in report.findings}


def unreached(store: ox.Store) -> set[str]:
    return entities(store) - read_sessions(store, roots(store))


# ----------------------------------------------------------------- (a) the real reader

@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_findings_are_what_the_real_reader_misses(path):
    store = load(path)
    assert findings(path) == unreached(store)


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_roots_are_the_sessions_the_reader_lists(path):
    store = load(path)
    client = ExplainabilityClient(StoreFlow(store), retry_delay=0, max_retries=2)
    assert sorted(q.uri for q in client.list_sessions(graph=RETRIEVAL, limit=1000)) == roots(store)


def test_the_known_gaps_are_reported():
    """PatternDecision, a supervisor's sub-agent Questions, and a reranked DocRAG's Synthesis (a Focus
    between Exploration and Synthesis) stop the reader; Thoughts and chunk selections it never loads."""
    by_name = {p.stem: findings(p) for p in EXAMPLES}
    agent = "urn:trustgraph:agent:"
    assert f"{agent}33a7dbc8-ce5b-58b6-91c6-ff32961e9c7d/pattern-decision" in by_name["orchestrator-react-multi-iteration"]
    assert f"{agent}33a7dbc8-ce5b-58b6-91c6-ff32961e9c7d/final" in by_name["orchestrator-react-multi-iteration"]
    assert f"{agent}5538adab-1505-5eda-aa3b-7c37306aed4e" in by_name["supervisor"]  # a sub-agent's Question
    docrag = "urn:trustgraph:docrag:2484e686-4c07-5eb8-b6bf-fee564a107d5"
    assert {f"{docrag}/focus", f"{docrag}/synthesis"} <= by_name["document-rag-reranked"]
    assert f"{docrag}/exploration" not in by_name["document-rag-reranked"]
    assert f"{agent}fba95376-1669-5d38-aad7-41a11fc68e7c/i1/thought" in by_name["orchestrator-react-no-pattern-decision"]
    assert not by_name["graph-rag"] and not by_name["document-rag"]


# Traces built from the examples to cross the reader's limits (which the native engine follows and the
# SPARQL reference cannot, see shapes/components.ttl), its first-match choice and its session detection.
NO_PD = "orchestrator-react-no-pattern-decision.nq"
A = "urn:trustgraph:agent:fba95376-1669-5d38-aad7-41a11fc68e7c"
GRAPH_RAG = "graph-rag.nq"
G = "1b3949f2-13f1-5c55-8618-8ffa7d5d3327"
D = "urn:trustgraph:docrag:7ef30a91-b4ac-5241-9890-366f176279c5"

BUILT = {
    # 60 more iterations after the last Observation: the reader stops 50 steps below the Question.
    "deeper-than-50": (NO_PD, "INSERT DATA { GRAPH <urn:graph:retrieval> { "
                       + " ".join(f"<{A}/x{n}> a prov:Entity, tg:Analysis, tg:ToolUse ; prov:wasDerivedFrom <{A}/x{n - 1}> ."
                                  for n in range(1, 61)).replace(f"<{A}/x0>", f"<{A}/i2/observation>") + " } }"),
    # 25 Observations of one Analysis: the reader looks at the first 20 deriving from it.
    "more-than-20": (NO_PD, "INSERT DATA { GRAPH <urn:graph:retrieval> { "
                     + " ".join(f"<{A}/i1/extra{n:02d}> a prov:Entity, tg:Observation ; prov:wasDerivedFrom <{A}/i1> ."
                                for n in range(25)) + " } }"),
    # A second Grounding before the real one (IRI order): the reader takes the first and stops there.
    "first-grounding": (GRAPH_RAG, f"INSERT DATA {{ GRAPH <urn:graph:retrieval> {{ <urn:trustgraph:prov:a-grounding:{G}> a prov:Entity, "
                        f"tg:Grounding ; prov:wasDerivedFrom <urn:trustgraph:question:{G}> }} }}"),
    # A Focus with 120 more edge selections: only those in its first 100 triples are fetched.
    "focus-over-100": (GRAPH_RAG, "INSERT DATA { GRAPH <urn:graph:retrieval> { "
                       + " ".join(f"<urn:trustgraph:prov:focus:{G}> tg:selectedEdge <urn:trustgraph:prov:edge:{G}:x{n:03d}> . "
                                  f"<urn:trustgraph:prov:edge:{G}:x{n:03d}> a tg:EdgeSelection ; rdfs:label \"edge\" ."
                                  for n in range(120)) + " } }"),
    # A DocRAG root whose IRI names no kind: detect_session_type finds no Exploration or agent step
    # deriving from it and reads it as GraphRAG, which ends at the Exploration (no Focus).
    "unnamed-docrag-root": ("document-rag.nq", f"DELETE {{ GRAPH ?g {{ ?s ?p <{D}> }} }} INSERT {{ GRAPH ?g {{ ?s ?p <urn:session:1> }} }} "
                            f"WHERE {{ GRAPH ?g {{ ?s ?p <{D}> }} }} ; "
                            f"DELETE {{ GRAPH ?g {{ <{D}> ?p ?o }} }} INSERT {{ GRAPH ?g {{ <urn:session:1> ?p ?o }} }} "
                            f"WHERE {{ GRAPH ?g {{ <{D}> ?p ?o }} }}"),
}


@pytest.mark.parametrize("name", sorted(BUILT))
def test_native_engine_follows_the_reader_past_what_sparql_says(name, examples_dir, tmp_path):
    example, update = BUILT[name]
    store = load(examples_dir / example)
    store.update(PREFIXES + update)
    path = tmp_path / example
    store.dump(str(path), ox.RdfFormat.N_QUADS)
    expected = unreached(store)
    assert findings(path) == expected
    assert expected - findings(examples_dir / example), f"{name} changed nothing the reader reads"


# ----------------------------------------------------------------- (b) opt-in

def test_the_family_is_off_by_default_and_under_all(examples_dir):
    path = examples_dir / "supervisor.nq"
    for options in ({}, {"select": ["ALL"]}, {"select": ["ALL"], "ignore": ["M001"]}):
        report = tgtrace.lint(str(path), fail_on="never", **options)
        assert "R001" not in {f.rule for f in report.findings}, options
    for select in (["reader"], ["R001"], ["R"], ["ALL", "reader"]):
        report = tgtrace.lint(str(path), fail_on="never", select=select)
        assert "R001" in {f.rule for f in report.findings}, select
    assert {f.rule for f in tgtrace.lint(str(path), fail_on="never", select=["reader"]).findings} == {"R001"}
    assert not tgtrace.lint(str(path), fail_on="never", select=["reader"], ignore=["R001"]).findings


def test_findings_are_info_and_name_the_entity(examples_dir):
    report = tgtrace.lint(str(examples_dir / "supervisor.nq"), select=["reader"], fail_on="never")
    assert report.findings
    for finding in report.findings:
        assert str(finding.severity) == "info" and finding.family == "reader"
        assert finding.focus in finding.message and finding.trace == "urn:trustgraph:agent:c5d169e8-f902-5f3a-82ff-7e61d4e506f0"


# ----------------------------------------------------------------- (c) both engines

@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_both_engines_agree(path):
    assert findings(path, "shacl") == findings(path, "fast")
