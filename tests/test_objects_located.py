"""Findings on Python objects (a list of wire triples, TrustGraph ``Triple`` objects, explain
events) name the item that holds their triple, as the list is indexed in the test
(``<objects>[99]``), through the API and the pytest plugin; the summary counts items, not files."""

from __future__ import annotations

import copy
import json

import pytest
import tgtrace
from formats_support import EXAMPLES, REACT
from test_pytest_plugin import run_pytest
from tgtrace.formats import render
from tgtrace.run.settings import Output

WIRE = json.loads((EXAMPLES / f"{REACT}.json").read_text())
EVENTS = json.loads((EXAMPLES / "orchestrator-react-graphrag-tool.events.json").read_text())


def _broken_wire() -> tuple[list[dict], int]:
    """The example's wire triples with its termination reason misspelt, and that triple's index."""
    triples = copy.deepcopy(WIRE)
    index = next(i for i, t in enumerate(triples) if t["o"].get("v") == "final-answer")
    triples[index]["o"]["v"] = "final-answr"
    return triples, index


def test_a_wire_list_names_the_triple_by_its_index():
    triples, index = _broken_wire()
    report = tgtrace.lint(triples, select=["T001"])
    [finding] = report.findings
    assert (finding.file, finding.line) == ("<objects>", index + 1)  # numbered from 1, as lines are
    assert str(finding).startswith(f"<objects>[{index}]: T001 error ")
    text = render(report, Output(format="text"))
    assert f"  <objects>[{index}]: T001 error " in text
    assert text.splitlines()[-1].startswith(f"{len(triples)} items, 1 trace, ")
    assert "file" not in text.splitlines()[-1]
    summary = report.summary()
    assert summary["items"] == len(triples) and summary["files"] == 0


def test_an_event_stream_names_the_event():
    """An explain event's triples are placed at the event's index in the list."""
    events = copy.deepcopy(EVENTS)
    hit = None
    for number, event in enumerate(events):
        for triple in event["explain_triples"]:
            if triple["o"].get("v") == "final-answer":
                triple["o"]["v"], hit = "final-answr", number
    assert hit is not None
    report = tgtrace.lint(events, select=["T001"])
    [finding] = report.findings
    assert str(finding).startswith(f"<objects>[{hit}]: ")
    assert render(report, Output(format="concise")).splitlines()[-1].startswith(f"{len(events)} items, ")


def test_a_subjects_finding_names_the_item_of_its_first_triple():
    triples = [t for t in WIRE if not t["s"]["i"].endswith("/final")
               or t["p"]["i"] != "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
               or t["o"]["i"] != "https://trustgraph.ai/ns/Answer"]
    assert len(triples) == len(WIRE) - 1
    report = tgtrace.lint(triples, select=["M001"])
    [finding] = report.findings
    first = next(i for i, t in enumerate(triples) if t["s"]["i"] == finding.focus)
    assert str(finding).startswith(f"<objects>[{first}]: M001 ")


@pytest.mark.parametrize("fmt", ["json", "sarif", "github", "gitlab"])
def test_no_format_takes_the_objects_for_a_file(fmt):
    triples, _ = _broken_wire()
    out = render(tgtrace.lint(triples, select=["T001"]), Output(format=fmt))
    assert "%3Cobjects%3E" not in out and "file=<objects>" not in out


def test_the_pytest_plugin_names_the_item(tmp_path):
    triples, index = _broken_wire()
    (tmp_path / "trace.json").write_text(json.dumps(triples))
    (tmp_path / "test_emitter.py").write_text(
        "import json\n"
        "from pathlib import Path\n"
        "from tgtrace.pytest_plugin import assert_trace_conforms\n\n"
        "def test_emitted():\n"
        "    assert_trace_conforms(json.loads((Path(__file__).parent / 'trace.json').read_text()))\n")
    result = run_pytest(tmp_path)
    out = result.stdout + result.stderr
    assert result.returncode == 1, out
    assert f"<objects>[{index}]: T001 error " in out
    assert f"{len(triples)} items, 1 trace, " in out
