"""The HTML report as a person opens it: from file://, in headless Chromium.

The report of a faulty example beside clean ones must render with no console
error and no request beyond its own file; a click on a finding scrolls its
node into view, a click on a flagged node scrolls back to its finding, and the
filters hide the rows they exclude. Screenshots are kept for CI
(``browser_support.artifacts``).
"""

from __future__ import annotations

import json
import re
import time

import pytest
from browser_support import artifacts, chromium, screenshot, visit
from click.testing import CliRunner
from conftest import EXAMPLES
from test_format_html import misdirected
from tgtrace.cli import main

# Slow: opens HTML reports in headless Chromium (`python -m pytest -m "not slow"` leaves it out; CI runs it).
pytestmark = pytest.mark.slow

# Clean traces (a supervisor with sub-agents, GraphRAG) and two with warnings of different rules.
INPUTS = ("graph-rag.nq", "supervisor.nq", "orchestrator-react-max-iterations.nq", "legacy-react-one-shot.nq")


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """The report of the examples and one mutated to break C019, with the findings as JSON."""
    folder = tmp_path_factory.mktemp("report")
    inputs = [str(misdirected(folder))] + [str(EXAMPLES / name) for name in INPUTS]
    out = folder / "report.html"
    runner = CliRunner()
    result = runner.invoke(main, ["lint", *inputs, "--format", "html", "-o", str(out), "--no-config"])
    assert result.exit_code == 1, result.output
    result = runner.invoke(main, ["lint", *inputs, "--format", "json", "--no-config"])
    return out, json.loads(result.output)["findings"]


@pytest.fixture(scope="module")
def page(report, tmp_path_factory):
    """Chromium with the report loaded; what went wrong while it loaded."""
    with chromium() as client:
        found = visit(client, report[0].as_uri(), local=("file://",))
        yield client, found


@pytest.fixture(scope="module")
def shots(tmp_path_factory):
    return artifacts(tmp_path_factory, "report-screenshots")


def click(client, selector: str) -> None:
    """A real mouse click (not element.click()) on the first match, scrolled into view: on the
    middle of its first line box, where its text is (the middle of the bounding box of a link
    that wraps can fall between its lines, outside the link)."""
    box = client.evaluate(f"""(() => {{const el = document.querySelector({json.dumps(selector)});
        el.scrollIntoView({{block: 'center'}}); const r = el.getClientRects()[0] || el.getBoundingClientRect();
        return {{x: r.left + r.width / 2, y: r.top + r.height / 2}}}})()""")
    for kind in ("mousePressed", "mouseReleased"):
        client.send("Input.dispatchMouseEvent", type=kind, x=box["x"], y=box["y"], button="left", clickCount=1)


def in_view(client, selector: str) -> dict:
    """Whether the first match's middle lies in the viewport, and whether it is highlighted."""
    return client.evaluate(f"""(() => {{const el = document.querySelector({json.dumps(selector)});
        const r = el.getBoundingClientRect(), y = r.top + r.height / 2, x = r.left + r.width / 2;
        return {{visible: y >= 0 && y <= innerHeight && x >= 0 && x <= innerWidth,
                 highlighted: el.classList.contains('hl')}}}})()""")


def audit_on_screen(client) -> dict:
    """The audit as the first screen shows it: where it starts, the viewport's height, its text, and
    each plot's size and bars."""
    client.evaluate("window.scrollTo(0, 0)")
    time.sleep(0.2)
    return client.evaluate("""(() => {const a = document.querySelector('#audit'), r = a.getBoundingClientRect();
        return {top: r.top, height: innerHeight, text: a.innerText,
                plots: Array.from(a.querySelectorAll('svg.plot')).map(s => {const b = s.getBoundingClientRect();
                    return [b.width, b.height, s.querySelectorAll('rect').length]})}})()""")


def test_the_report_renders_offline_with_every_diagram(page, report, shots):
    client, found = page
    assert found == {"console": [], "failed": [], "remote": []}
    sizes = client.evaluate("""Array.from(document.querySelectorAll('.diagram svg')).map(s => {
        const r = s.getBoundingClientRect(); return [r.width, r.height]})""")
    assert len(sizes) == 1 + len(INPUTS) and all(w > 50 and h > 50 for w, h in sizes)
    rows = client.evaluate("document.querySelectorAll('#findings tbody tr').length")
    assert rows == len(report[1])
    errors = sum(f["severity"] == "error" for f in report[1])
    assert f"{errors} errors" in client.evaluate("document.querySelector('#summary').innerText")
    assert screenshot(client, shots / "report.png").stat().st_size > 20_000


