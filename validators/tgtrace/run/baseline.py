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
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..ground.errors import TgTraceError
from ..ground.escaping import json_text
from ..ground.guarded import BASELINE_LIMIT, GuardedReadError, read_guarded
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


def load(path: str | Path) -> Baseline:
    """Read a baseline file written by :meth:`Baseline.write`."""
    path = Path(path)
    try:
        data = json.loads(read_guarded(path, BASELINE_LIMIT).decode("utf-8"))
    except GuardedReadError as err:
        raise BaselineError(f"{path}: baseline {err}") from None
    except UnicodeDecodeError as err:
        raise BaselineError(f"{path}: not a baseline file: not UTF-8 ({err.reason})") from None
    except FileNotFoundError:
        raise BaselineError(f"{path}: baseline file not found (create it with --write-baseline)") from None
    except json.JSONDecodeError as err:
        raise BaselineError(f"{path}:{err.lineno}: not a baseline file: {err.msg}") from None
    except OSError as err:
        raise BaselineError(f"{path}: cannot read baseline: {err.strerror}") from None
    if not isinstance(data, dict) or data.get("tool") != "tg-trace" or not isinstance(data.get("findings"), list):
        raise BaselineError(f"{path}: not a tg-trace baseline file")
    if data.get("version") != FORMAT_VERSION:
        raise BaselineError(f"{path}: baseline format version {data.get('version')!r} is not supported")
    baseline = Baseline(path=str(path))
    for i, entry in enumerate(data["findings"]):
        if not isinstance(entry, dict) or not {"rule", "focus"} <= entry.keys():
            raise BaselineError(f"{path}: entry {i + 1} lacks 'rule' or 'focus'")
        # The fingerprint is recomputed rather than trusted, so a hand-edited
        # entry (say, a rule code fixed by hand) still matches.
        key = _fingerprint(str(entry["rule"]), str(entry["focus"]), entry.get("trace"))
        count = entry.get("count", 1)
        if not isinstance(count, int) or count < 1:
            raise BaselineError(f"{path}: entry {i + 1} has a bad count {count!r}")
        baseline.counts[key] += count
        baseline.entries.setdefault(
            key,
            {"rule": entry["rule"], "focus": entry["focus"], "trace": entry.get("trace"),
             "message": entry.get("message", "")},
        )
    return baseline
