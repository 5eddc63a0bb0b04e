"""Output formats. Only modules in this package know how a report is printed or written.

Each format is a module here with a writer, ``render(report, output) -> str``, where
``output`` is the run's :class:`tgtrace.settings.Output`. Adding a format is a module here
and its entry in :data:`FORMATS` (name, one-line help, module); the CLI's ``--format``
choices, its help, the docs pages, the README's list and the shared tests follow from this
registry. Every module here writes an output: the registered formats, and the outputs of the other
commands (``listshow`` for list and show, ``diagram`` for graph, ``live`` and ``metrics`` for
watch, ``rdf`` for convert); ``common`` is what the writers share.
"""

from __future__ import annotations

import importlib
import os
import sys
from dataclasses import replace

from ..escaping import safe_json, safe_layout
from ..files import write_atomic
from ..model import Report
from ..settings import Output, SettingsError
from .common import Format

# A format's module is imported when a run writes that format (html loads the trace views and
# diagrams, sarif the rule texts), so a run loads only the writers it uses.
FORMATS: dict[str, Format] = {f.name: f for f in (
    Format("text", "each finding grouped by trace, with its source line, the accepted values and the fix "
           "(the default in a terminal)", "text", statistics=True),
    Format("concise", "one line per finding, grouped by trace", "text", statistics=True),
    Format("json", "the findings and a summary as one JSON document", "json", statistics=True, syntax="json"),
    Format("sarif", "SARIF 2.1.0 for code scanning (GitHub, GitLab, Azure DevOps)", "sarif", syntax="json"),
    Format("junit", "JUnit XML: a test suite per file, a test case per trace", "junit"),
    Format("github", "GitHub Actions annotations on the diff (the default when GITHUB_ACTIONS=true)", "github",
           statistics=True),
    Format("gitlab", "GitLab Code Quality JSON for merge requests (artifacts:reports:codequality)", "gitlab",
           syntax="json"),
    Format("markdown", "a Markdown summary (what --summary appends to a CI job's summary page)", "markdown"),
    Format("html", "one self-contained HTML page (summary, traces, findings, diagrams), for a CI artifact", "html"),
)}


def _writer(module: str):
    """The module of this package that writes a format (or the statistics, or the summary)."""
    return importlib.import_module(f"{__name__}.{module}")


def default_format(environ=os.environ) -> str:
    """text, or github inside a GitHub Actions job."""
    return "github" if environ.get("GITHUB_ACTIONS") == "true" else "text"


def refuse_statistics(name: str) -> None:
    """Raise for --statistics with a format that cannot show them (the registry says which can)."""
    if not FORMATS[name].statistics:
        able = [f.name for f in FORMATS.values() if f.statistics]
        raise SettingsError(f"--statistics prints {', '.join(able[:-1])} or {able[-1]}, not {name}")


def render(report: Report, output: Output | str = "text", **options) -> str:
    """The report in one format: ``output`` is an Output, or a format name with Output's fields.
    Whatever the writer left of the input's unsafe characters is escaped here, for every format."""
    if isinstance(output, str):
        output = Output(format=output, **options)
    try:
        chosen = FORMATS[output.format]
    except KeyError:
        raise ValueError(f"unknown format {output.format!r} (choose from {', '.join(FORMATS)})") from None
    text_ = _render(report, output, chosen)
    return safe_json(text_) if chosen.syntax == "json" else safe_layout(text_)


def _render(report: Report, output: Output, chosen: Format) -> str:
    if output.statistics:
        refuse_statistics(output.format)
        head = (_writer(chosen.module).render(report, replace(output, statistics=False))
                if output.format == "github" else "")
        return head + _writer("statistics").render(report, as_json=output.format == "json")
    return _writer(chosen.module).render(report, output)


def emit(report: Report, output: Output, stdout=None) -> None:
    """Write the report where ``output`` says, and its Markdown summary if one is asked for."""
    stdout = stdout or sys.stdout
    text_ = render(report, output)
    if output.file:
        write_atomic(output.file, text_ if text_.endswith("\n") else text_ + "\n")
    elif output.format == "text" and output.color and not output.statistics:
        # Imported here alone: rich's console costs every uncoloured run about 0.015 s at start-up.
        from rich.console import Console
        Console(file=stdout, highlight=False, soft_wrap=True, force_terminal=True).print(text_)
    elif text_:
        stdout.write(text_ if text_.endswith("\n") else text_ + "\n")
    if output.summary == "-":
        stdout.write(safe_layout(_writer("markdown").render(report, output)) + "\n")
    elif output.summary:
        write_atomic(output.summary, safe_layout(_writer("markdown").render(report, output)) + "\n", append=True)
