"""Traces captured from TrustGraph 2.11.1's real services (examples/services/): each lints with zero
errors, its explain stream lints exactly as its N-Quads and wire JSON do, and, where trustgraph-flow is
installed (CI does not install it), capture.py regenerates the committed files byte for byte."""

from __future__ import annotations

import os
import subprocess
import sys
from importlib import metadata

import pytest
import tgtrace
from conftest import EXAMPLES
from tgtrace.ground.model import Severity

SERVICES = EXAMPLES / "services"
CAPTURES = sorted(p.stem for p in SERVICES.glob("*.nq"))
SUFFIXES = (".nq", ".json", ".jsonl")

# The older ReAct service (agent/react/service.py) sets no termination reason; the same warning the
# builder examples of that service get (tests/test_examples_lint.py).
EXPECTED = {
    ("legacy-react", "T004", Severity.WARNING),
    ("legacy-react-one-shot", "T004", Severity.WARNING),
}


def findings(path) -> set:
    return {(f.rule, f.focus, f.trace, f.severity, f.message) for f in tgtrace.lint(path)}


def test_every_capture_comes_in_every_format():
    # A check that matched no file checks nothing.
    assert len(CAPTURES) >= 10, f"captures missing under {SERVICES}; run examples/services/capture.py"
    made = {p.name for p in SERVICES.iterdir() if p.suffix in SUFFIXES}
    assert made == {f"{name}{suffix}" for name in CAPTURES for suffix in SUFFIXES}
    readme = (SERVICES / "README.md").read_text()
    assert [name for name in CAPTURES if f"`{name}`" not in readme] == []


@pytest.mark.parametrize("name", CAPTURES)
def test_capture_has_no_errors(name):
    report = tgtrace.lint(SERVICES / f"{name}.nq")
    assert report.conforms
    assert {(name, f.rule, f.severity) for f in report} <= EXPECTED
    # One request, one trace: a tool's GraphRAG run and a supervisor's sub-agents join their parent.
    assert len(report.traces) == 1


@pytest.mark.parametrize("name", CAPTURES)
def test_stream_and_wire_lint_as_the_nquads(name):
    expected = findings(SERVICES / f"{name}.nq")
    assert findings(SERVICES / f"{name}.jsonl") == expected
    assert findings(SERVICES / f"{name}.json") == expected


def _flow_installed() -> bool:
    try:
        return metadata.version("trustgraph-flow") == "2.11.1" and metadata.version("trustgraph-base") == "2.11.1"
    except metadata.PackageNotFoundError:
        return False


@pytest.mark.skipif(not _flow_installed(), reason="needs trustgraph-flow==2.11.1 (pip install --no-deps)")
def test_capture_script_regenerates_the_committed_files(tmp_path):
    result = subprocess.run([sys.executable, str(SERVICES / "capture.py"), "--out", str(tmp_path)],
                            capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": "0"})
    assert result.returncode == 0, result.stderr
    fresh = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    committed = {p.name: p.read_bytes() for p in SERVICES.iterdir() if p.suffix in SUFFIXES}
    assert sorted(fresh) == sorted(committed)
    assert [name for name in fresh if fresh[name] != committed[name]] == []
