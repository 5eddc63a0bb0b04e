"""Output formats. Only modules in this package know how a report is printed or written.

Every format any command writes is an entry of :data:`REGISTRY` (name, one-line help, the
module here that writes it, and its kind): ``report`` formats are ``lint``'s and ``check``'s
(``render(report, output) -> str``, where ``output`` is the run's
:class:`tgtrace.run.settings.Output`), ``live`` ones print ``watch``'s findings one line each,
``view`` ones are ``list``'s and ``show``'s, ``rdf`` ones ``convert``'s, ``diff`` ones
``diff``'s and the structure snapshots'. Every ``--format``
(and ``--to``) choice, its help, the docs pages, the README's list and the shared tests are
drawn from this registry; adding a report format is a module here and its entry. Besides the
registered writers, ``diagram`` draws ``graph``'s pictures, ``metrics`` serves ``watch``'s
metrics, ``statistics`` writes ``--statistics``; ``common`` is what the writers share.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Iterator, Mapping
from dataclasses import replace
from types import ModuleType
from typing import IO, Any

from ..ground.escaping import safe_json, safe_layout, safe_turtle
from ..ground.files import write_atomic
from ..ground.model import Report
from ..run.settings import Output, SettingsError
from .common import Format

# The kinds of format, by the commands that write them.
REPORT = "report"
LIVE = "live"
VIEW = "view"
RDF = "rdf"
DIFF = "diff"
KINDS = (REPORT, LIVE, VIEW, RDF, DIFF)

# A format's module is imported when a run writes that format (html loads the trace views and
# diagrams, sarif the rule texts), so a run loads only the writers it uses.
REGISTRY: tuple[Format, ...] = (
    Format("text", "each finding grouped by trace, with its source line, the accepted values and the fix "
           "(the default in a terminal)", "text", statistics=True),
    Format("concise", "one line per finding, grouped by trace", "text", statistics=True),
    Format("json", "the findings, each with its advice (accepted values, fix, rule page), and a summary as one "
           "JSON document, with the audit of the traces", "json", statistics=True, syntax="json", audit=True),
    Format("sarif", "SARIF 2.1.0 for code scanning (GitHub, GitLab, Azure DevOps)", "sarif", syntax="json"),
    Format("junit", "JUnit XML: a test suite per file, a test case per trace", "junit"),
    Format("github", "GitHub Actions annotations on the diff (the default when GITHUB_ACTIONS=true)", "github",
           statistics=True),
    Format("gitlab", "GitLab Code Quality JSON for merge requests (artifacts:reports:codequality)", "gitlab",
           syntax="json"),
    Format("markdown", "a Markdown summary (what --summary appends to a CI job's summary page)", "markdown",
           audit=True),
    Format("html", "one self-contained HTML page (the audit with its plots, summary, traces, findings, diagrams), "
           "for a CI artifact", "html", views=True, audit=True),
    Format("shacl", "a W3C SHACL validation report in Turtle (sh:ValidationReport, one sh:result per finding)",
           "shacl", syntax="turtle"),
    Format("text", "one line per finding, as tg-trace lint --format concise prints them", "live", kind=LIVE),
    Format("github", "GitHub Actions annotations", "live", kind=LIVE),
    Format("jsonl", "one JSON object per finding (file, line, rule, severity, message, focus, trace, ...)", "live",
           kind=LIVE, syntax="json"),
    Format("text", "a table (list) or a tree (show)", "listshow", kind=VIEW),
    Format("json", "one object per trace: the row (list) or the tree (show) as JSON", "listshow", kind=VIEW,
           syntax="json"),
    Format("nquads", "N-Quads 1.2", "rdf", kind=RDF),
    Format("trig", "TriG 1.2", "rdf", kind=RDF),
    Format("ntriples", "N-Triples 1.2, the named graphs merged, for tools that read one graph", "rdf", kind=RDF),
    Format("text", "a tree of what was added (+), removed (-) and changed (~), place by place", "diff", kind=DIFF),
    Format("json", "the same as one JSON document", "diff", kind=DIFF, syntax="json"),
    Format("markdown", "the same as Markdown, for a pull request's comment", "diff", kind=DIFF),
)


def needs_views(name: str, kind: str = "report") -> bool:
    """Whether the format ``name`` shows the traces' views (the run must build them)."""
    found = of_kind(kind).get(name)
    return found is not None and found.views


def needs_audit(name: str, kind: str = "report") -> bool:
    """Whether the format ``name`` opens with the audit of the traces (the run must record it)."""
    found = of_kind(kind).get(name)
    return found is not None and found.audit


def of_kind(kind: str) -> dict[str, Format]:
    """The formats of one kind by name, in the registry's order."""
    if kind not in KINDS:
        raise ValueError(f"unknown kind of format {kind!r} (choose from {', '.join(KINDS)})")
    return {f.name: f for f in REGISTRY if f.kind == kind}


