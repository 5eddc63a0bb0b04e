"""A finding about a predicate or an object of a Turtle, TriG or JSON-LD trace is placed on the
line and column where that statement's term is written, not where its subject starts: a real
example written in each syntax (by ``tg-trace convert`` and pyoxigraph's serialisers), broken
by hand, linted through the command line (text and SARIF) and the API."""

from __future__ import annotations

import json
import re

import pyoxigraph as ox
import pytest
import tgtrace
from formats_support import EXAMPLES, REACT, cli
from tgtrace.inputs import positions
from tgtrace.inputs.excerpt import excerpts

PREFIXES = {"tg": "https://trustgraph.ai/ns/", "prov": "http://www.w3.org/ns/prov#",
            "rdfs": "http://www.w3.org/2000/01/rdf-schema#"}


def _quads() -> list[ox.Quad]:
    return list(ox.parse(path=str(EXAMPLES / f"{REACT}.nq"), format=ox.RdfFormat.N_QUADS))


def _turtle(tmp_path) -> str:
    triples = [ox.Triple(q.subject, q.predicate, q.object) for q in _quads()]
    return ox.serialize(triples, format=ox.RdfFormat.TURTLE, prefixes=PREFIXES).decode()


def _trig(tmp_path) -> str:
    out = tmp_path / "converted.trig"
    code, _, err = cli("convert", "--to", "trig", "-o", str(out), str(EXAMPLES / f"{REACT}.nq"))
    assert code == 0, err
    return out.read_text()


def _jsonld(tmp_path) -> str:
    """Pretty-printed and compacted by hand, as a person may write it: the @context's prefixes
    stand for the namespaces, in keys and in @id values alike."""
    expanded = ox.serialize(_quads(), format=ox.RdfFormat.JSON_LD).decode()
    for prefix, namespace in PREFIXES.items():
        expanded = expanded.replace(f'"{namespace}', f'"{prefix}:')
    document = {"@context": dict(PREFIXES), "@graph": json.loads(expanded)}
    return json.dumps(document, indent=2)


def _jsonld_expanded(tmp_path) -> str:
    """As pyoxigraph writes it: full IRIs, every triple of the document on its one line."""
    return ox.serialize(_quads(), format=ox.RdfFormat.JSON_LD).decode()


SYNTAXES = {"turtle": (_turtle, ".ttl"), "trig": (_trig, ".trig"), "jsonld": (_jsonld, ".jsonld"),
            "jsonld-expanded": (_jsonld_expanded, ".jsonld")}
# (rule, what is written, what it is broken into, the token the finding must point at in each syntax)
BREAKS = {
    "predicate": ("V002", "terminationReason", "terminationReson",
                  {"turtle": "tg:terminationReson", "trig": "tg:terminationReson", "jsonld": '"tg:terminationReson"',
                   "jsonld-expanded": '"https://trustgraph.ai/ns/terminationReson"'}),
    "object": ("T001", '"final-answer"', '"final-answr"', dict.fromkeys(SYNTAXES, '"final-answr"')),
}


def _broken(tmp_path, syntax: str, what: str) -> tuple[str, int, int, int, str]:
    """The broken file's name, the line of the statement (its predicate's), the line and column
    (from 1) of the token at fault, and the token."""
    make, suffix = SYNTAXES[syntax]
    text = make(tmp_path)
    _, old, new, tokens = BREAKS[what]
    assert text.count(old) == 1, (syntax, old)
    text = text.replace(old, new)
    path = tmp_path / f"broken{suffix}"
    path.write_text(text)
    token = tokens[syntax]
    assert text.count(token) == 1
    before = text[:text.index(token)]
    predicate = re.search(r"terminationRea?son", text)
    assert predicate is not None
    statement = text.count("\n", 0, predicate.start()) + 1
    return path.name, statement, before.count("\n") + 1, len(before) - (before.rfind("\n") + 1) + 1, token


@pytest.fixture
def here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    return tmp_path


