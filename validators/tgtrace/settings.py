"""Settings: what a run checks and how it reports, resolved once.

Defaults, then the configuration file, then flags, key by key: ``config``
reads the file and resolves; every face (the CLI, the pytest plugin, the
Python API, the stream linter) is handed one :class:`Settings` and nothing
else decides what is selected, ignored, overridden or failed on.

The rule selector grammar is written here once: a selector is ``ALL``, a rule
code (``C004``), a code prefix (``C0``, ``T`` every termination rule, as in
ruff) or a family name (``chain``). A selector that matches no rule is an
error naming the nearest code: a typo must not silently turn a check off.
"""

from __future__ import annotations

import difflib
import fnmatch
import os
from dataclasses import dataclass, field, fields, replace
from functools import cached_property
from pathlib import Path

from .errors import TgTraceError
from .model import Finding, Severity
from .rules import all_rules, families

ALL = "ALL"
# fail-on accepts a severity or "never" (report only, exit 0 on findings).
NEVER = "never"
ENGINES = ("fast", "shacl")


class SettingsError(TgTraceError, ValueError):
    """A bad setting; the message names where it was given (a file and key, or a flag)."""


# ---------------------------------------------------------------- selectors


def selector(text, where: str) -> str:
    """``text`` as a selector (codes and prefixes upper-cased, families lower-cased)."""
    if not isinstance(text, str) or not text.strip():
        raise SettingsError(f"{where}: expected a rule code, got {text!r}")
    text = text.strip()
    if text.lower() in families():
        return text.lower()
    code = text.upper()
    known = all_rules()
    if code != ALL and not any(rule.startswith(code) for rule in known):
        hint = difflib.get_close_matches(code, sorted(known) + sorted(families()), n=1)
        suggestion = f" (did you mean {hint[0]}?)" if hint else ""
        raise SettingsError(f"{where}: unknown rule code {code!r}{suggestion}; 'tg-trace rules' lists them")
    return code


def selectors(values, where: str) -> tuple[str, ...]:
    if isinstance(values, str) or not isinstance(values, (list, tuple)):
        raise SettingsError(f"{where}: expected a list of rule codes, got {values!r}")
    return tuple(selector(value, where) for value in values)


def selects(chosen: str, code: str, family: str) -> bool:
    """Whether the selector ``chosen`` covers the rule ``code`` of ``family``."""
    return chosen == ALL or chosen == family or code.startswith(chosen)


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


@dataclass(frozen=True)
class ScopedIgnore:
    """Rules switched off where a path glob or an IRI pattern matches."""

    pattern: str
    codes: tuple[str, ...]
    # "path" patterns match the input file; "iri" patterns match the focus node
    # or the root Question of its trace.
    kind: str

    def matches(self, finding: Finding, base: Path) -> bool:
        if not any(selects(code, finding.rule, finding.family) for code in self.codes):
            return False
        if self.kind == "iri":
            return any(
                iri is not None and fnmatch.fnmatchcase(iri, self.pattern) for iri in (finding.focus, finding.trace)
            )
        if not finding.file or finding.file == "-":
            return False
        path = Path(finding.file)
        absolute = (path if path.is_absolute() else Path.cwd() / path).resolve().as_posix()
        pattern = self.pattern if os.path.isabs(self.pattern) else (base / self.pattern).as_posix()
        # A bare name ("legacy-*.nq") matches a file of that name anywhere, as
        # in .gitignore; fnmatch's "*" crosses "/", so "traces/*" covers subfolders.
        return fnmatch.fnmatchcase(absolute, pattern) or (
            "/" not in self.pattern and fnmatch.fnmatchcase(path.name, self.pattern)
        )


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
    max_stdin: int = 1 << 30
    # Seconds standard input may send nothing before it is given up.
    stdin_timeout: float = 120.0
    output: Output = field(default_factory=Output)
    # Set when the configuration file turns the gate off (fail-on never, every rule ignored):
    # every report says so, since a repository's file can do it unseen. A flag is the user's word.
    gate_off: str | None = None
    # The configuration file these came from (None: none); its paths start from its folder.
    path: str | None = None

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

    def merge(self, **given) -> Settings:
        """These settings with every value that was given (not None) in its place.

        Values are checked as flags: a selector, severity or engine that does not
        exist is a :class:`SettingsError` naming the flag.
        """
        output_names = {f.name for f in fields(Output)}
        unknown = set(given) - {f.name for f in fields(self)} - output_names
        if unknown:
            raise TypeError(f"unknown setting(s): {', '.join(sorted(unknown))}")
        given = {k: v for k, v in given.items() if v is not None}
        output = {k: given.pop(k) for k in list(given) if k in output_names}
        for key in ("select", "ignore"):
            if key in given:
                given[key] = selectors(list(given[key]), f"--{key}")
        if "fail_on" in given:
            given["fail_on"] = fail_on(given["fail_on"], "--fail-on")
        if "severity" in given:
            given["severity"] = {**self.severity, **severity_overrides(given["severity"], "severity")}
        if "target_version" in given:
            given["target_version"] = target_version(given["target_version"], "--target-version")
        if "engine" in given and given["engine"] not in ENGINES:
            raise SettingsError(f"--engine: expected one of {', '.join(ENGINES)}, got {given['engine']!r}")
        merged = replace(self, **given)
        if merged.gate_off and not merged.gate_off_notice():
            merged = replace(merged, gate_off=None)  # the flags turned it back on
        return replace(merged, output=replace(self.output, **output)) if output else merged

    def finding(self, finding: Finding) -> Finding | None:
        """The finding as this run reports it (its severity overridden), or None if ignored here."""
        if self.scoped_ignores:
            base = self.base
            if any(scope.matches(finding, base) for scope in self.scoped_ignores):
                return None
        override = self.severity.get(finding.rule)
        if override is not None and override != finding.severity:
            return replace(finding, severity=override)
        return finding


def target_version(value, where: str) -> str:
    """A TrustGraph release: X.Y or X.Y.Z."""
    text = str(value).strip() if isinstance(value, (str, int, float)) and not isinstance(value, bool) else ""
    parts = text.split(".")
    if not (2 <= len(parts) <= 3 and all(p.isdigit() for p in parts)):
        raise SettingsError(f"{where}: expected a TrustGraph release such as 2.11 or 2.2.13, got {value!r}")
    return text


def fail_on(value, where: str) -> Severity | None:
    if isinstance(value, Severity):
        return value
    if value == NEVER:
        return None
    return severity(value, where, allow_never=True)


def severity(value, where: str, allow_never: bool = False) -> Severity:
    if isinstance(value, Severity):
        return value
    if isinstance(value, str):
        try:
            return Severity.parse(value)
        except ValueError:
            pass
    choices = "error, warning, info" + (" or never" if allow_never else "")
    raise SettingsError(f"{where}: expected {choices}, got {value!r}")


def severity_overrides(table, where: str) -> dict[str, Severity]:
    if not isinstance(table, dict):
        raise SettingsError(f"{where}: must be a table of CODE = \"error\"|\"warning\"|\"info\"")
    overrides = {}
    for code, level in table.items():
        checked = selector(code, where)
        if checked not in all_rules():
            raise SettingsError(f"{where}: {code!r} must be a full rule code, not a prefix or family")
        overrides[checked] = severity(level, f"{where}.{checked}")
    return overrides
