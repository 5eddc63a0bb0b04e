"""Project configuration: ``[tool.tg-trace]`` in pyproject.toml, or tg-trace.toml.

The file is looked for in the working directory and then in each parent,
stopping at the first directory that has one (tg-trace.toml before a
pyproject.toml with a ``[tool.tg-trace]`` table), as ruff does. Paths in the
file are relative to the file's directory. Command-line flags win over it.

Every key and every rule code is checked: a typo must not silently turn a
check off, so an unknown one is an error that names it.
"""

from __future__ import annotations

import difflib
import fnmatch
import os
import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

from .model import Finding, Report, Severity

CONFIG_FILE = "tg-trace.toml"
PYPROJECT = "pyproject.toml"
TABLE = "tool.tg-trace"
# fail-on accepts a severity or "never" (report only, always exit 0 on findings).
NEVER = "never"


class ConfigError(ValueError):
    """A configuration problem; the message names the file and the key."""


@dataclass(frozen=True)
class ScopedIgnore:
    """Rules switched off where a path glob or an IRI pattern matches."""

    pattern: str
    codes: tuple[str, ...]
    # "path" patterns match the input file; "iri" patterns match the focus node
    # or the root Question of its trace.
    kind: str

    def matches(self, finding: Finding, base: Path) -> bool:
        if not any(_code_matches(code, finding) for code in self.codes):
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
class Config:
    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] | None = None
    fail_on: Severity | None = Severity.ERROR
    # rule code -> the severity its findings are reported with
    severity: dict[str, Severity] = field(default_factory=dict)
    scoped_ignores: tuple[ScopedIgnore, ...] = ()
    baseline: str | None = None
    min_coverage: float | None = None
    engine: str | None = None
    # Where the file was read from (None: no file); relative paths start here.
    path: str | None = None

    @property
    def base(self) -> Path:
        return Path(self.path).resolve().parent if self.path else Path.cwd().resolve()

    def merge(self, **flags) -> "Config":
        """This config with every flag that was given (not None) in place of the file's value."""
        unknown = set(flags) - {f.name for f in fields(self)}
        if unknown:
            raise TypeError(f"unknown option(s): {', '.join(sorted(unknown))}")
        given = {k: v for k, v in flags.items() if v is not None}
        if "select" in given:
            given["select"] = tuple(given["select"])
        if "ignore" in given:
            given["ignore"] = tuple(given["ignore"])
        if given.get("fail_on") == NEVER:
            given["fail_on"] = None
        elif isinstance(given.get("fail_on"), str):
            given["fail_on"] = Severity.parse(given["fail_on"])
        return replace(self, **given)

    def apply(self, report: Report) -> Report:
        """The report with scoped ignores, severity overrides and fail-on of this config.

        ``select`` and ``ignore`` are not applied here: they are passed to
        ``lint`` so that unselected rules are never evaluated.
        """
        base = self.base
        findings = []
        for finding in report.findings:
            if any(scope.matches(finding, base) for scope in self.scoped_ignores):
                continue
            override = self.severity.get(finding.rule)
            if override is not None and override != finding.severity:
                finding = replace(finding, severity=override)
            findings.append(finding)
        return replace(report, findings=findings, fail_on=self.fail_on)


# ---------------------------------------------------------------- validation


def _code_matches(code: str, finding: Finding) -> bool:
    # The forms --select takes: a code selects itself, a shorter one every rule
    # it begins ("T" every termination rule, "T00" the first nine), as in
    # ruff; a family name ("chain") every rule of the family.
    return code == "ALL" or finding.rule.startswith(code) or code == finding.family


def check_codes(codes, where: str, known: set[str] | None = None) -> tuple[str, ...]:
    """Rule codes, code prefixes (upper-cased) and family names, each of which must match a rule."""
    from .rules import FAMILIES

    if known is None:
        from .rules import all_rules

        known = set(all_rules())
    if isinstance(codes, str) or not isinstance(codes, (list, tuple)):
        raise ConfigError(f"{where}: expected a list of rule codes, got {codes!r}")
    out = []
    for code in codes:
        if not isinstance(code, str) or not code.strip():
            raise ConfigError(f"{where}: expected a rule code, got {code!r}")
        if code.strip().lower() in FAMILIES:
            out.append(code.strip().lower())
            continue
        code = code.strip().upper()
        if code != "ALL" and not any(rule.startswith(code) for rule in known):
            hint = difflib.get_close_matches(code, sorted(known), n=1)
            suggestion = f" (did you mean {hint[0]}?)" if hint else ""
            raise ConfigError(f"{where}: unknown rule code {code!r}{suggestion}; 'tg-trace rules' lists them")
        out.append(code)
    return tuple(out)


def _severity(value, where: str, allow_never: bool = False) -> Severity | None:
    if allow_never and value == NEVER:
        return None
    if isinstance(value, str):
        try:
            return Severity.parse(value)
        except ValueError:
            pass
    choices = "error, warning, info" + (" or never" if allow_never else "")
    raise ConfigError(f"{where}: expected {choices}, got {value!r}")


def _scoped(table, key: str, kind: str, where: str, known) -> tuple[ScopedIgnore, ...]:
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: '{key}' must be a table of pattern = [codes]")
    return tuple(
        ScopedIgnore(pattern=pattern, codes=check_codes(codes, f"{where}: {key}.{pattern!r}", known), kind=kind)
        for pattern, codes in table.items()
    )


