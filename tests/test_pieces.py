"""Pieces of traces read in ranges are joined where they meet, and what the client gathers to
join them grows with the pieces and what crosses ranges, not with the entities."""

from __future__ import annotations

import pickle
from pathlib import Path

import pyoxigraph as ox
import pytest
from capture_support import corpus, cut
from conftest import EXAMPLES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tgtrace.cluster import lint as cluster
from tgtrace.cluster import ranges
from tgtrace.cluster.pieces import join, keys, meet, split
from tgtrace.ground.graph import TraceGraph
from tgtrace.inputs.loaders import InputError
from tgtrace.run.settings import Settings
from tgtrace.tracemodel.traces import TRUSTGRAPH

try:
    import distributed
except ImportError:  # the cluster extra is not installed: the joins are still tested
    distributed = None


def pieces_of(text: str) -> list:
    """The pieces of a range given as N-Triples text, read into a graph as a range task reads it."""
    graph = TraceGraph(model=TRUSTGRAPH)
    graph.add_quads(ox.parse(text, format=ox.RdfFormat.N_TRIPLES))
    return split(graph)


def groups_of(ranges: list[str], partitions: int) -> list[list[str]]:
    """The subjects of each joined group, the ranges given as N-Triples text."""
    pieces = [pieces_of(text) for text in ranges]
    dealt = [keys(p, partitions) for p in pieces]
    edges = [meet([d[partition] for d in dealt]) for partition in range(partitions)]
    grouped: dict = {}
    for piece, group in zip([(r, p) for r, range_pieces in enumerate(pieces) for p in range_pieces],
                            join([len(p) for p in pieces], edges)):
        grouped.setdefault(group, []).append(piece)
    return sorted(sorted({node for _, p in members for node in p.nodes}) for members in grouped.values())


@pytest.mark.parametrize("partitions", [1, 3])
def test_pieces_join_on_a_shared_subject_or_a_link_to_a_subject(partitions: int):
    found = groups_of([
        "<urn:a> <urn:p> <urn:b> .\n<urn:b> <urn:q> \"1\" .\n<urn:e> <urn:p> <urn:doc> .\n",
        # b is a subject here too, though nothing here links to it: one entity cut by a range.
        "<urn:b> <urn:r> \"2\" .\n<urn:c> <urn:q> \"3\" .\n",
        # d links to a, a subject of the first range; f and e only share a node no range describes.
        "<urn:d> <urn:p> <urn:a> .\n<urn:f> <urn:p> <urn:doc> .\n",
    ], partitions)
    assert found == [["urn:a", "urn:b", "urn:d"], ["urn:c"], ["urn:e"], ["urn:f"]]


@pytest.mark.skipif(distributed is None, reason="needs the cluster extra")
def test_the_client_gathers_far_less_than_a_hash_per_subject(tmp_path: Path):
    source = corpus(10_000, tmp_path)
    subjects = len({line.split(b" ", 1)[0] for line in source.read_bytes().splitlines() if line.strip()})
    parts = cut(source, tmp_path, parts=2, seed=3)
    stats: dict = {}
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as local, distributed.Client(local) as client:
        cluster.lint(*(str(p) for p, _ in parts), settings=Settings(one_capture=True, fail_on=None),
                     client=client, chunk=1 << 30, stats=stats)
    assert stats["ranges"] == 2
    # A piece is its size (4 bytes) plus the edges to pieces it meets in the other range (16 bytes
    # each, fewer than the pieces); the client once held 8 bytes for each subject.
    assert stats["summary_bytes"] * 4 < 8 * subjects
    # The subjects' hashes did travel, but between workers.
    assert stats["keys_bytes"] >= 8 * subjects