def test_the_report_opens_with_the_audit_and_its_plots(page, report, shots):
    """The first screen is the audit: the traces by pattern, the behaviour findings by rule and the
    plots drawn in the page (no request made for them); a slowest trace's link opens its diagram."""
    client, found = page
    assert found["remote"] == [] and found["failed"] == []
    audit = audit_on_screen(client)
    assert 0 <= audit["top"] < audit["height"] / 2
    assert f"Audit of {1 + len(INPUTS)} traces" in audit["text"] and "Termination reasons" in audit["text"]
    behaviours = {f["rule"] for f in report[1] if f["family"] == "behaviour"}
    assert behaviours and all(code in audit["text"] for code in behaviours)
    assert len(audit["plots"]) >= 3 and all(w > 100 and h > 50 and bars >= 1 for w, h, bars in audit["plots"])
    screenshot(client, shots / "report-audit.png", full_page=False)
    target = client.evaluate("document.querySelector('#audit-slowest a').getAttribute('href')")
    click(client, "#audit-slowest a")
    time.sleep(0.3)
    assert in_view(client, f"{target} .diagram")["visible"] or in_view(client, target)["visible"]
    assert client.evaluate("location.hash") == target
    client.evaluate("history.replaceState(null, '', location.pathname)")


def test_a_click_on_a_finding_scrolls_to_its_node_and_back(page, shots):
    client, _ = page
    client.evaluate("window.scrollTo(0, 0)")
    link = 'tr[data-rule="C019"] a.to-node'
    node = client.evaluate(f"document.querySelector({json.dumps(link)}).dataset.node")
    assert not in_view(client, f"#{node}")["visible"]  # the diagrams lie below the findings
    click(client, link)
    time.sleep(0.2)
    assert in_view(client, f"#{node}") == {"visible": True, "highlighted": True}
    screenshot(client, shots / "report-finding-to-node.png", full_page=False)
    # And from the flagged node back to its finding's row.
    row = f'tr[data-node="{node}"]'
    client.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    assert not in_view(client, row)["visible"]
    click(client, f"#{node} polygon, #{node} path")
    time.sleep(0.2)
    assert in_view(client, row) == {"visible": True, "highlighted": True}
    screenshot(client, shots / "report-node-to-finding.png", full_page=False)


def test_the_filters_hide_the_rows_they_exclude(page, report, shots):
    client, _ = page
    findings = report[1]

    def choose(name: str, value: str) -> dict:
        client.evaluate(f"""(() => {{const s = document.querySelector('select.filter[name={name}]');
            s.value = {json.dumps(value)}; s.dispatchEvent(new Event('change'))}})()""")
        return client.evaluate("""(() => {const shown = sel => Array.from(document.querySelectorAll(sel))
            .filter(r => !r.hidden && r.offsetParent !== null);
            return {findings: shown('#findings tbody tr').map(r => [r.dataset.rule, r.dataset.severity]),
                    traces: shown('#traces tbody tr').length, sections: shown('section.trace').length,
                    count: document.getElementById('shown').textContent}})()""")

    # The misdirected Conclusion: C019 on it, C026 on the Observation it should derive from.
    errors = choose("severity", "error")
    assert sorted(errors["findings"]) == [["C019", "error"], ["C026", "error"]] and errors["count"] == "2"
    assert errors["traces"] == 1 and errors["sections"] == 1  # only the trace with the error is left, diagram too
    screenshot(client, shots / "report-filtered.png", full_page=False)
    choose("severity", "")
    # The rule found most often, beside the errors' rules and family.
    rule = max({f["rule"] for f in findings} - {"C019", "C026"}, key=lambda r: sum(f["rule"] == r for f in findings))
    by_rule = choose("rule", rule)
    assert len(by_rule["findings"]) == sum(f["rule"] == rule for f in findings)
    assert {r for r, _ in by_rule["findings"]} == {rule}
    # Filters combine: that rule and only errors leaves nothing, not a trace either.
    none = choose("severity", "error")
    assert none["findings"] == [] and none["traces"] == 0 and none["sections"] == 0 and none["count"] == "0"
    for name in ("rule", "severity"):
        everything = choose(name, "")
    assert len(everything["findings"]) == len(findings) and everything["traces"] == 1 + len(INPUTS)
    assert everything["sections"] == everything["traces"]


