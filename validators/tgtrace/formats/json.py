"""Machine-readable findings: {"findings": [...], "summary": {...}}."""

from __future__ import annotations

import json

from ..escaping import printable
from ..model import Report


def _finding(finding) -> dict:
    data = finding.to_dict()
    # A file name is shown, like every format shows it: one that is not UTF-8 has its bytes
    # escaped (\xff) rather than a lone surrogate no strict JSON reader accepts.
    if data["file"] is not None:
        data["file"] = printable(data["file"])
    return data


def render(report: Report, output) -> str:
    document = {
        "findings": [_finding(finding) for finding in report.findings],
        "traces": [{"root": root, "file": None if file is None else printable(file),
                    "trace_model": report.trace_models.get(root)}
                   for root, file in report.traces.items()],
        "summary": report.summary(),
    }
    return json.dumps(document, indent=2, ensure_ascii=False)
