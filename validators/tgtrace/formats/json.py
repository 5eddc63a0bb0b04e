"""Machine-readable findings: {"findings": [...], "summary": {...}}."""

from __future__ import annotations

import json

from ..model import Report
from ..settings import Output


def render(report: Report, output: Output) -> str:
    document = {
        "findings": [finding.to_dict() for finding in report.findings],
        "traces": [{"root": root, "file": file, "trace_model": report.trace_models.get(root)}
                   for root, file in report.traces.items()],
        "summary": report.summary(),
    }
    return json.dumps(document, indent=2, ensure_ascii=False)
