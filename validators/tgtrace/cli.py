"""The tg-trace command: wiring only. Settings are resolved by ``config``, the run is
``api.lint``, the report is written by ``formats``; here flags become settings and
errors become exit statuses."""

from __future__ import annotations

import io
import json
import os
import sys
import time
import traceback
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from types import ModuleType
from typing import IO, TYPE_CHECKING, Any, ClassVar, TypeVar

import click
import pyoxigraph as ox

from . import api
from .formats import (
    DIFF,
    LIVE,
    RDF,
    REPORT,
    VIEW,
    choices,
    default_format,
    described,
    diagram,
    emit,
    live,
    needs_audit,
    needs_views,
    refuse_statistics,
)
from .formats.common import plural
from .ground import limits
from .ground.errors import TgTraceError
from .ground.escaping import message, printable, redact, safe_layout
from .ground.files import Appended, refuse_inputs, write_atomic
from .ground.graph import term
from .ground.model import Finding, Report, Severity
from .inputs.base import Input
from .inputs.loaders import expand_paths, load, quads_input
from .rules import get_rule, selfcheck
from .rules.help import explain_rule, list_rules
from .run import config, options
from .run.baseline import Baseline
from .run.lint import graphs_not_judged, last_graph_kept
from .run.settings import Output, Settings, shown_from
from .tracemodel.traces import PATTERNS, graph_statements
from .views import audit
from .views import traces as traceviews

if TYPE_CHECKING:
    import pyoxigraph as ox

    from .inputs.gateway import Connection

# click: the de facto Python CLI library; its help text also feeds the docs site's CLI reference.

ISSUES = "https://github.com/trustgraph-ai/trustgraph-ontology/issues"

# A command's function, as the option decorators take and give it back.
_F = TypeVar("_F", bound=Callable[..., Any])


class UsageProblem(TgTraceError, click.ClickException):
    """A one-line problem with the command or its input, found by the command line itself; exit code 2."""

    exit_code: ClassVar[int] = TgTraceError.exit_code

    def show(self, file: IO[Any] | None = None) -> None:
        # Escaped here too, whatever raised it: a message may quote a path or the input.
        click.echo(f"tg-trace: {message(self.format_message())}", err=True)


class ProgressBar:
    """A progress bar on standard error that appears only once a run has taken a second."""

    DELAY = 1.0

    def __init__(self) -> None:
        self._started = time.monotonic()
        self._progress: Any = None
        self._tasks: dict = {}

    def update(self, name: str, done: int, total: int) -> None:
        if self._progress is None:
            if time.monotonic() - self._started < self.DELAY:
                return
            # Imported once a bar is shown: rich's console and progress cost every other run about
            # 0.02 s at start-up.
            from rich.console import Console
            from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn
            self._progress = Progress(TextColumn("{task.description}"), BarColumn(), DownloadColumn(),
                                      TimeRemainingColumn(), console=Console(stderr=True), transient=True)
            self._progress.start()
        task = self._tasks.get(name)
        if task is None:
            from rich.markup import escape
            task = self._tasks[name] = self._progress.add_task(escape(printable(name)), total=total or None)
        self._progress.update(task, completed=done)

    def close(self) -> None:
        if self._progress is not None:
            self._progress.stop()


def _cluster() -> ModuleType:
    """The cluster module, imported for --cluster only: with Dask it costs every other run a
    third of a second and 20 MB at start-up. (cluster imports nothing of cli: no cycle.)"""
    from .cluster import lint as cluster
    return cluster


def _view_formats() -> ModuleType:
    """The text and JSON of list and show (formats.listshow), imported by those commands only: it loads
    rich's console, tables and trees. (views imports nothing of cli: no cycle.)"""
    from .formats import listshow
    return listshow


def _split(values: Iterable[str] | None) -> list[str]:
    return [part.strip() for value in values or () for part in value.split(",") if part.strip()]


def _click_option(option: options.Option, command: str) -> Callable[[_F], _F]:
    """The click option of an entry of the options table, as ``command`` takes it."""
    names = [name for name in (option.short, option.flag) if name] + [option.field]
    help_ = option.help_for(command)
    if option.kind == "codes":
        return click.option(*names, multiple=True, metavar=option.metavar, help=help_)
    if option.kind == "switch":
        return click.option(*names, is_flag=True, default=None, help=help_)
    kinds: dict[str, Any] = {
        "choice": click.Choice(option.choices) if option.choices else None,
        "int": click.IntRange(option.minimum, option.maximum, min_open=option.min_open),  # type: ignore[arg-type]
        "float": click.FloatRange(option.minimum, option.maximum, min_open=option.min_open),
        "path": click.Path(dir_okay=False),
        "text": None,
    }
    return click.option(*names, type=kinds[option.kind], default=None, metavar=option.metavar, help=help_,
                        show_default=option.show_default or False)


def _table_options(command: str) -> Callable[[_F], _F]:
    """The flags of ``command`` that the options table declares (tgtrace.run.options), in its order."""
    def decorate(function: _F) -> _F:
        for option in reversed(options.for_command(command)):
            function = _click_option(option, command)(function)
        return function
    return decorate


def _given(command: str, flags: dict) -> dict:
    """The table's flags of ``command`` as settings: None for each one not given."""
    given = {}
    for option in options.for_command(command):
        value = flags.pop(option.field)
        if option.kind == "codes":
            value = _split(value) or None
        elif option.kind == "switch":
            value = value or None
        given[option.field] = value
    return given


