"""The GitHub Action and the GitLab template fail loudly: their own commands, run in a scratch
repository laid out as a user's, with the defaults a user gets. Reports never land where the
scanned paths read them back, every report is written and parses, and exit 2 or 3 of any run
fails the job (never hidden behind `|| true`)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest
import yaml
from conftest import EXAMPLES, ROOT
from formats_support import sarif_validator

# Slow: runs each CI template's commands (`python -m pytest -m "not slow"` leaves it out; CI runs it).
pytestmark = pytest.mark.slow

GITLAB = ROOT / "ci-templates" / "gitlab" / "tg-trace.gitlab-ci.yml"
ACTION = ROOT / "action.yml"


@pytest.fixture
def bin_dir(tmp_path: Path) -> Path:
    """A `tg-trace` command on PATH that runs this checkout (as the job's pip install would)."""
    folder = tmp_path / "bin"
    folder.mkdir()
    command = folder / "tg-trace"
    command.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m tgtrace.cli "$@"\n')
    command.chmod(0o755)
    return folder


def user_repository(tmp_path: Path) -> Path:
    """A project as a user has it: sources, a README, captured traces, a .git folder."""
    repo = tmp_path / "project"
    (repo / ".git").mkdir(parents=True)
    (repo / "src").mkdir()
    (repo / "src" / "app.py").write_text("print('hello')\n")
    (repo / "README.md").write_text("# project\n")
    (repo / "traces").mkdir()
    for name in ("graph-rag.nq", "orchestrator-react-multi-iteration.json"):
        shutil.copy(EXAMPLES / name, repo / "traces" / name)
    return repo


def _environment(bin_dir: Path, **more) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "CI_", "TG_TRACE_"))}
    env["PATH"] = f"{bin_dir}{os.pathsep}{env['PATH']}"
    return {**env, **more}


# ---------------------------------------------------------------- GitLab


def run_gitlab_job(repo: Path, bin_dir: Path, **variables) -> subprocess.CompletedProcess:
    """The template's job script (after its pip install) with its variables, in ``repo``."""
    template = yaml.safe_load(GITLAB.read_text())
    job = template["tg-trace"]
    script = [line for line in job["script"] if "pip install" not in line]
    assert len(script) < len(job["script"]), "the template no longer installs tg-trace"
    env = _environment(bin_dir, **{**template["variables"], **job["variables"], **variables})
    return subprocess.run(["sh", "-c", "set -e\n" + "\n".join(script)], cwd=repo, env=env, capture_output=True,
                          text=True, timeout=300)


def gitlab_reports(repo: Path) -> dict[str, Path]:
    job = yaml.safe_load(GITLAB.read_text())["tg-trace"]
    reports = job["artifacts"]["reports"]
    assert set(job["artifacts"]["paths"]) == set(reports.values())
    return {kind: repo / path for kind, path in reports.items()}


def test_gitlab_job_with_default_paths_writes_both_reports_and_passes(tmp_path, bin_dir):
    repo = user_repository(tmp_path)
    for _attempt in range(2):  # a retried job finds the last run's reports in the tree
        result = run_gitlab_job(repo, bin_dir)
        assert result.returncode == 0, result.stdout + result.stderr
        reports = gitlab_reports(repo)
        assert json.loads(reports["codequality"].read_text()) == []
        suites = ET.parse(reports["junit"]).getroot()
        assert int(suites.get("tests")) == 2 and suites.get("failures") == "0"


def test_gitlab_job_fails_on_findings_with_both_reports(tmp_path, bin_dir):
    repo = user_repository(tmp_path)
    trace = repo / "traces" / "graph-rag.nq"
    trace.write_text("".join(line for line in trace.read_text().splitlines(keepends=True)
                             if "ns/Answer>" not in line))
    result = run_gitlab_job(repo, bin_dir)
    assert result.returncode == 1, result.stdout + result.stderr
    reports = gitlab_reports(repo)
    assert json.loads(reports["codequality"].read_text())
    assert ET.parse(reports["junit"]).getroot().get("failures") == "1"


