"""--one-capture: the inputs are parts of one capture. A trace cut across parts is linted
whole, and each finding names the part and the line in it that hold its triple: exactly
the findings of the uncut file, moved to the parts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import tgtrace
from capture_support import corpus, cut, moved, rows
from click.testing import CliRunner
from conftest import EXAMPLES
from tgtrace.cli import main

CUT_EXAMPLES = sorted(EXAMPLES.glob("*.nq")) + sorted(EXAMPLES.glob("*.jsonl")) + sorted(
    (EXAMPLES / "releases").rglob("*.nq"))


@pytest.mark.parametrize("source", CUT_EXAMPLES, ids=lambda p: str(p.relative_to(EXAMPLES)))
def test_cut_example_gives_the_findings_of_the_whole(source: Path, tmp_path: Path):
    parts = cut(source, tmp_path, parts=3, seed=len(source.name))
    whole = tgtrace.lint(str(source), fail_on="never", allow_empty=True)
    joined = tgtrace.lint(*(str(p) for p, _ in parts), one_capture=True, fail_on="never", allow_empty=True)
    assert rows(joined) == moved(whole, parts)
    assert set(joined.traces) == set(whole.traces)
    assert joined.triples == whole.triples
    assert joined.files == [str(p) for p, _ in parts]


def test_without_it_a_cut_trace_is_reported_broken(tmp_path: Path):
    source = EXAMPLES / "graph-rag.nq"
    parts = [str(p) for p, _ in cut(source, tmp_path, parts=3)]
    assert tgtrace.lint(str(source)).conforms
    assert not tgtrace.lint(*parts, allow_empty=True).conforms
    assert tgtrace.lint(*parts, one_capture=True).conforms


def test_corpus_cut_at_arbitrary_lines(tmp_path: Path):
    source = corpus(100_000, tmp_path)
    parts = cut(source, tmp_path, parts=8, seed=3)
    whole = tgtrace.lint(str(source), fail_on="never")
    joined = tgtrace.lint(*(str(p) for p, _ in parts), one_capture=True, fail_on="never")
    assert whole.findings
    assert rows(joined) == moved(whole, parts)
    assert joined.traces.keys() == whole.traces.keys()


def test_cli_reports_each_finding_in_its_part(tmp_path: Path):
    source = EXAMPLES / "releases" / "2.1.16" / "react.nq"
    parts = cut(source, tmp_path, parts=4, seed=1)
    runner = CliRunner()
    whole = runner.invoke(main, ["lint", "--no-config", "--fail-on", "info", "--format", "json", str(source)])
    joined = runner.invoke(main, ["lint", "--no-config", "--fail-on", "info", "--format", "json", "--one-capture",
                                  *(str(p) for p, _ in parts)])
    assert whole.exit_code == joined.exit_code == 1
    found = sorted(((f["rule"], f["focus"], f["file"], f["line"]) for f in json.loads(joined.output)["findings"]),
                   key=repr)
    assert found == moved(tgtrace.lint(str(source)), parts)
    # The parts are named as they were given, and more than one of them holds a finding.
    assert len({f[2] for f in found}) > 1


def test_configuration_key(tmp_path: Path):
    parts = [str(p) for p, _ in cut(EXAMPLES / "graph-rag.nq", tmp_path, parts=2)]
    config = tmp_path / "tg-trace.toml"
    config.write_text("one-capture = true\n")
    runner = CliRunner()
    assert runner.invoke(main, ["lint", "--config", str(config), *parts]).exit_code == 0
    config.write_text('one-capture = "yes"\n')
    result = runner.invoke(main, ["lint", "--config", str(config), *parts])
    assert result.exit_code == 2
    assert "one-capture: expected true or false" in result.output


def test_input_error_names_its_part_and_line(tmp_path: Path):
    parts = cut(EXAMPLES / "graph-rag.nq", tmp_path, parts=3, seed=2)
    bad, _ = parts[1]
    lines = bad.read_bytes().splitlines(keepends=True)
    lines[2] = b"<urn:x> <urn:p> \"unterminated .\n"
    bad.write_bytes(b"".join(lines))
    result = CliRunner().invoke(main, ["lint", "--no-config", "--one-capture", *(str(p) for p, _ in parts)])
    assert result.exit_code == 2
    assert result.output.startswith(f"tg-trace: {bad}:3: ")
    assert len(result.output.strip().splitlines()) == 1


def test_empty_part_is_an_input_error(tmp_path: Path):
    parts = [str(p) for p, _ in cut(EXAMPLES / "graph-rag.nq", tmp_path, parts=2)]
    blank = tmp_path / "blank.nq"
    blank.write_bytes(b"# nothing but a comment\n")
    result = CliRunner().invoke(main, ["lint", "--no-config", "--one-capture", *parts, str(blank)])
    assert result.exit_code == 2
    assert f"{blank}: holds no triples" in result.output


def test_list_shows_a_cut_trace_once_whole(tmp_path: Path):
    source = EXAMPLES / "supervisor.nq"
    parts = [str(p) for p, _ in cut(source, tmp_path, parts=3, seed=4)]
    runner = CliRunner()

    def listed(*args):
        result = runner.invoke(main, ["list", "--no-config", "--format", "json", *args])
        assert result.exit_code in (0, 1), result.output
        return json.loads(result.stdout)

    (whole,) = listed(str(source))
    (joined,) = listed("--one-capture", *parts)
    assert joined.pop("file") in parts
    del whole["file"]
    assert joined == whole
    # Each part alone holds pieces of the trace: not the one row of the whole.
    assert [{k: v for k, v in row.items() if k != "file"} for row in listed(*parts)] != [whole]


def test_show_and_graph_take_a_folder_of_parts_as_one_capture(tmp_path: Path):
    source = EXAMPLES / "supervisor.nq"
    folder = tmp_path / "parts"
    folder.mkdir()
    cut(source, folder, parts=3, seed=4)
    runner = CliRunner()

    def without_files(value):  # the file a trace (or sub-trace) was read from differs, nothing else may
        if isinstance(value, dict):
            return {k: without_files(v) for k, v in value.items() if k != "file"}
        return [without_files(v) for v in value] if isinstance(value, list) else value

    def shown(*args):
        result = runner.invoke(main, ["show", "--no-config", "--format", "json", *args])
        assert result.exit_code in (0, 1), result.output
        return without_files(json.loads(result.stdout))

    whole = shown(str(source))
    assert shown("--one-capture", str(folder)) == whole
    assert shown(str(folder)) != whole  # each part alone holds only pieces of the trace

    def drawn(path, *args):
        out = tmp_path / "trace.dot"
        result = runner.invoke(main, ["graph", "--no-config", "-o", str(out), *args, str(path)])
        assert result.exit_code in (0, 1), result.output
        return out.read_text()

    assert drawn(folder, "--one-capture") == drawn(source)
    result = runner.invoke(main, ["graph", "--no-config", "-o", str(tmp_path / "t.dot"), str(folder)])
    assert result.exit_code == 2 and "holds" in result.output  # several pieces: choose one
