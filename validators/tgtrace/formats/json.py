"""Machine-readable findings: {"findings": [...], "traces": [...], "summary": {...}, "audit": {...}}.

Each finding carries the advice the text format prints under it (``advice``: the message with
its value quoted, the notes, the accepted values, the nearest one, the fix and the rule's page),
so a tool reading JSON can show a person what the terminal shows. ``audit`` is the audit of the
traces (``tgtrace.views.audit.summarize``), when the run recorded it (``tg-trace lint``'s JSON does).
"""

from __future__ import annotations

import json
from typing import Any

from ..ground.model import Finding, Report
from ..rules.advice import advise
from ..run.settings import Output
from ..views.audit import summarize


def finding_dict(finding: Finding) -> dict[str, Any]:
    """A finding as JSON has it: its fields, and its advice when its rule gives one."""
    data = finding.to_dict()
    advice = advise(finding)
    if advice is not None:
        data["advice"] = {"message": advice.message, "notes": advice.notes, "allowed": list(advice.allowed),
                          "suggestion": advice.suggestion,
                          "replacement": advice.replacement, "fix": advice.fix, "url": advice.url}
    return data


def render(report: Report, output: Output) -> str:
    document = {
        "findings": [finding_dict(finding) for finding in report.findings],
        "traces": [{"root": root, "file": file, "trace_model": report.trace_models.get(root)}
                   for root, file in report.traces.items()],
        "summary": report.summary(),
    }
    if report.audit is not None:
        document["audit"] = summarize(report.audit, report.findings)
    return json.dumps(document, indent=2, ensure_ascii=False)
