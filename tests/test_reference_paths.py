"""The reference engine's transitive paths: rdflib's solutions, from one index per graph."""

from __future__ import annotations

import json
from contextlib import contextmanager

import pytest
from conftest import EXAMPLES
from hypothesis import given, settings
from hypothesis import strategies as st
from rdflib import Graph, URIRef
from rdflib.paths import AlternativePath, InvPath, MulPath, OneOrMore, ZeroOrMore, ZeroOrOne
from rdflib.plugins.sparql import prepareQuery
from test_hostile_inputs import DERIVED, TG, TYPE, _write_nq, tg_trace
from tgtrace.shacl.patches import each_query_parsed_once, indexed_transitive_paths
from tgtrace.shacl.paths import cycles_of_one_variable

# Slow: the reference engine (pySHACL) on long paths (`python -m pytest -m "not slow"` leaves it out; CI runs it).
pytestmark = pytest.mark.slow

P, Q = URIRef("urn:p"), URIRef("urn:q")
NODES = [URIRef(f"urn:n{i}") for i in range(7)]

PATHS = [
    MulPath(P, OneOrMore), MulPath(P, ZeroOrMore), MulPath(P, ZeroOrOne),
    MulPath(InvPath(P), OneOrMore), MulPath(AlternativePath(P, Q), OneOrMore),
    MulPath(AlternativePath(P, InvPath(Q)), ZeroOrMore),
]

edges = st.lists(st.tuples(st.sampled_from(NODES), st.sampled_from([P, Q]), st.sampled_from(NODES)), max_size=14)
ends = st.one_of(st.none(), st.sampled_from(NODES))


@settings(max_examples=300, deadline=None)
@given(edges, st.sampled_from(PATHS), ends, ends)
def test_solutions_are_rdflibs(triples, path, subject, object_):
    graph = Graph()
    for triple in triples:
        graph.add(triple)
    rdflibs = MulPath.eval
    expected = sorted(path.eval(graph, subject, object_))
    with indexed_transitive_paths():
        assert sorted(path.eval(graph, subject, object_)) == expected
        assert sorted(path.eval(graph, subject, object_)) == expected  # from the kept index
    assert MulPath.eval is rdflibs


@settings(max_examples=200, deadline=None)
@given(edges, st.sampled_from([P, "<urn:p>|^<urn:q>"]), ends)
def test_a_path_from_a_variable_to_itself_gives_rdflibs_solutions(triples, step, bound):
    # ?x p+ ?x: rdflib walks from every node (quadratic on a chain); the reference engine reads the
    # nodes on a cycle from its index, with ?x free or bound.
    graph = Graph()
    for triple in triples:
        graph.add(triple)
    text = f"SELECT ?x WHERE {{ ?x ({step.n3() if isinstance(step, URIRef) else step})+ ?x }}"
    bindings = {} if bound is None else {"x": bound}
    assert cycles_of_one_variable(prepareQuery(text).algebra) == 1
    expected = sorted(row[0] for row in graph.query(text, initBindings=bindings))
    with each_query_parsed_once(), indexed_transitive_paths():
        assert sorted(row[0] for row in graph.query(text, initBindings=bindings)) == expected


def _findings(engine: str, path, timeout: int) -> list:
    result = tg_trace("lint", "--engine", engine, "--format", "json", str(path), timeout=timeout)
    assert result.returncode == 1, result.stderr[-2000:]
    # (rule, focus): pySHACL leaves the value out of what a SPARQL-based component on a property
    # shape reports (G001's graph), as the DASH test suite expects.
    return sorted((f["rule"], f["focus"]) for f in json.loads(result.stdout)["findings"])


@pytest.mark.slow
def test_reference_engine_is_linear_on_long_chains(tmp_path):
    # Generous limits, several times what a linear run takes on a slow machine; the quadratic
    # engine walked the whole chain from every focus node (3,000 links took 40 s, 10,000 about
    # 7 minutes) and listed every ancestor inside EXISTS (3,000 Questions took 5 minutes). The
    # cost per link at two lengths is measured by benchmarks/run.py --chains, not here. Linear, the
    # two take about 60 s together (pySHACL's own pace, some 9 ms a Focus: about 40 shapes each).
    # A cycle of 2,000 is test_reference_engine_bounds.py's.
    n = 5_000
    chain = _write_nq(tmp_path / "chain.nq", (
        line for i in range(n) for line in ((f"<urn:e:{i}> <{TYPE}> <{TG}Focus> .",)
                                            + ((f"<urn:e:{i}> <{DERIVED}> <urn:e:{i - 1}> .",) if i else ()))))
    questions = _write_nq(tmp_path / "questions.nq", (
        line for i in range(3_000) for line in (f"<urn:q:{i}> <{TYPE}> <{TG}Question> .",
                                                f"<urn:q:{i}> <{TYPE}> <{TG}AgentQuestion> .")
        + ((f"<urn:q:{i}> <{DERIVED}> <urn:q:{i - 1}> .",) if i else ())))
    for path in (chain, questions):
        assert _findings("shacl", path, timeout=240) == _findings("fast", path, timeout=60)


@contextmanager
def _counted_lookups():
    """The triple lookups rdflib's in-memory store answers inside the block, in a one-item list."""
    from rdflib.plugins.stores.memory import Memory

    calls = [0]
    triples = Memory.triples

    def counted(self, *args, **kwargs):
        calls[0] += 1
        return triples(self, *args, **kwargs)

    Memory.triples = counted
    try:
        yield calls
    finally:
        Memory.triples = triples


