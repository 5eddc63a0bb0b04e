"""JUnit XML, which every CI system can show as a test report.

One test suite per input file and one test case per trace (named by its root
Question). A trace fails when it has a finding at or above the report's
fail-on level; every finding of a trace is listed in its case's failure text,
or, for a passing trace, in its ``system-out``. Findings that belong to no
trace of a file are reported on one extra case of that file's suite.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from xml.etree import ElementTree as ET

from ..ground.escaping import printable
from ..ground.model import Finding, Report
from ..inputs.excerpt import Excerpt, excerpts
from ..rules.advice import advise
from ..run.settings import Output
from .common import plural, shown_path
from .text import detail_lines

NO_TRACE = "(outside any trace)"
NO_FILE = "<input>"


def _describe(finding: Finding, excerpt: Excerpt | None = None) -> str:
    """The finding, and under it, as the text format shows them, its source line with the term
    at fault marked, what the rule accepts and the help line."""
    where = f"line {finding.line}: " if finding.line else ""
    advice = advise(finding)
    message = advice.message if advice is not None else finding.message
    # XML 1.0 cannot hold most control characters at all: escaped, as in every text format.
    head = f"{where}{finding.rule} {finding.severity} {printable(message)} ({printable(finding.focus)})"
    return "\n".join([head, *("    " + line for line in detail_lines(finding, advice, excerpt))])


def _failing(report: Report, findings: list[Finding]) -> list[Finding]:
    if report.fail_on is None:
        return []
    return [f for f in findings if f.severity >= report.fail_on]


def to_element(report: Report, root: str | Path | None = None) -> ET.Element:
    # file -> trace root (or None) -> findings, keeping the report's order.
    suites: dict[str, dict[str | None, list[Finding]]] = defaultdict(lambda: defaultdict(list))
    for file in report.files:
        suites[file]
    for trace_root, trace_file in report.traces.items():
        suites[trace_file or NO_FILE][trace_root]
    for finding in report.findings:
        file = finding.file or report.traces.get(finding.trace or "") or NO_FILE
        trace = finding.trace if finding.trace in report.traces else None
        suites[file][trace].append(finding)

    sources = excerpts(report.findings, report.held)
    top = ET.Element("testsuites", name="tg-trace")
    total_tests = total_failures = 0
    for file, cases in suites.items():
        shown = NO_FILE if file == NO_FILE else shown_path(file, root)
        suite = ET.SubElement(top, "testsuite", name=shown)
        if report.gate_off or report.notes:
            # Properties come first in a suite (the JUnit schema's order).
            properties = ET.SubElement(suite, "properties")
            if report.gate_off:
                ET.SubElement(properties, "property", name="tg-trace.gate-off", value=printable(report.gate_off))
            for note in report.notes:
                ET.SubElement(properties, "property", name="tg-trace.note", value=printable(note))
        failures = 0
        for trace, findings in cases.items():
            case = ET.SubElement(suite, "testcase", classname=shown, name=printable(trace) if trace else NO_TRACE)
            failing = _failing(report, findings)
            listing = "\n".join(_describe(f, sources.get(f)) for f in findings)
            if failing:
                failures += 1
                worst = max(failing, key=lambda f: f.severity)
                failure = ET.SubElement(
                    case,
                    "failure",
                    message=f"{plural(len(failing), 'finding')} at or above {report.fail_on}: "
                    + ", ".join(sorted({f.rule for f in failing})),
                    type=worst.rule,
                )
                failure.text = listing + "\n"
            elif findings:
                ET.SubElement(case, "system-out").text = listing + "\n"
        suite.set("tests", str(len(cases)))
        suite.set("failures", str(failures))
        suite.set("errors", "0")
        suite.set("skipped", "0")
        total_tests += len(cases)
        total_failures += failures
    top.set("tests", str(total_tests))
    top.set("failures", str(total_failures))
    top.set("errors", "0")
    return top


def render(report: Report, output: Output) -> str:
    element = to_element(report, output.root)
    ET.indent(element)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(element, encoding="unicode") + "\n"
