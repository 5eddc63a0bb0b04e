"""No false refusal or false alarm on a real release's output: 2.1.16's extraction provenance
(entities typed prov:Entity alone, marked by tg: predicates) lints, and T004 is info on the
plan-then-execute and supervisor traces of 2.2.13, whose missing termination reason shows they
predate 2.3.1, the release whose orchestrator began to write it."""

from __future__ import annotations

import subprocess
import sys

import tgtrace
from conftest import EXAMPLES
from tgtrace.ground.model import Severity
from tgtrace.inputs.loaders import load
from tgtrace.tracemodel.generations import infer

RELEASES = EXAMPLES / "releases"


def test_2_1_16_extraction_provenance_lints():
    # Written by trustgraph-base 2.1.16's own builders (examples/releases/generate.py).
    path = RELEASES / "2.1.16" / "extraction.nq"
    result = subprocess.run([sys.executable, "-m", "tgtrace.cli", "lint", "--no-config", str(path)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "holds no TrustGraph trace" not in result.stderr
    report = tgtrace.lint(path)
    assert report.triples > 100 and not report.traces
    # Its model's findings: tg:reifies, the statement predicate 2.1.22 dropped, is deprecated.
    assert {f.rule for f in report.findings} == {"V003"}


def test_t004_is_info_on_2_2_13_orchestrator_traces_without_a_reason():
    for pattern in ("plan-then-execute", "supervisor"):
        path = RELEASES / "2.2.13" / f"{pattern}.nq"
        report = tgtrace.lint(path, fail_on="never")
        (item,) = load(str(path))
        models = infer(item.graph())
        orchestrated = [root for root, model in models.items() if model.before == "2.3.1"]
        assert orchestrated, pattern  # the trace with the plan or the decomposition
        for root in orchestrated:
            assert models[root].releases == "2.2.13 to before 2.3.1"
            t004 = [f for f in report.findings if f.rule == "T004" and f.trace == root]
            assert t004 and all(f.severity is Severity.INFO for f in t004), (pattern, t004)
            assert "required since 2.3.1" in t004[0].message


def test_t004_stays_a_warning_where_the_absence_says_nothing(tmp_path):
    # The older ReAct service never writes a reason, in any release: a 2.11.1 trace of it.
    report = tgtrace.lint(RELEASES / "2.11.1" / "react.nq", fail_on="never")
    assert [f.severity for f in report.findings if f.rule == "T004"] == [Severity.WARNING]
    # And a 2.11.1 orchestrator answer that lost its reason is a fault of today's model.
    faulty = [line for line in (EXAMPLES / "plan-then-execute.nq").read_text().splitlines()
              if "terminationReason" not in line]
    path = tmp_path / "plan-then-execute.nq"
    path.write_text("\n".join(faulty) + "\n")
    report = tgtrace.lint(path, fail_on="never")
    assert [f.severity for f in report.findings if f.rule == "T004"] == [Severity.WARNING]