def _s020_lookups(copies: int) -> int:
    """Triple lookups S020's SPARQL makes for one root Question in a capture of ``copies``
    GraphRAG and Document RAG traces (the examples under fresh ids)."""
    from rdflib import Literal, Namespace
    from rdflib.plugins.sparql import prepareQuery
    from tgtrace.ground.resources import shapes_graph
    from tgtrace.inputs.loaders import from_bytes
    from tgtrace.shacl import reference as shacl

    examples = [(EXAMPLES / name).read_text() for name in ("graph-rag.nq", "document-rag.nq")]
    text = "".join(example.replace("urn:trustgraph:", f"urn:trustgraph:copy{i}:")
                   for i in range(copies) for example in examples)
    graph = from_bytes("capture.nq", text.encode()).graph()
    converter = shacl.ToRdflib()
    for s, p, o in graph.triples():
        converter.add(s, p, o)
    sh = Namespace("http://www.w3.org/ns/shacl#")
    shapes = shapes_graph()
    validator = shapes.value(URIRef("https://trustgraph.ai/lint#ConsistentTraceModelConstraintComponent"),
                             sh.nodeValidator)
    prefixes = {str(p): URIRef(str(n)) for p, n in shapes.namespaces()}
    query = prepareQuery(str(shapes.value(validator, sh.select)), initNs=prefixes)
    root = converter.term(graph.roots()[0])
    with _counted_lookups() as calls, indexed_transitive_paths():
        list(converter.graph.query(query, initBindings={"this": root, "consistentTraceModel": Literal(True)}))
    return calls[0]


def test_trace_model_sparql_reads_one_trace_not_the_capture():
    # S020 once matched its signals over the whole graph for every root Question (quadratic:
    # 390 s at 100k triples); it must read the same triples for a root however large the capture.
    assert _s020_lookups(2) == _s020_lookups(20)


TGL = "https://trustgraph.ai/lint#"
STEP = URIRef(TG + "stepNumber")


def _iteration_order_query():
    """C004's SPARQL (the iteration-order validator) as written in the shapes, and its prefixes."""
    from rdflib import Namespace
    from tgtrace.ground.resources import shapes_graph

    sh = Namespace("http://www.w3.org/ns/shacl#")
    shapes = shapes_graph()
    validator = shapes.value(URIRef(TGL + "IterationOrderConstraintComponent"), sh.validator)
    return str(shapes.value(validator, sh.ask)), {str(p): URIRef(str(n)) for p, n in shapes.namespaces()}


def _ask_as_the_reference_engine(graph, text, prefixes, bindings) -> bool:
    with each_query_parsed_once(), indexed_transitive_paths():
        return bool(graph.query(text, initNs=prefixes, initBindings=bindings).askAnswer)


def _c004_lookups(generate, iterations: int) -> int:
    """Triple lookups C004's SPARQL makes, as the reference engine runs it, for the last Analysis
    of a ReAct loop of ``iterations`` from the real emitter."""
    from rdflib import Literal
    from rdflib.namespace import RDF
    from tgtrace.inputs.loaders import from_bytes
    from tgtrace.shacl import reference as shacl

    trace = generate.to_nquads(generate.build_orchestrator_react(seed=f"loop{iterations}", n_iterations=iterations))
    converter = shacl.ToRdflib()
    for s, p, o in from_bytes("loop.nq", trace).graph().triples():
        converter.add(s, p, o)
    graph = converter.graph
    last = max(graph.subjects(RDF.type, URIRef(TG + "Analysis")), key=lambda a: int(graph.value(a, STEP)))
    assert int(graph.value(last, STEP)) == iterations
    text, prefixes = _iteration_order_query()
    with _counted_lookups() as calls:
        for value in graph.objects(last, URIRef(DERIVED)):
            assert _ask_as_the_reference_engine(graph, text, prefixes, {
                "this": last, "value": value, "iterationOrder": Literal(True)})  # in order
    return calls[0]


def test_iteration_order_sparql_reads_the_last_iteration_not_the_loop(monkeypatch):
    # C004 finds the nearest Analysis above an Observation; listing every ancestor for it made the
    # reference engine cubic in the loop's length (400 iterations took 7 minutes).
    pytest.importorskip("trustgraph.provenance", reason="needs the emitter (trustgraph-base)", exc_type=ImportError)
    monkeypatch.syspath_prepend(str(EXAMPLES.parent))
    import importlib

    generate = importlib.import_module("examples.generate")
    assert _c004_lookups(generate, 20) == _c004_lookups(generate, 400)


KINDS = [None, "Analysis", "Observation", "Question"]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(KINDS), st.sampled_from(KINDS), st.integers(0, 3)), min_size=1, max_size=7),
       st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6)), max_size=12))
def test_iteration_order_verdicts_are_rdflibs(nodes, links):
    # The reference engine walks C004's "nearest Analysis" only up to the nearest Analyses; on any
    # graph (branches, cycles, an Observation that is also an Analysis) its verdicts are rdflib's own.
    from rdflib import Literal
    from rdflib.namespace import RDF

    graph = Graph()
    names = [URIRef(f"urn:n{i}") for i in range(len(nodes))]
    for name, (kind, also, step) in zip(names, nodes):
        for k in {kind, also} - {None}:
            graph.add((name, RDF.type, URIRef(TG + k)))
        if step:
            graph.add((name, STEP, Literal(step)))
    for s, o in links:
        if s < len(names) and o < len(names):
            graph.add((names[s], URIRef(DERIVED), names[o]))
    text, prefixes = _iteration_order_query()
    for this, value in graph.subject_objects(URIRef(DERIVED)):
        bindings = {"this": this, "value": value, "iterationOrder": Literal(True)}
        expected = bool(graph.query(text, initNs=prefixes, initBindings=bindings).askAnswer)
        assert _ask_as_the_reference_engine(graph, text, prefixes, bindings) == expected