@pytest.mark.parametrize("what", list(BREAKS))
@pytest.mark.parametrize("syntax", list(SYNTAXES))
def test_the_command_line_points_at_the_statement(here, syntax, what):
    name, statement, line, column, spelled = _broken(here, syntax, what)
    code = BREAKS[what][0]
    exit_code, out, _ = cli("lint", "--no-config", "--select", code, name)
    assert exit_code == 1, out
    head = next(text for text in out.splitlines() if f": {code} " in text)
    assert f"{name}:{statement}: {code} " in head, (head, statement)
    # The line as written, and the marker under the term at fault.
    lines = out.splitlines()
    numbered = next(i for i, text in enumerate(lines) if re.match(rf"\s+{line} \| ", text))
    source, carets = lines[numbered], lines[numbered + 1]
    assert source[carets.index("^"):carets.index("^") + carets.count("^")] == spelled, out

    _, out, _ = cli("lint", "--no-config", "--select", code, "--format", "sarif", name)
    region = json.loads(out)["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]
    # A statement written over several lines (pretty-printed JSON-LD) is a region from its first.
    assert (region["startLine"], region["endLine"], region["endColumn"]) == (statement, line, column + len(spelled))
    assert region["startColumn"] == (column if line == statement else 1)


@pytest.mark.parametrize("what", list(BREAKS))
@pytest.mark.parametrize("syntax", list(SYNTAXES))
def test_the_api_gives_the_line_and_the_excerpt_the_column(here, syntax, what):
    name, statement, line, column, spelled = _broken(here, syntax, what)
    code = BREAKS[what][0]
    report = tgtrace.lint(name, select=[code])
    [finding] = report.findings
    assert finding.line == statement
    excerpt = excerpts(report.findings)[finding]
    number, text = excerpt.lines[-1]
    assert (number, excerpt.start + 1, excerpt.end + 1) == (line, column, column + len(spelled))
    assert text[excerpt.start:excerpt.end] == spelled


TRICKY = b'''@prefix : <http://e/> .
PREFIX x: <http://x/>
@base <http://base/> .
# a comment with "a quote", a <bracket and a ; and a ,
:s :p1 :o1 ;   # after ; a comment
   :p2 [ :q1 :r1 ;
         :q2 [ :z :w ] ] ,
       :o3 ;
   :p3 ( 1 [ :k :v ] 3 ) ;
   x:lit """two
lines "quoted" here""" , 'single' , "lang"@en-US , "typed"^^x:dt , -1.5e3 , true .
[ :a :b ] :c :d .
_:lab :g :h .
:s :p4 :o4 {| :src :x |} .
:s :p6 <<( :s3 :p7 :o7 )>> .
<rel> :p10 <other> .
x:esc\\-name x:a\\.b "\\u00e9t\\u00E9" .
:s a :Type .
'''


@pytest.mark.parametrize("subject, predicate, obj, line", [
    ("http://e/s", "http://e/p1", "http://e/o1", 5),
    ("http://e/s", "http://e/p2", "http://e/o3", 6),  # after a blank node's nested list, on the predicate's line
    (None, "http://e/z", "http://e/w", 7),  # inside a nested blank node
    ("http://e/s", "http://x/lit", ox.Literal("single"), 10),
    ("http://e/s", "http://x/lit", ox.Literal("typed", datatype=ox.NamedNode("http://x/dt")), 10),
    (None, "http://e/c", "http://e/d", 12),
    ("http://e/s", "http://e/p4", "http://e/o4", 14),
    (None, "http://e/src", "http://e/x", 14),  # an annotation's
    ("http://base/rel", "http://e/p10", "http://base/other", 16),  # relative IRIs, resolved against @base
    ("http://x/esc-name", "http://x/a.b", ox.Literal("été"), 17),  # escapes in names and strings
    ("http://e/s", "http://www.w3.org/1999/02/22-rdf-syntax-ns#type", "http://e/Type", 18),
])
def test_every_structure_of_turtle_is_followed(subject, predicate, obj, line):
    triples = list(ox.parse(TRICKY, format=ox.RdfFormat.TURTLE))
    want_object = ox.NamedNode(obj) if isinstance(obj, str) else obj
    triple = next(t for t in triples if t.predicate == ox.NamedNode(predicate) and t.object == want_object
                  and (subject is None or t.subject == ox.NamedNode(subject)))
    key = (triple.subject, triple.predicate, triple.object)
    assert positions.locate(TRICKY, "turtle", {key}) == {key: line}


def test_the_lines_come_from_the_statements_not_the_first_mention(here):
    """A subject written first as another's object (prov:wasDerivedFrom) has its line where it is
    a subject; and one IRI that starts another (``…/i1`` and ``…/i1/thought``) is not mistaken
    for it."""
    text = _turtle(here)
    triples = list(ox.parse(text.encode(), format=ox.RdfFormat.TURTLE))
    located = positions.locate(text.encode(), "turtle", {(t.subject, None, None) for t in triples})
    lines = text.splitlines()
    for (subject, _, _), line in located.items():
        assert lines[line - 1].startswith(f"<{subject.value}> "), (subject, line)


def test_a_clean_run_does_not_walk_the_text(here, monkeypatch):
    path = here / "clean.ttl"
    path.write_text(_turtle(here))

    def refuse(*_: object) -> None:
        raise AssertionError("walked the text of a clean run")

    monkeypatch.setattr(positions, "locate", refuse)
    monkeypatch.setattr("tgtrace.inputs.base.locate", refuse)
    assert tgtrace.lint(str(path)).findings == []


@pytest.mark.parametrize("syntax", list(SYNTAXES))
def test_a_triple_asked_alone_is_placed_as_among_all(here, syntax):
    """The walk passes over the statements nothing is asked of (a regular expression to the end of
    a Turtle statement, a JSON-LD node's rest): what it finds for one triple is what it finds
    walking every statement; the excerpt's walk likewise for one line."""
    make, _ = SYNTAXES[syntax]
    data = make(here).encode()
    kind = "jsonld" if syntax.startswith("jsonld") else syntax
    rdf_format = {"turtle": ox.RdfFormat.TURTLE, "trig": ox.RdfFormat.TRIG, "jsonld": ox.RdfFormat.JSON_LD}[kind]
    triples = {(q.subject, q.predicate, q.object) for q in ox.parse(data, format=rdf_format)}
    keys = triples | {(s, None, None) for s, _, _ in triples}
    every = positions.locate(data, kind, keys)
    assert every.keys() == keys
    for key in sorted(keys, key=str)[::7]:
        assert positions.locate(data, kind, {key}) == {key: every[key]}, key
    lines = data.count(b"\n") + 1
    all_lines = positions.written(data, kind, range(1, lines + 1))
    for line in range(1, lines + 1, 11):
        assert positions.written(data, kind, {line}, 20).get(line) == all_lines.get(line), line