@pytest.mark.parametrize("text, lines", [
    (b"<urn:a> <urn:p> <urn:b> .\n_:b <urn:p> \"1\" .\n<urn:c> <urn:p> <urn:a> .\n", [1, 2, 3]),
    # A comment, a blank line and an indented statement: each quad keeps its own line.
    (b"# head\n<urn:a> <urn:p> <urn:b> .\n\n  _:b <urn:p> \"1\" .\n<urn:c> <urn:p> <urn:a> .", [2, 4, 5]),
    # A comment between two statements, and no newline at the end.
    (b"<urn:a> <urn:p> <urn:b> .\n#\n_:b <urn:p> \"1\" .", [1, 3]),
])
def test_a_range_knows_the_line_of_each_quad(text: bytes, lines: list[int], tmp_path: Path):
    path = tmp_path / "part.nq"
    path.write_bytes(text)
    given: list = []
    got = ranges.read(ranges.Range(str(path), 0, 0, len(text), "nquads"), str(path), _collect(given))
    assert got.error is None
    assert list(got.lines) == lines
    expected = list(ox.parse(text, format=ox.RdfFormat.N_QUADS))
    # Given to the graph as they were parsed; kept as the range's lines, read again when asked for.
    assert given == expected
    assert list(got.quads) == expected
    everything = got.text(range(len(lines)))
    assert list(ox.parse(everything, format=ox.RdfFormat.N_QUADS)) == expected
    assert list(ox.parse(got.text([len(lines) - 1, 0]), format=ox.RdfFormat.N_QUADS)) == [expected[-1], expected[0]]
    # A worker that lost its own copy fetches the range from the one that read it, pickled.
    moved = pickle.loads(pickle.dumps(got))
    assert list(moved.quads) == expected and list(moved.lines) == lines


def _collect(into: list):
    """A consumer of a range's quads, as a graph's add_quads is: keeps them, says how many it was given."""
    def take(quads) -> int:
        before = len(into)
        into.extend(quads)
        return len(into) - before
    return take


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(st.binary(max_size=40).map(lambda b: b.replace(b"\n", b"")), min_size=1, max_size=40),
       final_newline=st.booleans(), start=st.integers(0, 20))
def test_a_range_reads_each_line_as_written_held_or_released(lines, final_newline, start, tmp_path: Path,
                                                             monkeypatch):
    """Lines are found through a count of newlines per page, and a released range reads its
    pages again from the input: pages and blocks as small as a few lines, so that lines cross them."""
    monkeypatch.setattr(ranges, "_PAGE", 16)
    monkeypatch.setattr(ranges, "_BLOCK", 64)
    data = b"\n".join(lines) + (b"\n" if final_newline else b"")
    if not data:
        return
    want = data.split(b"\n")
    count = data.count(b"\n") + (0 if data.endswith(b"\n") else 1)
    path = tmp_path / "input.nq"
    path.write_bytes(b"x" * start + data)
    text = ranges.RangeText(data, ranges.Range(str(path), 0, start, start + len(data), "nquads"), str(path), start,
                            ranges.newlines_by_page(data))
    assert [text.line(n) for n in range(1, count + 1)] == want[:count]
    text.release()
    assert text.data is None
    with text.held():
        assert [text.line(n) for n in reversed(range(1, count + 1))] == want[:count][::-1]


def test_two_statements_on_one_line_are_an_input_error(tmp_path: Path):
    """A range whose quads are as many as its lines has one on each line (counted, not scanned),
    because the parser refuses a second statement on a line."""
    text = b"<urn:a> <urn:p> <urn:b> . <urn:b> <urn:p> \"1\" .\n\n"
    path = tmp_path / "part.nq"
    path.write_bytes(text)
    got = ranges.read(ranges.Range(str(path), 0, 0, len(text), "nquads"), str(path), _collect([]))
    assert got.error is not None and got.error[0] == 1


