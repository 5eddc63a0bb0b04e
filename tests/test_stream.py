"""Explain streams are linted trace by trace: same findings as the whole file, bounded memory."""

import json
import re

import tgtrace
from conftest import EXAMPLES
from tgtrace.api import lint_input
from tgtrace.inputs.loaders import load

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
ANSWER = "https://trustgraph.ai/ns/Answer"


def interleaved_stream(copies: int, faulty: set[int]) -> list[str]:
    """Copies of the bundled capture with fresh ids, their events interleaved round-robin."""
    events = (EXAMPLES / "explain-stream.jsonl").read_text().splitlines()
    streams = []
    for k in range(copies):
        renamed = [UUID.sub(lambda m: m.group(0)[:-6] + f"{k:06d}", line) for line in events]  # noqa: B023 (called within the iteration)
        if k in faulty:
            last = json.loads(renamed[-1])  # the agent's Conclusion
            last["explain_triples"] = [t for t in last["explain_triples"] if t["o"].get("i") != ANSWER]
            renamed[-1] = json.dumps(last)
        streams.append(renamed)
    return [stream[i] for i in range(len(events)) for stream in streams]


def write(tmp_path, lines):
    path = tmp_path / "capture.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_stream_findings_equal_whole_file_findings(tmp_path):
    path = write(tmp_path, interleaved_stream(12, faulty={3, 7}))
    streamed = tgtrace.lint(path, fail_on="never")
    whole = tgtrace.lint(path, engine="shacl", fail_on="never")  # the reference reads the whole file at once
    assert {(f.rule, f.focus, f.line) for f in streamed} == {(f.rule, f.focus, f.line) for f in whole}
    assert {f.rule for f in streamed} == {"M001"}
    assert len([f for f in streamed if f.rule == "M001"]) == 2
    assert len(streamed.traces) == 24


def test_stream_holds_only_open_traces(tmp_path):
    copies = 40
    path = write(tmp_path, interleaved_stream(copies, faulty=set()))
    results = list(lint_input(load(path)[0]))
    count = sum(r.triples for r in results)
    assert not any(r.findings for r in results) and sum(len(r.traces) for r in results) == 2 * copies
    # Round-robin interleaving keeps every copy open until its last event, so the peak is
    # the open traces' size; sequential copies hold one trace pair at a time.
    assert results[-1].extra["peak_triples_held"] <= count
    sequential = write(tmp_path, _sequential(copies))
    results = list(lint_input(load(sequential)[0]))
    count = sum(r.triples for r in results)
    assert results[-1].extra["peak_triples_held"] * 10 < count


def _sequential(copies: int) -> list[str]:
    events = (EXAMPLES / "explain-stream.jsonl").read_text().splitlines()
    return [UUID.sub(lambda m: m.group(0)[:-6] + f"{k:06d}", line) for k in range(copies) for line in events]  # noqa: B023 (called within the iteration)


def test_stream_error_names_the_line(tmp_path):
    lines = interleaved_stream(1, set())
    lines.insert(3, '{"message_type": "explain", "explain_triples": [{"s": {"t": "i", "i": "urn:x"}}]}')
    path = write(tmp_path, lines)
    try:
        tgtrace.lint(path)
    except Exception as exc:  # InputError
        assert str(exc).startswith(f"{path}:4: ")
        assert "missing" in str(exc)
    else:
        raise AssertionError("a broken event must be reported")


def test_a_stream_delivered_twice_is_linted_as_once(tmp_path):
    # Every trace is released at its answer and remembered packed; the second delivery of each event
    # is told from a new one against the packed trace, and adds nothing.
    events = len((EXAMPLES / "explain-stream.jsonl").read_text().splitlines())
    once = _sequential(6)
    last = json.loads(once[3 * events - 1])  # the fourth copy's Conclusion, not an Answer: a finding
    last["explain_triples"] = [t for t in last["explain_triples"] if t["o"].get("i") != ANSWER]
    once[3 * events - 1] = json.dumps(last)
    single = tgtrace.lint(write(tmp_path, once), fail_on="never")
    twice = tgtrace.lint(write(tmp_path, once + once), fail_on="never")
    assert single.findings and len(twice.traces) == len(single.traces)
    assert [(f.rule, f.focus, f.line) for f in twice] == [(f.rule, f.focus, f.line) for f in single]


