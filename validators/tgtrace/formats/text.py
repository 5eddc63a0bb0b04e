"""The terminal format: one line per finding, grouped by trace, and a summary."""

from __future__ import annotations

from itertools import groupby

from ..escaping import printable
from ..model import Report, Severity
from .common import plural, shown_path

_STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}


def escape(text: str) -> str:
    # Imported by coloured output alone: rich's markup (its text and style machinery) costs every
    # uncoloured run about 0.01 s at start-up.
    from rich.markup import escape as rich_escape
    return rich_escape(text)


def finding_line(finding, color: bool = False, root=None) -> str:
    where = f"{shown_path(finding.file, root)}:{finding.line or 0}"
    severity = str(finding.severity)
    message, focus = printable(finding.message), printable(finding.focus)
    if color:
        severity = f"[{_STYLE[finding.severity]}]{severity}[/]"
        return f"[bold]{escape(where)}[/]: [bold]{finding.rule}[/] {severity} {escape(message)} [dim]({escape(focus)})[/]"
    return f"{where}: {finding.rule} {severity} {message} ({focus})"


def summary_line(report: Report) -> str:
    counts = report.counts()
    if report.about:
        parts = [plural(counts[name], name) if name != "info" else f"{counts[name]} info"
                 for name in ("error", "warning", "info") if counts.get(name)]
        return f"{report.about}: {', '.join(parts)}." if parts else f"{report.about}: all checks passed."
    head = f"{plural(len(report.files), 'file')}, {plural(len(report.traces), 'trace')}, {plural(report.triples, 'triple')}"
    if report.baselined:
        head += f" ({plural(report.baselined, 'known finding')} accepted by the baseline)"
    if not report.findings:
        return f"{head}: all clean."
    parts = [plural(counts[name], name) if name != "info" else f"{counts[name]} info"
             for name in ("error", "warning", "info") if counts.get(name)]
    return f"{head}: {', '.join(parts)}."


def render(report: Report, output) -> str:
    color, root = output.color, output.root
    lines: list[str] = []
    if report.about:
        lines += [finding_line(f, color, root) for f in report.findings]
        lines.append(summary_line(report))
        return "\n".join(lines)
    for (file, trace), group in groupby(report.findings, key=lambda f: (f.file, f.trace)):
        shown = shown_path(file, root)
        model = report.trace_models.get(trace) if trace else None
        label = f"{shown}: trace {printable(trace)}" if trace else f"{shown}: outside any trace"
        if model:
            label += f" (trace model of TrustGraph {model})"
        lines.append(f"[bold]{escape(label)}[/]" if color else label)
        for finding in group:
            lines.append("  " + finding_line(finding, color, root))
    lines.append(summary_line(report))
    if report.gate_off:
        notice = f"warning: {printable(report.gate_off)}."
        lines.append(f"[bold yellow]{escape(notice)}[/]" if color else notice)
    return "\n".join(lines)
