"""A deployment's audit at a glance, as a person reads it: the HTML report, `--format markdown`
and `--format json` open with the traces by pattern and release, their termination reasons, the
findings by rule, the iterations, durations and tokens, and the slowest and longest traces.

The capture is the real emitter's examples written one after the other; what the audit must say
of it is counted here from the examples themselves (their files, their statements read with
pyoxigraph, the findings lint lists), not from the audit's own code.
"""

from __future__ import annotations

import html
import json
import re
from collections import Counter
from pathlib import Path

import pyoxigraph as ox
import pytest
from click.testing import CliRunner
from conftest import EXAMPLES
from tgtrace.cli import main
from tgtrace.rules import all_rules

TG = "https://trustgraph.ai/ns/"
# Each example of the capture: one top-level trace, its pattern and how it ended (what the
# example is generated to show; the reasons are its answers' tg:terminationReason, checked below).
CAPTURE = {
    "graph-rag.nq": ("graphrag", "(answered, no reason recorded)"),
    "orchestrator-react-max-iterations.nq": ("react", "(no answer)"),
    "supervisor.nq": ("supervisor", "subagents-complete"),
    "plan-then-execute.nq": ("plan-then-execute", "plan-complete"),
    "orchestrator-react-multi-iteration.nq": ("react", "final-answer"),
    "behaviours/react-same-call-three-times.nq": ("react", "final-answer"),
    "behaviours/graph-rag-focus-selects-nothing.nq": ("graphrag", "(answered, no reason recorded)"),
    "document-rag.nq": ("docrag", "(answered, no reason recorded)"),
}


RDF_TYPE = ox.NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")


def _objects(quads: list[ox.Quad], predicate: str) -> list[str]:
    return [q.object.value for q in quads if q.predicate.value == TG + predicate]


def _numbers(quads: list[ox.Quad], predicates: tuple[str, ...]) -> int:
    return sum(int(o) for p in predicates for o in _objects(quads, p))


def _count(quads: list[ox.Quad], *classes: str) -> int:
    return sum(1 for q in quads if q.predicate == RDF_TYPE and q.object.value in {TG + c for c in classes})


