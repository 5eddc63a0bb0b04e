"""The GitHub workflow-command annotations format, on reports built here."""

from __future__ import annotations

from formats_support import CONCLUSION, GITHUB_LINE, finding
from tgtrace.formats import github as github_format
from tgtrace.formats import render
from tgtrace.ground.model import Severity
from tgtrace.rules import all_rules


def test_github_workflow_commands(report):
    lines = render(report, "github").splitlines()
    assert len(lines) == 2
    match = GITHUB_LINE.match(lines[0])
    # The message, then on the annotation's next lines (%0A) the fix and the rule's page.
    head, *advice = match.group(5).split("%0A")
    assert match.groups()[:4] == ("error", "traces/react.nq", "12", "M001")
    assert head == f"M001 answer does not assert the tg:Answer mixin ({CONCLUSION})"
    assert advice == [f"help: {' '.join(all_rules()['M001'].fix.split())} See {all_rules()['M001'].help_uri}"]
    assert GITHUB_LINE.match(lines[1]).group(1) == "warning"


def test_github_escapes_properties_and_data():
    f = finding(file="a,b:c.nq", message="50% bad\nsecond line", severity=Severity.INFO)
    line = github_format.annotation(f)
    assert line.startswith("::notice file=a%2Cb%3Ac.nq,line=12,title=M001::")
    assert "50%25 bad%0Asecond line" in line and "\n" not in line


def test_github_without_file():
    assert github_format.annotation(finding(file=None, line=None)).startswith("::error title=M001::")
