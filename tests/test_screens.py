"""A screen names every node that can fail: the backward walk the default engine screens with
(the nodes whose path reaches a target, found from the targets through the graph's indexes) finds
exactly the nodes whose path, walked forwards node by node as SHACL defines it, reaches a target.
A node the walk missed would be a fault never looked at: a silent pass.

Random derivation graphs (prov:wasDerivedFrom, prov:wasGeneratedBy, cycles and shared parents
included) and random paths of the kinds the packaged shapes screen with: predicates, inverse
predicates, alternatives, sequences and runs of one optional step (an Exploration's Question two
or three steps up).
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from tgtrace.ground.graph import TraceGraph
from tgtrace.ground.namespaces import PROV
from tgtrace.shacl.fast import _path_values, _reached_backwards
from tgtrace.shacl.shapes import Path

DERIVED, GENERATED = PROV + "wasDerivedFrom", PROV + "wasGeneratedBy"
NODES = [f"urn:test:{n}" for n in range(12)]

predicates = st.sampled_from([Path("pred", DERIVED), Path("pred", GENERATED)])
steps = st.one_of(predicates, st.builds(lambda p: Path("inverse", p), predicates),
                  st.builds(lambda a, b: Path("alt", (a, b)), predicates, predicates))


@st.composite
def paths(draw: st.DrawFn) -> Path:
    first = draw(steps)
    optional = draw(st.one_of(steps, st.builds(lambda a, b: Path("alt", (a, b)), steps, steps)))
    tail = [Path("zeroOrOne", optional)] * draw(st.integers(0, 4))
    middle = draw(st.lists(st.one_of(steps, st.builds(lambda p: Path("zeroOrOne", p), steps)), max_size=2))
    return Path("seq", (first, *middle, *tail)) if middle or tail else first


edges = st.lists(st.tuples(st.sampled_from(NODES), st.sampled_from([DERIVED, GENERATED]), st.sampled_from(NODES)),
                 max_size=30)


@settings(max_examples=300, deadline=None)
@given(edges, paths(), st.sets(st.sampled_from(NODES), min_size=1))
def test_the_backward_walk_finds_what_the_forward_walk_reaches(links: list, path: Path, targets: set) -> None:
    graph = TraceGraph()
    for node in NODES:
        graph.add(node, PROV + "value", "urn:test:value")  # every node a subject, linked or not
    for subject, predicate, value in links:
        graph.add(subject, predicate, value)
    reached = _reached_backwards(graph, path, set(targets))
    assert reached is not None
    expected = {node for node in NODES if targets & set(_path_values(graph, path, node))}
    assert reached & set(NODES) == expected
