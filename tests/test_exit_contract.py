"""The exit contract and the safety of what tg-trace writes, as a CI job meets them."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import EXAMPLES
from tgtrace import api
from tgtrace.cli import main
from tgtrace.formats import FORMATS
from tgtrace.inputs.loaders import InputError

ESCAPE = "\x1b]0;pwned\x07"  # an OSC sequence: it would retitle the terminal


def run(*args, cwd=None, env=None, stdin=None):
    environment = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    environment.update(env or {})
    return subprocess.run([sys.executable, "-m", "tgtrace.cli", *args], capture_output=True, text=True,
                          cwd=cwd, env=environment, input=stdin)


def hostile_timestamp(path: Path) -> Path:
    """graph-rag with a timestamp literal holding an escape sequence (D003 reports it)."""
    text = (EXAMPLES / "graph-rag.nq").read_text()
    start = text.index('"2026-08-05T09:00:00.125000Z"')
    path.write_text(text[:start] + '"\\u001B]0;pwned\\u0007"' + text[start + len('"2026-08-05T09:00:00.125000Z"'):])
    return path


# ---------------------------------------------------------------- exit statuses


def test_an_internal_error_exits_3_with_one_line(monkeypatch):
    def broken(*_args, **_kwargs):
        raise RuntimeError("engine exploded\nsecond line")

    monkeypatch.setattr(api, "lint", broken)
    result = CliRunner().invoke(main, ["lint", str(EXAMPLES / "graph-rag.nq"), "--no-config"])
    assert result.exit_code == 3
    (line,) = result.stderr.splitlines()
    assert line.startswith("tg-trace: internal error: RuntimeError: engine exploded (please report it")
    assert "Traceback" not in result.output + result.stderr
    debug = CliRunner().invoke(main, ["--debug", "lint", str(EXAMPLES / "graph-rag.nq"), "--no-config"])
    assert debug.exit_code == 3 and "Traceback" in debug.stderr and "engine exploded" in debug.stderr


def test_every_error_a_user_can_act_on_derives_from_the_one_base():
    import importlib
    import pkgutil

    import tgtrace
    from tgtrace.ground.errors import TgTraceError

    classes = set()
    for module in pkgutil.walk_packages(tgtrace.__path__, "tgtrace."):
        loaded = importlib.import_module(module.name)
        classes |= {value for value in vars(loaded).values() if isinstance(value, type)
                    and issubclass(value, Exception) and value.__module__ == module.name}
    assert len(classes) >= 11
    assert [c.__qualname__ for c in classes if not issubclass(c, TgTraceError)] == []


def test_a_new_error_of_the_base_exits_with_its_status_and_one_escaped_line(monkeypatch):
    from tgtrace.ground.errors import TgTraceError

    class Unforeseen(TgTraceError):
        """An error no list of the command line names."""

    def refuse(*_args, **_kwargs):
        raise Unforeseen(f"trace{ESCAPE}.nq: refused")

    monkeypatch.setattr(api, "lint", refuse)
    result = CliRunner().invoke(main, ["lint", str(EXAMPLES / "graph-rag.nq"), "--no-config"])
    assert result.exit_code == 2 and result.stderr.count("\n") == 1
    assert result.stderr.startswith("tg-trace: trace") and "refused" in result.stderr
    assert "\x1b" not in result.stderr and "\x07" not in result.stderr


def test_a_run_with_no_trace_fails_unless_allowed(tmp_path):
    other = tmp_path / "other.nq"
    other.write_text("<http://example.org/a> <http://example.org/b> <http://example.org/c> .\n")
    result = run("lint", str(other), "--no-config")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.strip() == (f"tg-trace: {other}: holds no TrustGraph trace (no node has a class or "
                                     "predicate of the ontology); --allow-empty accepts a run without one")
    allowed = run("lint", str(other), "--no-config", "--allow-empty")
    assert allowed.returncode == 0 and "0 traces" in allowed.stdout


def test_extraction_provenance_alone_is_a_trace():
    assert run("lint", str(EXAMPLES / "extraction.nq"), "--no-config").returncode == 0


def test_the_python_api_refuses_an_empty_run_too():
    with pytest.raises(InputError, match="holds no triples"):
        api.lint([])
    other = [{"s": {"t": "i", "i": "http://example.org/a"}, "p": {"t": "i", "i": "http://example.org/b"},
              "o": {"t": "l", "v": "c"}}]
    with pytest.raises(api.NoTrace):
        api.lint(other)
    assert api.lint(other, allow_empty=True).findings == []


def test_standard_input_is_bounded_by_a_flag():
    text = (EXAMPLES / "graph-rag.nq").read_text()
    small = run("lint", "--input-format", "nquads", "--max-stdin-size", "1000", "-", "--no-config", stdin=text)
    assert small.returncode == 2
    assert small.stderr.strip() == ("tg-trace: <stdin>: is longer than 1000 bytes; write it to a file, or raise "
                                    "--max-stdin-size")
    enough = run("lint", "--input-format", "nquads", "--max-stdin-size", str(len(text) + 1), "-", "--no-config",
                 stdin=text)
    assert enough.returncode == 0


# ---------------------------------------------------------------- outputs


@pytest.mark.parametrize("flag", ["-o", "--summary", "--write-baseline"])
def test_an_output_never_overwrites_an_input(tmp_path, flag):
    trace = tmp_path / "graph-rag.nq"
    shutil.copy(EXAMPLES / "graph-rag.nq", trace)
    before = trace.read_bytes()
    result = run("lint", str(tmp_path), flag, str(trace), "--no-config")
    assert result.returncode == 2
    assert result.stderr.strip() == f"tg-trace: {trace}: {flag} names an input file; refusing to overwrite it"
    assert trace.read_bytes() == before


def test_outputs_are_written_whole_and_summaries_appended(tmp_path):
    report, summary = tmp_path / "report.json", tmp_path / "summary.md"
    summary.write_text("# earlier step\n")
    result = run("lint", str(EXAMPLES / "graph-rag.nq"), "--format", "json", "-o", str(report),
                 "--summary", str(summary), "--no-config")
    assert result.returncode == 0 and result.stdout == ""
    assert json.loads(report.read_text())["summary"]["traces"] == 1
    text = summary.read_text()
    assert text.startswith("# earlier step\n## :white_check_mark: tg-trace passed")
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temporary file left
    assert oct(report.stat().st_mode & 0o777) == oct(0o666 & ~_umask())


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_an_unwritable_output_is_one_line(tmp_path):
    result = run("lint", str(EXAMPLES / "graph-rag.nq"), "-o", str(tmp_path / "missing" / "out.txt"), "--no-config")
    assert result.returncode == 2
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"tg-trace: {tmp_path / 'missing' / 'out.txt'}: cannot write")


def test_summary_dash_and_no_summary(tmp_path):
    step_summary = tmp_path / "step-summary.md"
    env = {"GITHUB_STEP_SUMMARY": str(step_summary)}
    dash = run("lint", str(EXAMPLES / "graph-rag.nq"), "--summary", "-", "--no-config", env=env)
    assert dash.returncode == 0 and "## :white_check_mark: tg-trace passed" in dash.stdout
    assert not step_summary.exists()
    quiet = run("lint", str(EXAMPLES / "graph-rag.nq"), "--no-summary", "--no-config", env=env)
    assert quiet.returncode == 0 and not step_summary.exists()
    default = run("lint", str(EXAMPLES / "graph-rag.nq"), "--no-config", env=env)
    assert default.returncode == 0 and step_summary.read_text().count("tg-trace passed") == 1


# ---------------------------------------------------------------- terminal safety


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_control_characters_of_input_text_are_escaped(tmp_path, fmt):
    path = hostile_timestamp(tmp_path / "hostile.nq")
    result = run("lint", str(path), "--format", fmt, "--no-config", "--fail-on", "never")
    assert result.returncode == 0
    assert "\x1b" not in result.stdout and "\x07" not in result.stdout
    if "pwned" in result.stdout:  # a format that quotes the value shows it escaped (as text, or JSON's value)
        shown = result.stdout.replace("\\\\", "\\")  # a text escape inside a JSON string is doubled
        assert "\\x1b]0;pwned\\x07" in shown or "\\u001b]0;pwned\\u0007" in shown


def test_control_characters_in_a_file_name_are_escaped(tmp_path):
    path = tmp_path / f"trace{ESCAPE}.nq"
    shutil.copy(EXAMPLES / "orchestrator-react-multi-iteration.nq", path)
    text = path.read_text()
    path.write_text("\n".join(ln for ln in text.splitlines() if not ("/final>" in ln and "ns/Answer>" in ln)) + "\n")
    result = run("lint", str(path), "--no-config")
    assert result.returncode == 1 and "M001" in result.stdout
    assert "\x1b" not in result.stdout and "trace\\x1b]0;pwned\\x07.nq" in result.stdout


# ---------------------------------------------------------------- CI paths


def _repository(tmp_path) -> Path:
    """A repository whose traces live in a sub-directory, one of them faulty."""
    repo = tmp_path / "repo"
    (repo / "emitter" / "traces").mkdir(parents=True)
    (repo / ".git").mkdir()
    text = (EXAMPLES / "orchestrator-react-multi-iteration.nq").read_text()
    broken = "\n".join(ln for ln in text.splitlines() if not ("/final>" in ln and "ns/Answer>" in ln)) + "\n"
    (repo / "emitter" / "traces" / "broken.nq").write_text(broken)
    return repo


@pytest.mark.parametrize("workspace", [True, False])
def test_paths_are_relative_to_the_repository_root(tmp_path, workspace):
    repo = _repository(tmp_path)
    env = {"GITHUB_WORKSPACE": str(repo)} if workspace else {}
    if workspace:
        shutil.rmtree(repo / ".git")  # GITHUB_WORKSPACE alone says where the root is
    cwd = repo / "emitter"  # a workflow's working-directory:
    github = run("lint", "traces/broken.nq", "--format", "github", "--no-config", cwd=cwd, env=env)
    assert github.returncode == 1
    assert github.stdout.startswith("::error file=emitter/traces/broken.nq,line=")
    sarif = json.loads(run("lint", "traces/broken.nq", "--format", "sarif", "--no-config", cwd=cwd, env=env).stdout)
    run_ = sarif["runs"][0]
    assert run_["originalUriBaseIds"]["%SRCROOT%"]["uri"] == repo.as_uri() + "/"
    location = run_["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert location == {"uri": "emitter/traces/broken.nq", "uriBaseId": "%SRCROOT%"}
    junit = run("lint", "traces/broken.nq", "--format", "junit", "--no-config", cwd=cwd, env=env).stdout
    assert 'testsuite name="emitter/traces/broken.nq"' in junit
    text = run("lint", "traces/broken.nq", "--no-config", cwd=cwd, env=env).stdout
    assert text.startswith("emitter/traces/broken.nq: trace ")


def test_statistics_follow_the_annotations_in_github_actions(tmp_path):
    repo = _repository(tmp_path)
    result = run("lint", "emitter/traces", "--statistics", "--no-config", cwd=repo,
                 env={"GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": str(repo)})
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert lines[0].startswith("::error file=emitter/traces/broken.nq")
    assert any(line.endswith("answer-mixin") and "M001" in line for line in lines[1:])
    assert any(line.startswith("Ontology coverage: ") for line in lines)


# ---------------------------------------------------------------- SARIF identity


def test_sarif_results_have_unique_fingerprints_and_titles(tmp_path):
    repo = _repository(tmp_path)
    shutil.copy(repo / "emitter" / "traces" / "broken.nq", repo / "emitter" / "traces" / "copy.nq")
    log = json.loads(run("lint", "emitter", "--format", "sarif", "--no-config", cwd=repo).stdout)
    results = log["runs"][0]["results"]
    prints = [json.dumps(r["partialFingerprints"], sort_keys=True) for r in results]
    assert len(results) == 2 and len(set(prints)) == 2
    rules = {r["id"]: r for r in log["runs"][0]["tool"]["driver"]["rules"]}
    assert rules["M001"]["shortDescription"]["text"].startswith("Every answer")
    assert rules["M001"]["shortDescription"]["text"].endswith(".")


def test_standard_input_that_never_starts_is_given_up():
    # A pipe whose writer stays silent: the read gives up with one line instead of blocking forever.
    writer = subprocess.Popen(["sleep", "30"], stdout=subprocess.PIPE)
    try:
        result = subprocess.run([sys.executable, "-m", "tgtrace.cli", "lint", "--input-format", "nquads",
                                 "--stdin-timeout", "0.5", "-", "--no-config"], stdin=writer.stdout,
                                capture_output=True, text=True, timeout=60)
    finally:
        writer.kill()
    assert result.returncode == 2
    assert result.stderr.strip() == ("tg-trace: <stdin>: sent nothing in 0.5 seconds; raise --stdin-timeout for a "
                                     "slow producer")


@pytest.mark.parametrize("args, words", [
    (["lint", "--format", "bogus", "x.nq"], "Invalid value for '--format': 'bogus' is not one of"),
    (["lint", "--baseline", "examples", "x.nq"], "Invalid value for '--baseline'"),
    (["lint", "--nosuch", "x.nq"], "lint: No such option '--nosuch'"),
    (["nosuch"], "No such command 'nosuch'"),
    (["--nosuch"], "No such option '--nosuch'"),
    (["pull", "--limit", "0"], "Invalid value for '--limit'"),
    (["watch", "--deadline", "-1"], "Invalid value for '--deadline'"),
    (["convert"], "Missing argument 'PATHS...'"),
])
def test_click_usage_errors_are_one_line_exit_2(args, words):
    result = run(*args, cwd=Path(__file__).resolve().parents[1])
    assert result.returncode == 2
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("tg-trace: "), result.stderr
    assert words in lines[0], lines[0]
    assert "--help' for help" in lines[0]
