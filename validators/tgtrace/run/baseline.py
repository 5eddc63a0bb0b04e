"""Baselines: record today's findings so that a gate fails only on new ones.

A finding is identified by its rule, its focus node and the trace it belongs
to, never by file or line: re-serialising a trace, moving it to another file
or reordering its triples must not make old findings look new. The same rule
can fire more than once on one node (two bad values of one predicate), so the
baseline stores how often each fingerprint occurred and a run may repeat each
one at most that often.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..ground.errors import TgTraceError
from ..ground.escaping import json_text
from ..ground.guarded import BASELINE_LIMIT, GuardedReadError, nested_line, read_guarded
from ..ground.limits import MAX_DEPTH
from ..ground.model import Finding, Report

FORMAT_VERSION = 1


class BaselineError(TgTraceError, ValueError):
    """A baseline file that cannot be read; the message names the file."""


def fingerprint(finding: Finding) -> str:
    """A stable identity of a finding: hash of rule, focus and trace."""
    return _fingerprint(finding.rule, finding.focus, finding.trace)


def _fingerprint(rule: str, focus: str, trace: str | None) -> str:
    text = "\x1f".join((rule, focus, trace or ""))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


@dataclass
class Baseline:
    # fingerprint -> number of findings with it that are accepted
    counts: Counter = field(default_factory=Counter)
    # fingerprint -> the readable parts, so the file can be reviewed in a diff
    entries: dict[str, dict] = field(default_factory=dict)
    path: str | None = None

    @classmethod
    def from_report(cls, report: Report) -> Baseline:
        baseline = cls()
        for finding in report.findings:
            key = fingerprint(finding)
            baseline.counts[key] += 1
            baseline.entries.setdefault(
                key,
                {
                    "rule": finding.rule,
                    "focus": finding.focus,
                    "trace": finding.trace,
                    "message": finding.message,
                },
            )
        return baseline

    def split(self, report: Report) -> tuple[list[Finding], list[Finding]]:
        """(new findings, findings the baseline accepts), each in report order."""
        budget = Counter(self.counts)
        new, known = [], []
        for finding in report.findings:
            key = fingerprint(finding)
            if budget[key] > 0:
                budget[key] -= 1
                known.append(finding)
            else:
                new.append(finding)
        return new, known

    def apply(self, report: Report) -> tuple[Report, int]:
        """The report without the findings the baseline accepts, and how many were dropped."""
        new, known = self.split(report)
        return replace(report, findings=new), len(known)

    def stale(self, report: Report) -> int:
        """How many recorded findings no longer occur (fixed, so the baseline can shrink)."""
        seen = Counter(fingerprint(f) for f in report.findings)
        return sum(max(0, n - seen[key]) for key, n in self.counts.items())

    def to_json(self) -> str:
        findings = []
        for key in sorted(self.counts, key=lambda k: (self.entries[k]["rule"], self.entries[k]["focus"], k)):
            findings.append({"fingerprint": key, "count": self.counts[key], **self.entries[key]})
        data = {"tool": "tg-trace", "version": FORMAT_VERSION, "findings": findings}
        # Reviewed in diffs: a bidi control in a recorded message must not display as something else.
        return json_text(data) + "\n"

    def write(self, path: str | Path) -> None:
        Path(path).write_text(self.to_json(), encoding="utf-8")


_JSON_STRING = re.compile(rb'"(?:[^"\\]|\\.)*+"', re.S)
# A count no run comes near, and what Python still converts (4,300 digits).
MAX_COUNT = 1 << 62


def load(path: str | Path) -> Baseline:
    """Read a baseline file written by :meth:`Baseline.write`; anything else it may hold is one
    error naming the file (nested too deep, numbers too long, entries of the wrong shape, text
    that is no Unicode)."""
    path = Path(path)
    try:
        raw = read_guarded(path, BASELINE_LIMIT)
    except GuardedReadError as err:
        raise BaselineError(f"{path}: baseline {err}") from None
    except FileNotFoundError:
        raise BaselineError(f"{path}: baseline file not found (create it with --write-baseline)") from None
    except OSError as err:
        raise BaselineError(f"{path}: cannot read baseline: {err.strerror}") from None
    except ValueError as err:  # a NUL in the path
        raise BaselineError(f"{path!s:.200}: cannot read baseline: {err}") from None
    line = nested_line(raw, _JSON_STRING, b"[{", b"]}", MAX_DEPTH)
    if line is not None:
        raise BaselineError(f"{path}:{line}: not a baseline file: nested more than {MAX_DEPTH} deep")
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as err:
        raise BaselineError(f"{path}: not a baseline file: not UTF-8 ({err.reason})") from None
    except json.JSONDecodeError as err:
        raise BaselineError(f"{path}:{err.lineno}: not a baseline file: {err.msg}") from None
    except ValueError as err:  # an integer longer than Python converts (4,300 digits)
        raise BaselineError(f"{path}: not a baseline file: {str(err).split(';')[0]}") from None
    except RecursionError:
        raise BaselineError(f"{path}: not a baseline file: nested too deeply") from None
    if not isinstance(data, dict) or data.get("tool") != "tg-trace" or not isinstance(data.get("findings"), list):
        raise BaselineError(f"{path}: not a tg-trace baseline file")
    version = data.get("version")
    if version != FORMAT_VERSION or isinstance(version, bool):
        shown = repr(version) if len(repr(version)) <= 40 else repr(version)[:37] + "..."
        raise BaselineError(f"{path}: baseline format version {shown} is not supported")
    baseline = Baseline(path=str(path))
    for i, entry in enumerate(data["findings"]):
        rule, focus, trace, message, count = _entry(path, i + 1, entry)
        # The fingerprint is recomputed rather than trusted, so a hand-edited
        # entry (say, a rule code fixed by hand) still matches.
        key = _fingerprint(rule, focus, trace)
        baseline.counts[key] += count
        baseline.entries.setdefault(key, {"rule": rule, "focus": focus, "trace": trace, "message": message})
    return baseline


def _entry(path: Path, number: int, entry: object) -> tuple[str, str, str | None, str, int]:
    """(rule, focus, trace, message, count) of one recorded finding, each of the kind it must be."""
    where = f"{path}: entry {number}"
    if not isinstance(entry, dict):
        raise BaselineError(f"{where} is a {_json_kind(entry)}, not an object with 'rule' and 'focus'")
    if not {"rule", "focus"} <= entry.keys():
        raise BaselineError(f"{where} lacks 'rule' or 'focus'")
    texts = {"rule": entry["rule"], "focus": entry["focus"], "trace": entry.get("trace"),
             "message": entry.get("message", "")}
    for name, value in texts.items():
        if value is None and name == "trace":
            continue
        if not isinstance(value, str):
            raise BaselineError(f"{where} has a '{name}' that is not text ({type(value).__name__})")
        if not _encodable(value):
            raise BaselineError(f"{where} has a '{name}' holding a lone surrogate (\\u{_surrogate(value):04x}), "
                                "which no text holds")
    count = entry.get("count", 1)
    if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= MAX_COUNT:
        shown = repr(count) if len(repr(count)) <= 40 else repr(count)[:37] + "..."
        raise BaselineError(f"{where} has a bad count {shown}")
    return texts["rule"], texts["focus"], texts["trace"], texts["message"], count


def _json_kind(value: object) -> str:
    return {list: "list", str: "string", bool: "boolean", type(None): "null"}.get(type(value), "number")


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _surrogate(text: str) -> int:
    return next(ord(c) for c in text if 0xD800 <= ord(c) <= 0xDFFF)
