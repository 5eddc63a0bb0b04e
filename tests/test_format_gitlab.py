"""The gitlab output format (GitLab Code Quality JSON) on real example traces, clean and faulty."""

from __future__ import annotations

import json
import shutil
from pathlib import PurePosixPath

import jsonschema
from click.testing import CliRunner
from formats_support import EXAMPLES, RDF_TYPE, cli, conclusion_iri, finding, nq_line
from tgtrace.cli import main
from tgtrace.formats import FORMATS, render
from tgtrace.ground.model import Report

# What GitLab requires of each issue of a Code Quality report (its documentation's
# "Code Quality report format"); any other key is ignored by GitLab.
ISSUE = {
    "type": "object",
    "required": ["description", "check_name", "fingerprint", "severity", "location"],
    "properties": {
        "description": {"type": "string", "minLength": 1},
        "check_name": {"type": "string", "pattern": "^[A-Z][0-9]{3}$"},
        "fingerprint": {"type": "string", "pattern": "^[0-9a-f]{32}$"},
        "severity": {"enum": ["info", "minor", "major", "critical", "blocker"]},
        "location": {
            "type": "object",
            "required": ["path", "lines"],
            "properties": {
                "path": {"type": "string", "minLength": 1},
                "lines": {"type": "object", "required": ["begin"],
                          "properties": {"begin": {"type": "integer", "minimum": 1}}},
            },
        },
    },
}
REPORT = {"type": "array", "items": ISSUE}


def issues_of(text: str) -> list[dict]:
    issues = json.loads(text)
    jsonschema.validate(issues, REPORT)
    return issues


def test_gitlab_is_registered():
    assert "gitlab" in FORMATS


def test_clean_traces_give_an_empty_report(traces):
    code, out, _ = cli("lint", "--format", "gitlab", "traces/graph-rag.nq", "traces/graph-rag.json")
    assert code == 0
    assert issues_of(out) == []


def test_faulty_traces_give_every_field_gitlab_requires(traces):
    shutil.copy(EXAMPLES / "legacy-react-one-shot.nq", traces / "traces" / "legacy.nq")
    args = ("lint", "--format", "gitlab", "traces/broken.nq", "traces/broken.json", "traces/legacy.nq",
            "traces/graph-rag.nq")
    code, out, _ = cli(*args)
    assert code == 1
    issues = issues_of(out)
    assert {i["check_name"] for i in issues} == {"M001", "T004"}
    assert {i["severity"] for i in issues} == {"major", "minor"}  # error and warning
    # One fingerprint per finding, so GitLab shows each copy of the trace as its own issue.
    assert len({i["fingerprint"] for i in issues}) == len(issues) == 3
    for issue in issues:
        path = issue["location"]["path"]
        assert not PurePosixPath(path).is_absolute() and (traces / path).is_file()
        assert issue["description"].startswith(issue["check_name"] + " ")
    nq = next(i for i in issues if i["location"]["path"] == "traces/broken.nq")
    focus = conclusion_iri()
    assert focus in nq["description"]
    assert nq["location"]["lines"]["begin"] == nq_line(traces / "traces" / "broken.nq", focus, RDF_TYPE)
    # Stable across runs: GitLab compares a merge request's report with its target branch's by fingerprint.
    assert [i["fingerprint"] for i in issues_of(cli(*args)[1])] == [i["fingerprint"] for i in issues]


def test_paths_are_relative_to_the_repository_root(traces, monkeypatch):
    (traces / ".git").mkdir()
    monkeypatch.chdir(traces / "traces")
    code, out, _ = cli("lint", "--format", "gitlab", "broken.nq")
    assert code == 1
    assert [i["location"]["path"] for i in issues_of(out)] == ["traces/broken.nq"]


def test_exact_repeats_are_distinct_issues_and_lines_do_not_change_fingerprints():
    issues = issues_of(render(Report(findings=[finding(), finding(), finding(line=99)]), "gitlab"))
    assert len({i["fingerprint"] for i in issues}) == 3
    moved = issues_of(render(Report(findings=[finding(line=40)]), "gitlab"))
    assert moved[0]["fingerprint"] == issues[0]["fingerprint"]


def test_standard_input_still_has_a_path_and_a_line(traces):
    text = (traces / "traces" / "broken.nq").read_text()
    result = CliRunner().invoke(main, ["lint", "--format", "gitlab", "--input-format", "nquads", "-"], input=text)
    assert result.exit_code == 1
    (only,) = issues_of(result.stdout)
    assert only["location"]["path"] == "<input>" and only["location"]["lines"]["begin"] >= 1


def test_input_text_is_escaped():
    (issue,) = issues_of(render(Report(findings=[finding(message="bad\x1b[2J\nvalue")]), "gitlab"))
    assert "\x1b" not in issue["description"] and "\n" not in issue["description"]
