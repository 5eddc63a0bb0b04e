"""Findings one line each, printed as they are found (tg-trace watch): for a terminal, for
GitHub's log annotations, and JSON lines for log shippers (Loki, Elasticsearch, Vector)."""

from __future__ import annotations

import json

from ..ground.model import Finding
from ..rules.advice import advise
from .github import annotation
from .text import finding_line


def line(finding: Finding, fmt: str, color: bool = False) -> str:
    """One finding as one line of ``fmt``, a live format of the registry (tgtrace.formats)."""
    if fmt == "text":
        return finding_line(finding, color, advice=advise(finding))
    if fmt == "github":
        return annotation(finding)
    if fmt == "jsonl":
        # ensure_ascii: every byte of the input that reaches the line is escaped.
        return json.dumps(finding.to_dict(), ensure_ascii=True)
    raise ValueError(f"unknown live format {fmt!r}")
