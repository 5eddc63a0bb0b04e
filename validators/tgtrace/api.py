"""The Python API: what the command line, the pytest plugin and scripts call.

``lint`` reads inputs (files, folders, streams, Python objects) and returns a
:class:`~tgtrace.ground.model.Report`; the other names give a program the steps
of a run one by one. The run itself is ``tgtrace.run.lint``.
"""

from __future__ import annotations

from .run.lint import (
    DEFAULTS,
    InputResult,
    NoTrace,
    capture_graph,
    check_graph,
    iter_results,
    lint,
    lint_capture,
    lint_input,
    packaged_engine,
    report_of,
    settings_of,
    supported_components,
)

__all__ = ["DEFAULTS", "InputResult", "NoTrace", "capture_graph", "check_graph", "iter_results", "lint", "lint_capture",
           "lint_input", "packaged_engine", "report_of", "settings_of", "supported_components"]
