"""Shared by the CI output format tests (tests/test_format_*.py,
test_statistics_coverage.py, test_cli_formats.py): constants, helpers that build
findings and reports, and the ``report`` and ``traces`` fixtures, which the test
modules import by name."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner
from junitparser import JUnitXml
from tgtrace.cli import main
from tgtrace.ground.model import Finding, Report, Severity
from tgtrace.ground.namespaces import TG
from tgtrace.rules import all_rules

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
SCHEMA = json.loads((Path(__file__).parent / "data" / "sarif-schema-2.1.0.json").read_text())

AGENT = "urn:trustgraph:agent:0b6f"
CONCLUSION = AGENT + "/final"


def sarif_validator():
    # Without a URI checker (rfc3986-validator) "format": "uri" would pass unchecked.
    assert "uri" in jsonschema.Draft4Validator.FORMAT_CHECKER.checkers
    return jsonschema.Draft4Validator(SCHEMA, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER)


def finding(rule="M001", file="traces/react.nq", line=12, severity=Severity.ERROR, focus=CONCLUSION, trace=AGENT, **kw):
    return Finding(
        file=file,
        line=line,
        rule=rule,
        severity=severity,
        family=all_rules()[rule].family if rule in all_rules() else "structure",
        message=kw.pop("message", "answer does not assert the tg:Answer mixin"),
        focus=focus,
        trace=trace,
        **kw,
    )


@pytest.fixture
def report():
    """Two files: one trace with an error and a warning, one clean trace."""
    findings = [
        finding(),
        finding(rule="M008", severity=Severity.WARNING, line=3, focus=AGENT + "/i1/thought",
                message="trace entity does not assert prov:Entity"),
    ]
    return Report(
        findings=findings,
        traces={AGENT: "traces/react.nq", "urn:trustgraph:question:77": "traces/graph-rag.nq"},
        files=["traces/react.nq", "traces/graph-rag.nq"],
        triples=120,
    )


def parse_junit(text: str, tmp_path: Path) -> JUnitXml:
    path = tmp_path / "junit.xml"
    path.write_text(text)
    return JUnitXml.fromfile(str(path))


GITHUB_LINE = re.compile(r"^::(error|warning|notice) (?:file=([^,]+),line=(\d+),)?title=([A-Z]\d{3})::(.*)$")

RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
REACT = "orchestrator-react-multi-iteration"


def drop_type(path: Path, subject_suffix: str, cls: str) -> int:
    """Delete ``<...subject_suffix> rdf:type tg:cls`` from an example copy (.nq or wire .json)."""
    if path.suffix == ".nq":
        lines = path.read_text().splitlines(keepends=True)
        kept = [
            line for line in lines
            if not (line.split(" ")[0].endswith(subject_suffix + ">") and f"<{RDF_TYPE}> <{TG}{cls}> " in line)
        ]
        path.write_text("".join(kept))
        return len(lines) - len(kept)
    triples = json.loads(path.read_text())
    kept = [
        t for t in triples
        if not (t["s"].get("i", "").endswith(subject_suffix) and t["p"]["i"] == RDF_TYPE and t["o"].get("i") == TG + cls)
    ]
    # One triple a line, as the examples are written, so findings have lines to point at.
    path.write_text("[\n" + ",\n".join(json.dumps(t) for t in kept) + "\n]\n")
    return len(triples) - len(kept)


@pytest.fixture
def traces(tmp_path, monkeypatch):
    """A working directory with a clean trace and a copy whose Conclusion lost tg:Answer, as .nq and .json."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    (tmp_path / "traces").mkdir()
    for suffix in (".nq", ".json"):
        shutil.copy(EXAMPLES / f"graph-rag{suffix}", tmp_path / "traces" / f"graph-rag{suffix}")
        broken = tmp_path / "traces" / f"broken{suffix}"
        shutil.copy(EXAMPLES / f"{REACT}{suffix}", broken)
        assert drop_type(broken, "/final", "Answer") == 1
    return tmp_path


def cli(*args, env=None):
    result = CliRunner().invoke(main, list(args), env=env, catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def conclusion_iri() -> str:
    text = (EXAMPLES / f"{REACT}.nq").read_text()
    return re.search(r"<(urn:trustgraph:agent:[^/>]+/final)>", text).group(1)


def nq_line(path: Path, subject: str, predicate: str) -> int:
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if line.startswith(f"<{subject}> <{predicate}> "):
            return number
    raise AssertionError(f"no {predicate} on {subject} in {path}")
