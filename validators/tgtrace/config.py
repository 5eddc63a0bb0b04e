"""Project configuration: ``[tool.tg-trace]`` in pyproject.toml, or tg-trace.toml.

The file is looked for in the working directory and then in each parent,
stopping at the first directory that has one (tg-trace.toml before a
pyproject.toml with a ``[tool.tg-trace]`` table), as ruff does, and never
above the repository root (the nearest folder holding ``.git``). Paths in the
file are relative to the file's directory. Command-line flags win over it.

Every key and every rule code is checked: a typo must not silently turn a
check off, so an unknown one is an error that names it.
"""

from __future__ import annotations

import difflib
import tomllib
from dataclasses import replace
from pathlib import Path

from .guarded import CONFIG_LIMIT, GuardedReadError, read_guarded
from .settings import (
    ENGINES,
    ScopedIgnore,
    Settings,
    SettingsError,
    fail_on,
    selectors,
    severity_overrides,
    target_version,
)

CONFIG_FILE = "tg-trace.toml"
PYPROJECT = "pyproject.toml"
TABLE = "tool.tg-trace"

def _scoped(table, key: str, kind: str, where: str) -> tuple[ScopedIgnore, ...]:
    if not isinstance(table, dict):
        raise SettingsError(f"{where}: '{key}' must be a table of pattern = [codes]")
    return tuple(
        ScopedIgnore(pattern=pattern, codes=selectors(codes, f"{where}: {key}.{pattern!r}"), kind=kind)
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
    "one-capture": "true: the inputs are parts of one capture, and a trace cut across them is linted whole",
    "target-version": "the oldest TrustGraph release whose traces are accepted (\"2.11\"); older traces' findings of "
                      "rules their release did not meet are errors",
}


def _shown(path: Path) -> str:
    # Messages name the file as the user would: relative to where they are.
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def parse(data: dict, source: str) -> Settings:
    """Validate a ``[tool.tg-trace]`` table (already parsed from TOML) read from the file ``source``."""
    where = _shown(Path(source))
    for key in data:
        if key not in KEYS:
            hint = difflib.get_close_matches(key, KEYS, n=1)
            suggestion = f" (did you mean {hint[0]!r}?)" if hint else ""
            raise SettingsError(f"{where}: unknown key {key!r}{suggestion}; known keys: {', '.join(KEYS)}")
    options: dict = {"path": str(Path(source).resolve())}
    if "select" in data:
        options["select"] = selectors(data["select"], f"{where}: select")
    if "ignore" in data:
        options["ignore"] = selectors(data["ignore"], f"{where}: ignore")
    if "fail-on" in data:
        options["fail_on"] = fail_on(data["fail-on"], f"{where}: fail-on")
    if "severity" in data:
        options["severity"] = severity_overrides(data["severity"], f"{where}: severity")
    scoped: tuple[ScopedIgnore, ...] = ()
    if "per-file-ignores" in data:
        scoped += _scoped(data["per-file-ignores"], "per-file-ignores", "path", where)
    if "per-iri-ignores" in data:
        scoped += _scoped(data["per-iri-ignores"], "per-iri-ignores", "iri", where)
    options["scoped_ignores"] = scoped
    if "baseline" in data:
        if not isinstance(data["baseline"], str):
            raise SettingsError(f"{where}: baseline: expected a file path, got {data['baseline']!r}")
        # Relative to the config file, so the gate works from any directory.
        options["baseline"] = str(Path(source).resolve().parent / data["baseline"])
    if "min-coverage" in data:
        value = data["min-coverage"]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 100:
            raise SettingsError(f"{where}: min-coverage: expected a percentage from 0 to 100, got {value!r}")
        options["min_coverage"] = float(value)
    if "target-version" in data:
        options["target_version"] = target_version(data["target-version"], f"{where}: target-version")
    if "one-capture" in data:
        if not isinstance(data["one-capture"], bool):
            raise SettingsError(f"{where}: one-capture: expected true or false, got {data['one-capture']!r}")
        options["one_capture"] = data["one-capture"]
    if "engine" in data:
        if data["engine"] not in ENGINES:
            raise SettingsError(f"{where}: engine: expected one of {', '.join(ENGINES)}, got {data['engine']!r}")
        options["engine"] = data["engine"]
    settings = Settings(**options)
    return replace(settings, gate_off=settings.gate_off_notice())


def _read_toml(path: Path) -> dict:
    try:
        return tomllib.loads(read_guarded(path, CONFIG_LIMIT).decode("utf-8"))
    except UnicodeDecodeError as err:
        raise SettingsError(f"{_shown(path)}: not UTF-8 ({err.reason})") from None
    except GuardedReadError as err:
        raise SettingsError(f"{_shown(path)}: {err}") from None
    except tomllib.TOMLDecodeError as err:
        # tomllib's message already ends with "(at line N, column M)".
        raise SettingsError(f"{_shown(path)}: invalid TOML: {err}") from None
    except OSError as err:
        raise SettingsError(f"{_shown(path)}: cannot read: {err.strerror}") from None


def load(path: str | Path) -> Settings:
    """Read one configuration file: tg-trace.toml (top-level keys) or pyproject.toml."""
    path = Path(path)
    data = _read_toml(path)
    if path.name == PYPROJECT:
        table = data.get("tool", {}).get("tg-trace")
        if table is None:
            raise SettingsError(f"{_shown(path)}: has no [{TABLE}] table")
        if not isinstance(table, dict):
            raise SettingsError(f"{_shown(path)}: [{TABLE}] must be a table")
        return parse(table, str(path))
    return parse(data, str(path))


def _search_path(directory: Path) -> list[Path]:
    """``directory`` and its parents up to the repository root (the nearest folder holding .git):
    a file above the repository (a shared /tmp, a checkout's parent) is not the project's to
    apply. Outside any repository, every parent."""
    folders = []
    for folder in (directory, *directory.parents):
        folders.append(folder)
        if (folder / ".git").exists():
            return folders
    return folders


def find(start: str | Path | None = None) -> Path | None:
    """The configuration file that applies in ``start`` (default: the working directory)."""
    directory = Path(start or Path.cwd()).resolve()
    for folder in _search_path(directory):
        candidate = folder / CONFIG_FILE
        if candidate.is_file():
            return candidate
        candidate = folder / PYPROJECT
        if candidate.is_file():
            data = _read_toml(candidate)
            if isinstance(data.get("tool"), dict) and "tg-trace" in data["tool"]:
                return candidate
    return None


def discover(start: str | Path | None = None) -> Settings:
    """The settings of the configuration file found from ``start``, or the defaults when there is none."""
    path = find(start)
    return load(path) if path else Settings()


def resolve(config_file: str | Path | None = None, no_config: bool = False, start: str | Path | None = None,
            **flags) -> Settings:
    """Defaults, then the configuration file (``config_file``, else the one found from
    ``start``, none with ``no_config``), then every flag that was given."""
    if no_config:
        settings = Settings()
    elif config_file:
        settings = load(config_file)
    else:
        settings = discover(start)
    return settings.merge(**flags)
