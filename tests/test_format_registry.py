"""The contract every output format keeps, checked by iterating the format registry, so a format
is held to it the moment it registers: what the input says reaches its output escaped (no raw
control character, no forged CI workflow command, still read by its consumer), ``-o`` writes the
same report through a temporary file renamed over the old one, and the README names it. The
command line's exit statuses and the docs pages iterate the same registry
(tests/test_cli_formats.py, tests/test_exit_contract.py, tests/test_docs_complete.py).
"""

from __future__ import annotations

import re
import sys
import types
from pathlib import Path

import pytest
from conftest import EXAMPLES, ROOT
from fuzz import output_problem
from tgtrace import api
from tgtrace.formats import FORMATS, emit, render
from tgtrace.formats.common import Format
from tgtrace.ground.escaping import printable
from tgtrace.ground.model import Report
from tgtrace.run.settings import Output

# In an N-Quads literal: a terminal escape, then a forged GitHub workflow command on a line of its own.
HOSTILE_LITERAL = r'"\u001B]0;pwned\u0007\n::error file=src/app.py,line=1::FORGED\r\u202Eevil"'
STAMP = '"2026-08-05T09:00:00.125000Z"'


@pytest.fixture(scope="module")
def hostile_report(tmp_path_factory) -> Report:
    """The emitter's GraphRAG trace whose timestamp is hostile (D003 quotes it), under a hostile file name."""
    folder = tmp_path_factory.mktemp("hostile")
    text = (EXAMPLES / "graph-rag.nq").read_text(encoding="utf-8")
    assert STAMP in text
    path = folder / "trace\x1b]0;t\x07.nq"
    path.write_text(text.replace(STAMP, HOSTILE_LITERAL, 1), encoding="utf-8")
    report = api.lint(str(path))  # the defaults: no configuration file is read by the API
    assert "D003" in {f.rule for f in report.findings}
    return report


def contract_problems(fmt: str, report: Report, folder: Path) -> list[str]:
    """What format ``fmt`` does wrong with a hostile report, one line each (none: it keeps the contract)."""
    problems = []
    shown = render(report, fmt)
    problem = output_problem(fmt, shown)
    if problem:
        problems.append(f"{fmt}: standard output: {problem}")
    target = folder / f"report-{fmt}.out"
    target.write_text("the report of an earlier run\n", encoding="utf-8")
    emit(report, Output(format=fmt, file=str(target)))
    if target.read_text(encoding="utf-8").rstrip("\n") != shown.rstrip("\n"):
        problems.append(f"{fmt}: -o writes other text than standard output shows")
    left = sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))
    if left:
        problems.append(f"{fmt}: -o left temporary files {left}")
    return problems


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_every_registered_format_keeps_the_contract(hostile_report, tmp_path, fmt):
    assert contract_problems(fmt, hostile_report, tmp_path) == []


def _register(monkeypatch, name: str, render_) -> None:
    """A format registered as any other: a module of tgtrace.formats and its entry in FORMATS."""
    module = types.ModuleType(f"tgtrace.formats.{name}")
    module.render = render_
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setitem(FORMATS, name, Format(name, "a format that exists only in this test", name))


def test_a_new_format_that_does_not_escape_is_caught_the_moment_it_registers(monkeypatch, hostile_report,
                                                                                tmp_path):
    _register(monkeypatch, "careless", lambda report, output: "\n".join(f.message for f in report.findings))
    problems = contract_problems("careless", hostile_report, tmp_path)
    assert problems and problems[0].startswith("careless: standard output: a line a CI runner would read as a "
                                               "workflow command"), problems
    # The same format escaping what came from the input keeps it.
    _register(monkeypatch, "careful", lambda report, output: "\n".join(printable(f.message) for f in report.findings))
    assert contract_problems("careful", hostile_report, tmp_path) == []


def test_the_readme_names_every_registered_format_in_order():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    match = re.search(r"reports in every\s+`--format`:(.*?)\.\n", text, re.S)
    assert match, "the README's sentence listing the output formats is gone"
    assert re.findall(r"`([\w-]+)`", match.group(1)) == list(FORMATS)


def test_statistics_are_refused_once_from_the_registry(hostile_report):
    from tgtrace.run.settings import SettingsError

    able = [name for name, registered in FORMATS.items() if registered.statistics]
    for name in FORMATS:
        if name in able:
            continue
        with pytest.raises(SettingsError) as refused:
            render(hostile_report, Output(format=name, statistics=True))
        assert str(refused.value) == f"--statistics prints {', '.join(able[:-1])} or {able[-1]}, not {name}"