def test_a_remembered_trace_is_unpacked_as_it_was_held():
    import pyoxigraph as ox
    from tgtrace.inputs.stream import Component, Remembered, StreamLinter

    blank, s, p = ox.BlankNode("b0"), ox.NamedNode("urn:s"), ox.NamedNode("urn:p")
    quads = [ox.Quad(blank, p, ox.Triple(s, p, ox.Literal("line\u2028two\n\"quoted\"", language="en"))),
             ox.Quad(s, p, blank, ox.NamedNode("urn:graph:retrieval")),
             ox.Quad(s, p, ox.Literal("7", datatype=ox.NamedNode("http://www.w3.org/2001/XMLSchema#integer")))]
    held = Component()
    for line, quad in enumerate(quads, start=3):
        held.quads[quad] = None
        held.lines[(quad.subject, quad.predicate, quad.object)] = line
    held.nodes = {"urn:s"}
    linter = StreamLinter()
    back = linter._unpack(Remembered(held, linter._line_of))
    assert list(back.quads) == quads and back.lines == held.lines and back.nodes == held.nodes


def test_redeliveries_alternating_between_remembered_traces_unpack_none(tmp_path, monkeypatch):
    # A peer redelivering the events of two released traces in turn: each repeated quad is told
    # from the trace's digests, never by unpacking it (which cost a decompression per event, a
    # quadratic day for two large traces).
    from tgtrace.inputs import stream

    events = len((EXAMPLES / "explain-stream.jsonl").read_text().splitlines())
    once = _sequential(2)
    single = tgtrace.lint(write(tmp_path, once), fail_on="never")
    unpacked = []
    quads = stream.Remembered.quads
    monkeypatch.setattr(stream.Remembered, "quads", lambda self: unpacked.append(self) or quads(self))
    alternating = [line for i in range(events) for line in (once[i], once[events + i])] * 3
    again = tgtrace.lint(write(tmp_path, once + alternating), fail_on="never")
    assert unpacked == []
    assert [(f.rule, f.focus, f.line) for f in again] == [(f.rule, f.focus, f.line) for f in single]


def test_a_remembered_trace_holds_exactly_its_quads():
    import pyoxigraph as ox
    from tgtrace.inputs.stream import Component, Remembered, StreamLinter

    s, p, g = ox.NamedNode("urn:s"), ox.NamedNode("urn:p"), ox.NamedNode("urn:graph:retrieval")
    integer = ox.NamedNode("http://www.w3.org/2001/XMLSchema#integer")
    quads = [ox.Quad(ox.BlankNode("b0"), p, ox.Triple(s, p, ox.Literal("two\n\"q\"", language="en"))),
             ox.Quad(s, p, ox.Literal("7", datatype=integer), g), ox.Quad(s, p, s)]
    others = [ox.Quad(ox.BlankNode("b1"), p, ox.Triple(s, p, ox.Literal("two\n\"q\"", language="en"))),
              ox.Quad(s, p, ox.Literal("7", datatype=integer)), ox.Quad(s, p, ox.Literal("7"), g),
              ox.Quad(s, p, ox.Literal("07", datatype=integer), g), ox.Quad(s, p, s, g), ox.Quad(p, p, s)]
    held = Component()
    for quad in quads:
        held.quads[quad] = None
    remembered = Remembered(held, StreamLinter()._line_of)
    assert all(remembered.holds(quad) for quad in quads)
    assert not any(remembered.holds(quad) for quad in others)
