"""The shacl output format (a W3C SHACL validation report in Turtle) on real example traces, clean
and faulty: it parses as Turtle (RDF 1.2, and RDF 1.1 where the trace holds no triple term) into
one sh:ValidationReport whose results are the findings, one to one. That the (focus, source shape,
component) of its results are pySHACL's on every example and fault is tested where pySHACL runs
the bundle (tests/test_shacl_engines.py)."""

from __future__ import annotations

import json
import shutil
from collections import Counter

import pyoxigraph as ox
import pytest
import rdflib
from formats_support import EXAMPLES, cli, conclusion_iri
from tgtrace import api
from tgtrace.formats import FORMATS, render
from tgtrace.ground.model import Finding, Report, Severity
from tgtrace.rules import all_rules

SH = rdflib.Namespace("http://www.w3.org/ns/shacl#")
TGL = rdflib.Namespace("https://trustgraph.ai/lint#")
SEVERITIES = {"error": SH.Violation, "warning": SH.Warning, "info": SH.Info}


def report_of(text: str) -> tuple[rdflib.Graph, rdflib.term.Node]:
    """The report as rdflib reads it (RDF 1.1), and its one sh:ValidationReport node; pyoxigraph
    (RDF 1.2) reads the same triples."""
    graph = rdflib.Graph().parse(data=text, format="turtle")
    assert len(graph) == len(list(ox.parse(text, format=ox.RdfFormat.TURTLE)))
    (node,) = graph.subjects(rdflib.RDF.type, SH.ValidationReport)
    return graph, node


def results_of(graph: rdflib.Graph, node) -> Counter:
    """(code, focus, severity, message, value) of each sh:result."""
    found: Counter = Counter()
    for result in graph.objects(node, SH.result):
        assert (result, rdflib.RDF.type, SH.ValidationResult) in graph
        value = graph.value(result, SH.value)
        found[(str(graph.value(result, TGL.code)), str(graph.value(result, SH.focusNode)),
               graph.value(result, SH.resultSeverity), str(graph.value(result, SH.resultMessage)),
               None if value is None else str(value))] += 1
    return found


def json_findings(document: dict) -> Counter:
    return Counter((f["rule"], f["focus"], SEVERITIES[f["severity"]], f["message"], f["value"])
                   for f in document["findings"])


def test_shacl_is_registered():
    assert FORMATS["shacl"].syntax == "turtle"


def test_clean_traces_give_a_report_that_conforms(traces):
    code, out, _ = cli("lint", "--format", "shacl", "traces/graph-rag.nq", "traces/graph-rag.json")
    assert code == 0
    graph, node = report_of(out)
    assert graph.value(node, SH.conforms).toPython() is True
    assert not list(graph.objects(node, SH.result))


def test_faulty_traces_give_one_result_per_finding(traces):
    shutil.copy(EXAMPLES / "legacy-react-one-shot.nq", traces / "traces" / "legacy.nq")
    args = ("traces/broken.nq", "traces/broken.json", "traces/legacy.nq", "traces/graph-rag.nq")
    code, out, _ = cli("lint", "--format", "shacl", *args)
    assert code == 1
    _, json_out, _ = cli("lint", "--format", "json", *args)
    graph, node = report_of(out)
    assert graph.value(node, SH.conforms).toPython() is False
    results = results_of(graph, node)
    assert results == json_findings(json.loads(json_out))
    assert ("M001", conclusion_iri(), SH.Violation) in {key[:3] for key in results}
    (m001,) = [r for r in graph.objects(node, SH.result) if str(graph.value(r, TGL.code)) == "M001"][:1]
    assert graph.value(m001, SH.sourceShape) == rdflib.URIRef(all_rules()["M001"].shape)
    assert graph.value(m001, SH.sourceConstraintComponent) == SH.HasValueConstraintComponent
    assert graph.value(m001, SH.resultPath) == rdflib.RDF.type


@pytest.mark.parametrize("code", sorted(c for c, r in all_rules().items() if r.fault is not None))
def test_every_rules_fault_reads_back_as_its_findings(code, tmp_path):
    """Each rule's fault: the report reads back (RDF 1.2 triple terms and all) as the JSON report's
    findings, each result naming the rule's shape and a constraint component (pySHACL's, as
    tests/test_shacl_engines.py checks)."""
    rule = all_rules()[code]
    path = tmp_path / "faulty.nq"
    path.write_bytes(rule.fault.apply(EXAMPLES))
    report = api.lint(str(path), select=[code] if code.startswith("R") else None, fail_on="never")
    text = render(report, "shacl")
    store = ox.Store()
    store.load(text.encode(), format=ox.RdfFormat.TURTLE)
    rows = list(store.query("""
        PREFIX sh: <http://www.w3.org/ns/shacl#>
        PREFIX tgl: <https://trustgraph.ai/lint#>
        SELECT ?code ?focus ?shape ?component ?message WHERE {
            ?report a sh:ValidationReport ; sh:result ?result .
            ?result tgl:code ?code ; sh:focusNode ?focus ; sh:resultMessage ?message .
            OPTIONAL { ?result sh:sourceShape ?shape } OPTIONAL { ?result sh:sourceConstraintComponent ?component }
        }"""))
    assert Counter((r["code"].value, r["focus"].value, r["message"].value) for r in rows) == \
        Counter((f.rule, f.focus, f.message) for f in report.findings)
    mine = [r for r in rows if r["code"].value == code]
    assert rule.fault.focus in {r["focus"].value for r in mine}
    for row in mine:
        assert row["shape"].value == rule.shape and row["component"] is not None


