"""Output formats. Only modules in this package know how a report is printed."""

from __future__ import annotations

from importlib import import_module

from ..model import Report

# Format name -> module; each module has render(report, **options) -> str.
FORMATS = {
    "text": "text",
    "json": "json",
    "sarif": "sarif",
    "junit": "junit",
    "github": "github",
    # The Markdown summary --summary writes, also printable on its own.
    "markdown": "summary",
}


def render(report: Report, fmt: str, **options) -> str:
    try:
        module = import_module(f"{__name__}.{FORMATS[fmt]}")
    except KeyError:
        raise ValueError(f"unknown format {fmt!r} (choose from {', '.join(FORMATS)})") from None
    return module.render(report, **options)
