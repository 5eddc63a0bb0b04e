"""The faces agree: what lint reports, list counts and show and graph draw, on every example and
on every copy of one with any one link of its trace removed."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
import tgtrace
from click.testing import CliRunner
from tgtrace.cli import main
from tgtrace.formats.common import census
from tgtrace.run.settings import Settings
from tgtrace.tracemodel.traces import LINKS
from tgtrace.views import traces as traceviews

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
EVERY = Settings(fail_on=None)
C001 = "C001"  # an entity with no prov:wasDerivedFrom: hangs outside its trace


def shown(views) -> set[str]:
    """Every node a view shows: its steps and what they own (Thoughts, selections)."""
    return {n for view in views for step in view.all_steps()
            for n in (step.node, *(owned for owned, _, _ in step.owned))}


def view_counts(listing) -> Counter:
    counts: Counter = Counter()
    for row in listing.rows:
        counts.update(row.counts())
    counts.update(listing.outside)
    return +counts


def link_lines(path: Path) -> list[int]:
    """The lines of an N-Quads file that state a link of the trace model."""
    lines = path.read_text().splitlines()
    return [i for i, line in enumerate(lines) if line.split(" ", 2)[1][1:-1] in LINKS]


def without_line(path: Path, index: int, folder: Path) -> Path:
    lines = path.read_text().splitlines(keepends=True)
    mutant = folder / path.name
    mutant.write_text("".join(lines[:index] + lines[index + 1:]))
    return mutant


def check_mutants(path: Path, folder: Path) -> int:
    original = shown(traceviews.build(str(path), settings=EVERY))
    checked = 0
    for index in link_lines(path):
        mutant = without_line(path, index, folder)
        listing = traceviews.explore(str(mutant), settings=EVERY)
        report = tgtrace.lint(str(mutant), fail_on="never")
        where = f"{path.relative_to(EXAMPLES)} without line {index + 1}"
        # Nothing the trace showed is hidden by the loss of one link.
        assert original <= shown(listing.rows), where
        # Each finding is counted once, in the trace that holds it or outside every trace.
        rows = traceviews.listing(str(mutant), settings=EVERY)
        assert view_counts(rows) == +Counter(report.counts()), where
        # An entity that lost the link hanging it in its trace is shown, marked.
        steps = {step.node: step for view in listing.rows for step in view.all_steps()}
        for finding in report.findings:
            if finding.rule == C001 and finding.focus in steps and not steps[finding.focus].parents:
                assert steps[finding.focus].orphan, (where, finding.focus)
        checked += 1
    return checked


EXAMPLE_FILES = sorted(EXAMPLES.glob("*.nq"))
RELEASE_FILES = sorted(EXAMPLES.glob("releases/*/*.nq")) + sorted(EXAMPLES.glob("services/*.nq"))


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.name)
def test_any_one_link_removed_from_an_example_hides_nothing_and_counts_agree(path: Path, tmp_path: Path):
    assert check_mutants(path, tmp_path) > 0


@pytest.mark.parametrize("path", RELEASE_FILES, ids=lambda p: str(p.relative_to(EXAMPLES)))
def test_any_one_link_removed_from_a_release_capture_hides_nothing_and_counts_agree(path: Path, tmp_path: Path):
    check_mutants(path, tmp_path)


@pytest.mark.parametrize("one_capture", [False, True], ids=["files", "one-capture"])
def test_lint_and_list_count_the_same_files_traces_and_findings(one_capture: bool):
    settings = Settings(fail_on=None, one_capture=one_capture)
    report = tgtrace.lint(str(EXAMPLES), fail_on="never", one_capture=one_capture)
    listing = traceviews.listing(str(EXAMPLES), settings=settings)
    assert len(listing.files) == len(report.files)
    assert len({row.trace for row in listing.rows}) == len(report.traces)
    assert view_counts(listing) == +Counter(report.counts())
    # The two commands say it in the same words.
    said = census(len(report.files), len(report.traces), report.repeated)
    flag = ["--one-capture"] if one_capture else []
    assert said in CliRunner().invoke(main, ["lint", str(EXAMPLES), "--format", "concise", *flag]).output
    assert said in CliRunner().invoke(main, ["list", str(EXAMPLES), *flag]).output


def test_two_copies_of_one_trace_are_one_trace_in_both(tmp_path: Path):
    for name in ("a.nq", "b.nq"):
        (tmp_path / name).write_bytes((EXAMPLES / "graph-rag.nq").read_bytes())
    report = tgtrace.lint(str(tmp_path), fail_on="never")
    assert (len(report.files), len(report.traces), report.repeated) == (2, 1, 1)
    lint_out = CliRunner().invoke(main, ["lint", str(tmp_path)]).output
    list_out = CliRunner().invoke(main, ["list", str(tmp_path)]).output
    assert "2 files, 1 trace (held by several files, counted once)" in lint_out
    assert "2 rows: 2 files, 1 trace (held by several files, counted once)." in list_out


@pytest.fixture
def unlinked_conclusion(tmp_path: Path) -> Path:
    """The orchestrator's one-shot example with its Conclusion's prov:wasDerivedFrom removed."""
    source = EXAMPLES / "orchestrator-react-one-shot.nq"
    lines = source.read_text().splitlines(keepends=True)
    kept = [line for line in lines if not (line.startswith("<urn:trustgraph:agent:")
                                           and "/final> <http://www.w3.org/ns/prov#wasDerivedFrom>" in line)]
    assert len(kept) == len(lines) - 1
    path = tmp_path / source.name
    path.write_text("".join(kept))
    return path


def test_show_graph_and_list_show_the_error_lint_reports(unlinked_conclusion: Path):
    path = str(unlinked_conclusion)
    runner = CliRunner()
    lint = runner.invoke(main, ["lint", path, "--format", "json"])
    assert lint.exit_code == 1
    c001 = [f for f in json.loads(lint.output)["findings"] if f["rule"] == C001]
    assert [f["focus"].rsplit("/", 1)[1] for f in c001] == ["final"]

    show = runner.invoke(main, ["show", path])
    assert show.exit_code == 1, show.output
    conclusion = [line for line in show.output.splitlines() if "Conclusion" in line and "not linked" in line]
    assert conclusion, show.output
    shown_json = json.loads(runner.invoke(main, ["show", path, "--format", "json"]).output)
    steps = [s for view in shown_json for s in view["steps"]]
    assert [s["kind"] for s in steps if s.get("orphan")] == ["Conclusion"]

    drawing = unlinked_conclusion.with_suffix(".dot")
    graph = runner.invoke(main, ["graph", path, "-o", str(drawing)])
    assert graph.exit_code == 1, graph.output
    dot = drawing.read_text()
    assert "not linked to its trace" in dot and "Conclusion" in dot

    listed = runner.invoke(main, ["list", path, "--format", "json"])
    assert listed.exit_code == 1
    assert json.loads(listed.output)[0]["findings"]["error"] == sum(
        f["severity"] == "error" for f in json.loads(lint.output)["findings"])


def test_findings_outside_every_trace_are_counted_by_list(tmp_path: Path):
    # TrustGraph 2.1.16's extraction trace is prov:Entity only: its findings hold to no trace.
    path = EXAMPLES / "releases" / "2.1.16" / "extraction.nq"
    report = tgtrace.lint(str(path), fail_on="never")
    assert report.counts()["warning"] and not report.traces
    listed = CliRunner().invoke(main, ["list", str(path)])
    assert f"Outside any trace: {report.counts()['warning']} warnings." in listed.output
    rows = json.loads(CliRunner().invoke(main, ["list", str(path), "--format", "json"]).output)
    assert rows == [{"trace": None, "findings": {"warning": report.counts()["warning"]}}]
