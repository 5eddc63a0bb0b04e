"""The options table: every setting a user gives, declared once.

An :class:`Option` says how a setting is given and checked: its field of
:class:`~tgtrace.run.settings.Settings` (or of its ``Output``), the value's kind, its check, its
configuration key and its description there, its flag and the flag's help, and the commands
that take the flag. The field's type and default are the dataclass's. From this table come the
configuration file's keys and their checks (``config.parse``), the checks of the values a face
hands to ``Settings.merge`` (flags, the Python API, the pytest plugin), the click options of
``lint`` and ``watch`` (and of ``list``, ``show``, ``graph``, ``convert`` and ``diff`` for the
settings they share) and the docs' table of keys; a value is checked by the same function
wherever it was given, and the error names where (``--fail-on`` or ``FILE: fail-on``).

The rule selector grammar is written here once: a selector is ``ALL``, a rule code (``C004``),
a code prefix (``C0``, ``T`` every termination rule, as in ruff) or a family name (``chain``).
A selector that matches no rule is an error naming the nearest code: a typo must not silently
turn a check off.
"""

from __future__ import annotations

import dataclasses
import difflib
import fnmatch
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..ground.errors import TgTraceError
from ..ground.limits import DEPTH_CEILING, MAX_DEPTH, MAX_DIAGRAMS, MAX_EXPANSION, STREAM_MEMORY
from ..ground.model import Finding, Severity
from ..inputs.loaders import INPUT_FORMATS, MAX_STDIN_BYTES, STDIN_TIMEOUT
from ..rules import all_rules, families

ALL = "ALL"
# fail-on accepts a severity or "never" (report only, exit 0 on findings).
NEVER = "never"
ENGINES = ("fast", "shacl")
SEVERITIES = ("error", "warning", "info")
# What --show and the show key default to, as every face says it (the help, the configuration
# reference, the README and the docs: a test holds them to this sentence). The reports a person
# reads in a log list warnings and errors and count the info findings (older releases' traces
# judged by their own model, mostly); the formats programs read carry every finding.
SHOW_DEFAULT = ("Default: warning in the text and concise reports (the info findings are counted in the "
                "summary, and listed when --fail-on info fails on them), info (every finding) in every other "
                "format.")
# The formats whose findings are shown from warning unless --show says otherwise (lint's text
# and concise reports, watch's text lines).
READ_IN_LOGS = ("text", "concise")


class SettingsError(TgTraceError, ValueError):
    """A bad setting; the message names where it was given (a file and key, or a flag)."""


# ---------------------------------------------------------------- selectors


def selector(text: Any, where: str) -> str:
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


def selectors(values: Any, where: str) -> tuple[str, ...]:
    """A list of selectors (a TOML array; a tuple or list from a face)."""
    if isinstance(values, str) or not isinstance(values, (list, tuple)):
        raise SettingsError(f"{where}: expected a list of rule codes, got {values!r}")
    return tuple(selector(value, where) for value in values)


def selects(chosen: str, code: str, family: str) -> bool:
    """Whether the selector ``chosen`` covers the rule ``code`` of ``family``."""
    return chosen == ALL or chosen == family or code.startswith(chosen)


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
        # A bare name ("legacy-*.nq") matches a file of that name anywhere, as in .gitignore;
        # fnmatch's "*" crosses "/", so "traces/*" covers subfolders.
        return fnmatch.fnmatchcase(absolute, pattern) or (
            "/" not in self.pattern and fnmatch.fnmatchcase(path.name, self.pattern)
        )


# ---------------------------------------------------------------- the checks of values


def target_version(value: Any, where: str) -> str:
    """A TrustGraph release: X.Y or X.Y.Z."""
    text = str(value).strip() if isinstance(value, (str, int, float)) and not isinstance(value, bool) else ""
    parts = text.split(".")
    if not (2 <= len(parts) <= 3 and all(p.isdigit() for p in parts)):
        raise SettingsError(f"{where}: expected a TrustGraph release such as 2.11 or 2.2.13, got {value!r}")
    return text


def fail_on(value: Any, where: str) -> Severity | None:
    if isinstance(value, Severity):
        return value
    if value == NEVER:
        return None
    return severity(value, where, allow_never=True)


def severity(value: Any, where: str, allow_never: bool = False) -> Severity:
    if isinstance(value, Severity):
        return value
    if isinstance(value, str):
        try:
            return Severity.parse(value)
        except ValueError:
            pass
    choices = "error, warning, info" + (" or never" if allow_never else "")
    raise SettingsError(f"{where}: expected {choices}, got {value!r}")


