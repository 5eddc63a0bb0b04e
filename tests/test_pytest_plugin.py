"""The pytest plugin, used the way an emitter's project uses it: a separate
project whose tests run in a subprocess pytest."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest
from tgtrace.inputs.loaders import InputError
from tgtrace.pytest_plugin import assert_trace_conforms

# Slow: runs pytest in a process of its own for each case (`python -m pytest -m "not slow"` leaves it out; CI runs it).
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
ANSWER_TYPE = " <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <https://trustgraph.ai/ns/Answer> "


def _plugin_installed() -> bool:
    return any(ep.value == "tgtrace.pytest_plugin" for ep in entry_points(group="pytest11"))


def run_pytest(project: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ if env is None else env)
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


# ---------------------------------------------------------------------------
# Structure snapshots: an emitter's project keeps what its traces look like.
# ---------------------------------------------------------------------------

SNAPSHOT_TESTS = '''
import os
import sys

sys.path.insert(0, {root!r})
from examples import generate


def emitted():
    """The emitter's GraphRAG trace. TG_EMITTER_CHANGE=no-model is a refactor after which the
    Grounding no longer records its model; TG_RUN is which run of the query it is."""
    if os.environ.get("TG_EMITTER_CHANGE") == "no-model":
        original = generate.prov.grounding_triples
        generate.prov.grounding_triples = lambda *a, **k: original(*a, **{{**k, "model": None}})
    return generate.build_graphrag(seed=os.environ.get("TG_RUN", "run-1"))


def test_graphrag_structure(tg_trace_snapshot):
    tg_trace_snapshot.assert_match(emitted())
'''


@pytest.fixture
def snapshot_project(tmp_path):
    pytest.importorskip("trustgraph.provenance", reason="the real emitter: pip install --no-deps "
                        "trustgraph-base==2.11.1", exc_type=ImportError)
    folder = tmp_path / "emitter"
    folder.mkdir()
    (folder / "test_emitter.py").write_text(SNAPSHOT_TESTS.format(root=str(ROOT)))
    return folder


def _outside_ci(**extra: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env.update(extra)
    return env


def _run(project: Path, *args: str, **env: str) -> tuple[int, str]:
    result = run_pytest(project, "-rA", *args, env=_outside_ci(**env))
    return result.returncode, result.stdout + result.stderr


def test_snapshot_first_run_writes_it(snapshot_project):
    code, out = _run(snapshot_project)
    assert code == 0 and "1 passed" in out, out
    snapshot = snapshot_project / "tg_trace_snapshots" / "test_emitter" / "test_graphrag_structure.trig"
    assert f"written {snapshot}" in out, out
    text = snapshot.read_text()
    # Readable in a pull request: each entity by its place, each value by its kind.
    assert "snap:t1:Grounding a prov:Entity , tg:Grounding ;" in text
    assert 'tg:llmModel "…"' in text and 'tg:query "When did Marie Curie receive her Nobel Prizes?"' in text
    assert "urn:trustgraph:" not in text  # no IRI of the run
    # And tg-trace diff reads it as any trace.
    example = ROOT / "examples" / "graph-rag.nq"
    result = subprocess.run([sys.executable, "-m", "tgtrace.cli", "diff", str(snapshot), str(example)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr


def test_snapshot_unchanged_trace_passes(snapshot_project):
    assert _run(snapshot_project)[0] == 0
    snapshot = snapshot_project / "tg_trace_snapshots" / "test_emitter" / "test_graphrag_structure.trig"
    written = snapshot.read_bytes()
    # The same query run again: other ids, the same structure.
    code, out = _run(snapshot_project, TG_RUN="run-2")
    assert code == 0 and "1 passed" in out and "tg-trace snapshots" not in out, out
    assert snapshot.read_bytes() == written


def test_snapshot_changed_trace_fails_with_the_diff(snapshot_project):
    assert _run(snapshot_project)[0] == 0
    snapshot = snapshot_project / "tg_trace_snapshots" / "test_emitter" / "test_graphrag_structure.trig"
    written = snapshot.read_bytes()
    code, out = _run(snapshot_project, TG_EMITTER_CHANGE="no-model")
    assert code == 1 and "1 failed" in out, out
    assert "FAILED test_emitter.py::test_graphrag_structure" in out
    assert f"trace structure differs from its snapshot {snapshot} (pytest --tg-trace-update" in out
    assert "  ~ Grounding\n" in out and "      - tg:llmModel: literal xsd:string\n" in out, out
    assert "1 of 1 paired trace changed" in out
    assert snapshot.read_bytes() == written  # a failing comparison leaves the snapshot as it was
    # The plugin's own frames are hidden from the traceback.
    assert "def assert_trace_snapshot" not in out


def test_snapshot_update_rewrites_it(snapshot_project):
    assert _run(snapshot_project)[0] == 0
    snapshot = snapshot_project / "tg_trace_snapshots" / "test_emitter" / "test_graphrag_structure.trig"
    code, out = _run(snapshot_project, "--tg-trace-update", TG_EMITTER_CHANGE="no-model")
    assert code == 0 and "1 passed" in out and f"updated {snapshot}" in out, out
    grounding = snapshot.read_text().split("snap:t1:Grounding a", 1)[1].split(" .\n", 1)[0]
    assert "tg:llmModel" not in grounding and "tg:concept" in grounding
    # The new structure is now the one compared with; the old one fails.
    assert _run(snapshot_project, TG_EMITTER_CHANGE="no-model")[0] == 0
    code, out = _run(snapshot_project)
    assert code == 1 and "      + tg:llmModel: literal xsd:string\n" in out, out
    # An update that changes nothing leaves the file alone.
    written = snapshot.stat().st_mtime_ns
    code, out = _run(snapshot_project, "--tg-trace-update", TG_EMITTER_CHANGE="no-model")
    assert code == 0 and "tg-trace snapshots" not in out and snapshot.stat().st_mtime_ns == written, out


def test_snapshot_missing_in_ci_fails(snapshot_project):
    result = run_pytest(snapshot_project, env={**_outside_ci(), "CI": "true"})
    out = result.stdout + result.stderr
    assert result.returncode == 1, out
    assert "no trace snapshot, and in CI none is written: run the tests with pytest --tg-trace-update" in out
    assert not (snapshot_project / "tg_trace_snapshots").exists()


def test_snapshot_files_are_named_by_test_and_call(tmp_path, monkeypatch):
    from tgtrace.testing import snapshot_checker

    # A first run on a contributor's machine writes the snapshots; in CI it would refuse to.
    monkeypatch.delenv("CI", raising=False)

    done = []
    checker = snapshot_checker(tmp_path / "test_agent.py", "test_trace[a/b: c]", update=False,
                               done=lambda path, what: done.append((what, path.name)))
    folder = tmp_path / "tg_trace_snapshots" / "test_agent"
    example = EXAMPLES / "graph-rag.nq"
    # A name made safe for a file keeps a short hash of the test's id, so that ids that read alike
    # never share a file.
    named = "test_trace_a_b_c-" + hashlib.sha256(b"test_trace[a/b: c]").hexdigest()[:10]
    assert checker.assert_match(example) == folder / f"{named}.trig"
    assert checker(str(example)) == folder / f"{named}-2.trig"
    assert checker.assert_match(EXAMPLES / "supervisor.nq", name="supervisor") == folder / "supervisor.trig"
    assert done == [("written", f"{named}.trig"), ("written", f"{named}-2.trig"), ("written", "supervisor.trig")]
    # The next test run compares with them: the same calls in the same order.
    again = snapshot_checker(tmp_path / "test_agent.py", "test_trace[a/b: c]", update=False)
    again.assert_match(example)
    again.assert_match(example)
    with pytest.raises(AssertionError, match="trace structure differs from its snapshot"):
        again.assert_match(EXAMPLES / "graph-rag.nq", name="supervisor")


def test_snapshot_names_are_one_per_test_id_and_stay_in_their_folder(tmp_path, monkeypatch):
    # test_structure[rag/graph] and test_structure[rag_graph] were both test_structure_rag_graph.trig:
    # each failed on the other's snapshot, and an update made them overwrite each other; a
    # 300-character id failed with "File name too long".
    from tgtrace.testing import snapshot_checker

    monkeypatch.delenv("CI", raising=False)
    module = tmp_path / "tests" / "test_emitter.py"
    folder = module.parent / "tg_trace_snapshots" / "test_emitter"
    ids = ["test_structure[rag/graph]", "test_structure[rag_graph]", "test_structure[rag graph]",
           "test_structure[" + "x" * 300 + "]", "test_structure[" + "x" * 300 + "y]", "test_structure[../../up]",
           "test_structure[\udcff]", "test_structure"]
    traces = [EXAMPLES / "graph-rag.nq", EXAMPLES / "supervisor.nq"]
    paths = []
    for number, test in enumerate(ids):
        path = snapshot_checker(module, test, update=False).assert_match(traces[number % 2])
        assert path.parent == folder and len(path.name) <= 110, path
        paths.append(path)
    assert len(set(paths)) == len(ids)
    assert folder / "test_structure.trig" in paths  # a name already safe and short stays as it is
    assert sorted(folder.iterdir()) == sorted(paths) and not (tmp_path / "up").exists()
    # Each test compares with its own snapshot, run after run.
    for number, test in enumerate(ids):
        snapshot_checker(module, test, update=False).assert_match(traces[number % 2])
    # A name given to assert_match is kept inside the folder too.
    path = snapshot_checker(module, "t", update=False).assert_match(traces[0], name="../../../outside")
    assert path.parent == folder


def test_snapshot_of_an_unreadable_trace_is_an_input_error(tmp_path):
    from tgtrace.pytest_plugin import assert_trace_snapshot

    with pytest.raises(InputError, match="holds no triples"):
        assert_trace_snapshot([], tmp_path / "s.trig")
    label = {"s": {"t": "i", "i": "urn:a"}, "p": {"t": "i", "i": "http://www.w3.org/2000/01/rdf-schema#label"},
             "o": {"t": "l", "v": "a"}}
    with pytest.raises(InputError, match="holds no TrustGraph trace"):
        assert_trace_snapshot([label], tmp_path / "s.trig")
    assert not (tmp_path / "s.trig").exists()
