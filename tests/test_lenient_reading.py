"""N-Quads and N-Triples are read leniently and checked afterwards: the verdict is the strict one.

The lenient parser skips what ``tgtrace/inputs/lenient.py`` lists. Each real example is mutated
systematically, every IRI and literal of its lines with every defect only the strict parser
catches (and with valid terms that look like them), and by hypothesis at random places: reading
it as ``tg-trace`` does must give the graph, or the one-line refusal (file, line, message), that
reading it strictly gives.
"""

from __future__ import annotations

import dataclasses
import re

import pytest
from conftest import EXAMPLES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tgtrace.inputs import base
from tgtrace.inputs.base import Input
from tgtrace.inputs.lenient import escapes_surrogates
from tgtrace.inputs.loaders import InputError, from_bytes, from_path
from tgtrace.run.lint import capture_graph

LANG_STRING = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"
EXAMPLE_QUADS = sorted(EXAMPLES.glob("*.nq"))
IRI = re.compile(rb"<[^<>\s]*>")  # not the << of a triple term
LITERAL = re.compile(rb'"(?:[^"\\\n]|\\.)*"')

# What a term becomes: (name, replacement for an IRI token, replacement for a literal token).
IRI_DEFECTS = {
    "space": lambda iri: iri[:-1] + b" x>",
    "relative": lambda iri: b"<relative/path>",
    "bad percent": lambda iri: iri[:-1] + b"%zz>",
    "bad port": lambda iri: b"<http://example.org:80a/x>",
    "brace": lambda iri: iri[:-1] + b"{x}>",
    "surrogate pair escape": lambda iri: iri[:-1] + b"\\uD83D\\uDE00>",
    "raw line break": lambda iri: iri[:-1] + b"\nx>",
    # Valid, though they look like the defects: each must be read, not refused.
    "percent escape": lambda iri: iri[:-1] + b"%41>",
    "u escape": lambda iri: iri[:-1] + b"\\u00e9>",
    "astral escape": lambda iri: iri[:-1] + b"\\U0001F600>",
    "astral character": lambda iri: iri[:-1] + "\U0001f600".encode() + b">",
}
LITERAL_DEFECTS = {
    "raw line break": lambda lit: lit[:-1] + b"\nmore\"",
    "raw carriage return": lambda lit: lit[:-1] + b"\rmore\"",
    "surrogate pair escape": lambda lit: lit[:-1] + b"\\uD83D\\uDE00\"",
    "bad language": lambda lit: lit + b"@123",
    "too long a language": lambda lit: lit + b"@toolonglanguage",
    "langString without a language": lambda lit: lit + b"^^<" + LANG_STRING.encode() + b">",
    "datatype no IRI": lambda lit: lit + b"^^<not an iri>",
    "relative datatype": lambda lit: lit + b"^^<integer>",
    # Valid.
    "escaped line break": lambda lit: lit[:-1] + b"\\nmore\\r\"",
    "language": lambda lit: lit + b"@en-GB",
    "upper-case language": lambda lit: lit + b"@EN",
    "datatype": lambda lit: lit + b"^^<http://www.w3.org/2001/XMLSchema#integer>",
    "astral character": lambda lit: lit[:-1] + "\U0001f600".encode() + b"\"",
    "astral escape": lambda lit: lit[:-1] + b"\\U0001F600\"",
}


def strictly(item: Input) -> Input:
    return dataclasses.replace(item, _lenient_quads=None)


def outcome(read) -> tuple:
    """What a user gets from reading: the graph's statements, or the one-line refusal."""
    try:
        graph = read()
    except InputError as exc:
        return ("refused", str(exc))
    return ("read", graph.statements, {s: {p: list(v) for p, v in props.items()} for s, props in graph.index.items()})


def assert_read_as_strictly(item: Input) -> None:
    assert item.lenient_quads() is not None, "read leniently"
    assert outcome(item.graph) == outcome(strictly(item).graph)


def mutations(data: bytes) -> list[tuple[str, bytes]]:
    """Each defect in each place a term takes in the lines of a trace (the subject, predicate,
    object or graph name of a quad, a term inside a triple term, a literal), once per place and
    shape of line."""
    lines = data.split(b"\n")
    found, places = [], set()
    for number, line in enumerate(lines):
        for pattern, defects in ((IRI, IRI_DEFECTS), (LITERAL, LITERAL_DEFECTS)):
            tokens = list(pattern.finditer(line))
            for index, token in enumerate(tokens):
                place = (pattern.pattern, index, len(tokens), b"<<(" in line, b'"' in line)
                if place in places:
                    continue
                places.add(place)
                for name, defect in defects.items():
                    changed = line[:token.start()] + defect(token.group()) + line[token.end():]
                    found.append((f"line {number + 1} {token.group()[:40]!r}: {name}",
                                  b"\n".join([*lines[:number], changed, *lines[number + 1:]])))
    return found


