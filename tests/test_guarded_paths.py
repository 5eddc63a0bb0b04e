"""Every file tg-trace reads besides its inputs (configuration, baseline, shapes) is guarded as an
input is: no FIFO (it would block forever), no device (/dev/zero never ends), a size limit; a
configuration file is looked for no higher than the repository root; and a configuration that
turns the gate off says so in every report and on standard error."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest
import rdflib
from conftest import EXAMPLES, ROOT

# Slow: each case a process of its own under a memory limit (`python -m pytest -m "not slow"` leaves it out; CI runs it).
pytestmark = pytest.mark.slow

# A real trace with an error (its final Answer's type removed): a gate that is on fails on it.
CLEAN = EXAMPLES / "orchestrator-react-multi-iteration.nq"
SHACL_REPORT = rdflib.URIRef("http://www.w3.org/ns/shacl#ValidationReport")


def faulty(folder: Path) -> Path:
    lines = [ln for ln in CLEAN.read_text().splitlines() if not ("/final>" in ln and "ns/Answer>" in ln)]
    path = folder / "trace.nq"
    path.write_text("\n".join(lines) + "\n")
    return path


def tg_trace(*args, cwd=None, env=None, timeout=60) -> subprocess.CompletedProcess:
    # A timeout here is the defect itself (a FIFO or /dev/zero read without end): the test fails.
    return subprocess.run([sys.executable, "-m", "tgtrace.cli", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=timeout, env={**os.environ, **(env or {})})


def assert_one_line(result, *words) -> None:
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 2, (result.returncode, result.stderr)
    assert len(lines) == 1 and "Traceback" not in result.stderr, lines
    assert all(word in lines[0] for word in words), lines[0]


def repository(tmp_path: Path) -> Path:
    """A user's repository: a .git folder, a trace with an error."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    faulty(repo)
    return repo


@pytest.mark.parametrize("target", ["fifo", "/dev/zero", "big"])
def test_baseline_that_is_no_file_or_too_large_is_refused(tmp_path, target):
    repo = repository(tmp_path)
    if target == "fifo":
        os.mkfifo(repo / "baseline.json")
        target = "baseline.json"
    elif target == "big":
        with open(repo / "baseline.json", "wb") as handle:
            handle.truncate((256 << 20) + 1)  # sparse: no disk used
        target = "baseline.json"
    (repo / "tg-trace.toml").write_text(f'baseline = "{target}"\n')
    result = tg_trace("lint", "trace.nq", cwd=repo)
    assert_one_line(result, "baseline")
    assert any(word in result.stderr for word in ("FIFO", "device", "larger than"))


def test_configuration_that_is_a_fifo_or_too_large_is_refused(tmp_path):
    repo = repository(tmp_path)
    os.mkfifo(repo / "fifo.toml")
    assert_one_line(tg_trace("lint", "--config", "fifo.toml", "trace.nq", cwd=repo), "fifo.toml", "FIFO")
    (repo / "tg-trace.toml").write_text("# padding\n" * 200_000)
    assert_one_line(tg_trace("lint", "trace.nq", cwd=repo), "tg-trace.toml", "larger than")


def test_shapes_folder_holding_a_fifo_is_refused(tmp_path):
    shapes = tmp_path / "shapes"
    shutil.copytree(ROOT / "shapes", shapes)
    os.mkfifo(shapes / "zz-extra.ttl")
    result = tg_trace("lint", "--no-config", str(CLEAN), env={"TG_TRACE_SHAPES": str(shapes)})
    assert_one_line(result, "zz-extra.ttl", "FIFO")


def test_configuration_above_the_repository_root_does_not_apply(tmp_path):
    # A file in a shared parent folder (a runner's work folder, /tmp) would turn the gate off.
    (tmp_path / "tg-trace.toml").write_text('fail-on = "never"\n')
    repo = repository(tmp_path)
    result = tg_trace("lint", "trace.nq", cwd=repo)
    assert result.returncode == 1, result.stderr
    # Without a repository the search still goes up, as before.
    plain = tmp_path / "plain"
    plain.mkdir()
    faulty(plain)
    assert tg_trace("lint", "trace.nq", cwd=plain).returncode == 0


@pytest.mark.parametrize("setting", ['fail-on = "never"', 'ignore = ["ALL"]'])
def test_configuration_that_turns_the_gate_off_says_so(tmp_path, setting):
    repo = repository(tmp_path)
    (repo / "tg-trace.toml").write_text(setting + "\n")
    said = "the gate is turned off by the configuration file"
    outputs = {}
    for fmt in ("text", "json", "sarif", "github", "junit", "html", "shacl"):
        result = tg_trace("lint", "--format", fmt, "trace.nq", "--summary", f"summary-{fmt}.md", cwd=repo)
        assert result.returncode == 0, result.stderr
        assert f"tg-trace: warning: {said}" in result.stderr and "tg-trace.toml" in result.stderr
        outputs[fmt] = result.stdout
        assert said in (repo / f"summary-{fmt}.md").read_text()
    assert said in outputs["text"].splitlines()[-1]
    assert said in json.loads(outputs["json"])["summary"]["gate_off"]
    notes = json.loads(outputs["sarif"])["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert notes[0]["level"] == "warning" and said in notes[0]["message"]["text"]
    assert f"::warning title=tg-trace::{said}" in outputs["github"]
    suite = ET.fromstring(outputs["junit"]).find("testsuite")
    assert said in suite.find("properties/property").get("value")
    assert said in outputs["html"]
    report = rdflib.Graph().parse(data=outputs["shacl"], format="turtle")
    assert said in str(report.value(next(report.subjects(rdflib.RDF.type, SHACL_REPORT)), rdflib.RDFS.comment))


def test_a_gate_that_is_on_or_off_by_the_users_flag_says_nothing(tmp_path):
    repo = repository(tmp_path)
    result = tg_trace("lint", "--format", "json", "trace.nq", cwd=repo)
    assert result.returncode == 1 and "gate" not in result.stderr
    assert "gate_off" not in json.loads(result.stdout)["summary"]
    # The flag is the user's own word, seen in the job's definition.
    result = tg_trace("lint", "--format", "json", "--fail-on", "never", "trace.nq", cwd=repo)
    assert result.returncode == 0 and "gate" not in result.stderr
    # A flag that turns the configuration's gate back on.
    (repo / "tg-trace.toml").write_text('fail-on = "never"\n')
    result = tg_trace("lint", "--format", "json", "--fail-on", "error", "trace.nq", cwd=repo)
    assert result.returncode == 1 and "gate" not in result.stderr


@pytest.mark.parametrize("folder", ["/dev/zero", "missing", "empty"])
def test_a_shapes_folder_that_holds_no_shapes_is_refused_not_a_run_without_rules(tmp_path, folder):
    # A run without rules would pass every trace.
    if folder != "/dev/zero":
        folder = str(tmp_path / folder)
        if folder.endswith("empty"):
            Path(folder).mkdir()
    result = tg_trace("lint", "--no-config", str(faulty(tmp_path)), env={"TG_TRACE_SHAPES": folder})
    assert_one_line(result, "TG_TRACE_SHAPES")
