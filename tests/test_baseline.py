"""Baselines: record findings, accept them later, fail on new ones."""

from __future__ import annotations

import json

import pytest
from tgtrace.ground.model import Finding, Report, Severity
from tgtrace.run import baseline
from tgtrace.run.baseline import Baseline, BaselineError, fingerprint

AGENT = "urn:trustgraph:agent:0b6f"


def finding(rule="M001", focus=AGENT + "/final", line=3, file="t.nq", value=None):
    return Finding(file=file, line=line, rule=rule, severity=Severity.ERROR, family="mixin", message="m",
                   focus=focus, trace=AGENT, value=value)


def test_fingerprint_ignores_file_line_and_message():
    a = finding()
    assert fingerprint(a) == fingerprint(finding(line=40, file="moved/t.json"))
    assert fingerprint(a) != fingerprint(finding(rule="M008"))
    assert fingerprint(a) != fingerprint(finding(focus=AGENT + "/synthesis"))


def test_round_trip_accepts_old_and_fails_new(tmp_path):
    path = tmp_path / "baseline.json"
    old = Report(findings=[finding(), finding(rule="D001", focus=AGENT + "/i1", value="n/a")])
    Baseline.from_report(old).write(path)

    loaded = baseline.load(path)
    # The same findings, reformatted (other lines, other file): all accepted.
    again = Report(findings=[finding(line=77, file="t.json"), finding(rule="D001", focus=AGENT + "/i1", line=1)])
    filtered, accepted = loaded.apply(again)
    assert filtered.findings == [] and accepted == 2 and filtered.conforms

    # A new finding is kept, and fails the run.
    new = finding(rule="C001", focus=AGENT + "/i2")
    filtered, accepted = loaded.apply(Report(findings=[*again.findings, new]))
    assert filtered.findings == [new] and accepted == 2 and not filtered.conforms


def test_repeats_beyond_the_recorded_count_are_new(tmp_path):
    path = tmp_path / "b.json"
    Baseline.from_report(Report(findings=[finding(value="x")])).write(path)
    twice = Report(findings=[finding(value="x"), finding(value="y")])
    new, known = baseline.load(path).split(twice)
    assert len(known) == 1 and [f.value for f in new] == ["y"]


def test_stale_entries_are_counted(tmp_path):
    recorded = Baseline.from_report(Report(findings=[finding(), finding(rule="M008")]))
    assert recorded.stale(Report(findings=[finding()])) == 1


def test_file_is_readable_and_sorted(tmp_path):
    path = tmp_path / "b.json"
    Baseline.from_report(Report(findings=[finding(rule="S001"), finding(rule="C001"), finding(rule="C001")])).write(path)
    data = json.loads(path.read_text())
    assert data["tool"] == "tg-trace" and data["version"] == 1
    assert [(e["rule"], e["count"]) for e in data["findings"]] == [("C001", 2), ("S001", 1)]
    assert set(data["findings"][0]) == {"fingerprint", "count", "rule", "focus", "trace", "message"}


def test_hand_edited_entry_still_matches(tmp_path):
    path = tmp_path / "b.json"
    path.write_text(json.dumps({"tool": "tg-trace", "version": 1, "findings": [
        {"rule": "M001", "focus": AGENT + "/final", "trace": AGENT}]}))
    assert baseline.load(path).apply(Report(findings=[finding()]))[0].findings == []


@pytest.mark.parametrize(
    "content, message",
    [
        (None, "baseline file not found"),
        ("{not json", "b.json:1: not a baseline file"),
        ('{"tool": "other", "findings": []}', "not a tg-trace baseline file"),
        ('{"tool": "tg-trace", "version": 9, "findings": []}', "version 9 is not supported"),
        ('{"tool": "tg-trace", "version": 1, "findings": [{"rule": "M001"}]}', "entry 1 lacks"),
        ('{"tool": "tg-trace", "version": 1, "findings": [{"rule": "M001", "focus": "x", "count": 0}]}',
         "bad count 0"),
    ],
)
def test_bad_baseline_files(tmp_path, content, message):
    path = tmp_path / "b.json"
    if content is not None:
        path.write_text(content)
    with pytest.raises(BaselineError, match=message):
        baseline.load(path)
