"""The terminal format: each finding, grouped by trace, with what it takes to fix it (the value,
the accepted values, the source line with the term at fault marked, the fix and the rule's page),
as ruff shows a finding; ``concise`` prints one line per finding. Then a summary."""

from __future__ import annotations

import unicodedata
from itertools import groupby
from pathlib import Path

from ..ground.escaping import printable
from ..ground.model import Finding, Report, Severity
from ..inputs.excerpt import Excerpt, excerpts
from ..rules.advice import Advice, advise
from ..run.settings import Output
from .common import census, not_shown, plural, severities, shown_location, shown_path

# An excerpt line longer than this is cut around the term at fault.
EXCERPT_WIDTH = 100

_STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}


def escape(text: str) -> str:
    # Imported by coloured output alone: rich's markup (its text and style machinery) costs every
    # uncoloured run about 0.01 s at start-up.
    from rich.markup import escape as rich_escape
    return rich_escape(text)


def finding_line(finding: Finding, color: bool = False, root: str | Path | None = None,
                 advice: Advice | None = None) -> str:
    where = shown_location(finding.file, finding.line, root)
    severity = str(finding.severity)
    message = printable(advice.message if advice is not None else finding.message)
    focus = printable(finding.focus)
    if color:
        severity = f"[{_STYLE[finding.severity]}]{severity}[/]"
        return f"[bold]{escape(where)}[/]: [bold]{finding.rule}[/] {severity} {escape(message)} [dim]({escape(focus)})[/]"
    return f"{where}: {finding.rule} {severity} {message} ({focus})"


def summary_line(report: Report) -> str:
    counts = report.counts()
    hidden = not_shown(report)
    if report.about:
        said = severities(counts)
        if not said:
            return f"{report.about}: all checks passed."
        return f"{report.about}: {said}{f' ({hidden})' if hidden else ''}."
    head = f"{census(report.file_count, len(report.traces), report.repeated, sum(report.items.values()))}, {plural(report.triples, 'triple')}"
    if report.baselined:
        head += f" ({plural(report.baselined, 'known finding')} accepted by the baseline)"
    if not report.findings and not report.not_shown:
        return f"{head}: all clean."
    return f"{head}: {severities(counts)}{f' ({hidden})' if hidden else ''}."


def _cells(text: str) -> int:
    """How many terminal cells ``text`` takes (wide East Asian characters take two)."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _window(text: str, start: int | None, end: int | None) -> tuple[str, int | None, int | None]:
    """The line cut to EXCERPT_WIDTH characters around the span, with ellipses where cut."""
    if len(text) <= EXCERPT_WIDTH:
        return text, start, end
    if start is None or end is None:
        return text[:EXCERPT_WIDTH - 1] + "…", None, None
    end = min(end, start + EXCERPT_WIDTH - 2)
    left = max(0, min(start - 10, end + 12 - (EXCERPT_WIDTH - 2)))
    right = min(len(text), left + EXCERPT_WIDTH - 2)
    head = "…" if left > 0 else ""
    tail = "…" if right < len(text) else ""
    return head + text[left:right] + tail, start - left + len(head), end - left + len(head)


def detail_lines(finding: Finding, advice: Advice | None, excerpt: Excerpt | None, color: bool = False) -> list[str]:
    """The lines under a finding: its source line with the term at fault marked, the accepted
    values or the nearest one, and the help line (the fix and the rule's page)."""
    out: list[str] = []
    if excerpt is not None:
        gutter = " " * len(str(excerpt.lines[-1][0]))
        out.append(f"{gutter} |")
        shown_lines: list[tuple[int, str] | None] = list(excerpt.lines)
        if len(shown_lines) > 4:
            # A triple spread over many lines: where it opens, and the lines that hold the term.
            shown_lines = [shown_lines[0], None, *shown_lines[-2:]]
        for index, item in enumerate(shown_lines):
            if item is None:
                out.append(f"{gutter} | …")
                continue
            number, line = item
            last = index == len(shown_lines) - 1
            text, start, end = _window(line, excerpt.start if last else None, excerpt.end if last else None)
            shown = printable(text)
            out.append(f"{number:>{len(gutter)}} | {escape(shown) if color else shown}")
            if last and start is not None:
                pad = _cells(printable(text[:start]))
                marks = "^" * max(1, _cells(printable(text[start:end])))
                out.append(f"{gutter} | {' ' * pad}{f'[bold red]{marks}[/]' if color else marks}")
        out.append(f"{gutter} |")
    if advice is None:
        return out
    out += [escape(printable("= " + line)) if color else printable("= " + line) for line in advice.lines()]
    return out


def render(report: Report, output: Output) -> str:
    color, root = output.color, output.root
    concise = output.format == "concise"
    lines: list[str] = []
    if report.about:
        lines += [finding_line(f, color, root) for f in report.findings]
        lines.append(summary_line(report))
        return "\n".join(lines)
    sources = {} if concise else excerpts(report.findings, report.held)
    for (file, trace), group in groupby(report.findings, key=lambda f: (f.file, f.trace)):
        shown = shown_path(file, root)
        model = report.trace_models.get(trace) if trace else None
        label = f"{shown}: trace {printable(trace)}" if trace else f"{shown}: outside any trace"
        if model:
            label += f" (trace model of TrustGraph {model})"
        lines.append(f"[bold]{escape(label)}[/]" if color else label)
        for finding in group:
            advice = advise(finding)
            lines.append("  " + finding_line(finding, color, root, advice))
            if not concise:
                lines += ["    " + line for line in detail_lines(finding, advice, sources.get(finding), color)]
    lines.append(summary_line(report))
    if report.gate_off:
        notice = f"warning: {printable(report.gate_off)}."
        lines.append(f"[bold yellow]{escape(notice)}[/]" if color else notice)
    for note in report.notes:
        said = f"note: {printable(note)}."
        lines.append(f"[dim]{escape(said)}[/]" if color else said)
    return "\n".join(lines)
