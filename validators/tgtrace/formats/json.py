"""Machine-readable findings: {"findings": [...], "summary": {...}}."""

from __future__ import annotations

import json

from ..model import Report


def render(report: Report, **_options) -> str:
    document = {
        "findings": [finding.to_dict() for finding in report.findings],
        "summary": report.summary(),
    }
    return json.dumps(document, indent=2, ensure_ascii=False)
