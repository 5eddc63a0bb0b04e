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

import re
import tomllib
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..ground.files import git_root
from ..ground.guarded import CONFIG_LIMIT, GuardedReadError, nested_line, read_guarded
from ..ground.limits import MAX_DEPTH
from .options import KEYS, OPTIONS, SettingsError, unknown_key
from .settings import Output, Settings

CONFIG_FILE = "tg-trace.toml"
PYPROJECT = "pyproject.toml"
TABLE = "tool.tg-trace"


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
            raise unknown_key(key, where)
    folder = Path(source).resolve().parent
    options: dict = {"path": str(Path(source).resolve()), "scoped_ignores": ()}
    output: dict = {}
    # In the table's order, so that of several bad keys the same one is named every time.
    for option in OPTIONS:
        if option.key not in data:
            continue
        value = option.check(data[option.key], f"{where}: {option.key}")
        if option.relative:
            value = str(folder / value)  # relative to the file, so the gate works from any directory
        target = output if option.output else options
        target[option.field] = target[option.field] + value if option.joined else value
    settings = Settings(**options, output=Output(**output))
    return replace(settings, gate_off=settings.gate_off_notice())


# What a TOML file holds that may hold a bracket without nesting: its strings and comments.
_TOML_ASIDE = re.compile(rb'"""(?:[^"\\]|\\.|"(?!""))*+"""|\'\'\'.*?\'\'\'|"(?:[^"\\\n]|\\.)*+"|\'[^\'\n]*+\'|#[^\n]*+',
                         re.S)


def _read_toml(path: Path) -> dict:
    try:
        data = read_guarded(path, CONFIG_LIMIT)
    except GuardedReadError as err:
        raise SettingsError(f"{_shown(path)}: {err}") from None
    except OSError as err:
        raise SettingsError(f"{_shown(path)}: cannot read: {err.strerror}") from None
    # tomllib recurses: arrays or inline tables thousands deep would exhaust Python's stack.
    line = nested_line(data, _TOML_ASIDE, b"[{", b"]}", MAX_DEPTH)
    if line is not None:
        raise SettingsError(f"{_shown(path)}:{line}: invalid TOML: arrays or inline tables nest more than "
                            f"{MAX_DEPTH} deep")
    try:
        return tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as err:
        raise SettingsError(f"{_shown(path)}: not UTF-8 ({err.reason})") from None
    except tomllib.TOMLDecodeError as err:
        # tomllib's message already ends with "(at line N, column M)".
        raise SettingsError(f"{_shown(path)}: invalid TOML: {err}") from None
    except ValueError as err:  # an integer longer than Python converts (4,300 digits), an embedded NUL
        raise SettingsError(f"{_shown(path)}: invalid TOML: {str(err).split(';')[0]}") from None
    except RecursionError:
        raise SettingsError(f"{_shown(path)}: invalid TOML: nested too deeply") from None


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
    root = git_root(directory)
    parents = (directory, *directory.parents)
    return list(parents[:parents.index(root) + 1] if root is not None else parents)


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
            **flags: Any) -> Settings:
    """Defaults, then the configuration file (``config_file``, else the one found from
    ``start``, none with ``no_config``), then every flag that was given."""
    if no_config:
        settings = Settings()
    elif config_file:
        settings = load(config_file)
    else:
        settings = discover(start)
    return settings.merge(**flags)
