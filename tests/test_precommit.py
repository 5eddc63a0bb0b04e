"""The pre-commit hook definition: valid, and linting traces in a real repository.

``pre-commit try-repo`` would build the hook's own virtualenv from PyPI; tests
do not reach the network, so the hook is run as pre-commit would run it, from
a repository-local copy of its definition with ``language: system`` (the
installed ``tg-trace``). Set TG_TRACE_TRY_REPO=1 to also run the real
``try-repo``, which installs this checkout and its dependencies.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MANIFEST = ROOT / ".pre-commit-hooks.yaml"
EXAMPLES = ROOT / "examples"

yaml = pytest.importorskip("yaml", reason="PyYAML comes with pre-commit")
PRE_COMMIT = shutil.which("pre-commit") or (
    str(Path(sys.executable).with_name("pre-commit")) if Path(sys.executable).with_name("pre-commit").exists() else None
)
needs_pre_commit = pytest.mark.skipif(PRE_COMMIT is None, reason="pre-commit is not installed")


def hook() -> dict:
    (definition,) = yaml.safe_load(MANIFEST.read_text())
    return definition


@needs_pre_commit
def test_manifest_is_valid():
    result = subprocess.run([PRE_COMMIT, "validate-manifest", str(MANIFEST)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_hook_lints_trace_files_only():
    definition = hook()
    assert definition["id"] == "tg-trace"
    # Batches of a few files: no coverage minimum, no step summary per batch.
    assert definition["entry"] == "tg-trace lint --no-summary --min-coverage 0"
    files = re.compile(definition["files"])
    for name in ("traces/react.nq", "a.nt", "b.trig", "captured/run.trace.json", "events.trace.jsonl"):
        assert files.search(name), name
    for name in ("package.json", "ontology.ttl", "README.md", "traces/react.nq.bak", "trace.json"):
        assert not files.search(name), name


def _tool_bin(tmp_path: Path) -> Path:
    """A folder whose tg-trace runs this checkout's CLI with this interpreter."""
    folder = tmp_path / "bin"
    folder.mkdir()
    installed = shutil.which("tg-trace")
    script = folder / "tg-trace"
    if installed:
        script.symlink_to(installed)
    else:
        script.write_text(
            f"#!/bin/sh\nPYTHONPATH={ROOT / 'validators'} exec {sys.executable} -c "
            "'import sys; from tgtrace.cli import main; sys.argv[0] = \"tg-trace\"; main()' \"$@\"\n"
        )
        script.chmod(0o755)
    return folder


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


@needs_pre_commit
@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_hook_runs_in_a_repository(tmp_path):
    repo = tmp_path / "project"
    (repo / "traces").mkdir(parents=True)
    shutil.copy(EXAMPLES / "graph-rag.nq", repo / "traces" / "graph-rag.nq")
    (repo / "package.json").write_text("{}\n")  # not a trace: the hook must not pick it up
    # A whole-run minimum the one file of a batch cannot meet: the hook must not apply it.
    (repo / "tg-trace.toml").write_text("min-coverage = 90\n")
    local = dict(hook(), language="system")
    config = {"repos": [{"repo": "local", "hooks": [local]}]}
    (repo / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config))
    _git(repo, "init", "-q")
    _git(repo, "add", ".")

    step_summary = tmp_path / "step-summary.md"
    env = dict(os.environ, PRE_COMMIT_HOME=str(tmp_path / "cache"), PATH=f"{_tool_bin(tmp_path)}:{os.environ['PATH']}",
               GITHUB_STEP_SUMMARY=str(step_summary))
    env.pop("GITHUB_ACTIONS", None)

    def run():
        return subprocess.run([PRE_COMMIT, "run", "--all-files", "--color", "never"], cwd=repo, env=env,
                              capture_output=True, text=True)

    clean = run()
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "tg-trace lint" in clean.stdout and "Passed" in clean.stdout
    assert not step_summary.exists()

    # Break the trace: the Synthesis loses its tg:Answer type.
    path = repo / "traces" / "graph-rag.nq"
    lines = path.read_text().splitlines(keepends=True)
    broken = [line for line in lines if " <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <https://trustgraph.ai/ns/Answer> " not in line]
    assert len(broken) == len(lines) - 1
    path.write_text("".join(broken))
    _git(repo, "add", ".")
    failed = run()
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "Failed" in failed.stdout and "M001" in failed.stdout and "traces/graph-rag.nq" in failed.stdout


@needs_pre_commit
@pytest.mark.skipif(os.environ.get("TG_TRACE_TRY_REPO") != "1", reason="set TG_TRACE_TRY_REPO=1 (installs from PyPI)")
def test_try_repo(tmp_path):
    # try-repo reads the hook from a commit; a snapshot of this working tree
    # is committed in a scratch repository so uncommitted work is what is tried.
    # What git ignores is never committed, so it is not copied (nearly a gigabyte with the
    # virtualenv; caches that tests running beside this one may be writing).
    source = tmp_path / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(".git", "site", "__pycache__", ".pytest_cache",
                                                                 "*.egg-info", "ci-artifacts", ".venv",
                                                                 "node_modules", ".hypothesis"))
    _git(source, "init", "-q")
    _git(source, "add", ".")
    _git(source, "-c", "user.name=test", "-c", "user.email=test@example.invalid", "commit", "-q", "-m", "snapshot")
    repo = tmp_path / "project"
    repo.mkdir()
    shutil.copy(EXAMPLES / "graph-rag.nq", repo / "graph-rag.nq")
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    env = dict(os.environ, PRE_COMMIT_HOME=str(tmp_path / "cache"))
    result = subprocess.run([PRE_COMMIT, "try-repo", str(source), "tg-trace", "--all-files"], cwd=repo, env=env,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    text = (repo / "graph-rag.nq").read_text()
    (repo / "graph-rag.nq").write_text(
        "".join(line for line in text.splitlines(keepends=True) if "<https://trustgraph.ai/ns/Answer> " not in line)
    )
    _git(repo, "add", ".")
    result = subprocess.run([PRE_COMMIT, "try-repo", str(source), "tg-trace", "--all-files"], cwd=repo, env=env,
                            capture_output=True, text=True)
    assert result.returncode == 1 and "M001" in result.stdout, result.stdout + result.stderr
