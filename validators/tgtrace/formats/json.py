"""Machine-readable findings: {"findings": [...], "traces": [...], "summary": {...}, "audit": {...}}.

Each finding carries the advice the text format prints under it (``advice``: the message with
its value quoted, the notes, the accepted values, the nearest one, the fix and the rule's page),
so a tool reading JSON can show a person what the terminal shows. ``audit`` is the audit of the
traces (``tgtrace.views.audit.summarize``), when the run recorded it (``tg-trace lint``'s JSON does).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
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


def pieces(report: Report, output: Output) -> Iterator[str]:
    """The text json.dumps(document, indent=2) gives, in pieces: each finding dumped on its own, so
    that a report is written without its whole text, nor a piece of text per token of every
    finding (40 MB for 7,000 findings), nor every finding's dictionary, alive at once."""
    document: dict[str, Any] = {
        "findings": [],
        "traces": [{"root": root, "file": file, "trace_model": report.trace_models.get(root)}
                   for root, file in report.traces.items()],
        "summary": report.summary(),
    }
    if report.audit is not None:
        document["audit"] = summarize(report.audit, report.findings)
    rest = json.dumps(document, indent=2, ensure_ascii=False)
    if not report.findings:
        yield rest
        return
    head, tail = rest.split('"findings": []', 1)  # the document's first key
    yield head + '"findings": [\n    '
    for number, finding in enumerate(report.findings):
        if number:
            yield ",\n    "
        yield json.dumps(finding_dict(finding), indent=2, ensure_ascii=False).replace("\n", "\n    ")
    yield "\n  ]" + tail


def render(report: Report, output: Output) -> str:
    return "".join(pieces(report, output))
