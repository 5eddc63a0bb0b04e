"""Every release's traces are judged by the model they were written in, whatever their form.

Each trace under examples/releases/ (written by that release's own builders, chained as its
services chain them) lints with zero errors by default, and with the same findings whether it
is read as N-Quads, TriG, JSON-LD, TrustGraph's wire JSON, an explain stream (one event per
entity, in the order the services emit them) or Python objects. A project that accepts only
recent releases (--target-version 2.11) gets an error on every trace older than 2.2.13.
"""

from __future__ import annotations

import json
import subprocess
import sys
from itertools import groupby
from pathlib import Path

import pyoxigraph as ox
import pytest
import tgtrace
from tgtrace.tracemodel.generations import release_key
from wire_support import wire_quad

RELEASES = Path(__file__).resolve().parents[1] / "examples" / "releases"
# Extraction provenance holds no trace (no Question): tests/test_old_releases.py lints it.
FILES = sorted(p for p in RELEASES.glob("*/*.nq") if p.stem != "extraction")


def _forms(path: Path, folder: Path) -> dict[str, Path]:
    """The same trace written in every input format the linter reads."""
    quads = list(ox.parse(path=str(path), format=ox.RdfFormat.N_QUADS))
    forms = {"nquads": path}
    formats = [("trig", ox.RdfFormat.TRIG)]
    if not any(isinstance(q.object, ox.Triple) for q in quads):
        formats.append(("jsonld", ox.RdfFormat.JSON_LD))  # JSON-LD cannot hold RDF 1.2 triple terms
    for name, fmt in formats:
        forms[name] = folder / f"trace.{name}"
        ox.serialize(quads, str(forms[name]), format=fmt)
    forms["wire"] = folder / "trace.json"
    forms["wire"].write_text(json.dumps([wire_quad(q) for q in quads]), encoding="utf-8")
    # Explain events as the services send them: each entity's triples together, in emission order.
    forms["stream"] = folder / "trace.jsonl"
    with forms["stream"].open("w", encoding="utf-8") as stream:
        for subject, run in groupby(quads, key=lambda q: q.subject):
            run = list(run)
            stream.write(json.dumps({
                "message_type": "explain", "explain_id": getattr(subject, "value", str(subject)),
                "explain_graph": run[0].graph_name.value if isinstance(run[0].graph_name, ox.NamedNode) else "",
                "explain_triples": [wire_quad(q) for q in run]}) + "\n")
    return forms


def _found(report) -> set:
    return {(f.rule, f.focus, f.severity.name) for f in report.findings}


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_release_trace_has_no_error_in_any_form(path, tmp_path):
    expected = tgtrace.lint(path, fail_on="error")
    assert expected.traces
    errors = [f"{f.line}: {f.rule} {f.message}" for f in expected.findings if f.severity.name == "ERROR"]
    assert not errors, errors
    for name, form in _forms(path, tmp_path).items():
        assert _found(tgtrace.lint(form)) == _found(expected), name
    # Python objects: the wire terms as they are, without a file.
    wire = json.loads((tmp_path / "trace.json").read_text(encoding="utf-8"))
    assert _found(tgtrace.lint(wire)) == _found(expected), "objects"


def test_cli_lints_every_release_clean():
    result = subprocess.run([sys.executable, "-m", "tgtrace.cli", "lint", "--no-config", "--no-summary",
                             str(RELEASES)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr


def test_target_version_2_11_makes_every_trace_before_2_2_13_an_error():
    older = [p for p in FILES if release_key(p.parent.name) < release_key("2.2.13")]
    assert older
    report = tgtrace.lint(*older, target_version="2.11")
    with_error = {f.trace for f in report.findings if f.severity.name == "ERROR"}
    assert set(report.traces) <= with_error, sorted(set(report.traces) - with_error)
    newer = [p for p in FILES if release_key(p.parent.name) >= release_key("2.6.9")]
    assert tgtrace.lint(*newer, target_version="2.11").conforms
