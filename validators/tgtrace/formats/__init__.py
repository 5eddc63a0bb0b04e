"""Output formats. Only modules in this package know how a report is printed or written.

Each format module declares ``FORMAT``: its name, a one-line help and its
writer, ``render(report, output) -> str``, where ``output`` is the run's
:class:`tgtrace.settings.Output`. Adding a format is a module here and its
name in :data:`FORMATS`; the CLI's ``--format`` choices, its help and the docs
follow from this registry.
"""

from __future__ import annotations

import os
import sys
from dataclasses import replace

from rich.console import Console

from ..files import write_atomic
from ..model import Report
from ..settings import Output
from . import github, gitlab, html, json, junit, sarif, statistics, summary, text
from .common import Format

FORMATS: dict[str, Format] = {module.FORMAT.name: module.FORMAT
                              for module in (text, json, sarif, junit, github, gitlab, summary, html)}


def default_format(environ=os.environ) -> str:
    """text, or github inside a GitHub Actions job."""
    return "github" if environ.get("GITHUB_ACTIONS") == "true" else "text"


def render(report: Report, output: Output | str = "text", **options) -> str:
    """The report in one format: ``output`` is an Output, or a format name with Output's fields."""
    if isinstance(output, str):
        output = Output(format=output, **options)
    try:
        chosen = FORMATS[output.format]
    except KeyError:
        raise ValueError(f"unknown format {output.format!r} (choose from {', '.join(FORMATS)})") from None
    if output.statistics:
        if not chosen.statistics:
            raise ValueError(f"--statistics prints text or json, not {output.format}")
        head = chosen.render(report, replace(output, statistics=False)) if output.format == "github" else ""
        return head + statistics.render(report, as_json=output.format == "json")
    return chosen.render(report, output)


def emit(report: Report, output: Output, stdout=None) -> None:
    """Write the report where ``output`` says, and its Markdown summary if one is asked for."""
    stdout = stdout or sys.stdout
    text_ = render(report, output)
    if output.file:
        write_atomic(output.file, text_ if text_.endswith("\n") else text_ + "\n")
    elif output.format == "text" and output.color and not output.statistics:
        Console(file=stdout, highlight=False, soft_wrap=True, force_terminal=True).print(text_)
    elif text_:
        stdout.write(text_ if text_.endswith("\n") else text_ + "\n")
    if output.summary == "-":
        stdout.write(summary.render(report, output) + "\n")
    elif output.summary:
        write_atomic(output.summary, summary.render(report, output) + "\n", append=True)