def severity_overrides(table: Any, where: str) -> dict[str, Severity]:
    if not isinstance(table, dict):
        raise SettingsError(f"{where}: must be a table of CODE = \"error\"|\"warning\"|\"info\"")
    overrides = {}
    for code, level in table.items():
        checked = selector(code, where)
        if checked not in all_rules():
            raise SettingsError(f"{where}: {code!r} must be a full rule code, not a prefix or family")
        overrides[checked] = severity(level, f"{where}.{checked}")
    return overrides


def _one_of(choices: tuple[str, ...]) -> Callable[[Any, str], str]:
    def check(value: Any, where: str) -> str:
        if value not in choices:
            raise SettingsError(f"{where}: expected one of {', '.join(choices)}, got {value!r}")
        return value
    return check


engine = _one_of(ENGINES)


def _switch(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise SettingsError(f"{where}: expected true or false, got {value!r}")
    return value


def _file(value: Any, where: str) -> str:
    if not isinstance(value, (str, os.PathLike)) or not str(value):
        raise SettingsError(f"{where}: expected a file path, got {value!r}")
    if "\x00" in str(value):  # no file system takes one: the open would fail with a ValueError
        raise SettingsError(f"{where}: a file path cannot hold a NUL character, got {str(value)!r}")
    return str(value)


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value:
        raise SettingsError(f"{where}: expected text, got {value!r}")
    return value


def _percentage(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 100:
        raise SettingsError(f"{where}: expected a percentage from 0 to 100, got {value!r}")
    return float(value)


def _count(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise SettingsError(f"{where}: expected a whole number from 1, got {value!r}")
    return value


def _whole(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise SettingsError(f"{where}: expected a whole number from 0, got {value!r}")
    return value


def _depth(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= DEPTH_CEILING:
        raise SettingsError(f"{where}: expected a depth from 1 to {DEPTH_CEILING}, got {value!r}")
    return value


def _seconds(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise SettingsError(f"{where}: expected a number of seconds above 0, got {value!r}")
    return float(value)


def _shown_from(value: Any, where: str) -> Severity:
    return severity(value, where)


def _scoped(kind: str) -> Callable[[Any, str], tuple[ScopedIgnore, ...]]:
    def check(table: Any, where: str) -> tuple[ScopedIgnore, ...]:
        if not isinstance(table, dict):
            raise SettingsError(f"{where}: must be a table of pattern = [codes]")
        return tuple(ScopedIgnore(pattern=pattern, codes=selectors(codes, f"{where}.{pattern!r}"), kind=kind)
                     for pattern, codes in table.items())
    return check


# ---------------------------------------------------------------- the table


@dataclass(frozen=True)
class Option:
    """One setting as a user gives it: on the command line, in the configuration file, or both."""

    # The field of Settings it sets (of Settings.output when ``output``): its type and default.
    field: str
    # value, where -> the checked value; raises SettingsError naming ``where``.
    check: Callable[[Any, str], Any]
    # What the flag does, as its help says (``commands_help`` for a command that says it otherwise).
    help: str = ""
    flag: str | None = None
    short: str | None = None
    # The commands whose flag it is.
    commands: tuple[str, ...] = ()
    commands_help: Mapping[str, str] = dataclasses.field(default_factory=dict)
    # The configuration key, and what its value is, as the docs' table of keys says.
    key: str | None = None
    key_help: str | None = None
    # How the flag takes its value: "codes" (repeatable, comma-separated selectors), "choice",
    # "switch" (a flag without a value), "int", "float", "path" or "text".
    kind: str = "text"
    choices: tuple[str, ...] = ()
    metavar: str | None = None
    # Bounds of an "int" or "float" flag (click's IntRange / FloatRange).
    minimum: float | None = None
    maximum: float | None = None
    min_open: bool = False
    show_default: str | None = None
    # A path in the configuration file is relative to the file's folder.
    relative: bool = False
    # Several keys set the field together (the scoped ignores): their values are joined.
    joined: bool = False
    # A value given later is laid over the earlier one key by key (severity overrides).
    overlaid: bool = False
    # A field of Settings.output (how the report is written).
    output: bool = False

    @property
    def where(self) -> str:
        """How an error names a value given by a face: the flag, else the key."""
        return self.flag or self.key or self.field

    def help_for(self, command: str) -> str:
        return self.commands_help.get(command, self.help)


_CODES_HELP = "Only these rules: codes, code prefixes (C0) or families (chain), comma-separated."

OPTIONS: tuple[Option, ...] = (
    Option("select", selectors, flag="--select", kind="codes", metavar="CODES", help=_CODES_HELP,
           commands=("lint", "watch"), commands_help={"watch": "Only these rules (as for lint)."},
           key="select", key_help="rules to check: codes, code prefixes, family names or `ALL` (default: all)"),
    Option("ignore", selectors, flag="--ignore", kind="codes", metavar="CODES",
           help="Skip these rules (same forms as --select).",
           commands=("lint", "watch"), commands_help={"watch": "Skip these rules (as for lint)."},
           key="ignore", key_help="rules not to check, in the same forms"),
    Option("fail_on", fail_on, flag="--fail-on", kind="choice", choices=(*SEVERITIES, NEVER),
           help="Exit 1 when a finding at or above this severity is found. Default: error.",
           commands=("lint", "watch"),
           commands_help={"watch": "Exit 1 at the end when a finding at or above this severity was found. "
                                   "Default: error."},
           key="fail-on", key_help="lowest severity that fails the run: `error`, `warning`, `info`, or `never` (report only)"),
    Option("show", _shown_from, flag="--show", kind="choice", choices=SEVERITIES, output=True,
           help="Show only the findings at or above this severity (error: errors only); the summary still "
                f"counts every finding and --fail-on still judges them all. {SHOW_DEFAULT}",
           commands=("lint", "watch"),
           commands_help={"watch": "Print only the findings at or above this severity; the summary at the end "
                                   f"still counts every finding. {SHOW_DEFAULT}"},
           key="show", key_help="lowest severity whose findings are shown: `error`, `warning` or `info`; the summary "
                                f"still counts every finding. {SHOW_DEFAULT}"),
    Option("diagrams", _whole, flag="--diagrams", kind="int", minimum=0, metavar="TRACES", output=True,
           help=f"Draw the diagrams of at most this many traces in the HTML report: those with the most severe "
                f"findings first, then those the audit lists, then the others in order; every other trace keeps "
                f"its section, which says so (default: {MAX_DIAGRAMS}; 0: none).",
           commands=("lint",), key="diagrams",
           key_help="traces whose diagram the HTML report draws, at most (`--diagrams`)"),
    Option("severity", severity_overrides, key="severity", overlaid=True,
           key_help="table of rule code = `error` / `warning` / `info`: the severity that rule's findings get"),
    Option("scoped_ignores", _scoped("path"), key="per-file-ignores", joined=True,
           key_help="table of path glob = rules; globs are relative to the configuration file's directory, `*` "
                    "also crosses `/`, and a glob without `/` matches a file name in any directory"),
    Option("scoped_ignores", _scoped("iri"), key="per-iri-ignores", joined=True,
           key_help="table of IRI glob = rules; matches the finding's focus node or the root Question of its trace"),
    Option("engine", engine, flag="--engine", kind="choice", choices=ENGINES,
           help="fast (default): the compiled rules; shacl: pySHACL on the shapes, the reference.",
           commands=("lint",), key="engine", key_help="`fast` (default) or `shacl`"),
    Option("target_version", target_version, flag="--target-version", metavar="X.Y",
           help="The oldest TrustGraph release whose traces are accepted: findings that a trace's age explains "
                "are info on traces of that release or later, errors on older ones. Default: every release.",
           commands=("lint",), key="target-version",
           key_help="the oldest TrustGraph release whose traces are accepted (`\"2.11\"`); older traces' "
                    "findings of rules their release did not meet are errors"),
    Option("input_format", _one_of(INPUT_FORMATS), flag="--input-format", kind="choice", choices=INPUT_FORMATS,
           help="Input format for every input. Default: from each file's extension and content.",
           commands=("lint", "convert", "diff"),
           commands_help={"convert": "Read the inputs as this format instead of guessing from each file's name "
                                     "and content.",
                          "diff": "Read both inputs as this format instead of guessing from each file's name "
                                  "and content."}),
    Option("baseline", _file, flag="--baseline", kind="path", relative=True,
           help="Accept the findings recorded in this file; fail only on new ones.",
           commands=("lint",), key="baseline",
           key_help="baseline file, relative to the configuration file; findings recorded in it do not fail the run"),
    Option("write_baseline", _file, flag="--write-baseline", kind="path",
           help="Record every finding of this run in this file and exit 0.", commands=("lint",)),
    Option("min_coverage", _percentage, flag="--min-coverage", kind="float", minimum=0, maximum=100,
           metavar="PERCENT",
           help="Exit 1 when the traces exercise less than this share of the ontology's classes and predicates.",
           commands=("lint",), key="min-coverage",
           key_help="fail when the traces exercise less than this percentage of the ontology"),
    Option("one_capture", _switch, flag="--one-capture", kind="switch",
           help="The inputs are parts of one capture (a rotated or cut export): a trace cut across them is "
                "linted whole, and findings name the part and line that hold their triple.",
           commands=("lint", "list", "show", "graph"),
           commands_help={
               "list": "The inputs are parts of one capture: a trace cut across them is listed once, whole.",
               "show": "PATH (a folder) holds the parts of one capture: a trace cut across them is shown whole.",
               "graph": "PATH (a folder) holds the parts of one capture: a trace cut across them is drawn whole."},
           key="one-capture",
           key_help="`true`: the inputs are parts of one capture, and a trace cut across them is linted whole"),
    Option("allow_empty", _switch, flag="--allow-empty", kind="switch",
           help="Pass a run whose inputs hold no trace (by default that is an input error, exit 2).",
           commands=("lint",)),
    Option("max_stdin", _count, flag="--max-stdin-size", kind="int", minimum=1, metavar="BYTES",
           help=f"Refuse standard input longer than this (default: {MAX_STDIN_BYTES}, {MAX_STDIN_BYTES >> 30} GiB).",
           commands=("lint", "diff")),
    Option("stdin_timeout", _seconds, flag="--stdin-timeout", kind="float", minimum=0, min_open=True,
           metavar="SECONDS",
           help=f"Give up on standard input that sends nothing for this long (default: {STDIN_TIMEOUT:g}).",
           commands=("lint", "diff")),
    Option("stream_memory", _whole, flag="--stream-memory", kind="int", minimum=0, metavar="TRIPLES",
           help=f"Remember this many triples of the traces an explain stream has completed, so that an event "
                f"repeated or arriving late is judged against its trace (default: {STREAM_MEMORY:,}; the "
                "oldest are forgotten first; 0: none).",
           commands=("lint", "watch"), key="stream-memory",
           key_help="triples of an explain stream's completed traces remembered (`--stream-memory`)"),
    Option("max_depth", _depth, flag="--max-depth", kind="int", minimum=1, maximum=DEPTH_CEILING, metavar="LEVELS",
           help=f"Refuse an input nested deeper than this: JSON-LD objects and arrays, RDF/XML elements, triple "
                f"terms within triple terms, sub-traces within sub-traces (default: {MAX_DEPTH}, at most "
                f"{DEPTH_CEILING}).",
           commands=("lint", "list", "show", "graph", "convert", "diff")),
    Option("max_expansion", _count, flag="--max-expansion", kind="int", minimum=1, metavar="RATIO",
           help="Refuse a compressed input that has made more than this many times the bytes read of it, as "
                f"a decompression bomb (default: {MAX_EXPANSION}).",
           commands=("lint", "list", "show", "graph", "convert", "diff")),
    Option("jobs", _count, flag="--jobs", short="-j", kind="int", minimum=1, show_default="1",
           help="Lint this many files at once, in separate processes.", commands=("lint",)),
    Option("cluster", _text, flag="--cluster", metavar="ADDRESS",
           help="Lint on a Dask cluster: a scheduler (tls://host:8786) or local:N for N local worker processes. "
                "The inputs (paths, URLs, globs, read by the workers) are one capture, as with --one-capture. "
                "Needs pip install 'trustgraph-ontology[cluster]'.",
           commands=("lint", "list"),
           commands_help={"list": "Build the rows on a Dask cluster, as lint --cluster lints: a scheduler "
                                  "(tls://host:8786) or local:N. Implies --one-capture. Needs pip install "
                                  "'trustgraph-ontology[cluster]'."}),
    # Never a configuration key: a repository's file cannot lower it.
    Option("trust_network", _switch, flag="--trust-network", kind="switch",
           help="Accept a plain tcp:// scheduler on another machine for --cluster: Dask then neither encrypts "
                "nor authenticates, and anyone on the network can run code in this process. Prefer tls://.",
           commands=("lint", "list")),
)

# The fields a user does not set: the report's destination (set by each command's own output
# flags), the notice the configuration file earns, and the file itself.
DERIVED = ("output", "gate_off", "path")
# Output's fields the commands set from their own flags (--format, --color, -o, --statistics,
# --summary) or that only the Python API sets (root).
OUTPUT_DERIVED = ("format", "color", "file", "statistics", "summary", "root")

KEYS: dict[str, Option] = {option.key: option for option in OPTIONS if option.key}
FLAGS: dict[str, Option] = {option.field: option for option in OPTIONS if option.flag}


def for_command(command: str) -> tuple[Option, ...]:
    """The options whose flag ``command`` takes, in the table's order."""
    return tuple(option for option in OPTIONS if command in option.commands)


def by_field(name: str) -> tuple[Option, ...]:
    return tuple(option for option in OPTIONS if option.field == name)


def unknown_key(key: str, where: str) -> SettingsError:
    hint = difflib.get_close_matches(key, KEYS, n=1)
    suggestion = f" (did you mean {hint[0]!r}?)" if hint else ""
    return SettingsError(f"{where}: unknown key {key!r}{suggestion}; known keys: {', '.join(KEYS)}")