def test_gitlab_job_fails_when_a_report_cannot_be_written(tmp_path, bin_dir):
    repo = user_repository(tmp_path)
    gitlab_reports(repo)["codequality"].mkdir()  # the report's place is taken
    result = run_gitlab_job(repo, bin_dir, TG_TRACE_PATHS="traces/")
    assert result.returncode == 2, result.stdout + result.stderr


def test_gitlab_job_fails_on_an_unreadable_trace(tmp_path, bin_dir):
    repo = user_repository(tmp_path)
    (repo / "traces" / "broken.nq").write_text("<urn:a> <urn:b> .\n")
    assert run_gitlab_job(repo, bin_dir).returncode == 2


# ---------------------------------------------------------------- GitHub Action


def run_action(repo: Path, bin_dir: Path, tmp_path: Path, **inputs) -> tuple[int, dict, str]:
    """The action's lint and result steps, as the runner runs them: (the step's status, the
    step's outputs, the log)."""
    steps = {step.get("id") or step["name"]: step for step in yaml.safe_load(ACTION.read_text())["runs"]["steps"]}
    defaults = {name: spec.get("default", "") for name, spec in yaml.safe_load(ACTION.read_text())["inputs"].items()}
    given = {**defaults, **inputs}
    runner_temp = tmp_path / "runner-temp"
    runner_temp.mkdir(exist_ok=True)
    outputs_file = tmp_path / "github-output"
    outputs_file.write_text("")
    env = _environment(bin_dir, GITHUB_OUTPUT=str(outputs_file), RUNNER_TEMP=str(runner_temp),
                       GITHUB_WORKSPACE=str(repo), GITHUB_ACTIONS="true",
                       TG_TRACE=str(bin_dir / "tg-trace"),
                       **{f"INPUT_{name.upper().replace('-', '_')}": value for name, value in given.items()})
    lint = subprocess.run(["bash", "-e", "-c", steps["lint"]["run"]], cwd=repo, env=env, capture_output=True,
                          text=True, timeout=300)
    assert lint.returncode == 0, lint.stderr  # the step passes, so that SARIF is uploaded
    outputs = dict(line.split("=", 1) for line in outputs_file.read_text().splitlines())
    result = subprocess.run(["bash", "-e", "-c", steps["Result"]["run"]], cwd=repo, capture_output=True,
                            env={**env, "STATUS": outputs.get("exit-code", "")}, timeout=60)
    return result.returncode, outputs, lint.stdout + lint.stderr


def test_action_with_sarif_writes_a_valid_report_outside_the_workspace(tmp_path, bin_dir):
    repo = user_repository(tmp_path)
    status, outputs, log = run_action(repo, bin_dir, tmp_path, sarif="true")
    assert status == 0, log
    sarif = Path(outputs["sarif-file"])
    assert repo not in sarif.parents
    sarif_validator().validate(json.loads(sarif.read_text()))


def test_action_fails_when_the_sarif_report_cannot_be_written(tmp_path, bin_dir):
    repo = user_repository(tmp_path)
    (tmp_path / "runner-temp" / "tg-trace.sarif").mkdir(parents=True)  # the report's place is taken
    status, outputs, log = run_action(repo, bin_dir, tmp_path, sarif="true")
    assert status == 2 and outputs["exit-code"] == "2", log
    assert "::error title=tg-trace::the SARIF report was not written" in log


def test_action_fails_on_an_unreadable_trace(tmp_path, bin_dir):
    repo = user_repository(tmp_path)
    (repo / "traces" / "broken.nq").write_text("<urn:a> <urn:b> .\n")
    status, outputs, log = run_action(repo, bin_dir, tmp_path, sarif="true")
    assert status == 2, log
