"""tg-trace lint --format html: one self-contained page, on a clean and a faulty example."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

from click.testing import CliRunner
from conftest import EXAMPLES
from tgtrace.cli import main
from tgtrace.rules import DOCS_BASE


class Page(HTMLParser):
    """What a browser would fetch: every src, href of a link element, CSS url() and @import."""

    def __init__(self, text: str):
        super().__init__()
        self.loads: list[str] = []
        self.ids: set[str] = set()
        self.anchors: list[dict] = []
        self.rows: list[dict] = []
        self.feed(text)
        self.loads += re.findall(r"url\(\s*['\"]?([^'\")]+)", text) + re.findall(r"@import\s+['\"]?([^'\";]+)", text)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if "src" in attrs or (tag == "link" and "href" in attrs):
            self.loads.append(attrs.get("src") or attrs["href"])
        if tag == "a":
            self.anchors.append(attrs)
        if tag == "tr" and "data-rule" in attrs:
            self.rows.append(attrs)


def report(tmp_path, *paths):
    out = tmp_path / "report.html"
    result = CliRunner().invoke(main, ["lint", *map(str, paths), "--format", "html", "-o", str(out), "--no-config"])
    return result, out.read_text(encoding="utf-8")


def misdirected(tmp_path):
    text = (EXAMPLES / "orchestrator-react-multi-iteration.nq").read_text()
    text = re.sub(r"(/final> <http://www.w3.org/ns/prov#wasDerivedFrom> <[^>]*/i3/)observation>", r"\1thought>", text)
    path = tmp_path / "misdirected.nq"
    path.write_text(text)
    return path


def test_a_clean_run_is_one_offline_page_with_each_traces_diagram(tmp_path):
    result, text = report(tmp_path, EXAMPLES / "supervisor.nq", EXAMPLES / "graph-rag.nq")
    assert result.exit_code == 0
    page = Page(text)
    assert page.loads == []
    assert "default-src 'none'" in text  # the page may load nothing even if a literal tried
    # A diagram per trace, beside the audit's plots.
    assert text.count("<svg") - text.count('<svg class="plot"') == 2 and "0 error" in text
    # Every inline SVG is well-formed XML.
    for svg in re.findall(r"<svg.*?</svg>", text, flags=re.S):
        ET.fromstring(svg)


def test_findings_link_to_their_node_and_to_the_rule_docs(tmp_path):
    result, text = report(tmp_path, misdirected(tmp_path), EXAMPLES / "graph-rag.nq")
    assert result.exit_code == 1
    page = Page(text)
    assert page.loads == []
    (row,) = [r for r in page.rows if r["data-rule"] == "C019"]
    assert row["data-severity"] == "error" and row["data-family"]
    # Each finding's node link targets an element of the drawn trace, the C019's among them.
    links = [a for a in page.anchors if a.get("class") == "to-node"]
    assert links and all(link["data-node"] in page.ids for link in links)
    assert row["data-node"] in {link["data-node"] for link in links}
    assert f'<g id="{row["data-node"]}" class="node">' in text
    # The link that breaks the rule is red in the diagram, with its code.
    assert re.search(r'class="edge fault".*?C019</text>', text, flags=re.S)
    # The rule's explanation, linked to the docs site.
    assert "rule-C019" in page.ids
    assert any(a.get("href") == f"{DOCS_BASE}rules/C019/" for a in page.anchors)
    # Filters by rule, family and severity offer what was found.
    for name in ("rule", "family", "severity"):
        assert f'<select class="filter" name="{name}">' in text


def _html_report(tmp_path, name: str, source: str, stdin: bytes | None = None) -> str:
    out = tmp_path / name
    result = CliRunner().invoke(main, ["lint", "--format", "html", "-o", str(out), source], input=stdin)
    assert result.exit_code == 1, result.output
    return out.read_text()


def test_the_report_of_standard_input_is_the_report_of_the_file(tmp_path):
    """A trace piped in gets the report the same file gets: its traces, their diagrams with the faulty
    step outlined, and each finding's source excerpt (the run keeps what it read, never the disk)."""
    from tgtrace.rules import all_rules

    data = all_rules()["C001"].faults[0].apply(EXAMPLES)
    path = tmp_path / "broken.nq"
    path.write_bytes(data)
    from_file = _html_report(tmp_path, "file.html", str(path))
    from_stdin = _html_report(tmp_path, "stdin.html", "-", stdin=data)
    assert from_stdin.count("<svg") == from_file.count("<svg") > 0
    assert from_stdin.count('<pre class="source">') == from_file.count('<pre class="source">') > 0
    # The same page, but for the input's name (escaped where the page shows it).
    named = re.compile(r"&lt;stdin&gt;|<stdin>|" + re.escape(str(path)))
    assert named.sub("F", from_stdin) == named.sub("F", from_file)


def test_the_report_draws_as_many_diagrams_as_it_is_told_the_faulty_first(tmp_path):
    # The faulty trace and three clean ones, two diagrams: the faulty trace's is one of them;
    # every trace keeps its section, and the others say why they have no drawing.
    inputs = [str(misdirected(tmp_path))] + [str(EXAMPLES / name) for name in ("graph-rag.nq", "supervisor.nq", "document-rag.nq")]
    out = tmp_path / "report.html"
    result = CliRunner().invoke(main, ["lint", *inputs, "--format", "html", "-o", str(out), "--no-config", "--diagrams", "2"])
    assert result.exit_code == 1, result.output
    page = out.read_text(encoding="utf-8")
    sections = re.findall(r'<section class="trace" id="(t\d+)".*?</section>', page, re.S)
    assert len(sections) == 4
    drawn = re.findall(r'<section class="trace" id="(t\d+)"[^>]*>(?:(?!</section>).)*?<div class="diagram">', page, re.S)
    assert len(drawn) == 2 and "t0" in drawn
    assert page.count("No diagram: the report draws 2 traces' diagrams of 4") == 2
    everything = tmp_path / "all.html"
    CliRunner().invoke(main, ["lint", *inputs, "--format", "html", "-o", str(everything), "--no-config"])
    assert everything.read_text(encoding="utf-8").count('<div class="diagram">') == 4
