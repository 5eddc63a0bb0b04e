"""The trace-model generation is inferred from what a trace shows."""

from __future__ import annotations

import json
import shutil

import pyoxigraph as ox
import pytest
import tgtrace
from click.testing import CliRunner
from conftest import example_traces
from tgtrace.cli import main
from tgtrace.ground.graph import TraceGraph
from tgtrace.tracemodel.generations import infer
from tgtrace.tracemodel.traces import TRUSTGRAPH

TG = "https://trustgraph.ai/ns/"
PROV = "http://www.w3.org/ns/prov#"
TYPE = ox.NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")


def graph_of(quads) -> TraceGraph:
    graph = TraceGraph(model=TRUSTGRAPH)
    graph.add_quads(quads)
    return graph


def quads(path):
    return list(ox.parse(path=str(path), format=ox.RdfFormat.N_QUADS))


@pytest.mark.parametrize("path", example_traces(".nq"), ids=lambda p: p.stem)
def test_every_2_11_1_example_could_be_the_newest_generation(path):
    for root, inference in infer(graph_of(quads(path))).items():
        assert not inference.contradictory
        assert inference.generations[-1] == 5, (root, inference.signals)


def test_a_typed_edge_selection_dates_graphrag_to_2_6_4():
    (inference,) = infer(graph_of(quads(example_traces(".nq")[0].parent / "graph-rag.nq"))).values()
    assert inference.generations == (4, 5) and inference.releases == "2.6.4 and later"


def _older(path, replace):
    out = []
    for q in quads(path):
        new = replace(q)
        out.extend(new if isinstance(new, list) else [new])
    return out


def test_a_question_typed_activity_is_2_2_12_or_earlier():
    path = example_traces(".nq")[0].parent / "orchestrator-react-one-shot.nq"
    question = next(q.subject for q in quads(path) if q.predicate == TYPE and q.object.value == TG + "AgentQuestion")

    def old(q):
        if q.subject == question and q.predicate == TYPE and q.object.value == PROV + "Entity":
            return ox.Quad(q.subject, q.predicate, ox.NamedNode(PROV + "Activity"), q.graph_name)
        return q
    (inference,) = infer(graph_of(_older(path, old))).values()
    # Its PatternDecision says 2.3.1 or later: the two signals contradict each other.
    assert inference.contradictory
    assert {s.what for s in inference.signals} >= {"Question typed prov:Activity",
                                                    "a PatternDecision, termination reason or step number"}


def test_literal_thoughts_are_the_first_generation():
    path = example_traces(".nq")[0].parent / "legacy-react-one-shot.nq"
    question = next(q.subject for q in quads(path) if q.predicate == TYPE and q.object.value == TG + "AgentQuestion")

    def old(q):
        if q.subject == question and q.predicate == TYPE and q.object.value == PROV + "Entity":
            return [ox.Quad(q.subject, q.predicate, ox.NamedNode(PROV + "Activity"), q.graph_name),
                    ox.Quad(q.subject, ox.NamedNode(TG + "thought"), ox.Literal("I know this"), q.graph_name)]
        if q.predicate == TYPE and q.object.value == TG + "Answer":
            return []
        return q
    (inference,) = infer(graph_of(_older(path, old))).values()
    assert inference.generations == (1,) and inference.releases == "2.1.x to 2.1.16"


def test_the_trace_model_is_reported_in_every_face(tmp_path):
    """Text trace header, a json field per trace, a SARIF result property, --statistics."""
    examples = example_traces(".nq")[0].parent
    broken = tmp_path / "broken.nq"
    lines = (examples / "graph-rag.nq").read_text().splitlines()
    broken.write_text("\n".join(ln for ln in lines if "ns/Answer>" not in ln) + "\n")
    shutil.copy(examples / "legacy-react-one-shot.nq", tmp_path / "legacy.nq")

    def lint(*args):
        return CliRunner().invoke(main, ["lint", "--no-config", "--no-summary", *args])

    text = lint(str(broken)).stdout
    assert ": trace urn:trustgraph:question:" in text and "(trace model of TrustGraph 2.6.4 and later)" in text
    data = json.loads(lint("--format", "json", str(broken), str(tmp_path / "legacy.nq")).stdout)
    assert {t["trace_model"] for t in data["traces"]} == {"2.6.4 and later", "2.2.13 and later"}
    assert data["summary"]["trace_models"] == {"2.2.13 and later": 1, "2.6.4 and later": 1}
    sarif = json.loads(lint("--format", "sarif", str(broken)).stdout)
    assert sarif["runs"][0]["results"][0]["properties"]["traceModel"] == "2.6.4 and later"
    assert sarif["runs"][0]["properties"]["summary"]["trace_models"] == {"2.6.4 and later": 1}
    statistics = lint("--statistics", str(broken), str(tmp_path / "legacy.nq")).stdout
    assert "Traces by trace model:\n  TrustGraph 2.2.13 and later: 1 trace\n  TrustGraph 2.6.4 and later: 1 trace" \
        in statistics


def _untyped_edge_selections(tmp_path):
    """graph-rag as releases before 2.6.4 wrote it: the Focus's edge selections carry no type."""
    examples = example_traces(".nq")[0].parent
    lines = (examples / "graph-rag.nq").read_text().splitlines()
    kept = [ln for ln in lines if "<https://trustgraph.ai/ns/EdgeSelection>" not in ln]
    assert len(kept) < len(lines)
    path = tmp_path / "graph-rag-2.6.3.nq"
    path.write_text("\n".join(kept) + "\n")
    return path


def test_a_finding_its_release_explains_is_info_naming_the_release(tmp_path):
    report = tgtrace.lint(str(_untyped_edge_selections(tmp_path)))
    assert report.trace_models == {next(iter(report.traces)): "2.2.13 to 2.6.3"}
    s008 = [f for f in report.findings if f.rule == "S008"]
    assert s008 and all(str(f.severity) == "info" for f in s008)
    assert s008[0].message.endswith("(written so by TrustGraph 2.2.13 to 2.6.3; required since 2.6.4)")
    assert report.conforms


@pytest.mark.parametrize("target, severity", [("2.6", "info"), ("2.6.4", "error"), ("2.11", "error")])
def test_target_version_makes_an_older_trace_an_error(tmp_path, target, severity):
    report = tgtrace.lint(str(_untyped_edge_selections(tmp_path)), target_version=target)
    assert {str(f.severity) for f in report.findings if f.rule == "S008"} == {severity}


def test_target_version_from_flag_and_config(tmp_path):
    path = _untyped_edge_selections(tmp_path)
    runner = CliRunner()
    assert runner.invoke(main, ["lint", "--no-config", "--no-summary", str(path)]).exit_code == 0
    failed = runner.invoke(main, ["lint", "--no-config", "--no-summary", "--target-version", "2.11", str(path)])
    assert failed.exit_code == 1 and "S008 error" in failed.stdout
    (tmp_path / "tg-trace.toml").write_text('target-version = "2.11"\n')
    configured = runner.invoke(main, ["lint", "--config", str(tmp_path / "tg-trace.toml"), "--no-summary", str(path)])
    assert configured.exit_code == 1
    bad = runner.invoke(main, ["lint", "--no-config", "--target-version", "eleven", str(path)])
    assert bad.exit_code == 2 and "--target-version: expected a TrustGraph release such as 2.11" in bad.stderr