def test_the_report_reads_on_a_phone(page, report, shots):
    """At 390 px: nothing but tables and diagrams scrolls sideways (each inside its box), IRIs
    are short with the full IRI as tooltip and as what is copied, counts have their plurals."""
    client, _ = page
    client.send("Emulation.setDeviceMetricsOverride", width=390, height=844, deviceScaleFactor=1, mobile=True)
    try:
        client.evaluate("window.scrollTo(0, 0)")
        time.sleep(0.2)
        assert client.evaluate("document.scrollingElement.scrollWidth") <= 390
        iris = client.evaluate("""Array.from(document.querySelectorAll('#findings code.iri')).map(c => ({
            shown: c.textContent, full: c.title, copied: c.dataset.iri,
            lines: Math.round(c.getBoundingClientRect().height / parseFloat(getComputedStyle(c).lineHeight || 16))}))""")
        focuses = {f["focus"] for f in report[1]}
        assert iris and all(i["full"] in focuses and i["copied"] == i["full"] for i in iris)
        assert all(i["shown"].startswith("…") and len(i["shown"]) <= 24 for i in iris), iris[:3]
        assert all(i["lines"] <= 1 for i in iris), "an IRI wraps onto several lines"
        # Copying a shown IRI copies the full one.
        copied = client.evaluate("""(() => {const c = document.querySelector('#findings code.iri');
            const range = document.createRange(); range.selectNodeContents(c);
            getSelection().removeAllRanges(); getSelection().addRange(range);
            const data = new DataTransfer(); document.dispatchEvent(new ClipboardEvent('copy', {clipboardData: data,
            bubbles: true, cancelable: true})); return [c.dataset.iri, data.getData('text/plain')]})()""")
        assert copied[0] == copied[1] and copied[1].startswith("urn:")
        summary = client.evaluate("document.querySelector('#summary').innerText")
        warnings = sum(f["severity"] == "warning" for f in report[1])
        assert "2 errors" in summary and f"{warnings} warning{'s' if warnings != 1 else ''}" in summary
        # The diagrams keep their drawn size and scroll inside their box.
        boxes = client.evaluate("""Array.from(document.querySelectorAll('.diagram')).map(d => {
            const s = d.querySelector('svg'); return [d.getBoundingClientRect().width, s.getBoundingClientRect().width,
            s.width.baseVal.value]})""")
        assert boxes and all(box <= 390 and abs(drawn - natural) <= 1 for box, drawn, natural in boxes)
        screenshot(client, shots / "report-390.png", full_page=False)
    finally:
        client.send("Emulation.clearDeviceMetricsOverride")


def test_a_finding_in_the_report_carries_its_source_and_fix(page):
    client, _ = page
    cell = client.evaluate("document.querySelector('tr[data-rule=\"C019\"] td:nth-child(4)').innerText")
    assert " | " in cell and "^" in cell  # the source line with the term at fault marked
    assert "on the docs site" in cell
    href = client.evaluate("document.querySelector('tr[data-rule=\"C019\"] td:nth-child(4) a').href")
    assert href.endswith("/rules/C019/")


@pytest.fixture(scope="module")
def wide_report(tmp_path_factory):
    """Chromium at 1280 px with the report of a C019 fault, a V003 on a long line, and one trace
    that two files hold (the GraphRAG example as N-Quads and as JSON)."""
    folder = tmp_path_factory.mktemp("wide")
    deprecated = folder / "deprecated.nq"
    deprecated.write_text((EXAMPLES / "orchestrator-react-one-shot.nq").read_text()
                          .replace("<https://trustgraph.ai/ns/document>", "<https://trustgraph.ai/ns/content>"))
    out = folder / "report.html"
    inputs = [misdirected(folder), deprecated, EXAMPLES / "graph-rag.nq", EXAMPLES / "graph-rag.json"]
    result = CliRunner().invoke(main, ["lint", *map(str, inputs), "--format", "html", "-o", str(out), "--no-config"])
    assert result.exit_code == 1, result.output
    with chromium() as client:
        found = visit(client, out.as_uri(), local=("file://",))
        assert found == {"console": [], "failed": [], "remote": []}
        yield client


