"""Asserting that traces conform, for an emitter's own tests (see ``tgtrace.pytest_plugin``)."""

from __future__ import annotations

from pathlib import Path

from . import config as configuration
from .api import lint
from .formats import render
from .settings import Settings


def _lint(trace, settings: Settings):
    __tracebackhide__ = True  # a failing test shows the test's line, not the plugin's
    if isinstance(trace, Path):
        trace = str(trace)
    return lint(trace, settings=settings)


def _failure_message(report) -> str:
    count = sum(1 for f in report.findings if report.fail_on is not None and f.severity >= report.fail_on)
    noun = "finding" if count == 1 else "findings"
    head = f"trace does not conform: {count} {noun} at or above {report.fail_on}"
    return f"{head}\n{render(report, 'text').rstrip()}"


def _check(trace, settings: Settings):
    __tracebackhide__ = True
    report = _lint(trace, settings)
    if not report.conforms:
        raise AssertionError(_failure_message(report))
    return report


def assert_trace_conforms(
    trace,
    *,
    fail_on: str = "error",
    select=None,
    ignore=None,
    severity: dict[str, str] | None = None,
    engine: str | None = None,
):
    """Lint ``trace`` and raise AssertionError listing the findings unless it conforms.

    ``trace`` is anything ``tgtrace.lint`` reads: a list of TrustGraph
    ``Triple`` objects, a list of wire-format triple dicts, an rdflib graph,
    or a path. Returns the Report (warnings included) when it conforms.
    """
    __tracebackhide__ = True
    settings = Settings().merge(fail_on=fail_on, select=select, ignore=ignore, severity=severity, engine=engine)
    return _check(trace, settings)


class TraceChecker:
    """What the ``tg_trace`` fixture gives a test: lint and assert under the project's config."""

    def __init__(self, settings: Settings):
        self.settings = settings

    def lint(self, trace, **flags):
        """The Report for ``trace``; ``flags`` (select, ignore, fail_on) override the config."""
        __tracebackhide__ = True
        return _lint(trace, self.settings.merge(**flags))

    def assert_conforms(self, trace, **flags):
        __tracebackhide__ = True
        return _check(trace, self.settings.merge(**flags))


def checker(rootpath) -> TraceChecker:
    """A TraceChecker with the configuration found from ``rootpath``."""
    return TraceChecker(configuration.discover(rootpath))
