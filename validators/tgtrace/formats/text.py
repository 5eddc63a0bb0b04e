"""The terminal format: one line per finding, grouped by trace, and a summary."""

from __future__ import annotations

from itertools import groupby

from ..model import Report, Severity

_STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}


def finding_line(finding, color: bool = False) -> str:
    where = f"{finding.file or '<input>'}:{finding.line or 0}"
    severity = str(finding.severity)
    if color:
        severity = f"[{_STYLE[finding.severity]}]{severity}[/]"
        return f"[bold]{_escape(where)}[/]: [bold]{finding.rule}[/] {severity} {_escape(finding.message)} [dim]({_escape(finding.focus)})[/]"
    return f"{where}: {finding.rule} {severity} {finding.message} ({finding.focus})"


def _escape(text: str) -> str:
    from rich.markup import escape

    return escape(text)


def summary_line(report: Report) -> str:
    counts = report.counts()
    traces = len(report.traces)
    files = len(report.files)
    head = (f"{files} file{'s' * (files != 1)}, {traces} trace{'s' * (traces != 1)}, "
            f"{report.triples} triple{'s' * (report.triples != 1)}")
    if not report.findings:
        return f"{head}: all clean."
    parts = [f"{counts[name]} {name}{'s' * (counts[name] != 1)}" for name in ("error", "warning", "info") if counts.get(name)]
    return f"{head}: {', '.join(parts)}."


def render(report: Report, color: bool = False, **_options) -> str:
    lines: list[str] = []
    for (file, trace), group in groupby(report.findings, key=lambda f: (f.file, f.trace)):
        label = f"{file or '<input>'}: trace {trace}" if trace else f"{file or '<input>'}: outside any trace"
        lines.append(f"[bold]{_escape(label)}[/]" if color else label)
        for finding in group:
            lines.append("  " + finding_line(finding, color))
    lines.append(summary_line(report))
    return "\n".join(lines)