KEYS = {
    "select": "rule codes, code prefixes or families to check (default: all)",
    "ignore": "rule codes, code prefixes or families not to check",
    "fail-on": "lowest severity that fails the run: error, warning, info or never",
    "severity": "table: rule code = the severity its findings get",
    "per-file-ignores": "table: path glob = rule codes ignored in matching files",
    "per-iri-ignores": "table: IRI glob = rule codes ignored on matching focus nodes or traces",
    "baseline": "baseline file; findings recorded in it do not fail the run",
    "min-coverage": "lowest percentage of ontology terms the traces must exercise",
    "engine": "fast or shacl",
}
ENGINES = ("fast", "shacl")


def _shown(path: Path) -> str:
    # Messages name the file as the user would: relative to where they are.
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def parse(data: dict, source: str, known: set[str] | None = None) -> Config:
    """Validate a ``[tool.tg-trace]`` table (already parsed from TOML) read from the file ``source``."""
    where = _shown(Path(source))
    for key in data:
        if key not in KEYS:
            hint = difflib.get_close_matches(key, KEYS, n=1)
            suggestion = f" (did you mean {hint[0]!r}?)" if hint else ""
            raise ConfigError(f"{where}: unknown key {key!r}{suggestion}; known keys: {', '.join(KEYS)}")
    if known is None:
        from .rules import all_rules

        known = set(all_rules())
    options: dict = {"path": str(Path(source).resolve())}
    if "select" in data:
        options["select"] = check_codes(data["select"], f"{where}: select", known)
    if "ignore" in data:
        options["ignore"] = check_codes(data["ignore"], f"{where}: ignore", known)
    if "fail-on" in data:
        options["fail_on"] = _severity(data["fail-on"], f"{where}: fail-on", allow_never=True)
    if "severity" in data:
        table = data["severity"]
        if not isinstance(table, dict):
            raise ConfigError(f"{where}: 'severity' must be a table of CODE = \"error\"|\"warning\"|\"info\"")
        overrides = {}
        for code, level in table.items():
            (checked,) = check_codes([code], f"{where}: severity", known)
            if checked not in known:
                raise ConfigError(f"{where}: severity: {code!r} must be a full rule code, not a prefix or family")
            overrides[checked] = _severity(level, f"{where}: severity.{checked}")
        options["severity"] = overrides
    scoped = ()
    if "per-file-ignores" in data:
        scoped += _scoped(data["per-file-ignores"], "per-file-ignores", "path", where, known)
    if "per-iri-ignores" in data:
        scoped += _scoped(data["per-iri-ignores"], "per-iri-ignores", "iri", where, known)
    options["scoped_ignores"] = scoped
    if "baseline" in data:
        if not isinstance(data["baseline"], str):
            raise ConfigError(f"{where}: baseline: expected a file path, got {data['baseline']!r}")
        # Relative to the config file, so the gate works from any directory.
        options["baseline"] = str(Path(source).resolve().parent / data["baseline"])
    if "min-coverage" in data:
        value = data["min-coverage"]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 100:
            raise ConfigError(f"{where}: min-coverage: expected a percentage from 0 to 100, got {value!r}")
        options["min_coverage"] = float(value)
    if "engine" in data:
        if data["engine"] not in ENGINES:
            raise ConfigError(f"{where}: engine: expected one of {', '.join(ENGINES)}, got {data['engine']!r}")
        options["engine"] = data["engine"]
    return Config(**options)


def _read_toml(path: Path) -> dict:
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except tomllib.TOMLDecodeError as err:
        # tomllib's message already ends with "(at line N, column M)".
        raise ConfigError(f"{_shown(path)}: invalid TOML: {err}") from None
    except OSError as err:
        raise ConfigError(f"{_shown(path)}: cannot read: {err.strerror}") from None


def load(path: str | Path, known: set[str] | None = None) -> Config:
    """Read one configuration file: tg-trace.toml (top-level keys) or pyproject.toml."""
    path = Path(path)
    data = _read_toml(path)
    if path.name == PYPROJECT:
        table = data.get("tool", {}).get("tg-trace")
        if table is None:
            raise ConfigError(f"{_shown(path)}: has no [{TABLE}] table")
        if not isinstance(table, dict):
            raise ConfigError(f"{_shown(path)}: [{TABLE}] must be a table")
        return parse(table, str(path), known)
    return parse(data, str(path), known)


def find(start: str | Path | None = None) -> Path | None:
    """The configuration file that applies in ``start`` (default: the working directory)."""
    directory = Path(start or Path.cwd()).resolve()
    for folder in (directory, *directory.parents):
        candidate = folder / CONFIG_FILE
        if candidate.is_file():
            return candidate
        candidate = folder / PYPROJECT
        if candidate.is_file():
            data = _read_toml(candidate)
            if isinstance(data.get("tool"), dict) and "tg-trace" in data["tool"]:
                return candidate
    return None


def discover(start: str | Path | None = None, known: set[str] | None = None) -> Config:
    """The configuration found from ``start``, or the defaults when there is none."""
    path = find(start)
    return load(path, known) if path else Config()
