"""GitHub Actions workflow commands: one annotation per finding.

GitHub shows ``::error file=F,line=L,title=T::message`` lines of a job's log
as annotations on the pull request's diff, at that file and line.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..model import Finding, Report, Severity

# GitHub has three annotation levels; "notice" is its informational one.
COMMANDS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}

# Names a loader gives input that did not come from a file.
NOT_A_FILE = {None, "", "-", "<stdin>", "<input>"}


def relative_path(file: str | None, root: str | Path | None = None) -> str | None:
    """The file as a path relative to ``root`` (the working directory) when it lies under it.

    Annotations and SARIF locations are resolved against the repository root,
    which is where CI runs the linter, so relative paths are the ones that map.
    """
    if file in NOT_A_FILE:
        return None
    path = Path(file)
    if path.is_absolute():
        base = Path(root or os.getcwd()).resolve()
        try:
            return path.resolve().relative_to(base).as_posix()
        except ValueError:
            return path.as_posix()
    return path.as_posix()


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(finding: Finding) -> str:
    properties = []
    path = relative_path(finding.file)
    if path is not None:
        properties.append(f"file={_escape_property(path)}")
        if finding.line:
            properties.append(f"line={finding.line}")
    properties.append(f"title={_escape_property(finding.rule)}")
    message = f"{finding.rule} {finding.message} ({finding.focus})"
    return f"::{COMMANDS[finding.severity]} {','.join(properties)}::{_escape_data(message)}"


def render(report: Report, **_options) -> str:
    return "".join(annotation(f) + "\n" for f in report.findings)
