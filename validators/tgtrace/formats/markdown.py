"""A Markdown summary of a run, for a CI job's summary page.

GitHub Actions shows Markdown appended to ``$GITHUB_STEP_SUMMARY`` on the
run's page; ``tg-trace lint --summary PATH`` writes this there.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from ..ground.escaping import printable
from ..ground.model import Report, Severity
from ..rules import all_rules
from ..run.settings import Output
from ..tracemodel.naming import curie
from ..views.audit import summarize
from .common import census, plural
from .statistics import coverage_dict


def _cell(text: str) -> str:
    # A pipe would end a Markdown table cell early.
    return printable(text).replace("|", "\\|")


def render(report: Report, output: Output | None = None) -> str:
    rules = all_rules()
    coverage, baselined = report.coverage, report.baselined
    summary = report.summary()
    verdict = "passed" if report.passed else "failed"
    mark = ":white_check_mark:" if report.passed else ":x:"
    gate = f"fail on {report.fail_on}" if report.fail_on is not None else "report only"
    lines = [
        f"## {mark} tg-trace {verdict}",
        "",
        f"{census(summary['files'], summary['traces'], summary['repeated_traces'], summary.get('items', 0))}, "
        f"{plural(summary['triples'], 'triple')}; {plural(summary['findings'], 'finding')} ({gate}).",
    ]
    if report.gate_off:
        lines.append(f":warning: **{_cell(report.gate_off)}.**")
    lines += [f":information_source: {_cell(note)}." for note in report.notes]
    if baselined:
        accepted = "was" if baselined == 1 else "were"
        lines.append(f"{plural(baselined, 'known finding')} {accepted} accepted by the baseline.")
    lines += ["", "| severity | findings |", "| --- | ---: |"]
    for severity in sorted(Severity, reverse=True):
        lines.append(f"| {severity} | {summary[str(severity)]} |")

    if report.audit is not None:
        lines += _audit(summarize(report.audit, report.findings))

    if report.findings:
        per_rule = Counter((f.rule, f.severity) for f in report.findings)
        lines += ["", "| rule | name | severity | findings |", "| --- | --- | --- | ---: |"]
        for (code, severity), count in sorted(per_rule.items(), key=lambda item: (-item[0][1], item[0][0])):
            rule = rules.get(code)
            link = f"[{code}]({rule.help_uri})" if rule else code
            name = _cell(rule.name) if rule else ""
            lines.append(f"| {link} | {name} | {severity} | {count} |")

    if coverage is not None:
        data = coverage_dict(coverage)
        lines += [
            "",
            f"### Ontology coverage: {data['percent']}%",
            "",
            "| terms | exercised | never exercised |",
            "| --- | ---: | --- |",
        ]
        parts = [("classes", data["classes"]), ("predicates", data["predicates"])]
        if "mixins" in data:
            parts.append(("mixin combinations", data["mixins"]))
        for label, part in parts:
            if label == "mixin combinations":
                never = [f"{curie(m)} + {curie(x)}" for m, x in coverage.never("combinations")]
            else:
                never = [curie(t) for t in part["never"]]
            lines.append(
                f"| {label} | {part['exercised']}/{part['total']} | {_cell(', '.join(never)) or 'none'} |"
            )
    return "\n".join(lines) + "\n"


def _number(value: int | None) -> str:
    return "" if value is None else f"{value:,}"


def _spread(data: dict[str, Any] | None) -> list[str]:
    """A distribution's cells: count, min, median, 90th percentile, max."""
    if data is None:
        return ["0", "", "", "", ""]
    return [_number(data[k]) for k in ("count", "min", "median", "p90", "max")]


def _audit(audit: dict[str, Any]) -> list[str]:
    """The audit of the traces: what an operator reads before the findings."""
    lines = ["", f"### Audit of {plural(audit['traces'], 'trace')}", "",
             "| pattern | release | traces |", "| --- | --- | ---: |"]
    lines += [f"| {_cell(r['pattern'])} | {_cell(r['release'])} | {r['traces']} |" for r in audit["patterns"]]
    if audit["termination"]:
        lines += ["", "| termination | traces |", "| --- | ---: |"]
        lines += [f"| {_cell(r['reason'])} | {r['traces']} |" for r in audit["termination"]]
    for title, rows in (("conformance", audit["conformance"]), ("behaviour", audit["behaviour"])):
        if rows:
            lines += ["", f"| {title} rule | severity | findings | traces |", "| --- | --- | ---: | ---: |"]
            lines += [f"| {_cell(r['rule'])} | {r['severity']} | {r['findings']} | {r['traces']} |" for r in rows]
    head = "| count | min | median | p90 | max |"
    if audit["iterations"] is not None:
        lines += ["", f"| iterations per agent trace {head}", "| --- | ---: | ---: | ---: | ---: | ---: |",
                  "| | " + " | ".join(_spread(audit["iterations"])) + " |"]
    if audit["step_kinds"]:
        lines += ["", f"| step kind | measure {head}", "| --- | --- | ---: | ---: | ---: | ---: | ---: |"]
        for row in audit["step_kinds"]:
            for measure, unit in (("duration_ms", "duration (ms)"), ("tokens", "tokens")):
                if row[measure] is not None:
                    lines.append(f"| {_cell(row['kind'])} | {unit} | " + " | ".join(_spread(row[measure])) + " |")
    for title, key in (("Slowest traces", "slowest"), ("Longest traces", "longest")):
        if audit[key]:
            lines += ["", f"| {title.lower()} | pattern | question | steps | duration (ms) | tokens |",
                      "| --- | --- | --- | ---: | ---: | ---: |"]
            lines += [f"| {_cell(r['trace'])} | {_cell(r['pattern'])} | {_cell(r['question'] or '')} | {r['steps']} | "
                      f"{_number(r['duration_ms'])} | {_number(r['tokens'])} |" for r in audit[key]]
    return lines
