"""Statistics per rule, ontology coverage, and rule explanations (and CURIEs)."""

from __future__ import annotations

import re

from formats_support import AGENT, finding, report  # noqa: F401 (report is a fixture)
from tgtrace.coverage import coverage, ontology_terms, statistics
from tgtrace.explain import curie, explain_rule, list_rules
from tgtrace.formats.statistics import coverage_dict
from tgtrace.model import Report
from tgtrace.namespaces import TG
from tgtrace.rules import all_rules


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
            # Runnable as printed: the prefixes declared and the focus in place of $this.
            assert rule.fault.sparql.strip() in text and "$this" not in text
    listing = list_rules()
    assert all(re.search(rf"^{code}\s", listing, re.M) for code in all_rules())


def test_curie():
    assert curie(TG + "Question") == "tg:Question"
    assert curie("https://trustgraph.ai/shapes#answer-mixin") == "tgsh:answer-mixin"
    assert curie("urn:x:y") == "urn:x:y"
