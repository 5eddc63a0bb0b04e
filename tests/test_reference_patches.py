"""The reference engine's patches to rdflib and pySHACL change its speed, never its findings: the
patched engine and stock pySHACL agree on every example, the patches apply only to the pySHACL
they were written for, and a run leaves both libraries as it found them."""

from __future__ import annotations

import pytest
import tgtrace
from conftest import EXAMPLES, example_traces
from tgtrace.shacl import patches

# Slow: the reference engine (pySHACL) patched and stock, on every example (`python -m pytest -m "not slow"` leaves it out; CI runs it).
pytestmark = pytest.mark.slow


def _findings(path) -> list[dict]:
    return sorted((f.to_dict() for f in tgtrace.lint(path, engine="shacl", fail_on="never")),
                  key=lambda d: sorted((k, str(v)) for k, v in d.items()))


@pytest.mark.parametrize("path", example_traces(".nq"), ids=lambda p: p.name)
def test_patched_and_stock_pyshacl_find_the_same(path, monkeypatch):
    assert patches.patched(), "the installed pySHACL is one the patches were written for"
    patched = _findings(path)
    monkeypatch.setenv(patches.STOCK_ENV, "1")
    assert not patches.patched()
    assert _findings(path) == patched


def test_findings_of_a_faulty_trace_agree_stock_and_patched(tmp_path, monkeypatch):
    # The examples are clean but for a few warnings: a trace with a broken chain and a cycle makes
    # the SPARQL rules and the transitive paths (what the patches speed up) report.
    text = (EXAMPLES / "orchestrator-react-multi-iteration.nq").read_text()
    derived = "<http://www.w3.org/ns/prov#wasDerivedFrom>"
    lines = text.splitlines()
    first = next(i for i, line in enumerate(lines) if derived in line)
    subject = lines[first].split(" ", 1)[0]
    lines[first] = f"{subject} {derived} {subject} ."  # a step derived from itself
    faulty = tmp_path / "faulty.nq"
    faulty.write_text("\n".join(lines) + "\n")
    patched = _findings(faulty)
    assert patched, "the fault is found"
    monkeypatch.setenv(patches.STOCK_ENV, "1")
    assert _findings(faulty) == patched


def test_another_pyshacl_runs_stock_and_says_so(monkeypatch, capsys):
    monkeypatch.setattr(patches, "PATCHED_PYSHACL", ("0.0",))
    monkeypatch.setattr(patches, "_told", [])
    from rdflib.paths import MulPath
    from rdflib.plugins.sparql.processor import SPARQLProcessor

    query, evaluate = SPARQLProcessor.query, MulPath.eval
    with patches.speedups() as applied:
        assert not applied
        assert SPARQLProcessor.query is query and MulPath.eval is evaluate
    with patches.speedups():
        pass
    err = capsys.readouterr().err
    assert err.count("running it stock") == 1 and err.count("\n") == 1


def test_patches_are_undone_when_the_run_ends():
    from pyshacl import shape as shape_module
    from pyshacl.constraints.core import logical_constraints as logical
    from rdflib.paths import MulPath
    from rdflib.plugins.sparql import evalutils
    from rdflib.plugins.sparql.processor import SPARQLProcessor

    def current() -> tuple:
        return (SPARQLProcessor.query, MulPath.eval, evalutils._ebv, shape_module.Shape.find_custom_constraints,
                shape_module.Shape.validate, logical.OrConstraintComponent._evaluate_or_constraint,
                logical.AndConstraintComponent._evaluate_and_constraint)

    before = current()
    with patches.speedups() as applied:
        assert applied
        assert all(now is not then for now, then in zip(current(), before))
    assert current() == before
