"""A term RDF cannot hold is a finding on its line, never a reason to stop reading the file."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import tgtrace
from conftest import EXAMPLES

EDGE_IRI = {"t": "i", "i": "Quantum Computing"}  # what TrustGraph up to 2.2.22 wrote for a literal edge object


def _with_bad_terms() -> list:
    """graph-rag (wire JSON) with a literal edge object written as an IRI term, a relative IRI
    subject, a literal whose datatype is no IRI, and, after them, a second clean trace."""
    triples = json.loads((EXAMPLES / "graph-rag.json").read_text())
    edge = next(t for t in triples if t["o"].get("t") == "t")
    edge["o"]["tr"]["o"] = EDGE_IRI
    triples.append({"s": {"t": "i", "i": "doc/c1"}, "p": {"t": "i", "i": "http://www.w3.org/2000/01/rdf-schema#label"},
                    "o": {"t": "l", "v": "chunk 1"}})
    triples.append({"s": {"t": "i", "i": "doc/c1"}, "p": {"t": "i", "i": "http://www.w3.org/2000/01/rdf-schema#comment"},
                    "o": {"t": "l", "v": "x", "dt": "not an iri"}})
    triples += json.loads((EXAMPLES / "document-rag.json").read_text())
    return triples


@pytest.fixture
def bad_file(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(_with_bad_terms(), indent=1))
    return path


def _line_of(path, needle: str) -> int:
    # Each wire triple starts on the line of its opening brace, just before its "s".
    lines = path.read_text().splitlines()
    index = next(i for i, line in enumerate(lines) if needle in line)
    while lines[index].strip() != "{":
        index -= 1
    return index + 1


@pytest.mark.parametrize("engine", ["fast", "shacl"])
def test_bad_terms_are_findings_with_lines_and_the_rest_is_linted(bad_file, engine):
    report = tgtrace.lint(str(bad_file), engine=engine)
    invalid = sorted((f.value, f.line) for f in report.findings if f.rule == "D008")
    # One finding per entity and text: the relative IRI is reported where it first occurs.
    assert invalid == sorted([
        ('IRI term "Quantum Computing" is not an absolute IRI', _line_of(bad_file, '"Quantum Computing"')),
        ('IRI term "doc/c1" is not an absolute IRI', _line_of(bad_file, '"chunk 1"')),
        ('literal datatype "not an iri" is not an IRI', _line_of(bad_file, '"not an iri"')),
    ])
    # Both traces were read and linted; the edge keeps its place in the GraphRAG trace.
    assert len(report.traces) == 2
    edge_finding = next(f for f in report.findings if "Quantum Computing" in (f.value or ""))
    assert edge_finding.trace and edge_finding.trace.startswith("urn:trustgraph:question:")
    assert edge_finding.focus.startswith("urn:trustgraph:prov:edge:")


def test_the_cli_reports_them_as_errors_not_as_unreadable_input(bad_file):
    result = subprocess.run([sys.executable, "-m", "tgtrace.cli", "lint", str(bad_file), "--no-config"],
                            capture_output=True, text=True)
    assert result.returncode == 1 and result.stderr == ""
    assert 'D008 error the input holds a term RDF cannot: IRI term "Quantum Computing" is not an absolute IRI' \
        in result.stdout


def test_an_explain_stream_with_a_bad_term_is_linted_too(tmp_path):
    events = [json.loads(line) for line in (EXAMPLES / "explain-stream.jsonl").read_text().splitlines()]
    for event in events:
        for triple in event.get("explain_triples") or []:
            if triple["o"].get("t") == "t":
                triple["o"]["tr"]["o"] = EDGE_IRI
    path = tmp_path / "stream.jsonl"
    path.write_text("\n".join(json.dumps(e) for e in events) + "\n")
    report = tgtrace.lint(str(path))
    assert {f.rule for f in report.findings} == {"D008"} and len(report.traces) == 2


def test_a_quoted_triple_as_subject_is_a_finding_too():
    triples = json.loads((EXAMPLES / "graph-rag.json").read_text())
    edge = next(t for t in triples if t["o"].get("t") == "t")
    triples.append({"s": edge["o"], "p": {"t": "i", "i": "http://www.w3.org/2000/01/rdf-schema#comment"},
                    "o": {"t": "l", "v": "said of an edge"}})
    report = tgtrace.lint(triples)
    (finding,) = [f for f in report.findings if f.rule == "D008"]
    assert finding.value.startswith("a quoted triple as subject: <<( <http://trustgraph.ai/e/")
    assert len(report.traces) == 1


def test_python_objects_with_a_bad_term_lint():
    report = tgtrace.lint(_with_bad_terms())
    assert "D008" in {f.rule for f in report.findings}
