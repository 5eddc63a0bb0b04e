"""Traces the real 2.11.1 emitter produces on its normal paths lint with zero errors,
through the API and the command, in every input format, and both engines agree."""

import json
import subprocess
import sys

import pytest
import tgtrace
from conftest import EXAMPLES, example_traces
from tgtrace.ground.model import Severity

EXPECTED_WARNINGS = {
    # The older ReAct service (agent/react/service.py) sets no termination reason.
    ("legacy-react-one-shot", "T004"),
    ("legacy-react-multi-iteration", "T004"),
    # The orchestrator raises on too many iterations and emits no Conclusion: a trace without an
    # answer, and a loop stopped at its iteration limit (a behaviour, information).
    ("orchestrator-react-max-iterations", "S004"),
    ("orchestrator-react-max-iterations", "B004"),
}


def stem(path) -> str:
    return str(path).rsplit("/", 1)[-1].split(".")[0]


@pytest.mark.parametrize("path", example_traces(".nq") + example_traces(".json") + example_traces(".jsonl"),
                         ids=lambda p: p.name)
def test_example_has_no_errors(path):
    report = tgtrace.lint(path)
    assert report.conforms
    assert not [f for f in report if f.severity is Severity.ERROR]
    assert {(stem(path), f.rule) for f in report} <= EXPECTED_WARNINGS
    if stem(path) != "extraction":  # extraction provenance holds no query-time trace
        assert report.traces, "every example holds at least one trace"


@pytest.mark.slow
@pytest.mark.parametrize("path", example_traces(".nq"), ids=lambda p: p.name)
def test_engines_agree_on_examples(path):
    fast = {(f.rule, f.focus) for f in tgtrace.lint(path, engine="fast")}
    shacl = {(f.rule, f.focus) for f in tgtrace.lint(path, engine="shacl")}
    assert fast == shacl


def test_reference_engine_leaves_rdflib_as_it_found_it():
    # The reference engine parses each SPARQL text once while pySHACL runs, then restores rdflib.
    import rdflib
    from rdflib.plugins.sparql.processor import SPARQLProcessor

    query = SPARQLProcessor.query
    tgtrace.lint(EXAMPLES / "orchestrator-react-multi-iteration.nq", engine="shacl")
    assert SPARQLProcessor.query is query
    graph = rdflib.Graph()
    graph.add((rdflib.URIRef("urn:a"), rdflib.URIRef("urn:p"), rdflib.Literal(1)))
    text = "SELECT ?o WHERE { <urn:a> <urn:p> ?o }"
    assert [row.o.toPython() for row in graph.query(text)] == [1]


@pytest.mark.parametrize("path", example_traces(".nq"), ids=lambda p: p.name)
def test_wire_json_and_nquads_give_the_same_findings(path):
    wire = path.with_suffix(".json")
    by_nq = {(f.rule, f.focus, f.trace) for f in tgtrace.lint(path)}
    by_json = {(f.rule, f.focus, f.trace) for f in tgtrace.lint(wire)}
    assert by_nq == by_json


def test_other_rdf_serializations_lint_the_same(tmp_path):
    import pyoxigraph as ox

    source = EXAMPLES / "orchestrator-react-multi-iteration.nq"
    quads = list(ox.parse(path=str(source), format=ox.RdfFormat.N_QUADS))
    expected = {(f.rule, f.focus) for f in tgtrace.lint(source, fail_on="never")}
    triples = [ox.Triple(q.subject, q.predicate, q.object) for q in quads]
    for name, fmt, items in [
        ("trace.trig", ox.RdfFormat.TRIG, quads),
        ("trace.nt", ox.RdfFormat.N_TRIPLES, triples),
        ("trace.ttl", ox.RdfFormat.TURTLE, triples),
        ("trace.jsonld", ox.RdfFormat.JSON_LD, quads),
    ]:
        target = tmp_path / name
        ox.serialize(items, str(target), format=fmt)
        got = {(f.rule, f.focus) for f in tgtrace.lint(target, fail_on="never")}
        assert got == expected, name


def test_python_objects_lint_like_files():
    import rdflib
    from trustgraph.schema import Term, Triple

    source = EXAMPLES / "graph-rag.json"
    wire = json.loads(source.read_text())
    assert tgtrace.lint(wire).conforms and tgtrace.lint(wire).traces

    def term(t):
        if t["t"] == "i":
            return Term(type="i", iri=t["i"])
        if t["t"] == "l":
            return Term(type="l", value=t["v"])
        return Term(type="t", triple=Triple(s=term(t["tr"]["s"]), p=term(t["tr"]["p"]), o=term(t["tr"]["o"])))

    triples = [Triple(s=term(w["s"]), p=term(w["p"]), o=term(w["o"]), g=w.get("g")) for w in wire]
    report = tgtrace.lint(triples)
    assert report.conforms and len(report.traces) == 1

    graph = rdflib.Dataset()
    graph.parse(EXAMPLES / "document-rag.nq", format="nquads")
    report = tgtrace.lint(graph)
    assert report.conforms and len(report.traces) == 1


def test_cli_lints_the_examples_directory():
    result = subprocess.run([sys.executable, "-m", "tgtrace.cli", "lint", str(EXAMPLES), "--format", "json"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    assert document["summary"]["error"] == 0
    # The 2.11.1 examples, in releases/ a trace of every pattern from each older release, in
    # services/ the captures of 2.11.1's services in three formats, and in behaviours/ the traces of
    # how an agent behaved (information: the run passes).
    releases = sorted((EXAMPLES / "releases").glob("*/*.nq"))
    captures = [p for p in (EXAMPLES / "services").iterdir() if p.suffix in (".nq", ".json", ".jsonl")]
    behaviours = [p for p in (EXAMPLES / "behaviours").iterdir() if p.suffix in (".nq", ".json")]
    assert releases and captures and behaviours
    assert document["summary"]["files"] == (len(example_traces(".nq")) + len(example_traces(".json"))
                                            + len(example_traces(".jsonl")) + len(releases) + len(captures)
                                            + len(behaviours))
