"""The JUnit output format, on reports built here."""

from __future__ import annotations

from formats_support import AGENT, finding, parse_junit
from junitparser import Failure
from tgtrace.formats import render
from tgtrace.ground.model import Report, Severity


def test_junit_suite_per_file_case_per_trace(report, tmp_path):
    xml = parse_junit(render(report, "junit"), tmp_path)
    suites = {suite.name: suite for suite in xml}
    assert set(suites) == {"traces/react.nq", "traces/graph-rag.nq"}
    react = suites["traces/react.nq"]
    cases = list(react)
    assert [c.name for c in cases] == [AGENT]
    (failure,) = cases[0].result
    assert isinstance(failure, Failure)
    assert failure.type == "M001"
    # Every finding of the trace is listed, the warning too.
    assert "M001" in failure.text and "M008" in failure.text and "line 12" in failure.text
    clean = list(suites["traces/graph-rag.nq"])
    assert [c.name for c in clean] == ["urn:trustgraph:question:77"] and clean[0].is_passed
    assert react.failures == 1 and react.tests == 1


def test_junit_warnings_pass_unless_fail_on_warning(report, tmp_path):
    report.findings = [f for f in report.findings if f.severity == Severity.WARNING]
    react = [s for s in parse_junit(render(report, "junit"), tmp_path) if s.name == "traces/react.nq"][0]
    (case,) = list(react)
    assert case.is_passed and "M008" in case.system_out
    report.fail_on = Severity.WARNING
    react = [s for s in parse_junit(render(report, "junit"), tmp_path) if s.name == "traces/react.nq"][0]
    assert not list(react)[0].is_passed


def test_junit_findings_outside_traces_and_files(tmp_path):
    report = Report(findings=[finding(file=None, line=None, trace=None)], files=[], traces={})
    (suite,) = list(parse_junit(render(report, "junit"), tmp_path))
    (case,) = list(suite)
    assert suite.name == "<input>" and case.name == "(outside any trace)" and not case.is_passed


def test_junit_is_well_formed_whatever_a_literal_holds(tmp_path):
    # U+FFFE, U+FFFF and control characters cannot stand in XML 1.0 at all: one such literal
    # made the whole report unreadable to a CI system.
    message = "\ufffe\uffff\x00\x1b\u202e not a known termination reason"
    report = Report(findings=[finding(message=message, focus=AGENT + "/final\u2028")],
                    files=["traces/react.nq"], traces={AGENT: "traces/react.nq"})
    (suite,) = parse_junit(render(report, "junit"), tmp_path)
    (case,) = list(suite)
    (failure,) = case.result
    assert "\\ufffe\\uffff\\x00\\x1b\\u202e not a known termination reason" in failure.text
    assert "/final\\u2028" in failure.text