def _usage(exc: click.UsageError) -> UsageProblem:
    """click's usage error (a bad option value, an unknown option or command) as the contract's one
    line, naming the command and where its help is."""
    command = exc.ctx.command_path if exc.ctx is not None else "tg-trace"
    text = " ".join(line.strip() for line in exc.format_message().splitlines() if line.strip())
    return UsageProblem(f"{command.removeprefix('tg-trace').strip() or 'usage'}: {text} "
                        f"('{command} --help' for help)")


class _Commands(click.Group):
    """The exit contract, enforced once for every command: one line and its exit status (2) for
    a TgTraceError, a problem with the command or its input, click's usage errors included; one
    line and 3 for anything else, a bug (the traceback with --debug)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, args)
        except click.UsageError as exc:
            raise _usage(exc) from None

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except UsageProblem:
            raise
        except click.UsageError as exc:
            raise _usage(exc) from None
        except (click.exceptions.Exit, click.ClickException, click.Abort, SystemExit, KeyboardInterrupt):
            raise
        except TgTraceError as exc:
            problem = UsageProblem(exc.one_line())
            problem.exit_code = exc.exit_code  # type: ignore[misc]  # this problem ends with its error's status
            raise problem from None
        except Exception as exc:  # a bug: never let it pass for findings (exit 1)
            if ctx.obj and ctx.obj.get("debug"):
                # Escaped and with every secret concealed, as any output: a message may quote the peer.
                click.echo(safe_layout(traceback.format_exc()), err=True, nl=False)
            first = (str(exc).splitlines() or [""])[0]
            click.echo(f"tg-trace: internal error: {type(exc).__name__}: {message(first)} (please report it at {ISSUES}; "
                       "--debug shows the traceback)", err=True)
            sys.exit(3)


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="trustgraph-ontology", prog_name="tg-trace")
@click.option("--debug", is_flag=True, help="Show the traceback of an internal error (exit 3).")
@click.pass_context
def main(ctx: click.Context, debug: bool) -> None:
    """Lint TrustGraph explainability traces against the TrustGraph ontology and shapes.

    Exit status: 0 clean, 1 findings, 2 a usage problem or unreadable input (one line),
    3 an internal error.
    """
    ctx.obj = {"debug": debug}


def _output(fmt: str | None, color: bool | None, output_file: str | None, statistics: bool, summary_file: str | None,
            no_summary: bool) -> Output:
    fmt = fmt or default_format()
    if statistics:
        refuse_statistics(fmt)
    if color is None:
        color = sys.stdout.isatty() and not output_file and not os.environ.get("NO_COLOR")
    if no_summary:
        summary = None
    else:
        summary = summary_file or os.environ.get("GITHUB_STEP_SUMMARY") or None
    return Output(format=fmt, color=bool(color) and fmt == "text", file=output_file, statistics=statistics,
                  summary=summary)


def _gateway() -> ModuleType:
    """The network module, imported by the commands that reach a gateway: websockets costs every
    other run start-up time. (gateway imports nothing of cli: no cycle.)"""
    from .inputs import gateway
    return gateway


_CONNECTION_OPTIONS = (
    click.option("-u", "--api-url", "api_url", default=None, metavar="URL",
                 help="The TrustGraph API gateway (https:// for TLS). Default: $TRUSTGRAPH_URL, else "
                 "http://localhost:8888/."),
    click.option("-t", "--token", default=None, metavar="TOKEN",
                 help="The gateway's API key or token. Default: $TRUSTGRAPH_TOKEN. Never printed or recorded."),
    click.option("-w", "--workspace", default=None,
                 help="The workspace. Default: $TRUSTGRAPH_WORKSPACE, else default."),
    click.option("-f", "--flow-id", "flow_id", default=None, help="The flow. Default: default."),
    click.option("--idle-timeout", type=click.FloatRange(min=0, min_open=True), default=None, metavar="SECONDS",
                 help=f"Give up a conversation with the gateway that makes no progress for this long "
                 f"(default: {limits.IDLE_TIMEOUT:g})."),
    click.option("--deadline", type=click.FloatRange(min=0, min_open=True), default=None, metavar="SECONDS",
                 help=f"Give up a conversation with the gateway (a pull; watch's start or a reconnection) that "
                 f"takes longer than this, whatever it sends (default: {limits.DEADLINE:g})."),
    click.option("--max-frame", type=click.IntRange(1024), default=None, metavar="BYTES",
                 help=f"Refuse a frame of the gateway larger than this, unread: pull fails, watch skips it and "
                 f"reconnects (default: {limits.MAX_FRAME}, 64 MiB)."),
)


def _connection_options(command: _F) -> _F:
    for option in reversed(_CONNECTION_OPTIONS):
        command = option(command)
    return command


def _connection(api_url: str | None, token: str | None, workspace: str | None, flow_id: str | None,
                idle_timeout: float | None = None, deadline: float | None = None,
                max_frame: int | None = None) -> Connection:
    connection = _gateway().Connection.from_environment(url=api_url, token=token, workspace=workspace, flow=flow_id,
                                                        timeout=idle_timeout, deadline=deadline, max_frame=max_frame)
    if connection.exposes_token:
        click.echo(f"tg-trace: warning: {printable(connection.shown)}: the token is sent unencrypted to a host "
                   "that is not this machine; use https://", err=True)
    return connection


class _PullProgress:
    """Triples received so far, on standard error, once a pull has taken a second (the total is
    unknown until the gateway's last batch)."""

    def __init__(self, enabled: bool) -> None:
        self._enabled = enabled
        self._started = time.monotonic()
        self._progress: Any = None
        self.done = 0

    def __call__(self, count: int) -> None:
        self.done += count
        if not self._enabled:
            return
        if self._progress is None:
            if time.monotonic() - self._started < ProgressBar.DELAY:
                return
            from rich.console import Console
            from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
            self._progress = Progress(SpinnerColumn(), TextColumn("pulling: {task.completed:,} triples"),
                                      TimeElapsedColumn(), console=Console(stderr=True), transient=True)
            self._progress.start()
            self._task = self._progress.add_task("pull", total=None)
        self._progress.update(self._task, completed=self.done)

    def close(self) -> None:
        if self._progress is not None:
            self._progress.stop()


def _pull(connection: Connection, collection: str, limit: int, progress: bool | None) -> list[ox.Quad]:
    bar = _PullProgress(sys.stderr.isatty() if progress is None else progress)
    try:
        return _gateway().pull(connection, collection, limit=limit, counted=bar)
    finally:
        bar.close()


@main.command()
@click.argument("paths", nargs=-1)
@click.option("--format", "fmt", type=click.Choice(choices(REPORT)), default=None,
              help=f"Output format: {described(REPORT)}.")
@_table_options("lint")
@click.option("--color/--no-color", default=None,
              help="Colour the text format. Default: when writing to a terminal and NO_COLOR is unset.")
@click.option("-o", "--output-file", type=click.Path(dir_okay=False), default=None,
              help="Write the report to this file (atomically) instead of standard output.")
@click.option("--config", "config_file", type=click.Path(dir_okay=False), default=None,
              help="Configuration file (tg-trace.toml or a pyproject.toml with [tool.tg-trace]). "
              "Default: the nearest one from the working directory up.")
@click.option("--no-config", is_flag=True, help="Read no configuration file.")
@click.option("--statistics", is_flag=True,
              help="Print findings per rule and the ontology coverage instead of the findings "
              "(text or json; after the annotations with github).")
@click.option("--summary", "summary_file", type=click.Path(dir_okay=False, allow_dash=True), default=None,
              help="Append a Markdown summary to this file (- for standard output). "
              "Default: $GITHUB_STEP_SUMMARY when set.")
@click.option("--no-summary", is_flag=True, help="Write no Markdown summary, not even to $GITHUB_STEP_SUMMARY.")
@click.option("--progress/--no-progress", default=None,
              help="Show a progress bar on standard error for long inputs. Default: when it is a terminal.")
@click.option("-C", "--collection", default=None,
              help="Lint this collection of a running TrustGraph instead of files: its stored traces, read "
              "through the gateway as tg-trace pull reads them.")
@click.option("--limit", type=click.IntRange(1), default=None, metavar="TRIPLES",
              help=f"With -C: the most triples the collection's traces may hold (default: {limits.PULL_LIMIT}), as for "
              "pull.")
@_connection_options
def lint(paths: tuple[str | io.BytesIO | Input, ...], fmt: str | None, color: bool | None, output_file: str | None,
         statistics: bool, summary_file: str | None, no_summary: bool, config_file: str | None, no_config: bool,
         progress: bool | None, collection: str | None, limit: int | None, api_url: str | None, token: str | None,
         workspace: str | None, flow_id: str | None, idle_timeout: float | None, deadline: float | None,
         max_frame: int | None, **flags: Any) -> None:
    """Lint trace files (N-Quads, N-Triples, Turtle, TriG, JSON-LD, TrustGraph wire JSON or JSONL
    explain streams), or with -C a collection of a running TrustGraph. PATHS may be files,
    directories or - for standard input.

    Exit status: 0 when nothing at or above --fail-on was found, 1 when something was,
    2 for a usage problem or unreadable input, 3 for an internal error.
    """
    if bool(paths) == bool(collection):
        raise UsageProblem("name trace files, or a collection of a running TrustGraph with -C, not both"
                           if paths else "name trace files to lint (or - for standard input), or a collection with -C")
    flags = _given("lint", flags)
    output = _output(fmt, color, output_file, statistics, summary_file, no_summary)
    settings = config.resolve(config_file, no_config, output=output, **flags)
    if collection:
        if settings.cluster:
            raise UsageProblem("--cluster lints files; lint a collection (-C) here")
        connection = _connection(api_url, token, workspace, flow_id, idle_timeout, deadline, max_frame)
        pulled = _pull(connection, collection, limit or limits.PULL_LIMIT, progress)
        # The rows of a pull are an unordered set: linted as one capture, handed to the graph as they
        # came (a triple's line is the one `tg-trace pull` writes it on).
        paths = (quads_input(f"{connection.workspace}/{collection}.nq", pulled),)
        settings = replace(settings, one_capture=False)
    if settings.cluster:
        cluster = _cluster()
        cluster.require(settings.cluster, settings.trust_network)
        settings = replace(settings, one_capture=True)
    # On a cluster, URLs and globs are the workers' to read; local files are still never overwritten.
    local = [p for p in paths if isinstance(p, str) and p != "-"
             and not (settings.cluster and ("://" in p or any(c in p for c in "*?[")))]
    refuse_inputs({"-o": output.file, "--summary": output.summary, "--write-baseline": settings.write_baseline},
                  expand_paths(local))
    if settings.write_baseline:
        settings = replace(settings, baseline=None)
    bar = ProgressBar() if (sys.stderr.isatty() if progress is None else progress) else None
    try:
        if settings.cluster:
            report = cluster.lint(*paths, settings=settings)
        else:
            visit = _report_visit(settings.output)
            report = api.lint(*paths, settings=settings, progress=bar.update if bar else None, visit=visit)
    finally:
        if bar:
            bar.close()

    if settings.write_baseline:
        write_atomic(settings.write_baseline, Baseline.from_report(report).to_json())
        click.echo(f"tg-trace: recorded {plural(len(report.findings), 'finding')} in "
                   f"{printable(settings.write_baseline)}", err=True)
        sys.exit(0)
    if report.baselined or report.stale:
        click.echo(f"tg-trace: {plural(report.baselined, 'known finding')} accepted by the baseline "
                   f"{printable(settings.baseline)}" + (f"; {plural(report.stale, 'recorded finding')} no longer "
                                             f"{'occurs' if report.stale == 1 else 'occur'}" if report.stale else ""),
                   err=True)
    emit(report, settings.output)
    _wrote(settings.output.file, f"the {settings.output.format} report")
    if report.gate_off:
        click.echo(f"tg-trace: warning: {printable(report.gate_off)}", err=True)
    if not report.covered:
        click.echo(f"tg-trace: ontology coverage {report.coverage.percent:.1f}% is below the minimum of "
                   f"{settings.min_coverage:g}%", err=True)
    sys.exit(0 if report.passed else 1)


def _report_visit(output: Output) -> Callable[..., None] | None:
    """What the run builds of each graph for the report asked for, in its one pass: the traces'
    views for a report that shows them, each trace's audit record for one that opens with the
    audit (the Markdown --summary too)."""
    views = traceviews.ViewsVisit(max_depth=limits.DEPTH_CEILING, refuse=False)
    keep = needs_views(output.format)
    if (needs_audit(output.format) and not output.statistics) or output.summary:
        return audit.AuditVisit(views, keep=keep)
    return views if keep else None


_RDF_NAMES = {"nquads": "N-Quads", "trig": "TriG", "ntriples": "N-Triples"}


@main.command()
@click.argument("paths", nargs=-1, required=True)
@click.option("--to", "fmt", type=click.Choice(choices(RDF)), default="nquads", show_default=True,
              help="N-Quads or TriG, both RDF 1.2 (triple terms written <<( s p o )>>); ntriples: N-Triples 1.2, "
                   "the named graphs merged, for tools that read one graph.")
@_table_options("convert")
@click.option("--state-graphs", is_flag=True, default=False,
              help="Also state where each subject's statements were written: one tgl:namedGraph statement per "
                   "graph (its IRI, or tg:defaultGraph), in the default graph, so that a SHACL processor, which "
                   "sees one graph, judges the named-graph rules (G001, G002) as tg-trace does.")
@click.option("-o", "--output-file", type=click.Path(dir_okay=False), default=None,
              help="Write to this file instead of standard output.")
def convert(paths: tuple[str, ...], fmt: str, state_graphs: bool, output_file: str | None, **flags: Any) -> None:
    """Write the graph tg-trace reads from trace files (any input lint takes: wire JSON, explain
    streams, every RDF syntax) as N-Quads or TriG 1.2, so that another RDF tool, such as a SHACL
    processor given the published shapes, checks exactly the graph tg-trace judges.

    Named graphs and triple terms are kept; a term RDF cannot hold stands as the placeholder IRI
    the linter judges, with its tgl:invalidTerm annotation. Exit status: 0 written, 2 for a usage
    problem or unreadable input.
    """
    from .formats import rdf  # the RDF writer, loaded by this command alone

    refuse_inputs({"-o": output_file}, expand_paths([p for p in paths if p != "-"]))
    settings = Settings().merge(**_given("convert", flags))
    quads: list = []
    stated: list = []
    unjudged: list[str] = []
    for path in paths:
        for item in load(path, settings.input_format, bounds=settings.bounds):
            start = len(quads)
            with item.reading():
                quads.extend(item.quads())
            if len(quads) == start:
                raise item.no_triples()
            if item.carries_graphs is False:
                unjudged.append(item.name)
            elif state_graphs:
                stated.extend(ox.Quad(*map(term, triple)) for triple in graph_statements(item.graph()))
    data = rdf.serialize(quads + stated, fmt)
    if unjudged:
        # Written in the default graph, which is not where their emitter wrote them, maybe.
        click.echo(f"tg-trace: note: {printable(graphs_not_judged(unjudged))}; written in the default graph", err=True)
    if output_file:
        write_atomic(output_file, data)
        _wrote(output_file, f"{plural(len(quads), 'triple')} as {_RDF_NAMES[fmt]}")
    else:
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()


@main.command()
@click.argument("old")
@click.argument("new")
@click.option("--format", "fmt", type=click.Choice(choices(DIFF)), default="text", show_default=True,
              help=f"Output format: {described(DIFF)}.")
@_table_options("diff")
@click.option("-o", "--output-file", type=click.Path(dir_okay=False), default=None,
              help="Write the diff to this file (atomically) instead of standard output.")
@click.option("--color/--no-color", default=None,
              help="Colour the text format. Default: when writing to a terminal and NO_COLOR is unset.")
def diff(old: str, new: str, fmt: str, output_file: str | None, color: bool | None, **flags: Any) -> None:
    """Compare the structure of the traces in OLD and NEW: what an emitter change added, removed
    or changed. Entities are matched by their place in their trace (pattern, step kind, position
    along the chain, sub-trace), never by IRI; each one's types and mixins, named graphs,
    predicates with the kind and datatype of their values, and links are compared, and only the
    values of the contract (termination reasons, patterns, tool names) as values: IDs,
    timestamps, token counts and texts are not. OLD and NEW are anything lint reads (one trace
    or a capture of many; - for standard input): traces are paired by pattern and question,
    then by position, and those that changed alike are counted together.

    Exit status: 0 when the structures are the same, 1 when they differ, 2 for a usage problem
    or unreadable input (one line), 3 for an internal error.
    """
    from .formats import diff as diff_format  # the comparison and its writer, loaded by this command alone
    from .views import diff as structure

    refuse_inputs({"-o": output_file}, expand_paths([p for p in (old, new) if p != "-"]))
    settings = Settings().merge(**_given("diff", flags))
    result = structure.compare_inputs(old, new, settings.input_format, settings.max_stdin, settings.stdin_timeout,
                                      settings.bounds)
    if color is None:
        color = sys.stdout.isatty() and not output_file and not os.environ.get("NO_COLOR")
    diff_format.emit(result, fmt, bool(color), output_file)
    _wrote(output_file, "the diff")
    sys.exit(0 if result.same else 1)


@main.command()
@click.option("--format", "fmt", type=click.Choice(choices(REPORT)), default=None,
              help="Output format, as for lint. Default: text (github when GITHUB_ACTIONS=true).")
@click.option("-o", "--output-file", type=click.Path(dir_okay=False), default=None,
              help="Write the report to this file (atomically) instead of standard output.")
@click.option("--no-reasoner", is_flag=True, help="Skip HermiT (which needs Java).")
def check(fmt: str | None, output_file: str | None, no_reasoner: bool) -> None:
    """Self-check the installed ontology and shapes: they parse, the ontology is consistent
    (HermiT), every term the shapes use is declared, every term is labelled and defined.
    Each problem is a finding with a code (K001...), in any output format; exit 1 on an error."""
    found = selfcheck.findings(selfcheck.problems(reasoner=not no_reasoner))
    report = Report(findings=found, files=[str(selfcheck.ontology_path()), *map(str, selfcheck.shapes_paths())],
                    about="ontology and shapes")
    output = Output(format=fmt or default_format(), color=sys.stdout.isatty() and not output_file
                    and not os.environ.get("NO_COLOR"), file=output_file)
    emit(report, output)
    _wrote(output_file, f"the {output.format} report")
    if no_reasoner:
        click.echo("tg-trace: the reasoner was skipped (--no-reasoner): the ontology was not proved consistent",
                   err=True)
    sys.exit(0 if report.conforms else 1)


@main.command()
@click.argument("code")
def rule(code: str) -> None:
    """Explain one rule: what it checks, why it matters, how to fix it."""
    text = explain_rule(get_rule(code))
    if sys.stdout.isatty():
        # Imported here alone: the Markdown renderer (markdown-it, pygments) and rich's console
        # cost every other run 0.04 s and 5 MB at start-up.
        from rich.console import Console
        from rich.markdown import Markdown
        Console().print(Markdown(text))
    else:
        click.echo(text, nl=False)  # the Markdown ends in its own newline


@main.command()
def rules() -> None:
    """List every rule with its code, family, severity and summary."""
    click.echo(list_rules())


# ---------------------------------------------------------------- viewing traces

def _views(paths: Sequence[str], trace: str | None, config_file: str | None, no_config: bool,
           given: dict) -> tuple[list[traceviews.TraceView], Settings]:
    settings = config.resolve(config_file, no_config, **given)
    only = (lambda iri: traceviews.matches(iri, trace)) if trace else None
    views = traceviews.build(*paths, settings=settings, only=only)
    if trace and not views:
        raise UsageProblem(f"{', '.join(paths)}: no trace matches {trace!r} ('tg-trace list' shows the traces)")
    return views, settings


def _exit_for(views: Iterable[traceviews.TraceView | traceviews.TraceRow], settings: Settings,
              outside: dict[str, int] | None = None) -> None:
    """The exit contract: 1 when a shown trace (or row), or a statement outside every trace, has
    a finding at or above --fail-on."""
    fail_on = settings.fail_on
    counts = [v.counts() for v in views] + [outside or {}]
    failed = fail_on is not None and any(
        count and Severity.parse(name) >= fail_on for each in counts for name, count in each.items())
    sys.exit(1 if failed else 0)


def _wrote(output_file: str | None, what: str) -> None:
    """One line on standard error saying where a command wrote what it made."""
    if output_file:
        click.echo(f"tg-trace: wrote {what} to {printable(output_file)}", err=True)


def _write(text: str, output_file: str | None) -> None:
    if output_file and output_file != "-":
        write_atomic(output_file, text + "\n")
    else:
        click.echo(text)


_CONFIG_OPTIONS = (
    click.option("--config", "config_file", type=click.Path(dir_okay=False), default=None,
                 help="Configuration file for the rules whose findings are shown (as for lint)."),
    click.option("--no-config", is_flag=True, help="Read no configuration file."),
)


def _config_options(command: _F) -> _F:
    for option in reversed(_CONFIG_OPTIONS):
        command = option(command)
    return command


_SORTS = {
    "started": lambda v: v.started or "",
    "steps": lambda v: v.step_count,
    "findings": lambda v: (v.counts()["error"], v.counts()["warning"], v.counts()["info"]),
    "llm": lambda v: v.llm_ms or 0,
    "tool": lambda v: v.tool_ms or 0,
    "tokens": lambda v: (v.tokens_in or 0) + (v.tokens_out or 0),
    "pattern": lambda v: v.pattern,
    "trace": lambda v: v.trace,
}


@main.command(name="list")
@click.argument("paths", nargs=-1, required=True)
@click.option("--format", "fmt", type=click.Choice(choices(VIEW)), default="text",
              help="text: a table; json: one object per trace (trace, pattern, question, started, steps, ...).")
@click.option("--pattern", "patterns", multiple=True, type=click.Choice(PATTERNS),
              help="Only traces of this pattern (repeatable).")
@click.option("--has-findings", is_flag=True, help="Only traces with at least one finding.")
@click.option("--since", metavar="DATE", default=None,
              help="Only traces started at or after this ISO date or time (2026-08-05, 2026-08-05T10:00).")
@click.option("--sort", "sort_key", type=click.Choice(list(_SORTS)), default="started", show_default=True,
              help="Order of the rows.")
@click.option("--reverse", is_flag=True, help="Reverse the order.")
@click.option("--color/--no-color", default=None, help="Colour the table. Default: on a terminal.")
@_table_options("list")
@_config_options
def list_traces(paths: tuple[str, ...], fmt: str, patterns: tuple[str, ...], has_findings: bool, since: str | None,
                sort_key: str, reverse: bool, color: bool | None, config_file: str | None, no_config: bool,
                **flags: Any) -> None:
    """One row per trace of the files (sub-agents and tool sub-traces counted in their parent):
    pattern, trace model, question, start, steps, LLM and tool time, tokens, models, termination,
    whether it was answered, and findings per severity.

    Exit status: 0, or 1 when a listed trace has a finding at or above the configured fail-on."""
    settings = config.resolve(config_file, no_config, **_given("list", flags))
    if settings.cluster:
        cluster = _cluster()
        cluster.require(settings.cluster, settings.trust_network)
        listed = cluster.listing(*paths, settings=replace(settings, one_capture=True))
    else:
        listed = traceviews.listing(*paths, settings=settings)
    views = listed.rows
    if patterns:
        views = [v for v in views if v.pattern in patterns]
    if has_findings:
        views = [v for v in views if any(v.counts().values())]
    if since:
        start = traceviews.parse_time(since)
        if start is None:
            raise UsageProblem(f"--since: {since!r} is not an ISO date or time (2026-08-05, 2026-08-05T10:00)")
        views = [v for v in views if (t := traceviews.parse_time(v.started)) is not None and t >= start]
    views.sort(key=_SORTS[sort_key], reverse=reverse)
    if color is None:
        color = sys.stdout.isatty() and not os.environ.get("NO_COLOR")
    # What no trace holds is shown (and fails) only when no filter picks traces.
    outside = {} if patterns or has_findings or since else listed.outside
    _write(_view_formats().render_list(views, fmt, color, files=len(listed.files),
                                       listed=len({row.trace for row in listed.rows}), outside=outside), None)
    _exit_for(views, settings, outside)


@main.command()
@click.argument("path")
@click.option("--trace", default=None, metavar="IRI",
              help="The trace to show: its root IRI, a prefix of it, or its UUID (or a prefix). Default: every trace.")
@click.option("--format", "fmt", type=click.Choice(choices(VIEW)), default="text",
              help="text: a tree; json: the same tree as JSON, one object per trace.")
@click.option("--color/--no-color", default=None, help="Colour the tree. Default: on a terminal.")
@_table_options("show")
@_config_options
def show(path: str, trace: str | None, fmt: str, color: bool | None, config_file: str | None, no_config: bool,
         **flags: Any) -> None:
    """Show traces as trees: each step with its type, timings, tokens, model, tool and arguments,
    thought, observation, tool error and termination; selected edges and chunks with their scores;
    sub-agents and tool sub-traces under the step that started them; each finding on its step.

    Exit status: 0, or 1 when a shown trace has a finding at or above the configured fail-on."""
    views, settings = _views([path], trace, config_file, no_config, _given("show", flags))
    if color is None:
        color = sys.stdout.isatty() and not os.environ.get("NO_COLOR")
    _write(_view_formats().render_show(views, fmt, color), None)
    _exit_for(views, settings)


_DRAWINGS = {".svg": "svg", ".png": "png", ".dot": "dot"}


@main.command()
@click.argument("path")
@click.option("--trace", default=None, metavar="IRI",
              help="The trace to draw: its root IRI, a prefix of it, or its UUID. Needed when PATH holds several.")
@click.option("-o", "--output-file", required=True, type=click.Path(dir_okay=False, allow_dash=True),
              help="Where to write the drawing: .svg, .png (both need Graphviz) or .dot by its extension; "
              "- writes SVG to standard output.")
@_table_options("graph")
@_config_options
def graph(path: str, trace: str | None, output_file: str, config_file: str | None, no_config: bool,
          **flags: Any) -> None:
    """Draw a trace's derivation graph with Graphviz: steps coloured by type with their mixins,
    Thoughts and selections as notes, sub-traces as clusters, links that break a rule in red with
    the rule code, steps with findings outlined.

    Exit status: 0, or 1 when the trace has a finding at or above the configured fail-on."""
    kind = "svg" if output_file == "-" else _DRAWINGS.get(os.path.splitext(output_file)[1].lower())
    if kind is None:
        raise UsageProblem(f"{output_file}: name a .svg, .png or .dot file (or - for SVG on standard output)")
    if kind != "dot":
        diagram.graphviz()
    refuse_inputs({"-o": None if output_file == "-" else output_file}, expand_paths([path]))
    views, settings = _views([path], trace, config_file, no_config, _given("graph", flags))
    if len(views) > 1:
        raise UsageProblem(f"{path}: holds {len(views)} traces; choose one with --trace ('tg-trace list' shows them)")
    source = diagram.trace_dot(views[0])
    data = source.encode() if kind == "dot" else diagram.render(source, kind)
    if output_file == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    else:
        write_atomic(output_file, data)
        _wrote(output_file, f"the {kind.upper()} drawing")
    _exit_for(views, settings)


# ---------------------------------------------------------------- a running TrustGraph


@main.command()
@click.option("-C", "--collection", default="default", show_default=True, help="The collection to pull.")
@click.option("-o", "--output-file", type=click.Path(dir_okay=False, allow_dash=True), default=None,
              help="Write the N-Quads to this file (atomically: a failed pull leaves it as it was). "
              "Default: standard output.")
@click.option("--limit", type=click.IntRange(1), default=None, metavar="TRIPLES",
              help=f"The most triples a pull may hold, every graph and linked node included, which also bounds its "
              f"requests (default: {limits.PULL_LIMIT}). The gateway cannot page: a collection holding more fails "
              "with exit 2 rather than being cut.")
@click.option("--progress/--no-progress", default=None,
              help="Show the triples received on standard error. Default: when it is a terminal.")
@_connection_options
def pull(collection: str, output_file: str | None, limit: int | None, progress: bool | None, api_url: str | None,
         token: str | None, workspace: str | None, flow_id: str | None, idle_timeout: float | None,
         deadline: float | None, max_frame: int | None) -> None:
    """Read a collection's stored traces from a running TrustGraph and write them as N-Quads:
    the explainability graphs (urn:graph:retrieval, urn:graph:source) and the nodes they link to
    elsewhere (extraction's documents, in the default graph). Lint the file with tg-trace lint.

    Exit status: 0 when written, 2 when the gateway cannot be reached, refuses the token, knows no
    such workspace, flow or collection, holds more than --limit, or breaks off (nothing is written)."""
    from .formats import rdf  # the RDF writer, loaded by the commands that write RDF

    connection = _connection(api_url, token, workspace, flow_id, idle_timeout, deadline, max_frame)
    quads = _pull(connection, collection, limit or limits.PULL_LIMIT, progress)
    data = rdf.serialize(quads, "nquads")
    if output_file and output_file != "-":
        write_atomic(output_file, data)
        click.echo(f"tg-trace: pulled {plural(len(quads), 'triple')} of collection {printable(collection)} "
                   f"into {printable(output_file)}", err=True)
    else:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()


@main.command()
@click.option("-C", "--collection", default=None, help="Only this collection's traces. Default: every collection.")
@click.option("--format", "fmt", type=click.Choice(choices(LIVE)), default=None,
              help=f"How each finding is printed: {described(LIVE)}. Default: text (github when GITHUB_ACTIONS=true).")
@_table_options("watch")
@click.option("--quiet-period", type=click.FloatRange(min=0), default=limits.QUIET_PERIOD, show_default=True, metavar="SECONDS",
              help="Lint a complete trace once nothing more has arrived for it for this long.")
@click.option("--trace-timeout", type=click.FloatRange(min=0, min_open=True), default=limits.TRACE_TIMEOUT, show_default=True,
              metavar="SECONDS", help="Report a trace as never completed, and lint it as it is, when it is still "
              "incomplete this long after its last event.")
@click.option("--trace-max-age", type=click.FloatRange(min=0, min_open=True), default=limits.TRACE_MAX_AGE,
              show_default=True, metavar="SECONDS",
              help="Lint a trace as it is, and release it, once its first event is this old, however much keeps "
              "arriving for it.")
@click.option("--trace-max-triples", type=click.IntRange(1), default=limits.TRACE_MAX_TRIPLES, show_default=True,
              metavar="TRIPLES", help="Lint a trace as it is, and release it, once it holds this many triples.")
@click.option("--max-held-triples", type=click.IntRange(1), default=limits.MAX_HELD_TRIPLES, show_default=True,
              metavar="TRIPLES", help="The most triples the traces in flight may hold in all (checked as a frame's "
              "triples are added): past it the oldest are linted as they are, together, with a notice. A triple "
              "held costs at most about 1.7 KB.")
@click.option("--record", type=click.Path(dir_okay=False), default=None,
              help="Append what was kept (the explainability events) to this file as an explain stream "
              "(JSON lines, lintable with tg-trace lint); findings then name its lines. A symbolic link, a device, "
              "a FIFO or a file that is not an explain stream is refused.")
@click.option("--metrics", "metrics_address", default=None, metavar="[HOST:]PORT",
              help="Serve Prometheus metrics (findings per rule and severity, traces, frames) at "
              "http://HOST:PORT/metrics; HOST defaults to 127.0.0.1. "
              "Needs pip install 'trustgraph-ontology[metrics]'.")
@click.option("--color/--no-color", default=None, help="Colour the text format. Default: on a terminal.")
@_config_options
@_connection_options
def watch(collection: str | None, fmt: str | None, quiet_period: float, trace_timeout: float, trace_max_age: float,
          trace_max_triples: int, max_held_triples: int, record: str | None, metrics_address: str | None,
          color: bool | None, config_file: str | None, no_config: bool, api_url: str | None, token: str | None,
          workspace: str | None, flow_id: str | None, idle_timeout: float | None, deadline: float | None,
          max_frame: int | None, **flags: Any) -> None:
    """Watch a flow of a running TrustGraph and lint each trace as it completes: subscribes to the
    flow's live export of triples, keeps the explainability graphs, prints each finding as it is
    found, and reconnects when the gateway goes away. Stop it with Ctrl-C or SIGTERM: it prints a
    summary. Its memory is bounded whatever the traffic (--trace-max-age, --trace-max-triples,
    --max-held-triples, --max-frame).

    Exit status: 0 when nothing at or above --fail-on was found, 1 when something was, 2 when the
    gateway cannot be reached at the start, refuses the token, knows no such workspace or flow,
    sends a malformed frame, or the recording cannot be written (after the summary)."""
    from .inputs.trustgraph import line_kind
    from .run import watch as watching

    settings = config.resolve(config_file, no_config, **_given("watch", flags))
    fmt = fmt or default_format()
    shown = shown_from(settings.output.show, fmt, settings.fail_on)
    if color is None:
        color = sys.stdout.isatty() and not os.environ.get("NO_COLOR")
    color = bool(color) and fmt == "text"
    connection = _connection(api_url, token, workspace, flow_id, idle_timeout, deadline, max_frame)

    def found(finding: Finding) -> None:
        if shown is not None and finding.severity < shown:
            return  # counted in the summary, not printed
        text = live.line(finding, fmt, color)
        if color:
            from rich.console import Console
            Console(highlight=False, soft_wrap=True, force_terminal=True).print(redact(text))
        else:
            click.echo(redact(text))
        sys.stdout.flush()

    def notice(text: str) -> None:
        click.echo(f"tg-trace: {printable(text)}", err=True)

    def explain_event(line: bytes) -> bool:
        """an explain stream (one JSON explain event per line)"""
        try:
            return line_kind(json.loads(line)) == "events"
        except (ValueError, RecursionError):
            return False

    recording = Appended(record, explain_event, "--record") if record else None
    metrics = None
    try:
        if metrics_address:
            from .formats.metrics import Metrics  # prometheus_client, for --metrics only
            metrics = Metrics()
            metrics.serve(metrics_address)
        session = watching.Watch(connection, settings, found, notice, collection=collection,
                                 quiet=quiet_period, timeout=trace_timeout, trace_max_age=trace_max_age,
                                 trace_max_triples=trace_max_triples, max_held=max_held_triples,
                                 stream_memory=settings.stream_memory, record=recording,
                                 metrics=metrics, name=record or f"<flow {connection.flow}>",
                                 recorded=recording.lines if recording is not None else 0)
        tally = watching.run(session)
    finally:
        if recording is not None:
            recording.close()
        if metrics is not None:
            metrics.close()
    if tally.failure is not None:
        notice(tally.failure.one_line())
    counts = ", ".join(plural(tally.counts[s], str(s)) if s.name != "INFO" else f"{tally.counts[s]} info"
                       for s in sorted(tally.counts, reverse=True))
    skipped = f" ({tally.oversized} too large, skipped)" if tally.oversized else ""
    bounded = f", {tally.bounded} at a bound" if tally.bounded else ""
    notice(f"watched {plural(tally.frames, 'frame')}{skipped}: {plural(tally.linted, 'trace')} linted "
           f"({tally.clean} clean, {tally.incomplete} never completed{bounded}), {session.open} still open; {counts}")
    if tally.failure is not None:
        sys.exit(tally.failure.exit_code)
    sys.exit(1 if tally.failed(settings.fail_on) else 0)


def entry() -> None:
    """The tg-trace command as a process: ``main``, then an exit without the interpreter's teardown.

    Freeing every object a lint made (the trace graph above all, which runs keep for this: see
    ``last_graph_kept``) is work the operating system does at once when the process ends; mypy
    leaves the same way. Standard output and error are flushed first, each output file is already
    closed, and nothing tg-trace starts registers work for exit (a --jobs pool and a cluster are shut
    down when their run ends). An exit that is not a plain status, or an output that cannot be
    flushed (a closed pipe), is left to the interpreter's own exit, as before. In-process callers
    (click's test runner, the pytest plugin) call ``main``: their graphs are freed as usual."""
    with last_graph_kept():
        try:
            main()
        except SystemExit as stop:
            status = stop.code
        else:  # main always ends with an exit; a status of 0 if it returns
            status = 0
        if status is None or isinstance(status, int):
            try:
                sys.stdout.flush()
                sys.stderr.flush()
            except (OSError, ValueError):
                pass
            else:
                os._exit(status or 0)
    sys.exit(status)


if __name__ == "__main__":
    entry()
