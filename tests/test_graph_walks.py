"""The trace graph's whole-graph walks against their definitions, on random graphs: the nodes on
derivation cycles, the kinds of node, and which trace each node belongs to."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from tgtrace.ground.graph import DERIVED, GENERATED, RDF_TYPE, TraceGraph
from tgtrace.tracemodel.traces import OWNING, QUESTION, TRUSTGRAPH

NODES = [f"urn:n{i}" for i in range(9)]
LINKS = [DERIVED, DERIVED, DERIVED, GENERATED, *sorted(OWNING)]

triples = st.lists(st.tuples(st.sampled_from(NODES), st.sampled_from(LINKS), st.sampled_from(NODES)), max_size=18)
questions = st.sets(st.sampled_from(NODES), max_size=4)


def _graph(links, asked) -> TraceGraph:
    graph = TraceGraph(model=TRUSTGRAPH)
    for s, p, o in links:
        graph.add(s, p, o)
    for q in sorted(asked):
        graph.add(q, RDF_TYPE, QUESTION)
    return graph


def _reach(start, step) -> set:
    seen, stack = set(), list(step(start))
    while stack:
        node = stack.pop()
        if node not in seen:
            seen.add(node)
            stack.extend(step(node))
    return seen


@settings(max_examples=400, deadline=None)
@given(triples, questions)
def test_nodes_on_cycles_are_those_that_reach_themselves(links, asked):
    graph = _graph(links, asked)
    parents = lambda node: graph.values(node, DERIVED)  # noqa: E731
    assert graph.on_cycles() == {n for n in graph.out if n in _reach(n, parents)}


@settings(max_examples=200, deadline=None)
@given(triples, questions)
def test_kinds_hold_every_node_once_with_its_types_and_predicates(links, asked):
    graph = _graph(links, asked)
    seen = []
    for (kinds, predicates), nodes in graph.kinds().items():
        for node in nodes:
            assert kinds == frozenset(graph.types_of(node)) and predicates == tuple(graph.out[node])
        seen += nodes
    assert sorted(seen) == sorted(graph.out)


@settings(max_examples=400, deadline=None)
@given(triples, questions)
def test_each_node_belongs_to_the_first_root_above_it(links, asked):
    graph = _graph(links, asked)

    def below(node):  # what hangs under a node: what derives from it, what it owns or generated
        yield from graph.children(node)
        for predicate in sorted(OWNING):
            yield from graph.values(node, predicate)
        yield from graph.subjects(GENERATED, node)

    def above(node):
        return graph.values(node, DERIVED)

    questions_ = graph.heads
    roots = sorted(q for q in questions_ if not (_reach(q, above) & questions_))
    # A derivation cycle of Questions with no root above it is a trace of its own, named by
    # its first Question.
    expected: dict = {}
    for root in roots:
        for node in [root, *_reach(root, below)]:
            expected.setdefault(node, root)
    for question in sorted(questions_):
        if question not in expected:
            roots.append(question)
            for node in [question, *_reach(question, below)]:
                expected.setdefault(node, question)
    assert graph.roots() == sorted(roots)
    assert graph.trace_members() == expected


@settings(max_examples=100, deadline=None)
@given(triples, questions)
def test_a_graph_without_a_trace_model_has_no_traces_and_no_owners(links, asked):
    plain = TraceGraph()
    for s, p, o in links:
        plain.add(s, p, o)
    for q in sorted(asked):
        plain.add(q, RDF_TYPE, QUESTION)
    assert plain.roots() == [] and plain.trace_members() == {} and not plain.owners
    # The index and the derivation walks are the same with or without one.
    modelled = _graph(links, asked)
    assert plain.out == modelled.out and plain.on_cycles() == modelled.on_cycles()
