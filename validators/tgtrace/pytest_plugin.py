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
package is installed, used or not: it stays light, and the linter
(``tgtrace.testing``) is loaded on first use.
"""

from __future__ import annotations

import importlib

import pytest


def _testing():
    # Loaded on first use: a second of imports must not tax every pytest run of the environment.
    return importlib.import_module("tgtrace.testing")


def assert_trace_conforms(trace, **options):
    """Lint ``trace`` and raise AssertionError listing the findings unless it conforms.

    See :func:`tgtrace.testing.assert_trace_conforms` for the options.
    """
    __tracebackhide__ = True  # a failing test shows the test's line, not the plugin's
    return _testing().assert_trace_conforms(trace, **options)


@pytest.fixture
def tg_trace(request):
    """Lint traces in a test with the project's tg-trace configuration."""
    return _testing().checker(request.config.rootpath)