def broadcast_of(texts: list[str], partitions: int = 2) -> set[str]:
    """The subjects the ranges (N-Triples text) would broadcast: eligible, then those whose
    descriptions link past the broadcast dropped until none does, as the cluster decides."""
    from tgtrace.cluster.pieces import eligible, escapes, hashes

    pieces = [pieces_of(text) for text in texts]
    dealt = [keys(p, partitions) for p in pieces]
    chosen = set().union(*(eligible([d[partition] for d in dealt])[0] for partition in range(partitions)))
    while chosen:
        leaving = set().union(*(escapes(p, frozenset(chosen))[0] for p in pieces))
        if not leaving:
            break
        chosen -= leaving
    subjects = {hashes([q.subject.value])[0]: q.subject.value for text in texts
                for q in ox.parse(text, format=ox.RdfFormat.N_TRIPLES)}
    return {subjects[h] for h in chosen}


TYPE = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"
DERIVED = "<http://www.w3.org/ns/prov#wasDerivedFrom>"
ASSOCIATED = "<http://www.w3.org/ns/prov#wasAssociatedWith>"


def test_a_description_several_ranges_repeat_is_broadcast_only_where_exact():
    trace = "<urn:{n}> {TYPE} <https://trustgraph.ai/ns/Question> .\n<urn:{n}> {ASSOCIATED} <urn:agent> .\n"
    agent = '<urn:agent> <http://www.w3.org/2000/01/rdf-schema#label> "agent" .\n'
    first, second = trace.format(n="q1", TYPE=TYPE, ASSOCIATED=ASSOCIATED), trace.format(
        n="q2", TYPE=TYPE, ASSOCIATED=ASSOCIATED)
    assert broadcast_of([first + agent, second + agent]) == {"urn:agent"}
    # Described in one range only: joined, as any entity.
    assert broadcast_of([first + agent, second]) == set()
    # Something derives from it: it is in a trace, and the walks read what derives from it.
    assert broadcast_of([first + agent, second + agent + f"<urn:step> {DERIVED} <urn:agent> .\n"]) == set()
    # It types itself with a TrustGraph class: a step of a trace.
    typed = f"<urn:agent> {TYPE} <https://trustgraph.ai/ns/Analysis> .\n"
    assert broadcast_of([first + agent + typed, second + agent]) == set()
    # It links to an entity described once: a forward read from it would miss that entity
    # elsewhere, so it is joined; an entity both ranges describe goes with it.
    linked = "<urn:agent> <urn:p> <urn:maker> .\n"
    maker = '<urn:maker> <http://www.w3.org/2000/01/rdf-schema#label> "maker" .\n'
    assert broadcast_of([first + agent + linked + maker, second + agent + linked]) == set()
    assert broadcast_of([first + agent + linked + maker, second + agent + linked + maker]) == {
        "urn:agent", "urn:maker"}


def test_a_description_is_uniform_where_every_range_states_the_same_triples():
    """The partitions that meet the ranges say which broadcast descriptions every range states
    alike, in any order and however often: only there may a range's results read its own."""
    from tgtrace.cluster.pieces import eligible, hashes

    agent = '<urn:agent> <http://www.w3.org/2000/01/rdf-schema#label> "agent" .\n'
    named = '<urn:agent> <urn:name> "A" .\n'
    trace = f"<urn:q{{n}}> {TYPE} <https://trustgraph.ai/ns/Question> .\n<urn:q{{n}}> {ASSOCIATED} <urn:agent> .\n"

    def met(*texts: str) -> tuple[set, set]:
        dealt = [keys(pieces_of(text), 1) for text in texts]
        found, alike = eligible([d[0] for d in dealt])
        return set(found), set(alike)

    h = hashes(["urn:agent"])[0]
    alike = met(trace.format(n=1) + agent + named, trace.format(n=2) + named + agent + agent)
    assert alike == ({h}, {h})
    differently = met(trace.format(n=1) + agent + named, trace.format(n=2) + agent, trace.format(n=3) + agent + named)
    assert differently == ({h}, set())


