"""Settings: what a run checks and how it reports, resolved once.

Defaults, then the configuration file, then flags, key by key: ``config``
reads the file and resolves; every face (the CLI, the pytest plugin, the
Python API, the stream linter) is handed one :class:`Settings` and nothing
else decides what is selected, ignored, overridden or failed on.

How each setting is given (its flag, its configuration key) and checked is
declared once, in the options table (``options``); a field's type and default
are the dataclass's here.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from functools import cached_property
from pathlib import Path
from typing import Any

from ..ground.limits import MAX_DEPTH, MAX_DIAGRAMS, MAX_EXPANSION, STREAM_MEMORY, InputBounds
from ..ground.model import Finding, Severity
from ..inputs.loaders import MAX_STDIN_BYTES, STDIN_TIMEOUT
from ..rules import all_rules, families
from .options import (  # re-exported: the checks and names every face has read from here
    ALL,
    ENGINES,
    NEVER,
    OPTIONS,
    READ_IN_LOGS,
    ScopedIgnore,
    SettingsError,
    fail_on,
    selector,
    selectors,
    selects,
    severity,
    severity_overrides,
    target_version,
)

__all__ = ["ALL", "ENGINES", "NEVER", "Output", "ScopedIgnore", "Settings", "SettingsError", "chosen_codes",
           "fail_on", "selector", "selectors", "selects", "severity", "severity_overrides", "shown_from", "target_version"]


def chosen_codes(select: tuple[str, ...] | None, ignore: tuple[str, ...] | None) -> frozenset[str]:
    """The rule codes left after ``select`` (default: every rule but the opt-in families') and ``ignore``."""
    rules = all_rules()
    opt_in = {name for name, family in families().items() if family.opt_in}

    def picked_by(chosen: str, code: str, family: str) -> bool:
        if family in opt_in and chosen == ALL:
            return False  # an opt-in family is asked for by name, code or prefix
        return selects(chosen, code, family)

    picked = {code for code, rule in rules.items()
              if (rule.family not in opt_in if select is None
                  else any(picked_by(s, code, rule.family) for s in select))}
    return frozenset(code for code in picked
                     if not any(selects(s, code, rules[code].family) for s in ignore or ()))


# ---------------------------------------------------------------- settings


def shown_from(show: Severity | None, fmt: str, fail_on: Severity | None = None) -> Severity | None:
    """The lowest severity a report in ``fmt`` lists, ``show`` given or not (None: every finding):
    warning in the reports read in logs, or ``fail_on`` when it is lower (what fails the run is
    listed), else every finding (``options.SHOW_DEFAULT``)."""
    if show is not None:
        return show
    if fmt not in READ_IN_LOGS:
        return None
    return fail_on if fail_on is not None and fail_on < Severity.WARNING else Severity.WARNING


@dataclass(frozen=True)
class Output:
    """How a run's report is written; the formats read this and nothing else."""

    format: str = "text"
    color: bool = False
    # Where the report goes (None: standard output).
    file: str | None = None
    # Findings per rule and ontology coverage instead of the findings.
    statistics: bool = False
    # A Markdown summary appended here ("-": standard output; None: none).
    summary: str | None = None
    # Paths in reports are relative to this directory (the repository root in CI).
    root: str | None = None
    # Only findings at or above this severity are shown (None: the format's default,
    # options.SHOW_DEFAULT); the summary counts all.
    show: Severity | None = None
    # The HTML report draws the diagrams of at most this many traces (0: none).
    diagrams: int = MAX_DIAGRAMS

    def shown_from(self, fail_on: Severity | None = None) -> Severity | None:
        """The lowest severity listed (None: every finding): ``show`` as given, else the format's
        default for a run that fails on ``fail_on``."""
        return shown_from(self.show, self.format, fail_on)


@dataclass(frozen=True)
class Settings:
    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] | None = None
    fail_on: Severity | None = Severity.ERROR
    # rule code -> the severity its findings are reported with
    severity: dict[str, Severity] = field(default_factory=dict)
    scoped_ignores: tuple[ScopedIgnore, ...] = ()
    baseline: str | None = None
    write_baseline: str | None = None
    min_coverage: float | None = None
    engine: str = "fast"
    input_format: str | None = None
    jobs: int = 1
    # The oldest TrustGraph release the project accepts ("2.11"): an older trace's findings
    # of rules its release did not yet meet are errors, not info. None: every release.
    target_version: str | None = None
    # A run that finds no trace fails unless this is set.
    allow_empty: bool = False
    # The inputs are parts of one capture (a rotated or cut export): traces are found across them.
    one_capture: bool = False
    # Where a run is spread over a cluster: a Dask scheduler ("tls://host:8786") or "local:N" (None: here).
    cluster: str | None = None
    # A plain (unencrypted, unauthenticated) scheduler address off this machine is accepted: the
    # user says the network is trusted. Never a configuration key: a repository cannot lower it.
    trust_network: bool = False
    # Standard input longer than this is an input error (a runaway producer, /dev/zero).
    max_stdin: int = MAX_STDIN_BYTES
    # Seconds standard input may send nothing before it is given up.
    stdin_timeout: float = STDIN_TIMEOUT
    # Triples of the traces an explain stream's reader released that it remembers (a late or
    # repeated event is judged against its trace).
    stream_memory: int = STREAM_MEMORY
    # How deep an input may nest (JSON-LD, RDF/XML, triple terms, sub-traces) and how many times
    # what was read of it a compressed input may expand to (limits.py).
    max_depth: int = MAX_DEPTH
    max_expansion: int = MAX_EXPANSION
    output: Output = field(default_factory=Output)
    # Set when the configuration file turns the gate off (fail-on never, every rule ignored):
    # every report says so, since a repository's file can do it unseen. A flag is the user's word.
    gate_off: str | None = None
    # The configuration file these came from (None: none); its paths start from its folder.
    path: str | None = None

    @property
    def bounds(self) -> InputBounds:
        """The bounds every input of the run is read within."""
        return InputBounds(self.max_depth, self.max_expansion)

    @property
    def base(self) -> Path:
        return Path(self.path).resolve().parent if self.path else Path.cwd().resolve()

    @cached_property
    def codes(self) -> frozenset[str]:
        """The rules this run evaluates."""
        return chosen_codes(self.select, self.ignore)

    def gate_off_notice(self) -> str | None:
        """Why no finding can fail this run (None: the gate is on), naming the configuration file."""
        reasons = []
        if self.fail_on is None:
            reasons.append('fail-on is "never"')
        if not self.codes:
            reasons.append("every rule is ignored")
        if not reasons:
            return None
        source = f" by the configuration file {self.path}" if self.path else ""
        return f"the gate is turned off{source}: {' and '.join(reasons)}; no finding can fail this run"

    @property
    def needs_coverage(self) -> bool:
        return self.min_coverage is not None or self.output.statistics or self.output.summary is not None

    def merge(self, **given: Any) -> Settings:
        """These settings with every value that was given (not None) in its place.

        Each value is checked by its entry of the options table, as a flag: a selector, severity
        or engine that does not exist is a :class:`SettingsError` naming the flag. An ``output``
        given whole keeps the configured values of what it leaves unset (``show``).
        """
        output_names = {f.name for f in fields(Output)}
        unknown = set(given) - {f.name for f in fields(self)} - output_names
        if unknown:
            raise TypeError(f"unknown setting(s): {', '.join(sorted(unknown))}")
        given = {k: v for k, v in given.items() if v is not None}
        checked: dict = {}
        for option in OPTIONS:
            # The scoped ignores come from the configuration file alone, already checked.
            if option.field not in given or option.joined:
                continue
            value = option.check(given.pop(option.field), option.where)
            if option.overlaid:
                value = {**getattr(self.output if option.output else self, option.field), **value}
            checked[option.field] = value
        output_values = {k: checked.pop(k) for k in list(checked) if k in output_names}
        output_values.update({k: given.pop(k) for k in list(given) if k in output_names})
        output = given.pop("output", None)
        if output is not None:
            # An Output a command built from its own flags: what it leaves unset is the configuration's.
            kept = {option.field: getattr(self.output, option.field) for option in OPTIONS
                    if option.output and getattr(output, option.field) is None}
            output = replace(output, **kept)
        merged = replace(self, **given, **checked)
        if merged.gate_off and not merged.gate_off_notice():
            merged = replace(merged, gate_off=None)  # the flags turned it back on
        base = output if output is not None else self.output
        return replace(merged, output=replace(base, **output_values)) if output_values or output else merged

    def finding(self, finding: Finding) -> Finding | None:
        """The finding as this run reports it (its severity overridden), or None if its rule is not
        selected or it is ignored here."""
        if finding.rule not in self.codes:
            return None
        if self.scoped_ignores:
            base = self.base
            if any(scope.matches(finding, base) for scope in self.scoped_ignores):
                return None
        override = self.severity.get(finding.rule)
        if override is not None and override != finding.severity:
            return replace(finding, severity=override)
        return finding

