"""The tg-trace command."""

from __future__ import annotations

import os
import sys

import click


# click: the de facto Python CLI library; its help text also feeds the docs site's CLI reference.

FORMAT_CHOICES = ["text", "json", "sarif", "junit", "github", "markdown"]


class UsageProblem(click.ClickException):
    """A one-line problem with the command or its input; exit code 2."""

    exit_code = 2

    def show(self, file=None) -> None:
        click.echo(f"tg-trace: {self.format_message()}", err=True)


class ProgressBar:
    """A progress bar on standard error that appears only once a run has taken a second."""

    DELAY = 1.0

    def __init__(self) -> None:
        import time

        self._clock = time.monotonic
        self._started = self._clock()
        self._progress = None
        self._tasks: dict = {}

    def update(self, name: str, done: int, total: int) -> None:
        if self._progress is None:
            if self._clock() - self._started < self.DELAY:
                return
            from rich.console import Console
            from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn

            self._progress = Progress(TextColumn("{task.description}"), BarColumn(), DownloadColumn(),
                                      TimeRemainingColumn(), console=Console(stderr=True), transient=True)
            self._progress.start()
        task = self._tasks.get(name)
        if task is None:
            task = self._tasks[name] = self._progress.add_task(name, total=total or None)
        self._progress.update(task, completed=done)

    def close(self) -> None:
        if self._progress is not None:
            self._progress.stop()


def _split(values) -> list[str]:
    return [part for value in values or () for part in value.split(",") if part.strip()]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="trustgraph-ontology", prog_name="tg-trace")
def main() -> None:
    """Lint TrustGraph explainability traces against the TrustGraph ontology and shapes."""


@main.command()
@click.argument("paths", nargs=-1, required=True)
@click.option("--format", "fmt", type=click.Choice(FORMAT_CHOICES), default=None,
              help="Output format. Default: text (github when GITHUB_ACTIONS=true).")
@click.option("--fail-on", type=click.Choice(["error", "warning", "info", "never"]), default=None,
              help="Exit 1 when a finding at or above this severity is found. Default: error.")
@click.option("--select", multiple=True, metavar="CODES",
              help="Only these rules: codes, code prefixes (C0) or families (chain), comma-separated.")
@click.option("--ignore", multiple=True, metavar="CODES", help="Skip these rules (same forms as --select).")
@click.option("--engine", type=click.Choice(["fast", "shacl"]), default=None,
              help="fast (default): the compiled rules; shacl: pySHACL on the shapes, the reference.")
@click.option("--input-format", type=click.Choice(["wire", "jsonl", "nquads", "ntriples", "turtle", "trig", "jsonld", "rdfxml"]),
              default=None, help="Input format for every input. Default: from each file's extension and content.")
@click.option("--color/--no-color", default=None, help="Colour the text format. Default: when writing to a terminal.")
@click.option("-o", "--output-file", type=click.Path(dir_okay=False), default=None,
              help="Write the report to this file instead of standard output.")
@click.option("--config", "config_file", type=click.Path(dir_okay=False), default=None,
              help="Configuration file (tg-trace.toml or a pyproject.toml with [tool.tg-trace]). "
              "Default: the nearest one from the working directory up.")
@click.option("--no-config", is_flag=True, help="Read no configuration file.")
@click.option("--baseline", type=click.Path(dir_okay=False), default=None,
              help="Accept the findings recorded in this file; fail only on new ones.")
@click.option("--write-baseline", type=click.Path(dir_okay=False), default=None,
              help="Record every finding of this run in this file and exit 0.")
@click.option("--statistics", is_flag=True,
              help="Print findings per rule and the ontology coverage instead of the findings (text or json).")
@click.option("--min-coverage", type=click.FloatRange(0, 100), default=None, metavar="PERCENT",
              help="Exit 1 when the traces exercise less than this share of the ontology's classes and predicates.")
@click.option("--summary", "summary_file", type=click.Path(dir_okay=False), default=None,
              help="Append a Markdown summary to this file. Default: $GITHUB_STEP_SUMMARY when set.")
@click.option("-j", "--jobs", type=click.IntRange(1), default=1, show_default=True,
              help="Lint this many files at once, in separate processes.")
@click.option("--progress/--no-progress", default=None,
              help="Show a progress bar on standard error for long inputs. Default: when it is a terminal.")
