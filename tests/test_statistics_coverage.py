"""Statistics per rule, ontology coverage, and rule explanations (and CURIEs)."""

from __future__ import annotations

import json
import re
from collections import Counter

from formats_support import AGENT, finding
from tgtrace.formats.statistics import coverage_dict
from tgtrace.ground.model import Report
from tgtrace.ground.namespaces import TG
from tgtrace.rules import all_rules
from tgtrace.rules.help import curie, explain_rule, list_rules
from tgtrace.run.coverage import coverage, ontology_terms, statistics


def test_statistics_counts_per_rule(report):
    report.findings.append(finding(focus=AGENT + "/synthesis"))
    rows = statistics(report)
    assert [(r["code"], r["count"]) for r in rows] == [("M001", 2), ("M008", 1)]
    assert rows[0]["name"] == "answer-mixin" and rows[0]["severity"] == "error"


def test_coverage_of_terms_and_mixins():
    terms = ontology_terms()
    assert TG + "Observation" in terms.classes and TG + "toolError" in terms.predicates
    assert (TG + "Observation", TG + "Error") in terms.mixins
    # Enumerations and deprecated terms are not expected of a trace.
    assert TG + "TerminationReason" not in terms.classes
    assert TG + "permitsTerminationReason" not in terms.predicates
    assert TG + "answer" not in terms.predicates and TG + "answer" in terms.deprecated

    report = Report(terms_used={TG + "Observation": 2, TG + "toolError": 1, TG + "answer": 1, TG + "Conclusoin": 1})
    report.type_sets = {f"{TG}Observation": 1, f"{TG}Error {TG}Observation": 1, f"{TG}Analysis": 1}
    cover = coverage(report)
    assert cover.classes[TG + "Observation"] == 2 and cover.classes[TG + "Error"] == 0
    assert cover.combinations[(TG + "Observation", TG + "Error")] == 1
    assert cover.combinations[(TG + "Analysis", TG + "ToolUse")] == 0
    assert cover.undeclared == {TG + "Conclusoin": 1} and cover.deprecated == {TG + "answer": 1}
    assert cover.exercised == 2 and cover.total == len(terms.classes) + len(terms.predicates)
    data = coverage_dict(cover)
    assert "tg:Observation + tg:Error" not in data["mixins"]["never"]
    assert f"{TG}Analysis + {TG}ToolUse" in data["mixins"]["never"]


def test_coverage_without_type_sets_omits_mixins():
    cover = coverage(Report(terms_used={}))
    assert cover.combinations is None and "mixins" not in coverage_dict(cover)
    assert cover.percent == 0.0


def test_explain_rule_text():
    for rule in all_rules().values():
        text = explain_rule(rule)
        assert text.startswith(f"# {rule.code} {rule.name}\n")
        assert rule.help_uri in text
        assert f"**Severity:** {rule.severity}" in text
        if rule.fault is not None:
            # Shown as the faulty trace (Turtle), not as the update that makes it.
            assert "```turtle" in text and "$this" not in text
    listing = list_rules()
    assert all(re.search(rf"^{code}\s", listing, re.M) for code in all_rules())


def test_curie():
    assert curie(TG + "Question") == "tg:Question"
    assert curie("https://trustgraph.ai/shapes#answer-mixin") == "tgsh:answer-mixin"
    assert curie("urn:x:y") == "urn:x:y"


def test_statistics_count_per_rule_and_severity_on_the_release_examples():
    """A rule's findings on traces older than its release are info, on newer ones at the rule's
    severity: --statistics counts each (code, severity) apart, marks the rows the trace's age
    set, and says so under the table."""
    from click.testing import CliRunner
    from formats_support import EXAMPLES
    from tgtrace.cli import main

    runner = CliRunner()
    shown = runner.invoke(main, ["lint", "--no-config", "--statistics", str(EXAMPLES / "releases")])
    found = runner.invoke(main, ["lint", "--no-config", "--format", "json", str(EXAMPLES / "releases")])
    assert shown.exit_code == found.exit_code == 0
    expected = Counter((f["rule"], f["severity"]) for f in json.loads(found.stdout)["findings"])
    row = re.compile(r"^\s*(\d+)  ([A-Z]\d{3})  \[(error|warning|info)\]\s+(\*?)\s*([a-z0-9-]+)$")
    rows = [m.groups() for line in shown.stdout.splitlines() if (m := row.match(line))]
    assert {(code, severity): int(count) for count, code, severity, _, _ in rows} == dict(expected)
    rules = all_rules()
    # Rows whose severity is not the rule's own are the aged ones, and only those are marked.
    for _count, code, severity, mark, name in rows:
        assert name == rules[code].name
        assert (mark == "*") == (severity != str(rules[code].severity)), (code, severity, mark)
    # One rule's findings of two severities are two rows (T004: warning on 2.3.1 and later, info before).
    severities_of = Counter(code for _, code, _, _, _ in rows)
    assert any(n > 1 for n in severities_of.values()), rows
    assert any(mark == "*" for *_, mark, _ in rows)
    assert "* severity set by the trace's age" in shown.stdout
