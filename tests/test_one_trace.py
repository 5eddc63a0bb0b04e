"""`tg-trace show` and `graph` with --trace lint only the chosen trace's part of the file.

A capture made of every example (one of them broken, one linked to another
trace, old releases' traces with their aged findings) must show, for each of
its traces, exactly the findings a lint of the whole file reports for it,
while the rules run on a graph no bigger than what that trace needs.
"""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner
from conftest import EXAMPLES
from tgtrace.cli import main

# The last Observation of one ReAct trace, and a Question of another trace.
CROSS_LINK = ("<urn:trustgraph:agent:654188f1-4efe-5ec4-8ff7-649fb5c1fc4b/i1/observation> "
              "<http://www.w3.org/ns/prov#wasDerivedFrom> <urn:trustgraph:question:1b3949f2-13f1-5c55-8618-8ffa7d5d3327> .\n")


def invoke(*args):
    return CliRunner().invoke(main, [*map(str, args), "--no-config"])


@pytest.fixture(scope="module")
def capture(tmp_path_factory):
    parts = []
    # The 2.1.16 traces (its extraction provenance holds none: its findings are outside any trace).
    old_traces = sorted(p for p in (EXAMPLES / "releases" / "2.1.16").glob("*.nq") if p.stem != "extraction")
    for path in sorted(EXAMPLES.glob("*.nq")) + old_traces:
        text = path.read_text()
        if path.name == "orchestrator-react-multi-iteration.nq":
            # The Conclusion derives from the last Thought instead of the last Observation (C019).
            text = re.sub(r"(/final> <http://www.w3.org/ns/prov#wasDerivedFrom> <[^>]*/i3/)observation>",
                          r"\1thought>", text)
        parts.append(text)
    path = tmp_path_factory.mktemp("capture") / "capture.nq"
    path.write_text("".join(parts) + CROSS_LINK)
    return path


def shown_findings(tree: list[dict]) -> list[dict]:
    found = []

    def walk(steps):
        for step in steps:
            found.extend(step["findings"])
            for sub in step.get("subtraces", ()):
                walk(sub["steps"])

    for trace in tree:
        walk(trace["steps"])
    return found


def key(finding: dict) -> tuple:
    return tuple(finding[k] for k in ("rule", "severity", "focus", "path", "value", "line", "message"))


def test_each_trace_shows_the_findings_a_whole_file_lint_reports(capture, monkeypatch):
    whole = json.loads(invoke("lint", capture, "--format", "json").output)["findings"]
    traces = [row["trace"] for row in json.loads(invoke("list", capture, "--format", "json").output)]
    assert len(traces) == 19
    linted: list[int] = []
    from tgtrace.run import lint as run

    check_graph = run.check_graph

    def counting(graph, settings):
        linted.append(sum(1 for _ in graph.triples()))
        return check_graph(graph, settings)

    monkeypatch.setattr(run, "check_graph", counting)
    total = sum(1 for line in capture.read_text().splitlines() if line.strip())
    rules = set()
    for trace in traces:
        result = invoke("show", capture, "--trace", trace, "--format", "json")
        tree = json.loads(result.output)
        assert [t["trace"] for t in tree] == [trace]
        shown = sorted(map(key, shown_findings(tree)))
        assert shown == sorted(key(f) for f in whole if f["trace"] == trace), trace
        rules |= {f[0] for f in shown}
        assert result.exit_code == (1 if any(f[1] == "error" for f in shown) else 0)
    # The capture's findings are of many rules, the error among them.
    assert "C019" in rules and len(rules) >= 8
    # Each run linted the chosen trace's part: never the whole file.
    assert len(linted) == len(traces) and max(linted) < total / 3


def test_graph_of_one_trace_marks_the_same_fault(capture, tmp_path):
    trace = "urn:trustgraph:agent:33a7dbc8"
    out = tmp_path / "one.dot"
    result = invoke("graph", capture, "--trace", trace, "-o", out)
    assert result.exit_code == 1
    assert re.search(r'color="#d32f2f".*label=" C019"', out.read_text())
