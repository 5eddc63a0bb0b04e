"""The pytest plugin, used the way an emitter's project uses it: a separate
project whose tests run in a subprocess pytest."""

from __future__ import annotations

import os
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest
from tgtrace.loaders import InputError
from tgtrace.pytest_plugin import assert_trace_conforms

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
ANSWER_TYPE = " <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <https://trustgraph.ai/ns/Answer> "


def _plugin_installed() -> bool:
    return any(ep.value == "tgtrace.pytest_plugin" for ep in entry_points(group="pytest11"))


def run_pytest(project: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", *args]
    if not _plugin_installed():
        # In a source checkout without an install, load the plugin as the entry point would.
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "validators"), env.get("PYTHONPATH")]))
        command[3:3] = ["-p", "tgtrace.pytest_plugin"]
    return subprocess.run(command, cwd=project, env=env, capture_output=True, text=True, timeout=300)


def faulty_copy(folder: Path) -> Path:
    """The GraphRAG example with its Synthesis's tg:Answer type deleted."""
    lines = (EXAMPLES / "graph-rag.nq").read_text().splitlines(keepends=True)
    kept = [line for line in lines if ANSWER_TYPE not in line]
    assert len(kept) == len(lines) - 1
    path = folder / "broken-graph-rag.nq"
    path.write_text("".join(kept))
    return path


TESTS = '''
import json
from pathlib import Path

import rdflib
from trustgraph.schema import Term, Triple

from tgtrace.pytest_plugin import assert_trace_conforms

EXAMPLES = Path({examples!r})
BROKEN = Path({broken!r})


def to_term(wire):
    kind = wire["t"]
    if kind == "i":
        return Term(type="i", iri=wire["i"])
    if kind == "b":
        return Term(type="b", id=wire["d"])
    if kind == "l":
        return Term(type="l", value=wire["v"], datatype=wire.get("dt", ""), language=wire.get("ln", ""))
    return Term(type="t", triple=to_triple(wire["tr"]))


def to_triple(wire):
    return Triple(s=to_term(wire["s"]), p=to_term(wire["p"]), o=to_term(wire["o"]), g=wire.get("g"))


def wire(name):
    return json.loads((EXAMPLES / name).read_text())


def test_path():
    assert_trace_conforms(EXAMPLES / "graph-rag.nq")
    assert_trace_conforms(str(EXAMPLES / "supervisor.nq"))


def test_wire_dicts():
    report = assert_trace_conforms(wire("plan-then-execute.json"))
    assert report.triples > 0 and report.traces


def test_trustgraph_triples():
    triples = [to_triple(t) for t in wire("orchestrator-react-tool-error.json")]
    assert isinstance(triples[0], Triple)
    assert_trace_conforms(triples)


def test_rdflib_graph():
    dataset = rdflib.Dataset()
    dataset.parse(EXAMPLES / "orchestrator-react-one-shot.nq", format="nquads")
    assert_trace_conforms(dataset)


def test_fixture_on_good_trace(tg_trace):
    tg_trace.assert_conforms(wire("document-rag.json"))


def test_warnings_can_fail():
    # The legacy trace has only warnings: it conforms unless warnings fail.
    assert_trace_conforms(EXAMPLES / "legacy-react-one-shot.nq")
    assert_trace_conforms(EXAMPLES / "legacy-react-one-shot.nq", fail_on="warning")


def test_broken_trace():
    assert_trace_conforms(BROKEN)


def test_broken_trace_fixture(tg_trace):
    tg_trace.assert_conforms(BROKEN)
'''


@pytest.fixture
def project(tmp_path):
    broken = faulty_copy(tmp_path)
    folder = tmp_path / "emitter"
    folder.mkdir()
    (folder / "test_traces.py").write_text(TESTS.format(examples=str(EXAMPLES), broken=str(broken)))
    return folder


def test_plugin_in_a_project(project):
    result = run_pytest(project, "-rA")
    out = result.stdout + result.stderr
    assert result.returncode == 1, out
    summary = out.splitlines()[-1]
    assert "3 failed, 5 passed" in summary, out
    for name in ("test_warnings_can_fail", "test_broken_trace", "test_broken_trace_fixture"):
        assert f"FAILED test_traces.py::{name}" in out, out
    # The failure reads like `tg-trace lint`: the file and line, code, message, focus.
    assert "trace does not conform: 1 finding at or above error" in out
    assert "broken-graph-rag.nq:" in out and "M001 error answer does not assert the tg:Answer mixin" in out
    assert "urn:trustgraph:prov:synthesis:" in out
    assert "at or above warning" in out and "T004" in out
    # The plugin's own frames are hidden from the traceback.
    assert "def _check" not in out and "raise AssertionError(_failure_message" not in out


def test_fixture_reads_the_project_config(project):
    # The project accepts M001 and fails on warnings: the fixture obeys both, the
    # bare assertion (which reads no configuration) does not.
    (project / "pyproject.toml").write_text('[tool.tg-trace]\nignore = ["M001"]\n')
    result = run_pytest(project, "-k", "broken")
    out = result.stdout + result.stderr
    assert "1 failed, 1 passed" in out.splitlines()[-1], out
    assert "FAILED test_traces.py::test_broken_trace " in out or "FAILED test_traces.py::test_broken_trace -" in out

    (project / "pyproject.toml").write_text('[tool.tg-trace]\nignor = ["M001"]\n')
    result = run_pytest(project, "-k", "fixture_on_good")
    out = result.stdout + result.stderr
    assert result.returncode == 1 and "unknown key 'ignor'" in out, out


def test_unused_plugin_is_cheap_and_harmless(tmp_path):
    (tmp_path / "test_plain.py").write_text("def test_nothing():\n    assert True\n")
    result = run_pytest(tmp_path)
    assert result.returncode == 0 and "1 passed" in result.stdout, result.stdout + result.stderr
    probe = (
        "import sys, tgtrace.pytest_plugin; "
        "heavy = [m for m in ('rdflib', 'pyoxigraph', 'pyshacl', 'owlready2') if m in sys.modules]; "
        "print(heavy); sys.exit(bool(heavy))"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT / "validators"), os.environ.get("PYTHONPATH")])))
    check = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr


def test_a_bad_trustgraph_triple_is_named_by_its_index_and_value():
    schema = pytest.importorskip("trustgraph.schema")
    label = "http://www.w3.org/2000/01/rdf-schema#label"
    good = schema.Triple(s=schema.Term(type="i", iri="urn:a"), p=schema.Term(type="i", iri=label),
                         o=schema.Term(type="l", value="a"))
    bad = schema.Triple(s=schema.Term(type="i", iri="urn:b"), p=schema.Term(type="i", iri=label),
                        o=schema.Term(type="l", value=5))
    with pytest.raises(InputError) as error:
        assert_trace_conforms([good, bad])
    message = str(error.value)
    assert message.startswith("<objects>: item [1] Triple(") and message.endswith("term field 'v' must be a string, got 5")
