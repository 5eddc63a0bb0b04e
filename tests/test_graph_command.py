"""tg-trace graph: the derivation graph drawn with Graphviz, on the real examples."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from click.testing import CliRunner
from conftest import EXAMPLES
from tgtrace.cli import main
from tgtrace.formats import diagram

SVG = "{http://www.w3.org/2000/svg}"


def invoke(*args):
    return CliRunner().invoke(main, [*args, "--no-config"])


def misdirected(tmp_path):
    """The multi-iteration example with its Conclusion derived from the last Thought instead of the
    last Observation: C019 on that link."""
    text = (EXAMPLES / "orchestrator-react-multi-iteration.nq").read_text()
    text, count = re.subn(r"(/final> <http://www.w3.org/ns/prov#wasDerivedFrom> <[^>]*/i3/)observation>",
                          r"\1thought>", text)
    assert count == 1
    path = tmp_path / "misdirected.nq"
    path.write_text(text)
    return path


def groups(svg: ET.Element, kind: str) -> list[ET.Element]:
    return [g for g in svg.iter(f"{SVG}g") if kind in (g.get("class") or "").split()]


def test_svg_draws_sub_traces_as_clusters(tmp_path):
    out = tmp_path / "supervisor.svg"
    result = invoke("graph", str(EXAMPLES / "supervisor.nq"), "-o", str(out))
    assert result.exit_code == 0, result.stderr
    svg = ET.parse(out).getroot()
    assert svg.tag == f"{SVG}svg"
    # Two sub-agents and the GraphRAG call of one of them.
    labels = [" ".join(t.text or "" for t in g.iter(f"{SVG}text")) for g in groups(svg, "cluster")]
    assert sorted(label.split(":")[0] for label in labels) == ["graphrag", "react", "react"]
    nodes = " ".join(t.text or "" for g in groups(svg, "node") for t in g.iter(f"{SVG}text"))
    assert "Analysis +ToolUse #1" in nodes and "Conclusion +Answer" in nodes and "EdgeSelection" in nodes
    assert not [g for g in groups(svg, "edge") if '#d32f2f' in ET.tostring(g, encoding="unicode")]


def test_a_link_that_breaks_a_rule_is_red_with_its_code(tmp_path):
    out = tmp_path / "faulty.svg"
    result = invoke("graph", str(misdirected(tmp_path)), "-o", str(out))
    assert result.exit_code == 1
    svg = ET.parse(out).getroot()
    red = [g for g in groups(svg, "edge") if 'stroke="#d32f2f"' in ET.tostring(g, encoding="unicode")]
    assert len(red) == 1
    assert "C019" in [t.text.strip() for t in red[0].iter(f"{SVG}text")]
    assert "/final" in red[0].find(f"{SVG}g/{SVG}a").get("{http://www.w3.org/1999/xlink}title")


def test_png_dot_and_standard_output(tmp_path):
    png = tmp_path / "trace.png"
    assert invoke("graph", str(EXAMPLES / "graph-rag.nq"), "-o", str(png)).exit_code == 0
    assert png.read_bytes().startswith(b"\x89PNG")
    dot = tmp_path / "trace.dot"
    assert invoke("graph", str(EXAMPLES / "graph-rag.nq"), "-o", str(dot)).exit_code == 0
    assert dot.read_text().startswith("digraph trace {")
    result = CliRunner().invoke(main, ["graph", str(EXAMPLES / "graph-rag.nq"), "-o", "-", "--no-config"])
    assert result.exit_code == 0
    assert ET.fromstring(result.stdout_bytes).tag == f"{SVG}svg"


def test_without_graphviz_svg_is_refused_and_dot_still_works(tmp_path, monkeypatch):
    monkeypatch.setattr(diagram.shutil, "which", lambda name: None)
    result = invoke("graph", str(EXAMPLES / "graph-rag.nq"), "-o", str(tmp_path / "t.svg"))
    assert result.exit_code == 2 and not (tmp_path / "t.svg").exists()
    (line,) = result.stderr.splitlines()
    assert "install graphviz" in line
    assert invoke("graph", str(EXAMPLES / "graph-rag.nq"), "-o", str(tmp_path / "t.dot")).exit_code == 0


def test_usage_problems_are_one_line_exit_2(tmp_path):
    several = invoke("graph", str(EXAMPLES / "explain-stream.jsonl"), "-o", str(tmp_path / "t.svg"))
    assert several.exit_code == 2 and "--trace" in several.stderr
    one = invoke("graph", str(EXAMPLES / "explain-stream.jsonl"), "--trace", "33a7dbc8", "-o", str(tmp_path / "t.svg"))
    assert one.exit_code == 0
    wrong = invoke("graph", str(EXAMPLES / "graph-rag.nq"), "-o", str(tmp_path / "t.jpeg"))
    assert wrong.exit_code == 2 and len(wrong.stderr.splitlines()) == 1
    overwrite = invoke("graph", str(EXAMPLES / "graph-rag.nq"), "-o", str(EXAMPLES / "graph-rag.nq"))
    assert overwrite.exit_code == 2
