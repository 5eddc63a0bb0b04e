"""``--statistics``: findings per rule and ontology coverage, as text or JSON."""

from __future__ import annotations

import json
from collections.abc import Sequence

from ..ground.escaping import printable
from ..ground.model import Report
from ..run.coverage import Coverage, statistics
from ..tracemodel.naming import curie
from .common import plural


def _part(cover: Coverage, counts: dict) -> dict:
    used, total = cover.share(counts)
    return {
        "exercised": used,
        "total": total,
        "percent": round(100.0 * used / total, 1) if total else 100.0,
        "used": {term: n for term, n in sorted(counts.items()) if n},
        "never": sorted(term for term, n in counts.items() if not n),
    }


def coverage_dict(cover: Coverage) -> dict:
    data = {
        "percent": round(cover.percent, 1),
        "exercised": cover.exercised,
        "total": cover.total,
        "classes": _part(cover, cover.classes),
        "predicates": _part(cover, cover.predicates),
        "undeclared": dict(sorted(cover.undeclared.items())),
        "deprecated": dict(sorted(cover.deprecated.items())),
    }
    if cover.combinations is not None:
        combos = {f"{main} + {mixin}": n for (main, mixin), n in cover.combinations.items()}
        data["mixins"] = _part(cover, combos)
    return data


def to_dict(report: Report) -> dict:
    data = {"summary": report.summary(), "statistics": statistics(report)}
    if report.coverage is not None:
        data["coverage"] = coverage_dict(report.coverage)
    return data


def _terms(terms: Sequence[str]) -> str:
    # Undeclared terms are the input's own IRIs.
    return ", ".join(printable(curie(t)) for t in terms) if terms else "none"


def coverage_lines(cover: Coverage) -> list[str]:
    data = coverage_dict(cover)
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


def render(report: Report, as_json: bool = False) -> str:
    if as_json:
        return json.dumps(to_dict(report), indent=2, ensure_ascii=False) + "\n"
    stats = statistics(report)
    lines = []
    if stats:
        width = max(len(str(row["count"])) for row in stats)
        for row in stats:
            mark = "*" if row["aged"] else " "
            lines.append(f"{row['count']:>{width}}  {row['code']}  {'[' + row['severity'] + ']':<9}{mark} {row['name']}".rstrip())
        if any(row["aged"] for row in stats):
            lines.append("* severity set by the trace's age: a rule's findings on traces written before the "
                         "release that introduced it are info (errors with --target-version newer than the trace)")
    else:
        lines.append("No findings.")
    summary = report.summary()
    lines.append(
        f"{plural(summary['findings'], 'finding')} in {plural(summary['traces'], 'trace')} of "
        f"{plural(summary['files'], 'file')} ({plural(summary['error'], 'error')}, "
        f"{plural(summary['warning'], 'warning')}, {summary['info']} info)"
    )
    if summary["trace_models"]:
        lines.append("")
        lines.append("Traces by trace model:")
        for model, count in summary["trace_models"].items():
            lines.append(f"  TrustGraph {model}: {plural(count, 'trace')}")
    if report.coverage is not None:
        lines.append("")
        lines += coverage_lines(report.coverage)
    return "\n".join(lines) + "\n"
