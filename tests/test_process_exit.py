"""tg-trace as a process leaves without the interpreter's teardown (cli.entry): everything it
wrote still arrives whole, its exit status is the command's, and runs in a process that stays
(the test runner, the pytest plugin, the Python API) free their graphs as before."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import weakref

from click.testing import CliRunner
from conftest import EXAMPLES
from tgtrace import api
from tgtrace.cli import main
from tgtrace.run import lint as run_lint


def _process(*args: str) -> subprocess.CompletedProcess:
    # Buffered, as a user's standard streams are (this machine may set PYTHONUNBUFFERED).
    env = {name: value for name, value in os.environ.items() if name != "PYTHONUNBUFFERED"}
    return subprocess.run([sys.executable, "-m", "tgtrace.cli", *args], capture_output=True, timeout=300, env=env)


def test_a_report_larger_than_any_buffer_arrives_whole_through_a_pipe():
    # Far more than the pipe's and the stream's buffers: what is still buffered at the exit is flushed.
    ran = _process("lint", "--format", "json", str(EXAMPLES))
    assert len(ran.stdout) > 200_000
    in_process = CliRunner().invoke(main, ["lint", "--format", "json", str(EXAMPLES)])
    assert ran.returncode == in_process.exit_code == 0
    assert json.loads(ran.stdout) == json.loads(in_process.output)


def test_the_exit_status_is_the_commands(tmp_path):
    assert _process("lint", "--fail-on", "warning", str(EXAMPLES / "legacy-react-multi-iteration.json")).returncode == 1
    clean = _process("lint", str(EXAMPLES / "document-rag.nq"))
    # A report smaller than the stream's buffer is still in it at the exit: flushed, not lost.
    assert clean.returncode == 0 and clean.stdout == b"1 file, 1 trace, 32 triples: all clean.\n"
    missing = _process("lint", str(tmp_path / "missing.nq"))
    assert missing.returncode == 2
    assert missing.stderr.decode().count("\n") == 1 and "missing.nq" in missing.stderr.decode()
    assert _process("no-such-command").returncode == 2
    assert _process("--version").returncode == 0


def test_a_report_written_to_a_file_is_whole_and_its_line_said(tmp_path):
    out = tmp_path / "report.json"
    ran = _process("lint", "--format", "json", "-o", str(out), str(EXAMPLES))
    assert ran.returncode == 0 and ran.stdout == b""
    assert ran.stderr.decode().startswith("tg-trace: wrote the json report to ")
    assert json.loads(out.read_text())["summary"]["files"] > 1


def _graphs_judged(monkeypatch) -> list[weakref.ref]:
    judged: list[weakref.ref] = []
    check = run_lint.check_graph

    def recorded(graph, settings=run_lint.DEFAULTS):  # noqa: ANN001, ANN202
        judged.append(weakref.ref(graph))
        return check(graph, settings)
    monkeypatch.setattr(run_lint, "check_graph", recorded)
    return judged


def test_a_process_about_to_exit_keeps_only_the_last_graph(monkeypatch):
    judged = _graphs_judged(monkeypatch)
    files = [EXAMPLES / "document-rag.nq", EXAMPLES / "extraction.nq", EXAMPLES / "document-rag-reranked.nq"]
    with run_lint.last_graph_kept():
        api.lint(*files)
        gc.collect()
        alive = [ref() for ref in judged]
        # One graph at a time: each is let go before the next input is read.
        assert [graph is not None for graph in alive] == [False, False, True]
        assert alive[-1].name.endswith("document-rag-reranked.nq")
        del alive
    gc.collect()
    assert all(ref() is None for ref in judged)  # leaving the context lets the last one go


def test_the_kept_graph_is_out_of_the_collectors_reach(monkeypatch):
    # The collector's first passes after a lint would otherwise walk every object of the index
    # (0.8 s at a million triples); leaving the context hands everything back to it.
    judged = _graphs_judged(monkeypatch)
    with run_lint.last_graph_kept():
        api.lint(EXAMPLES / "document-rag.nq")
        kept = judged[-1]()
        assert kept is not None and gc.get_freeze_count() > kept.statements
        walked = {id(obj) for obj in gc.get_objects()}
        assert id(kept) not in walked
        del kept
    assert gc.get_freeze_count() == 0
    gc.collect()
    assert judged[-1]() is None


def test_runs_in_a_process_that_stays_keep_no_graph(monkeypatch):
    judged = _graphs_judged(monkeypatch)
    api.lint(EXAMPLES / "document-rag.nq", EXAMPLES / "extraction.nq")
    gc.collect()
    assert len(judged) == 2 and all(ref() is None for ref in judged)