def lint(paths, fmt, fail_on, select, ignore, engine, input_format, color, output_file, config_file, no_config,
         baseline, write_baseline, statistics, min_coverage, summary_file, jobs, progress) -> None:
    """Lint trace files (N-Quads, N-Triples, Turtle, TriG, JSON-LD, TrustGraph wire JSON or JSONL
    explain streams). PATHS may be files, directories or - for standard input.

    Exit status: 0 when nothing at or above --fail-on was found, 1 when something was,
    2 for a usage problem or unreadable input.
    """
    from . import config as configuration
    from .api import lint as run_lint
    from .baseline import Baseline, BaselineError
    from .baseline import load as load_baseline
    from .formats import render
    from .loaders import InputError
    from .rules import UnknownRule

    if fmt is None:
        fmt = "github" if os.environ.get("GITHUB_ACTIONS") == "true" and "github" in FORMAT_CHOICES else "text"
    if statistics and fmt not in ("text", "json"):
        raise UsageProblem(f"--statistics prints text or json, not {fmt}")
    # Flags win over the configuration file, key by key.
    try:
        if no_config:
            settings = configuration.Config()
        elif config_file:
            settings = configuration.load(config_file)
        else:
            settings = configuration.discover()
        settings = settings.merge(
            select=_split(select) or None,
            ignore=_split(ignore) or None,
            fail_on=fail_on,
            engine=engine,
            baseline=baseline,
            min_coverage=min_coverage,
        )
    except configuration.ConfigError as exc:
        raise UsageProblem(str(exc)) from None
    bar = ProgressBar() if (sys.stderr.isatty() if progress is None else progress) else None
    try:
        report = run_lint(
            *paths,
            engine=settings.engine or "fast",
            select=list(settings.select) if settings.select else None,
            ignore=list(settings.ignore) if settings.ignore else None,
            severities=settings.severity or None,
            fail_on=settings.fail_on or "never",
            input_format=input_format,
            jobs=jobs,
            progress=bar.update if bar else None,
        )
    except InputError as exc:
        raise UsageProblem(str(exc)) from None
    except UnknownRule as exc:
        raise UsageProblem(str(exc)) from None
    finally:
        if bar:
            bar.close()
    report = settings.apply(report)

    if write_baseline:
        Baseline.from_report(report).write(write_baseline)
        click.echo(f"tg-trace: recorded {len(report.findings)} findings in {write_baseline}", err=True)
        sys.exit(0)
    accepted = 0
    if settings.baseline:
        try:
            known = load_baseline(settings.baseline)
        except BaselineError as exc:
            raise UsageProblem(str(exc)) from None
        stale = known.stale(report)
        report, accepted = known.apply(report)
        if accepted or stale:
            click.echo(f"tg-trace: {accepted} known findings accepted by the baseline {settings.baseline}"
                       + (f"; {stale} recorded findings no longer occur" if stale else ""), err=True)

    cover = None
    summary_file = summary_file or os.environ.get("GITHUB_STEP_SUMMARY") or None
    if statistics or settings.min_coverage is not None or summary_file:
        from .coverage import coverage

        cover = coverage(report)

    if statistics:
        from .coverage import statistics as per_rule
        from .formats import statistics as stats_format

        renderer = stats_format.render_json if fmt == "json" else stats_format.render_text
        text = renderer(report, per_rule(report), cover)
    elif fmt == "text":
        use_color = (sys.stdout.isatty() and not output_file) if color is None else color
        text = render(report, "text", color=bool(use_color))
    else:
        text = render(report, fmt)
    if output_file:
        with open(output_file, "w", encoding="utf-8") as handle:
            handle.write(text if text.endswith("\n") else text + "\n")
    elif fmt == "text" and not statistics and use_color:
        from rich.console import Console

        Console(highlight=False, soft_wrap=True, force_terminal=True).print(text)
    elif text:
        click.echo(text, nl=not text.endswith("\n"))

    if summary_file:
        from .formats import summary as markdown

        with open(summary_file, "a", encoding="utf-8") as handle:
            handle.write(markdown.render(report, coverage=cover, baselined=accepted) + "\n")

    failed = not report.conforms
    if settings.min_coverage is not None and cover is not None and cover.percent < settings.min_coverage:
        click.echo(f"tg-trace: ontology coverage {cover.percent:.1f}% is below the minimum of "
                   f"{settings.min_coverage:g}%", err=True)
        failed = True
    sys.exit(1 if failed else 0)


@main.command()
def check() -> None:
    """Self-check the installed ontology and shapes: they parse, the ontology is consistent
    (HermiT), every term the shapes use is declared, every term is labelled and defined."""
    from .selfcheck import run_checks

    problems = run_checks()
    for problem in problems:
        click.echo(problem)
    if problems:
        click.echo(f"{len(problems)} problem{'s' * (len(problems) != 1)} found.", err=True)
        sys.exit(1)
    click.echo("ontology and shapes: all checks passed.")


@main.command()
@click.argument("code")
def rule(code) -> None:
    """Explain one rule: what it checks, why it matters, how to fix it."""
    from .explain import explain_rule
    from .rules import UnknownRule, get_rule

    try:
        click.echo(explain_rule(get_rule(code)))
    except UnknownRule as exc:
        raise UsageProblem(str(exc)) from None


@main.command()
def rules() -> None:
    """List every rule with its code, family, severity and summary."""
    from .explain import list_rules

    click.echo(list_rules())


if __name__ == "__main__":
    main()
