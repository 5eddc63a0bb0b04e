"""The Markdown summary format, on a report built here."""

from __future__ import annotations

from tgtrace.formats import render
from tgtrace.ground.model import Report
from tgtrace.ground.namespaces import TG
from tgtrace.rules import all_rules
from tgtrace.run.coverage import coverage


def test_markdown_summary(report):
    report.coverage = coverage(Report(terms_used={TG + "Conclusion": 1, TG + "query": 1}))
    report.baselined = 2
    text = render(report, "markdown")
    assert text.startswith("## :x: tg-trace failed")
    assert "| error | 1 |" in text and "| warning | 1 |" in text
    assert f"| [M001]({all_rules()['M001'].help_uri}) | answer-mixin | error | 1 |" in text
    assert "2 known findings were accepted by the baseline." in text
    assert "### Ontology coverage:" in text and "tg:Grounding" in text
