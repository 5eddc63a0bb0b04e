"""GitLab Code Quality JSON, which merge requests show inline (ruff's ``--output-format gitlab``).

A JSON array with one issue per finding: ``description``, ``check_name`` (the
rule code), ``fingerprint``, ``severity`` and ``location`` (``path`` relative to
the repository, ``lines.begin``). GitLab reads the report from a job's
``artifacts:reports:codequality``.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from ..ground.escaping import printable
from ..ground.model import Report, Severity
from ..rules import all_rules
from ..rules.advice import advise
from ..run.settings import Output
from .common import relative_path, repository_root
from .sarif import fingerprint

# GitLab's five severities; a gate's error is what a merge request must not add ("major",
# as ruff reports), a warning is "minor".
SEVERITIES = {Severity.ERROR: "major", Severity.WARNING: "minor", Severity.INFO: "info"}
# GitLab requires a path and a line on every issue: input that had none is named so, at line 1.
NO_FILE = "<input>"


def to_issues(report: Report, root: str | Path | None = None) -> list[dict]:
    root = root if root is not None else repository_root()
    rules = all_rules()
    issues = []
    seen: Counter = Counter()
    for finding in report.findings:
        path = relative_path(finding.file, root)
        # Counted as SARIF counts them, so exact repeats get distinct fingerprints and
        # GitLab, which keys issues by fingerprint, keeps every one.
        identity = (finding.rule, finding.focus, finding.trace, path, finding.path, finding.value)
        seen[identity] += 1
        advice = advise(finding)
        message = advice.message if advice is not None else finding.message
        issue = {
            "description": f"{finding.rule} {printable(message)} ({printable(finding.focus)})",
            "check_name": finding.rule,
            "fingerprint": fingerprint(finding, path, seen[identity]),
            "severity": SEVERITIES[finding.severity],
            # GitLab shows the path; one that is not UTF-8 is shown with its bytes escaped.
            "location": {"path": printable(path) if path is not None else NO_FILE,
                         "lines": {"begin": finding.line or 1}},
        }
        rule = rules.get(finding.rule)
        if rule is not None and advice is not None:
            # Code Climate's optional body (Markdown): GitLab shows it in the issue's details.
            body = [f"{rule.title}", *(f"- {printable(n)}" for n in advice.notes),
                    f"- {printable(advice.fix)}", f"- [{rule.code} {rule.name}]({rule.help_uri})"]
            issue["content"] = {"body": "\n".join(body)}
        issues.append(issue)
    return issues


def render(report: Report, output: Output) -> str:
    return json.dumps(to_issues(report, output.root), indent=2, ensure_ascii=False) + "\n"
