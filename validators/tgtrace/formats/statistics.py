"""``--statistics``: findings per rule and ontology coverage, as text or JSON."""

from __future__ import annotations

import json

from ..coverage import Coverage
from ..explain import curie
from ..model import Report


def to_dict(report: Report, stats: list[dict], cover: Coverage | None) -> dict:
    data = {"summary": report.summary(), "statistics": stats}
    if cover is not None:
        data["coverage"] = cover.to_dict()
    return data


def render_json(report: Report, stats: list[dict], cover: Coverage | None) -> str:
    return json.dumps(to_dict(report, stats, cover), indent=2, ensure_ascii=False) + "\n"


def _terms(terms) -> str:
    return ", ".join(curie(t) for t in terms) if terms else "none"


def coverage_lines(cover: Coverage) -> list[str]:
    data = cover.to_dict()
    lines = [f"Ontology coverage: {data['percent']}% ({cover.exercised} of {cover.total} classes and predicates)"]
    parts = [("classes", data["classes"]), ("predicates", data["predicates"])]
    if "mixins" in data:
        parts.append(("mixins", data["mixins"]))
    for label, part in parts:
        lines.append(f"  {label:<11}{part['exercised']:>4}/{part['total']:<4}{part['percent']:>6}%")
    lines.append("Never exercised:")
    lines.append(f"  classes:    {_terms(data['classes']['never'])}")
    lines.append(f"  predicates: {_terms(data['predicates']['never'])}")
    if cover.combinations is not None:
        pairs = [f"{curie(main)} + {curie(mixin)}" for main, mixin in cover.never("combinations")]
        lines.append(f"  mixins:     {', '.join(pairs) if pairs else 'none'}")
    if cover.undeclared:
        lines.append(f"Used but not declared by the ontology: {_terms(sorted(cover.undeclared))}")
    if cover.deprecated:
        lines.append(f"Deprecated terms used: {_terms(sorted(cover.deprecated))}")
    return lines


def render_text(report: Report, stats: list[dict], cover: Coverage | None) -> str:
    lines = []
    if stats:
        width = max(len(str(row["count"])) for row in stats)
        for row in stats:
            lines.append(f"{row['count']:>{width}}  {row['code']}  [{row['severity']}]  {row['name']}".rstrip())
    else:
        lines.append("No findings.")
    summary = report.summary()
    lines.append(
        f"{summary['findings']} findings in {summary['traces']} traces of {summary['files']} files "
        f"({summary['error']} errors, {summary['warning']} warnings, {summary['info']} info)"
    )
    if cover is not None:
        lines.append("")
        lines += coverage_lines(cover)
    return "\n".join(lines) + "\n"
