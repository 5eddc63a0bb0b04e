"""Asserting that traces conform, and that their structure is what it was, for an emitter's own
tests (see ``tgtrace.pytest_plugin``)."""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from .formats import diff as diff_format
from .formats import render
from .ground.escaping import printable
from .ground.files import write_atomic
from .ground.model import Report
from .run import config as configuration
from .run.lint import lint
from .run.settings import Settings
from .views import diff as structure


def _lint(trace: object, settings: Settings) -> Report:
    __tracebackhide__ = True  # a failing test shows the test's line, not the plugin's
    if isinstance(trace, Path):
        trace = str(trace)
    return lint(trace, settings=settings)


def _failure_message(report: Report) -> str:
    count = sum(1 for f in report.findings if report.fail_on is not None and f.severity >= report.fail_on)
    noun = "finding" if count == 1 else "findings"
    head = f"trace does not conform: {count} {noun} at or above {report.fail_on}"
    return f"{head}\n{render(report, 'text').rstrip()}"


def _check(trace: object, settings: Settings) -> Report:
    __tracebackhide__ = True
    report = _lint(trace, settings)
    if not report.conforms:
        raise AssertionError(_failure_message(report))
    return report


def assert_trace_conforms(
    trace: object,
    *,
    fail_on: str = "error",
    select: Sequence[str] | None = None,
    ignore: Sequence[str] | None = None,
    severity: dict[str, str] | None = None,
    engine: str | None = None,
) -> Report:
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

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def lint(self, trace: object, **flags: object) -> Report:
        """The Report for ``trace``; ``flags`` (select, ignore, fail_on) override the config."""
        __tracebackhide__ = True
        return _lint(trace, self.settings.merge(**flags))

    def assert_conforms(self, trace: object, **flags: object) -> Report:
        __tracebackhide__ = True
        return _check(trace, self.settings.merge(**flags))


def checker(rootpath: Path | str) -> TraceChecker:
    """A TraceChecker with the configuration found from ``rootpath``."""
    return TraceChecker(configuration.discover(rootpath))


# ---------------------------------------------------------------------------
# Structure snapshots: what an emitter's traces look like, kept beside its tests.
# ---------------------------------------------------------------------------

# Where the tg_trace_snapshot fixture keeps a test's snapshots, beside the test module.
SNAPSHOT_FOLDER = "tg_trace_snapshots"
SNAPSHOT_SUFFIX = ".trig"
_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9_.-]+")
# A snapshot's file name keeps at most this many characters of the test's (or the given) name: far
# below any file system's limit on a name (255 bytes), with the folder's path still to come.
MAX_NAME = 100
_HASHED = 10  # hexadecimal digits of the name's hash that keep it unique when it is changed or cut


def snapshot_name(name: str) -> str:
    """The file name (without suffix) a snapshot of a test's id (or of a name given) has: the name
    as it is when it is already safe and short, else its safe characters, cut to MAX_NAME, and a
    short hash of the whole name, so that names that read alike stay apart
    (``test_structure[rag/graph]``, ``test_structure[rag_graph]``) and a long one fits. It never
    holds a path separator or starts with a dot: the file stays inside the snapshot folder."""
    safe = _UNSAFE_NAME.sub("_", name).strip("._")
    if name and safe == name and len(name) <= MAX_NAME:
        return name
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:_HASHED]
    return f"{safe[:MAX_NAME - _HASHED - 1].rstrip('._')}-{digest}".lstrip("-")


def in_ci(environ: Mapping[str, str] = os.environ) -> bool:
    """Whether the tests run in CI ($CI set, as every CI service sets it): a missing snapshot
    then fails instead of being written, so that a snapshot never committed cannot pass."""
    return environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def _trace_name(trace: object) -> str:
    if isinstance(trace, (str, Path)) and str(trace) != "-":
        return str(trace)
    return "<trace under test>"


def assert_trace_snapshot(trace: object, path: Path | str, *, update: bool = False, ci: bool | None = None) -> str:
    """Compare the structure of ``trace`` (anything ``tgtrace.lint`` reads) with the snapshot at
    ``path`` (TriG, written by this function), and raise AssertionError with what changed, as
    ``tg-trace diff SNAPSHOT TRACE`` prints it, unless they are the same. A missing snapshot is
    written (outside CI; in CI it fails); with ``update`` the snapshot is rewritten.

    Returns what was done: "written", "updated", "matched" (or "unchanged" for an update that
    changed nothing)."""
    __tracebackhide__ = True
    if isinstance(trace, Path):
        trace = str(trace)
    path = Path(path)
    traces = structure.read(trace)
    if not path.exists():
        if not update and (in_ci() if ci is None else ci):
            raise AssertionError(f"{printable(path)}: no trace snapshot, and in CI none is written: run the tests "
                                 "with pytest --tg-trace-update and commit the snapshot")
        _write_snapshot(path, traces)
        return "written"
    stored = structure.read(str(path))
    result = structure.compare(stored, traces, str(path), _trace_name(trace))
    if update:
        if result.same and path.read_bytes() == diff_format.snapshot(traces):
            return "unchanged"
        _write_snapshot(path, traces)
        return "updated"
    if not result.same:
        raise AssertionError(f"trace structure differs from its snapshot {printable(path)} (pytest --tg-trace-update "
                             f"accepts the new structure):\n{diff_format.render(result, 'text').rstrip()}")
    return "matched"


def _write_snapshot(path: Path, traces: list[structure.TraceStructure]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(str(path), diff_format.snapshot(traces))


class SnapshotChecker:
    """What the ``tg_trace_snapshot`` fixture gives a test: ``assert_match(trace)`` compares the
    trace's structure with the test's snapshot, ``tg_trace_snapshots/<module>/<test>.trig``
    beside the test module (a second snapshot of the same test: ``<test>-2.trig``, or a name);
    the file's name is :func:`snapshot_name`'s."""

    def __init__(self, folder: Path, test: str, update: bool, done: Callable[[Path, str], None] | None = None) -> None:
        self.folder = folder
        self.test = snapshot_name(test)
        self.update = update
        self.done = done  # called with (path, what was done)
        self._count = 0

    def path(self, name: str | None = None) -> Path:
        """The snapshot file of the next assert_match (or of ``name``)."""
        if name is not None:
            return self.folder / (snapshot_name(name) + SNAPSHOT_SUFFIX)
        suffix = f"-{self._count + 1}" if self._count else ""
        return self.folder / f"{self.test}{suffix}{SNAPSHOT_SUFFIX}"

    def assert_match(self, trace: object, name: str | None = None) -> Path:
        """Compare ``trace`` with its snapshot (written on the first run, rewritten with
        --tg-trace-update); raise AssertionError with the diff when its structure changed."""
        __tracebackhide__ = True
        path = self.path(name)
        if name is None:
            self._count += 1
        what = assert_trace_snapshot(trace, path, update=self.update)
        if self.done is not None and what in ("written", "updated"):
            self.done(path, what)
        return path

    __call__ = assert_match


def snapshot_checker(test_file: Path | str, test_name: str, update: bool,
                     done: Callable[[Path, str], None] | None = None) -> SnapshotChecker:
    module = Path(test_file)
    return SnapshotChecker(module.parent / SNAPSHOT_FOLDER / module.stem, test_name, update, done)