@pytest.fixture(scope="module")
def capture(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("audit") / "capture.nq"
    path.write_text("".join((EXAMPLES / name).read_text() for name in CAPTURE))
    return path


@pytest.fixture(scope="module")
def expected() -> dict:
    """What each example holds, read from its statements: its iterations (every Analysis and
    StepResult, its sub-agents' included), its recorded milliseconds and tokens, its reasons."""
    facts = {}
    for name, (pattern, reason) in CAPTURE.items():
        graph = list(ox.parse(path=str(EXAMPLES / name), format=ox.RdfFormat.N_QUADS))
        reasons = set(_objects(graph, "terminationReason"))
        assert reason.startswith("(") or reason in reasons  # the top trace's own reason is written
        facts[name] = {"pattern": pattern, "reason": reason,
                       "iterations": _count(graph, "Analysis", "StepResult"),
                       "ms": _numbers(graph, ("llmDurationMs", "toolDurationMs")),
                       "tokens": _numbers(graph, ("inToken", "outToken"))}
    return facts


def _lint(*args: str, stdin: str | None = None) -> str:
    result = CliRunner().invoke(main, ["lint", *args, "--no-config"], input=stdin)
    assert result.exit_code in (0, 1), result.output
    return result.output


@pytest.fixture(scope="module")
def report(capture) -> dict:
    return json.loads(_lint(str(capture), "--format", "json"))


def test_the_json_audit_counts_the_capture(report, expected):
    audit = report["audit"]
    assert audit["traces"] == len(CAPTURE) == len(report["traces"])
    by_pattern = Counter()
    for row in audit["patterns"]:
        by_pattern[row["pattern"]] += row["traces"]
    assert by_pattern == Counter(f["pattern"] for f in expected.values())
    assert sum(r["traces"] for r in audit["patterns"]) == len(CAPTURE)
    assert {r["reason"]: r["traces"] for r in audit["termination"]} == Counter(f["reason"] for f in expected.values())
    # The findings by rule are lint's own list of findings, behaviour apart from conformance.
    listed = Counter(f["rule"] for f in report["findings"])
    rules = all_rules()
    assert {r["rule"]: r["findings"] for r in audit["behaviour"]} == {
        code: n for code, n in listed.items() if rules[code].family == "behaviour"}
    assert {r["rule"]: r["findings"] for r in audit["conformance"]} == {
        code: n for code, n in listed.items() if rules[code].family != "behaviour"}
    assert {r["rule"] for r in audit["behaviour"]} >= {"B001", "B002", "B004"}
    # Iterations per agent trace: one value per agent trace.
    agents = [f["iterations"] for f in expected.values() if f["pattern"] in ("react", "plan-then-execute", "supervisor")]
    spread = audit["iterations"]
    assert (spread["count"], spread["sum"], spread["min"], spread["max"]) == (
        len(agents), sum(agents), min(agents), max(agents))
    assert sum(b["count"] for b in spread["bins"]) == len(agents)
    # Durations and tokens per step kind add up to every recorded millisecond and token.
    kinds = audit["step_kinds"]
    assert sum(k["duration_ms"]["sum"] for k in kinds if k["duration_ms"]) == sum(f["ms"] for f in expected.values())
    assert sum(k["tokens"]["sum"] for k in kinds if k["tokens"]) == sum(f["tokens"] for f in expected.values())
    assert {k["kind"] for k in kinds} >= {"Analysis", "Observation", "Synthesis", "Grounding"}
    # The slowest trace is the example that recorded the most milliseconds, and the list is in order.
    slowest = max(expected, key=lambda name: expected[name]["ms"])
    assert audit["slowest"][0]["duration_ms"] == expected[slowest]["ms"]
    assert audit["slowest"][0]["pattern"] == expected[slowest]["pattern"]
    shown = [r["duration_ms"] for r in audit["slowest"]]
    assert shown == sorted(shown, reverse=True)
    assert len(audit["slowest"]) == sum(1 for f in expected.values() if f["ms"])
    steps = [r["steps"] for r in audit["longest"]]
    assert steps == sorted(steps, reverse=True) and audit["longest"][0]["pattern"] == "supervisor"


def test_standard_input_gives_the_audit_a_file_gives(capture, report):
    from_stdin = json.loads(_lint("-", "--format", "json", stdin=capture.read_text()))["audit"]
    assert json.dumps(from_stdin).replace('"<stdin>"', "F") == json.dumps(report["audit"]).replace(
        json.dumps(report["audit"]["slowest"][0]["file"]), "F")


def test_the_markdown_report_opens_with_the_audit(capture, report):
    text = _lint(str(capture), "--format", "markdown")
    assert f"### Audit of {len(CAPTURE)} traces" in text
    assert text.index("### Audit") < text.index("| rule | name | severity | findings |")
    assert "| (no answer) | 1 |" in text and "| subagents-complete | 1 |" in text
    for row in report["audit"]["behaviour"]:
        assert f"| {row['rule']} | info | {row['findings']} | {row['traces']} |" in text
    assert f"| {report['audit']['slowest'][0]['trace']} | supervisor |" in text


def test_the_summary_written_beside_another_format_carries_the_audit(capture, tmp_path):
    summary = tmp_path / "summary.md"
    _lint(str(capture), "--summary", str(summary))
    assert f"### Audit of {len(CAPTURE)} traces" in summary.read_text()


def test_the_html_report_opens_with_the_audit_and_links_its_traces(capture, report, tmp_path):
    out = tmp_path / "report.html"
    _lint(str(capture), "--format", "html", "-o", str(out))
    page = out.read_text()
    assert page.index('id="audit"') < page.index('id="traces"') < page.index('id="findings"')
    section = page[page.index('<section id="audit"'):page.index("</section>", page.index('<section id="audit"'))]
    assert f"Audit of {len(CAPTURE)} traces" in section
    assert section.count('<svg class="plot"') == 1 + sum(
        (k["duration_ms"] is not None) + (k["tokens"] is not None) for k in report["audit"]["step_kinds"])
    # Each of the slowest and longest traces links to its diagram's section.
    links = re.findall(r'<a href="#(t\d+)">', section)
    assert len(links) == len(report["audit"]["slowest"]) + len(report["audit"]["longest"])
    assert all(f'<section class="trace" id="{link}"' in page for link in links)
    slowest = report["audit"]["slowest"][0]
    target = re.search(r'<a href="#(t\d+)">' + re.escape(html.escape(slowest["question"])), section).group(1)
    assert html.escape(slowest["trace"]) in page[page.index(f'id="{target}"'):][:2000]
    # The page still loads nothing from elsewhere.
    assert "default-src 'none'" in page and "<script src" not in page and "http-equiv" in page


def test_trace_text_in_the_audit_is_escaped(tmp_path):
    hostile = '<img src=x onerror=alert(1)> | ` **x**'
    source = (EXAMPLES / "orchestrator-react-max-iterations.nq").read_text()
    question = re.search(r'<https://trustgraph.ai/ns/query> "([^"]*)"', source).group(1)
    path = tmp_path / "hostile.nq"
    path.write_text(source.replace(question, hostile.replace('"', "")))
    out = tmp_path / "report.html"
    _lint(str(path), "--format", "html", "-o", str(out))
    page = out.read_text()
    assert "<img src=x" not in page and "&lt;img src=x onerror=alert(1)&gt;" in page
    text = _lint(str(path), "--format", "markdown")
    row = next(line for line in text.splitlines() if "onerror" in line)
    assert "\\|" in row and row.count(" | ") == 5  # the question's pipe ends no cell
    assert json.loads(_lint(str(path), "--format", "json"))["audit"]["slowest"][0]["question"] == hostile
