"""GitHub Actions workflow commands: one annotation per finding.

GitHub shows ``::error file=F,line=L,title=T::message`` lines of a job's log
as annotations on the pull request's diff, at that file and line.
"""

from __future__ import annotations

from pathlib import Path

from ..ground.escaping import printable
from ..ground.model import Finding, Report, Severity
from ..rules.advice import advise
from ..run.settings import Output
from .common import relative_path

# GitHub has three annotation levels; "notice" is its informational one.
COMMANDS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(finding: Finding, root: str | Path | None = None) -> str:
    properties = []
    # Relative to the repository root: GitHub places annotations from there, not from
    # the step's working directory.
    path = relative_path(finding.file, root)
    if path is not None:
        properties.append(f"file={_escape_property(printable(path, lines=True))}")
        if finding.line:
            properties.append(f"line={finding.line}")
    properties.append(f"title={_escape_property(finding.rule)}")
    # Line breaks become GitHub's %0A; other unsafe characters are escaped before.
    advice = advise(finding)
    text = advice.message if advice is not None else finding.message
    message = f"{finding.rule} {printable(text, lines=True)} ({printable(finding.focus, lines=True)})"
    if advice is not None:
        # Under the message, on the annotation's own lines: what the rule accepts, the fix, its page.
        message += "".join("\n" + printable(line) for line in advice.lines())
    return f"::{COMMANDS[finding.severity]} {','.join(properties)}::{_escape_data(message)}"


def render(report: Report, output: Output) -> str:
    lines = "".join(annotation(f, output.root) + "\n" for f in report.findings)
    if report.gate_off:
        lines += f"::warning title=tg-trace::{_escape_data(report.gate_off)}\n"
    for note in report.notes:
        lines += f"::notice title=tg-trace::{_escape_data(note)}\n"
    return lines