@pytest.mark.parametrize("example", EXAMPLE_QUADS, ids=lambda p: p.name)
def test_every_real_example_is_read_leniently_without_a_second_reading(example, monkeypatch):
    read_again = []
    monkeypatch.setattr(base, "_read_strictly", read_again.append)
    item = from_path(example)
    assert_read_as_strictly(item)
    with_progress = from_path(example)  # a run with a progress bar reads through a counting reader
    reported: list[int] = []
    with_progress.progress = reported.append
    assert_read_as_strictly(with_progress)
    assert reported[-1] == example.stat().st_size
    assert read_again == []


@pytest.mark.parametrize("example", EXAMPLE_QUADS, ids=lambda p: p.name)
def test_every_term_of_real_traces_with_each_defect_reads_as_strictly(example, tmp_path):
    cases = mutations(example.read_bytes())
    assert len(cases) > 40
    path = tmp_path / "mutated.nq"
    for case, data in cases:
        path.write_bytes(data)
        from_file, in_memory = from_path(path), from_bytes(str(path), data, "nquads")
        for item in (from_file, in_memory):
            assert item.lenient_quads() is not None
            assert outcome(item.graph) == outcome(strictly(item).graph), case


def test_a_refusal_names_the_line_the_strict_parser_names(tmp_path):
    lines = (EXAMPLES / "graph-rag.nq").read_bytes().split(b"\n")
    lines[6] = lines[6].replace(b"<urn:graph:retrieval>", b"<urn:graph:re trieval>")
    path = tmp_path / "bad-graph-name.nq"
    path.write_bytes(b"\n".join(lines))
    with pytest.raises(InputError) as refused:
        from_path(path).graph()
    assert refused.value.line == 7 and "Invalid IRI code point ' '" in str(refused.value)


def test_ntriples_too(tmp_path):
    data = re.sub(rb" <urn:graph:[a-z]+> \.$", b" .", (EXAMPLES / "graph-rag.nq").read_bytes(), flags=re.M)
    assert b"urn:graph:" not in data
    path = tmp_path / "trace.nt"
    for case, mutated in [("as emitted", data), *mutations(data)[::7]]:
        path.write_bytes(mutated)
        item = from_path(path)
        assert item.format == "ntriples", case
        assert_read_as_strictly(item)


def test_a_capture_refuses_its_first_bad_part_as_strict_reading_would(tmp_path):
    good = (EXAMPLES / "graph-rag.nq").read_bytes()
    bad_iri = good.replace(b"<urn:graph:retrieval>", b"<urn graph>", 1)
    broken = good[: len(good) // 2] + b"<no end"
    empty = b"# nothing\n"
    paths = []
    for name, data in (("1-bad-iri.nq", bad_iri), ("2-broken.nq", broken), ("3-empty.nq", empty)):
        paths.append(tmp_path / name)
        paths[-1].write_bytes(data)
    for parts in ([0, 1], [0, 2], [1, 0], [2, 0]):
        items = [from_path(paths[i]) for i in parts]
        assert outcome(lambda items=items: capture_graph(items)) == \
            outcome(lambda items=items: capture_graph([strictly(i) for i in items])), parts
        with pytest.raises(InputError) as refused:
            capture_graph(items)
        assert refused.value.name == str(paths[parts[0]])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(example=st.sampled_from(EXAMPLE_QUADS), where=st.floats(0, 1),
       insert=st.lists(st.sampled_from(
           [" ", "%", "%4", "\n", "\r", '"', "\\u", "\\uD800", "\\uDE00", "D83D", "@", "@en", "^^", "<", ">", "#",
            ":", "{", "é", "\U0001f600", "\\U0001F600", "_:", "<<(", ")>>", "--ltr", "langString", "\\"]),
           min_size=1, max_size=4).map("".join))
def test_any_insertion_into_a_real_trace_reads_as_strictly(example, where, insert):
    data = example.read_bytes()
    at = int(where * len(data))
    item = from_bytes(example.name, data[:at] + insert.encode() + data[at:], "nquads")
    assert_read_as_strictly(item)


def test_a_character_beyond_the_bmp_is_looked_up_in_the_bytes(tmp_path, monkeypatch):
    # Written raw or as a \U escape, it is read once; written as a surrogate pair, the input is
    # read again strictly (and refused); bytes that cannot be looked at count as such a pair.
    read_again = []
    original = base._read_strictly
    monkeypatch.setattr(base, "_read_strictly", lambda item: (read_again.append(item.name), original(item)))
    for name, literal in (("raw", "\U0001f600".encode()), ("escape", b"\\U0001F600"), ("pair", b"\\uD83D\\uDE00")):
        path = tmp_path / f"{name}.nq"
        path.write_bytes(b'<http://a/s> <http://a/p> "' + literal + b'" .\n')
        assert_read_as_strictly(from_path(path))
    assert read_again == [str(tmp_path / "pair.nq")]
    assert escapes_surrogates(tmp_path / "missing.nq") and escapes_surrogates(None)