def test_the_rules_reach_decides_whether_descriptions_may_be_broadcast():
    import rdflib
    from tgtrace.api import packaged_engine
    from tgtrace.cluster.pieces import STRUCTURAL
    from tgtrace.shacl.core import CORE
    from tgtrace.shacl.fast import Engine

    assert packaged_engine(None).inverse_reach() <= STRUCTURAL
    prefixes = "@prefix sh: <http://www.w3.org/ns/shacl#> . @prefix ex: <urn:ex:> .\n"
    inverse = prefixes + "ex:s a sh:NodeShape ; sh:targetClass ex:C ; sh:property [ sh:path [ sh:inversePath " \
                         "<http://www.w3.org/ns/prov#wasAssociatedWith> ] ; sh:maxCount 1 ] ."
    reach = Engine.from_graph(rdflib.Graph().parse(data=inverse, format="turtle"), components=CORE).inverse_reach()
    assert "http://www.w3.org/ns/prov#wasAssociatedWith" in reach and not reach <= STRUCTURAL
    sparql = prefixes + 'ex:s a sh:NodeShape ; sh:targetClass ex:C ; sh:sparql [ sh:select "SELECT $this WHERE { }" ] .'
    assert Engine.from_graph(rdflib.Graph().parse(data=sparql, format="turtle"), components=CORE).inverse_reach() is None


@pytest.mark.parametrize(("example", "fmt"), [("supervisor.nq", "nquads"), ("explain-stream.jsonl", "jsonl")])
def test_a_parsed_range_can_move_to_another_worker(tmp_path: Path, monkeypatch, example: str, fmt: str):
    """When a worker is lost, the tasks of its ranges may run where another copy lies: a parsed
    range (its pieces and results, its text released, or its graph where it kept it) is pickled
    there and reads the same; what travels is read again from the input."""
    text = (EXAMPLES / example).read_bytes()
    path = tmp_path / example
    path.write_bytes(text)
    for listing in (False, True):
        parsed = cluster._parse(ranges.Range(str(path), 0, 0, len(text), fmt), [str(path)], Settings(), listing, 2, None)
        assert parsed.got.error is None and parsed.pieces and parsed.graph is None
        assert parsed.got.quads.data is None
        moved = pickle.loads(pickle.dumps(parsed))
        with moved.got.held(), parsed.got.held():  # the bytes are read again from the input
            assert [moved.text_of(p) for p in moved.pieces] == [parsed.text_of(p) for p in parsed.pieces]
        everything = set(range(len(parsed.pieces)))
        assert moved.linted.result(everything, 1) == parsed.linted.result(everything, 1)
        assert moved.rows == parsed.rows
    # A range whose results cannot be kept by piece (a finding on a node it does not describe,
    # from a contributor's rule) keeps its graph.
    monkeypatch.setattr(cluster, "check_parts", lambda *_: None)
    kept = cluster._parse(ranges.Range(str(path), 0, 0, len(text), fmt), [str(path)], Settings(), False, 2, None)
    assert kept.graph is not None and kept.linted is None
    assert pickle.loads(pickle.dumps(kept)).graph.out == kept.graph.out


def test_a_range_rewritten_after_it_was_read_is_an_input_error(tmp_path: Path):
    """A range keeps no text once linted: what travels is read again from its input, which must
    still hold what was linted; a rewritten input is an error, never another capture's seams."""
    text = (EXAMPLES / "supervisor.nq").read_bytes()
    path = tmp_path / "part.nq"
    path.write_bytes(text)
    parsed = cluster._parse(ranges.Range(str(path), 0, 0, len(text), "nquads"), [str(path)], Settings(), False, 2, None)
    assert parsed.got.quads.data is None
    path.write_bytes(text.replace(b"urn:trustgraph:", b"urn:trustgraph:x", 1))
    with pytest.raises(InputError, match="changed while it was being linted"), parsed.got.held():
        parsed.text_of(parsed.pieces[0])
    path.write_bytes(text)
    with parsed.got.held():
        assert parsed.text_of(parsed.pieces[0])[0]
    assert parsed.got.quads.data is None