def choices(kind: str) -> list[str]:
    """The names a ``--format`` of this kind accepts."""
    return list(of_kind(kind))


def described(kind: str) -> str:
    """The formats of a kind as an option's help lists them: "name, what it is; ..."."""
    return "; ".join(f"{f.name}, {f.help}" for f in of_kind(kind).values())


# The report formats, by name (lint, check): what render() writes.
FORMATS: dict[str, Format] = of_kind(REPORT)

# What `tg-trace diff` writes (formats/diff.py, loaded by that command alone), by name.
DIFF_FORMATS: dict[str, Format] = of_kind(DIFF)


def _writer(module: str) -> ModuleType:
    """The module of this package that writes a format (or the statistics, or the summary)."""
    return importlib.import_module(f"{__name__}.{module}")


def default_format(environ: Mapping[str, str] = os.environ) -> str:
    """text, or github inside a GitHub Actions job."""
    return "github" if environ.get("GITHUB_ACTIONS") == "true" else "text"


def refuse_statistics(name: str) -> None:
    """Raise for --statistics with a format that cannot show them (the registry says which can)."""
    if not FORMATS[name].statistics:
        able = [f.name for f in FORMATS.values() if f.statistics]
        raise SettingsError(f"--statistics prints {', '.join(able[:-1])} or {able[-1]}, not {name}")


def render(report: Report, output: Output | str = "text", **options: Any) -> str:
    """The report in one format: ``output`` is an Output, or a format name with Output's fields.
    Whatever the writer left of the input's unsafe characters is escaped here, for every format."""
    if isinstance(output, str):
        output = Output(format=output, **options)
    try:
        chosen = FORMATS[output.format]
    except KeyError:
        raise ValueError(f"unknown format {output.format!r} (choose from {', '.join(FORMATS)})") from None
    text_ = _render(report, output, chosen)
    if chosen.syntax == "json":
        return safe_json(text_)
    return safe_turtle(text_) if chosen.syntax == "turtle" else safe_layout(text_)


def _render(report: Report, output: Output, chosen: Format) -> str:
    # --show (or the format's default): the writers list the findings asked for and count every
    # one; statistics count all.
    shown = report.showing(output.shown_from(report.fail_on))
    if output.statistics:
        refuse_statistics(output.format)
        head = (_writer(chosen.module).render(shown, replace(output, statistics=False))
                if output.format == "github" else "")
        return head + _writer("statistics").render(report, as_json=output.format == "json")
    return _writer(chosen.module).render(shown, output)


_PIECE = 1 << 20  # characters of a report written to standard output at a time


def _pieces(report: Report, output: Output) -> Iterator[str] | None:
    """The report written piece by piece, safe as render makes it, where its writer gives pieces
    (``pieces(report, output)``, which render joins) and its syntax lets each be made safe alone."""
    chosen = FORMATS.get(output.format)
    if chosen is None or output.statistics or chosen.syntax != "json":
        return None
    writer = _writer(chosen.module)
    if not hasattr(writer, "pieces"):
        return None
    # Each piece is whole JSON values and the punctuation between them: escaped on its own.
    return (safe_json(piece) for piece in writer.pieces(report.showing(output.show), output))


def emit(report: Report, output: Output, stdout: IO[str] | None = None) -> None:
    """Write the report where ``output`` says, and its Markdown summary if one is asked for."""
    stdout = stdout or sys.stdout
    streamed = None if output.file else _pieces(report, output)
    if streamed is not None:
        # The report's text is never whole in memory: at a million triples the kept graph is
        # alive while it is written (see run.lint.last_graph_kept).
        for piece in streamed:
            stdout.write(piece)
        stdout.write("\n")
        text_ = ""
    else:
        text_ = render(report, output)
    if output.file:
        write_atomic(output.file, text_ if text_.endswith("\n") else text_ + "\n")
    elif output.format == "text" and output.color and not output.statistics:
        # Imported here alone: rich's console costs every uncoloured run about 0.015 s at start-up.
        from rich.console import Console
        Console(file=stdout, highlight=False, soft_wrap=True, force_terminal=True).print(text_)
    elif text_:
        # In pieces, without a copy of the text for its line break: each piece is encoded on its own.
        for start in range(0, len(text_), _PIECE):
            stdout.write(text_[start:start + _PIECE])
        if not text_.endswith("\n"):
            stdout.write("\n")
    if output.summary:
        summary = safe_layout(_writer("markdown").render(report.showing(output.show), output)) + "\n"
        if output.summary == "-":
            stdout.write(summary)
        else:
            write_atomic(output.summary, summary, append=True)
