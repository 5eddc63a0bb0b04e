"""The benchmark runs end to end on a small corpus: tg-trace and pySHACL agree on it.

Timings are printed by the benchmark, never asserted: they depend on the machine.
"""

import json
import subprocess
import sys

import pytest
from conftest import ROOT

# Slow: runs the benchmark (`python -m pytest -m "not slow"` leaves it out; CI runs it).
pytestmark = pytest.mark.slow

RUN = ROOT / "benchmarks" / "run.py"
GENERATE = ROOT / "benchmarks" / "generate_corpus.py"
NEEDS_EMITTER = "trustgraph-base (the real emitter, a test-only dependency) is not importable"


@pytest.fixture(autouse=True)
def _emitter():
    pytest.importorskip("trustgraph.provenance", reason=NEEDS_EMITTER, exc_type=ImportError)


def test_benchmark_runs_and_the_engines_agree(tmp_path):
    result = subprocess.run(
        [sys.executable, str(RUN), "--sizes", "2000", "--repeat", "1", "--corpora", str(tmp_path),
         "--json", str(tmp_path / "results.json")],
        capture_output=True, text=True, timeout=900,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert "findings identical to pySHACL" in out
    assert "injected faults reported" in out
    header = next(line for line in out.splitlines() if line.lstrip().startswith("triples"))
    for column in ("wall s", "µs/triple", "peak RSS MB", "findings", "÷ bare parse", "pySHACL ÷ tool"):
        assert column in header
    rows = {r["tool"] for r in json.loads((tmp_path / "results.json").read_text())["results"]}
    assert {"bare parse", "parse, quads unpacked", "tg-trace lint", "pySHACL"} <= rows
    assert "set for 1,000,000 triples" in out  # the speed targets are for 1M-triple captures


def test_benchmark_compares_the_findings_heavy_lint_with_another_revision(tmp_path):
    """--against REV: both trees lint the same findings-heavy file in the same rounds, and the
    benchmark prints their peak memory and CPU side by side."""
    common = [sys.executable, str(RUN), "--sizes", "2000", "--repeat", "1", "--corpora", str(tmp_path),
              "--skip-pyshacl-above", "0", "-j", "0", "--files", "0"]
    result = subprocess.run(common + ["--against", "HEAD"], capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout + result.stderr
    line = next(line for line in result.stdout.splitlines() if "this tree against HEAD" in line)
    assert "peak RSS" in line and "MB against" in line and "CPU" in line
    assert "findings-heavy corpus: tg-trace lint at HEAD" in result.stdout  # its row in the table
    wrong = subprocess.run(common + ["--against", "no-such-revision"], capture_output=True, text=True, timeout=900)
    assert wrong.returncode != 0 and "is no commit" in wrong.stderr


def test_corpus_is_deterministic_and_sized(tmp_path):
    def build(name):
        out = tmp_path / name
        subprocess.run([sys.executable, str(GENERATE), "--triples", "3000", "--out", str(out),
                        "--faults", "0.05", "--seed", "s1"], check=True, capture_output=True)
        return out

    first, second = build("a.nq"), build("b.nq")
    assert first.read_bytes() == second.read_bytes()
    manifest = json.loads((tmp_path / "a.nq.faults.json").read_text())
    lines = first.read_bytes().count(b"\n")
    assert manifest["triples"] == lines >= 3000
    assert manifest["faults"], "a 5% fault rate on ~30 traces injects at least one fault"
    # Every injected fault names a node the corpus describes.
    text = first.read_text()
    assert all(f"<{f['focus']}>" in text for f in manifest["faults"])


# A command that starts a child burning half a second of CPU and exits without waiting for it,
# as a local cluster's fork server (and the workers it forks) is never waited for by the client.
UNWAITED_CHILD = """\
import os, sys, time
child = os.posix_spawn(sys.executable, [sys.executable, "-c",
                                        "import time\\nwhile time.process_time() < 0.5: pass"], os.environ)
while open(f"/proc/{child}/stat").read().rsplit(")", 1)[1].split()[0] != "Z":
    time.sleep(0.02)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the tree is sampled from /proc")
def test_a_parallel_rows_cpu_counts_the_processes_its_command_never_waits_for(tmp_path):
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import run
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    command = [sys.executable, "-c", UNWAITED_CHILD]
    _, _, waited = run.run_measured(command, tmp_path / "out", cwd=tmp_path)
    _, _, sampled = run.run_measured(command, tmp_path / "out", sample_tree=True, cwd=tmp_path)
    assert waited < 0.45 <= sampled
