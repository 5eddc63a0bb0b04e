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

What a trace looks like is kept as a snapshot of its structure (what
``tg-trace diff`` compares: entities by place, values by kind)::

    def test_agent_trace_structure(tg_trace_snapshot):
        tg_trace_snapshot.assert_match(run_agent_and_capture())

The first run writes ``tg_trace_snapshots/<module>/<test>.trig`` beside the
test module (readable TriG, reviewed in the pull request that adds it); later
runs fail with the diff when the structure changed, and ``pytest
--tg-trace-update`` rewrites the snapshots. In CI ($CI set) a missing snapshot
fails rather than being written.

This module is imported by every pytest run in an environment where the
package is installed, used or not: it stays light, and the linter
(``tgtrace.testing``) is loaded on first use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

import pytest

from .ground.escaping import printable

if TYPE_CHECKING:
    from pathlib import Path
    from types import ModuleType

    from .ground.model import Report
    from .testing import SnapshotChecker, TraceChecker


def _testing() -> ModuleType:
    # Loaded on first use: a second of imports must not tax every pytest run of the environment.
    return importlib.import_module("tgtrace.testing")


def assert_trace_conforms(trace: object, **options: object) -> Report:
    """Lint ``trace`` and raise AssertionError listing the findings unless it conforms.

    See :func:`tgtrace.testing.assert_trace_conforms` for the options.
    """
    __tracebackhide__ = True  # a failing test shows the test's line, not the plugin's
    return _testing().assert_trace_conforms(trace, **options)


def assert_trace_snapshot(trace: object, path: Path | str, *, update: bool = False) -> str:
    """Compare the structure of ``trace`` with the snapshot at ``path`` (written when missing,
    outside CI; rewritten with ``update``) and raise AssertionError with the diff when it changed.

    See :func:`tgtrace.testing.assert_trace_snapshot`.
    """
    __tracebackhide__ = True
    return _testing().assert_trace_snapshot(trace, path, update=update)


@pytest.fixture
def tg_trace(request: pytest.FixtureRequest) -> TraceChecker:
    """Lint traces in a test with the project's tg-trace configuration."""
    return _testing().checker(request.config.rootpath)


_SNAPSHOTS_DONE = pytest.StashKey[list]()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.getgroup("tg-trace").addoption(
        "--tg-trace-update", action="store_true", default=False,
        help="Rewrite the trace structure snapshots of tg_trace_snapshot instead of comparing with them.")


@pytest.fixture
def tg_trace_snapshot(request: pytest.FixtureRequest) -> SnapshotChecker:
    """Compare a trace's structure with the test's snapshot: ``tg_trace_snapshot.assert_match(trace)``."""
    done = request.config.stash.setdefault(_SNAPSHOTS_DONE, [])
    return _testing().snapshot_checker(request.node.path, request.node.name,
                                       request.config.getoption("tg_trace_update"),
                                       lambda path, what: done.append((what, path)))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, exitstatus: pytest.ExitCode,
                            config: pytest.Config) -> None:
    done = config.stash.get(_SNAPSHOTS_DONE, [])
    if done:
        terminalreporter.write_sep("-", "tg-trace snapshots")
        for what, path in done:
            terminalreporter.write_line(f"{what} {printable(str(path))}")
