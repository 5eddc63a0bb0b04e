"""A Markdown summary of a run, for a CI job's summary page.

GitHub Actions shows Markdown appended to ``$GITHUB_STEP_SUMMARY`` on the
run's page; ``tg-trace lint --summary PATH`` writes this there.
"""

from __future__ import annotations

from collections import Counter

from ..coverage import Coverage
from ..explain import curie
from ..model import Report, Severity


def _cell(text: str) -> str:
    # A pipe would end a Markdown table cell early.
    return text.replace("|", "\\|").replace("\n", " ")


def render(report: Report, coverage: Coverage | None = None, baselined: int = 0, **_options) -> str:
    from ..rules import all_rules

    rules = all_rules()
    summary = report.summary()
    verdict = "passed" if report.conforms else "failed"
    mark = ":white_check_mark:" if report.conforms else ":x:"
    gate = f"fail on {report.fail_on}" if report.fail_on is not None else "report only"
    lines = [
        f"## {mark} tg-trace {verdict}",
        "",
        f"{summary['traces']} traces in {summary['files']} files, {summary['triples']} triples; "
        f"{summary['findings']} findings ({gate}).",
    ]
    if baselined:
        lines.append(f"{baselined} known findings were accepted by the baseline.")
    lines += ["", "| severity | findings |", "| --- | ---: |"]
    for severity in sorted(Severity, reverse=True):
        lines.append(f"| {severity} | {summary[str(severity)]} |")

    if report.findings:
        per_rule = Counter((f.rule, f.severity) for f in report.findings)
        lines += ["", "| rule | name | severity | findings |", "| --- | --- | --- | ---: |"]
        for (code, severity), count in sorted(per_rule.items(), key=lambda item: (-item[0][1], item[0][0])):
            rule = rules.get(code)
            link = f"[{code}]({rule.help_uri})" if rule else code
            name = _cell(rule.name) if rule else ""
            lines.append(f"| {link} | {name} | {severity} | {count} |")

    if coverage is not None:
        data = coverage.to_dict()
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
