"""pytest plugin: assert that the traces an emitter produces conform.

Installed with the package and loaded by pytest through the ``pytest11``
entry point, so an emitter's own test suite can write::

    from tgtrace.pytest_plugin import assert_trace_conforms

    def test_agent_trace(tg_trace):
        triples = run_agent_and_capture()   # Triple list, wire dicts, rdflib graph or path
        tg_trace.assert_conforms(triples)   # or assert_trace_conforms(triples)

On failure the findings are printed as ``tg-trace lint`` prints them. The
``tg_trace`` fixture applies the project's ``[tool.tg-trace]`` configuration
(select, ignore, severity overrides, scoped ignores, fail-on) found from
pytest's root directory; ``assert_trace_conforms`` alone applies only what it
is given.

This module is imported by every pytest run in an environment where the
package is installed, used or not, so it imports nothing heavy at the top.
"""

from __future__ import annotations

from pathlib import Path

import pytest


def _lint(trace, config, engine=None):
    __tracebackhide__ = True  # a failing test shows the test's line, not the plugin's
    from .api import lint

    options = {"fail_on": config.fail_on}
    if config.select is not None:
        options["select"] = list(config.select)
    if config.ignore is not None:
        options["ignore"] = list(config.ignore)
    if engine or config.engine:
        options["engine"] = engine or config.engine
    if isinstance(trace, Path):
        trace = str(trace)
    return config.apply(lint(trace, **options))


def _failure_message(report) -> str:
    from .formats import render

    count = sum(1 for f in report.findings if report.fail_on is not None and f.severity >= report.fail_on)
    head = f"trace does not conform: {count} finding(s) at or above {report.fail_on}"
    return f"{head}\n{render(report, 'text', color=False).rstrip()}"


def _check(trace, config, engine=None):
    __tracebackhide__ = True
    report = _lint(trace, config, engine)
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
    from .config import Config, check_codes
    from .model import Severity

    config = Config().merge(
        fail_on=fail_on,
        select=check_codes(list(select), "select") if select is not None else None,
        ignore=check_codes(list(ignore), "ignore") if ignore is not None else None,
        severity={code: Severity.parse(level) for code, level in (severity or {}).items()} or None,
    )
    return _check(trace, config, engine)


class TraceChecker:
    """What the ``tg_trace`` fixture gives a test: lint and assert under the project's config."""

    def __init__(self, config):
        self.config = config

    def lint(self, trace, **flags):
        """The Report for ``trace``; ``flags`` (select, ignore, fail_on) override the config."""
        __tracebackhide__ = True
        return _lint(trace, self.config.merge(**flags))

    def assert_conforms(self, trace, **flags):
        __tracebackhide__ = True
        return _check(trace, self.config.merge(**flags))


@pytest.fixture
def tg_trace(request) -> TraceChecker:
    """Lint traces in a test with the project's tg-trace configuration."""
    from . import config

    return TraceChecker(config.discover(request.config.rootpath))