def test_input_text_reads_back_exactly():
    """A value and a message holding control, bidi and quote characters, an IRI with a bidi
    override: Turtle's escapes, read back as the very text."""
    hostile = 'a "quoted" \\ value\x1b]0;t\x07\n::error::x\u202e\u2028\t'
    focus = "urn:trustgraph:agent:\u202eevil"
    finding = Finding(file="t.nq", line=1, rule="D003", severity=Severity.ERROR, family="datatype",
                      message=f"{hostile} is not an ISO 8601 timestamp", focus=focus, value=hostile)
    from tgtrace.ground.model import Source

    finding = Finding(**{**finding.to_dict(), "severity": Severity.ERROR,
                         "source": Source(all_rules()["D003"].shape, str(SH.PatternConstraintComponent), focus,
                                          ox.Literal(hostile))})
    text = render(Report(findings=[finding]), "shacl")
    assert not any(ch in text for ch in "\x1b\x07\u202e\u2028")
    graph, node = report_of(text)
    (result,) = graph.objects(node, SH.result)
    assert str(graph.value(result, SH.value)) == hostile
    assert str(graph.value(result, SH.focusNode)) == focus
    assert str(graph.value(result, SH.resultMessage)) == finding.message


def test_a_triple_term_value_is_written_as_rdf_1_2():
    triple = ox.Triple(ox.NamedNode("http://e/a"), ox.NamedNode("http://e/p"), ox.Literal("o", language="en"))
    from tgtrace.ground.model import Source

    finding = Finding(file="t.nq", line=1, rule="D007", severity=Severity.ERROR, family="datatype", message="m",
                      focus="urn:x", value="v",
                      source=Source(all_rules()["D007"].shape, str(SH.OrConstraintComponent), "urn:x", triple))
    text = render(Report(findings=[finding]), "shacl")
    assert '<<( <http://e/a> <http://e/p> "o"@en )>>' in text
    assert ox.Triple in {type(q.object) for q in ox.parse(text, format=ox.RdfFormat.TURTLE)}


def test_a_notice_of_no_shape_is_a_result_without_a_source(tmp_path):
    """An input's notice (I001, what its format lost) is a result with its code, no source shape."""
    notice = Finding(file="capture.json", line=None, rule="I001", severity=Severity.INFO, family="input",
                     message="this format loses X", focus="capture.json")
    graph, node = report_of(render(Report(findings=[notice]), "shacl"))
    (result,) = graph.objects(node, SH.result)
    assert str(graph.value(result, TGL.code)) == "I001" and graph.value(result, SH.resultSeverity) == SH.Info
    assert graph.value(result, SH.sourceShape) is None and str(graph.value(result, SH.focusNode)) == "capture.json"


def test_the_react_example_with_a_fault_through_wire_json(traces):
    """Wire JSON, as TrustGraph's gateway writes it: the same report as its N-Quads."""
    _, from_json, _ = cli("lint", "--format", "shacl", "traces/broken.json")
    _, from_nq, _ = cli("lint", "--format", "shacl", "traces/broken.nq")
    assert results_of(*report_of(from_json)) == results_of(*report_of(from_nq))


def test_a_value_that_breaks_two_constraints_of_a_rule_is_one_result(tmp_path):
    """An IRI where D001 wants a count breaks sh:nodeKind and sh:pattern: one finding, so one
    result, naming the first component in IRI order; pySHACL gives a result for each."""
    import pyshacl
    from tgtrace.rules import bundle

    text = (EXAMPLES / "orchestrator-react-multi-iteration.nq").read_text(encoding="utf-8")
    line = next(line for line in text.splitlines() if "/ns/stepNumber>" in line)
    subject, predicate, _ = line.split(" ", 2)
    path = tmp_path / "faulty.nq"
    path.write_text(text.replace(line, f"{subject} {predicate} <urn:x:not-a-count> <urn:graph:retrieval> ."),
                    encoding="utf-8")
    report = api.lint(str(path), fail_on="never")
    (finding,) = [f for f in report.findings if f.rule == "D001"]
    graph, node = report_of(render(report, "shacl"))
    (result,) = [r for r in graph.objects(node, SH.result) if str(graph.value(r, TGL.code)) == "D001"]
    assert graph.value(result, SH.sourceConstraintComponent) == SH.NodeKindConstraintComponent
    dataset = rdflib.Dataset()
    dataset.parse(path, format="nquads")
    data = rdflib.Graph()
    for s, p, o, _ in dataset.quads((None, None, None, None)):
        data.add((s, p, o))
    shapes = rdflib.Graph().parse(data=bundle.bundle_turtle(), format="turtle")
    _, theirs, _ = pyshacl.validate(data, shacl_graph=shapes, advanced=True)
    components = {theirs.value(r, SH.sourceConstraintComponent) for r in theirs.objects(None, SH.result)
                  if str(theirs.value(r, SH.focusNode)) == finding.focus
                  and str(theirs.value(r, SH.sourceShape)) == all_rules()["D001"].shape}
    assert components == {SH.NodeKindConstraintComponent, SH.PatternConstraintComponent}