def test_an_excerpt_renders_as_lines_with_the_term_marked_under_it(wide_report, shots):
    client = wide_report
    excerpts = client.evaluate("""Array.from(document.querySelectorAll('#findings pre.source')).map(pre => {
        const range = document.createRange(); range.selectNodeContents(pre);
        const tops = new Set(Array.from(range.getClientRects()).filter(r => r.width > 0).map(r => Math.round(r.top)));
        return {text: pre.innerText, lines: tops.size, rule: pre.closest('tr').dataset.rule}})""")
    assert {e["rule"] for e in excerpts} >= {"C019", "V003"}
    for excerpt in excerpts:
        lines = excerpt["text"].split("\n")
        assert "\\n" not in excerpt["text"], excerpt
        # As the terminal shows it: a gutter, the numbered source line, the carets under the term.
        assert excerpt["lines"] == len(lines) >= 3, excerpt
        numbered = next(i for i, line in enumerate(lines) if re.match(r"\s*\d+ \| ", line))
        carets = lines[numbered + 1]
        assert re.fullmatch(r"\s*\| +\^+", carets), excerpt
        if excerpt["rule"] == "V003":
            start, end = carets.index("^"), carets.rindex("^") + 1
            assert lines[numbered][start:end] == "<https://trustgraph.ai/ns/content>"
    screenshot(client, shots / "report-excerpts.png", full_page=False)


def test_the_findings_table_fits_with_its_location_and_node_in_view(wide_report):
    client = wide_report
    assert client.evaluate("innerWidth") == 1280
    client.evaluate("window.scrollTo(0, 0)")
    fits = client.evaluate("""(() => {const box = document.querySelector('#findings').parentElement;
        return {overflow: box.scrollWidth - box.clientWidth, page: document.scrollingElement.scrollWidth,
                cells: Array.from(document.querySelectorAll('#findings tbody tr')).map(r => {
                    const where = r.cells[4].getBoundingClientRect(), node = r.cells[5].getBoundingClientRect();
                    return [r.cells[4].innerText, where.left >= 0 && where.right <= innerWidth,
                            node.left >= 0 && node.right <= innerWidth && node.width > 100]})}})()""")
    assert fits["overflow"] <= 0 and fits["page"] <= 1280, fits
    assert fits["cells"] and all(where and node for _, where, node in fits["cells"]), fits["cells"]
    assert all(re.search(r"\.(nq|json):\d+$", text) for text, _, _ in fits["cells"])


def test_the_traces_heading_counts_the_rows_of_its_table(wide_report):
    client = wide_report
    rows = client.evaluate("document.querySelectorAll('#traces tbody tr').length")
    heading = client.evaluate("document.querySelector('#traces').closest('section').querySelector('h2').innerText")
    census = client.evaluate("document.querySelector('header div').innerText")
    assert rows == 4
    assert "4 files, 3 traces" in census
    assert heading.startswith("Traces (4 rows: 3 traces"), heading
    # Filtered, the count follows the rows shown.
    client.evaluate("""(() => {const s = document.querySelector('select.filter[name=severity]');
        s.value = 'error'; s.dispatchEvent(new Event('change'))})()""")
    try:
        assert client.evaluate("document.getElementById('traces-shown').textContent") == "1"
    finally:
        client.evaluate("""(() => {const s = document.querySelector('select.filter[name=severity]');
            s.value = ''; s.dispatchEvent(new Event('change'))})()""")


def test_the_report_of_a_million_triples_opens_with_its_audit(tmp_path_factory):
    """The benchmark capture of 1M triples (real-emitter traces, 1% faulty): its HTML report, made
    in the run's one pass, is one offline file whose first screen is the audit, its numbers the
    JSON report's, its plots drawn."""
    import subprocess
    import sys

    from capture_support import corpus

    folder = tmp_path_factory.mktemp("million")
    source = corpus(1_000_000, folder)
    out = folder / "report.html"
    command = [sys.executable, "-m", "tgtrace.cli", "lint", str(source), "--no-config"]
    made = subprocess.run([*command, "--format", "html", "-o", str(out)], capture_output=True, text=True, timeout=600)
    assert made.returncode == 1, made.stderr[-2000:]
    listed = subprocess.run([*command, "--format", "json"], capture_output=True, text=True, timeout=600)
    audit = json.loads(listed.stdout)["audit"]
    shots = artifacts(tmp_path_factory, "report-screenshots")
    with chromium() as client:
        found = visit(client, out.as_uri(), local=("file://",))
        assert found == {"console": [], "failed": [], "remote": []}
        seen = audit_on_screen(client)
        screenshot(client, shots / "report-million-audit.png", full_page=False)
    assert 0 <= seen["top"] < seen["height"] / 2
    assert f"Audit of {audit['traces']} traces" in seen["text"]
    for row in audit["patterns"]:
        assert row["pattern"] in seen["text"]
    for row in audit["conformance"] + audit["behaviour"]:
        assert row["rule"] in seen["text"]
    assert len(seen["plots"]) >= 3 and all(w > 100 and h > 50 and bars >= 1 for w, h, bars in seen["plots"])
