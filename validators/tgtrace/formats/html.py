"""One self-contained HTML report: a CI artifact a person opens from file://.

Everything is inline (CSS, JS, each trace's SVG): the page loads nothing from
any network. It holds a summary, a sortable table of traces, the findings
with filters by rule, family and severity, each trace's diagram with its
faulty steps outlined (a click on a finding scrolls to its node, a click on
a node back to its findings), and the rules' explanations linked to the docs site.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable
from typing import Any

from ..ground.escaping import printable
from ..ground.limits import MAX_DIAGRAMS
from ..ground.model import Report, Severity
from ..inputs.excerpt import excerpts
from ..rules import all_rules
from ..rules.advice import advise
from ..run.settings import Output
from ..tracemodel.naming import short_iri
from ..views.audit import summarize
from ..views.traces import TraceView
from . import diagram
from .common import census, not_shown, plural, shown_location, shown_path
from .text import detail_lines

_CSS = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;color:#1f2933;background:#fafafa}
header{background:#3f51b5;color:#fff;padding:16px 24px}header h1{margin:0;font-size:20px}
main{padding:16px 24px;max-width:1400px}
section{background:#fff;border:1px solid #e0e0e0;border-radius:6px;padding:12px 16px;margin:16px 0}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:4px 8px;border-bottom:1px solid #eee;
vertical-align:top}th{cursor:pointer;user-select:none;background:#f5f5f5}th[data-dir]:after{content:attr(data-dir)}
.error{color:#c62828;font-weight:600}.warning{color:#ef6c00;font-weight:600}.info{color:#0277bd}
.counts span{margin-right:16px}.pill{display:inline-block;padding:0 6px;border-radius:8px;background:#eceff1}
.diagram{overflow:auto;max-height:80vh;border:1px solid #eee}.diagram svg{max-width:none}
.hl{outline:3px solid #ffb300;background:#fff8e1}g.node.hl path,g.node.hl polygon{stroke:#ffb300;stroke-width:5}
code{font-size:12px;word-break:break-all}.muted{color:#607d8b}label{margin-right:12px}
details{margin:6px 0}summary{cursor:pointer}
code.iri{word-break:normal;white-space:nowrap}.scroll{overflow-x:auto}
#traces td:nth-child(4){min-width:16em}
.advice{margin:2px 0 0;font-size:12px}pre.source{margin:4px 0;font-size:12px;overflow-x:auto}
#findings{table-layout:fixed;min-width:62em}#findings td{overflow-wrap:anywhere}
#findings .c-severity{width:6em}#findings .c-rule{width:4.5em}#findings .c-family{width:7.5em}
#findings .c-where{width:11em}#findings .c-node{width:14em}
#audit .plots{display:flex;flex-wrap:wrap;gap:12px}#audit figure{margin:0}#audit figcaption{font-size:12px}
#audit .grid{display:flex;flex-wrap:wrap;gap:24px}#audit .grid>div{min-width:14em}#audit table{width:auto}
#audit td.n{text-align:right}#audit td{overflow-wrap:anywhere}svg.plot rect{fill:#5c6bc0}svg.plot text{font-size:10px;fill:#455a64}
@media (max-width:600px){header,main{padding:8px 10px}section{padding:8px}header h1{font-size:18px}}
"""

_JS = """
(function(){
function sortTable(th){var table=th.closest('table'),i=[].indexOf.call(th.parentNode.children,th),
 dir=th.dataset.dir==' ▲'?-1:1;[].forEach.call(th.parentNode.children,function(h){delete h.dataset.dir});
 th.dataset.dir=dir==1?' ▲':' ▼';var body=table.tBodies[0],rows=[].slice.call(body.rows);
 rows.sort(function(a,b){var x=a.cells[i].dataset.v||a.cells[i].textContent,y=b.cells[i].dataset.v||b.cells[i].textContent;
 var nx=parseFloat(x),ny=parseFloat(y);if(!isNaN(nx)&&!isNaN(ny))return (nx-ny)*dir;return x.localeCompare(y)*dir});
 rows.forEach(function(r){body.appendChild(r)})}
document.querySelectorAll('th').forEach(function(th){th.addEventListener('click',function(){sortTable(th)})});
function flash(el){el.classList.add('hl');el.scrollIntoView({block:'center'});setTimeout(function(){el.classList.remove('hl')},2500)}
document.querySelectorAll('a.to-node').forEach(function(a){a.addEventListener('click',function(e){
 e.preventDefault();var el=document.getElementById(a.dataset.node);if(el){flash(el);history.replaceState(null,'','#'+a.dataset.node)}})});
document.querySelectorAll('g.node').forEach(function(g){var rows=document.querySelectorAll('tr[data-node="'+g.id+'"]');
 if(rows.length){g.style.cursor='pointer';g.addEventListener('click',function(e){e.preventDefault();flash(rows[0])})}});
var selects=document.querySelectorAll('select.filter');
function apply(){var want={};selects.forEach(function(s){want[s.name]=s.value});
 var shown={};document.querySelectorAll('#findings tbody tr').forEach(function(r){
  var ok=Object.keys(want).every(function(k){return !want[k]||r.dataset[k]==want[k]});r.hidden=!ok;
  if(ok&&r.dataset.trace)shown[r.dataset.trace]=1});
 var any=Object.keys(want).some(function(k){return want[k]});
 document.querySelectorAll('#traces tbody tr, section.trace').forEach(function(r){r.hidden=any&&!shown[r.dataset.trace]});
 document.getElementById('shown').textContent=document.querySelectorAll('#findings tbody tr:not([hidden])').length;
 document.getElementById('traces-shown').textContent=document.querySelectorAll('#traces tbody tr:not([hidden])').length}
selects.forEach(function(s){s.addEventListener('change',apply)});
// An IRI is shown short (its full form in the tooltip); copying it copies the full IRI.
document.addEventListener('copy',function(e){var sel=getSelection();if(!sel.rangeCount)return;
 var range=sel.getRangeAt(0),box=document.createElement('div');box.appendChild(range.cloneContents());
 function iriOf(n){if(n.nodeType!==1)n=n.parentElement;return n&&n.closest('code.iri')}
 var start=iriOf(range.startContainer),end=iriOf(range.endContainer);
 if(start&&start===end){e.clipboardData.setData('text/plain',start.dataset.iri);e.preventDefault();return}
 var iris=box.querySelectorAll('code.iri');if(!iris.length)return;
 iris.forEach(function(c){c.textContent=c.dataset.iri});
 e.clipboardData.setData('text/plain',box.textContent);e.preventDefault()});
})();
"""


# The characters of an IRI a table cell shows (the whole of it is its tooltip).
CELL_WIDTH = 20

def _e(text: object) -> str:
    return html.escape(printable(text if text is not None else ""), quote=True)


def _iri(iri: str | None) -> str:
    """An IRI in its short form (``…/i3/observation``), the full one as tooltip and when copied."""
    full = _e(iri)
    return f'<code class="iri" title="{full}" data-iri="{full}">{_e(short_iri(iri or "", CELL_WIDTH))}</code>'


def _ids(svg: str, prefix: str) -> str:
    """Node ids made unique per trace: a file may hold the same trace twice (.nq and .json)."""
    return re.sub(r'\bid="(n[0-9a-f]+|a_n[0-9a-f]+|edge\d+|a_edge\d+|clust\d+|graph\d+)"',
                  lambda m: f'id="{prefix}-{m.group(1)}"', svg)


# The report draws a trace of at most this many entities: dot's layout is worse than linear, and
# a drawing of thousands of nodes is no longer read (tg-trace graph draws any one trace).
MAX_DRAWN = 400


def _diagram(view: TraceView, prefix: str) -> str:
    entities = sum(1 + len(step.owned) for step in view.all_steps())
    if entities > MAX_DRAWN:
        return (f'<p class="muted">No diagram: the trace has {entities:,} entities, and the report draws at most '
                f"{MAX_DRAWN:,} (tg-trace graph draws it).</p>")
    try:
        svg = diagram.render_svg(diagram.trace_dot(view))
    except diagram.DiagramError as exc:
        return f'<p class="muted">No diagram: {_e(exc)}</p>'
    return f'<div class="diagram">{_ids(svg, prefix)}</div>'


def _table(head: Iterable[str], rows: Iterable[Iterable[object]], numeric_from: int = 1) -> str:
    """A small table of the audit; the cells from ``numeric_from`` on are numbers, right-aligned."""
    cells = "".join(f"<th>{_e(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(f'<td class="n">{c}</td>' if i >= numeric_from else f"<td>{c}</td>"
                                    for i, c in enumerate(row)) + "</tr>" for row in rows)
    return f"<table><thead><tr>{cells}</tr></thead><tbody>{body}</tbody></table>"


def _n(value: int | None) -> str:
    return "" if value is None else f"{value:,}"


# A plot's size in px: its bars share the width, the height is the tallest bar's.
PLOT_WIDTH, PLOT_HEIGHT = 240, 70


def _plot(data: dict[str, Any] | None, caption: str, unit: str) -> str:
    """A distribution as an inline SVG histogram (its bins in powers of two), drawn here: the
    report loads nothing. Each bar's tooltip gives its bin and count."""
    if data is None:
        return ""
    bins = data["bins"]
    tallest = max(b["count"] for b in bins)
    width = PLOT_WIDTH / len(bins)
    bars = []
    for index, b in enumerate(bins):
        height = max(1.0, PLOT_HEIGHT * b["count"] / tallest)
        x, y = index * width, PLOT_HEIGHT - height
        bars.append(f'<rect x="{x + 1:.1f}" y="{y:.1f}" width="{max(1.0, width - 2):.1f}" height="{height:.1f}">'
                    f'<title>{b["from"]:,} to {b["to"]:,} {_e(unit)}: {b["count"]:,}</title></rect>')
    axis = (f'<text x="0" y="{PLOT_HEIGHT + 12}">{bins[0]["from"]:,}</text>'
            f'<text x="{PLOT_WIDTH}" y="{PLOT_HEIGHT + 12}" text-anchor="end">{bins[-1]["to"]:,} {_e(unit)}</text>')
    summary = (f'{data["count"]:,} · median {data["median"]:,} · p90 {data["p90"]:,} · max {data["max"]:,}')
    return (f'<figure><svg class="plot" role="img" width="{PLOT_WIDTH}" height="{PLOT_HEIGHT + 16}" '
            f'viewBox="0 0 {PLOT_WIDTH} {PLOT_HEIGHT + 16}" xmlns="http://www.w3.org/2000/svg">'
            f'<title>{_e(caption)}</title>{"".join(bars)}{axis}</svg>'
            f"<figcaption><b>{_e(caption)}</b><br>{summary}</figcaption></figure>")


def _audit(audit: dict[str, Any], prefix_of: dict[tuple, str]) -> str:
    """The audit at a glance: traces by pattern and release, termination reasons, findings by
    rule, the distributions drawn as plots, and the slowest and longest traces linked to their
    diagrams."""
    def rules(rows: list[dict]) -> str:
        return _table(("rule", "severity", "findings", "traces"),
                      ((f'<a href="#rule-{_e(r["rule"])}">{_e(r["rule"])}</a>', _e(r["severity"]),
                        _n(r["findings"]), _n(r["traces"])) for r in rows), 2) if rows else "<p>none</p>"

    def traces(rows: list[dict]) -> str:
        def name(r: dict) -> str:
            prefix = prefix_of.get((r["file"], r["trace"]))
            shown = _e(r["question"] or r["trace"])
            return f'<a href="#{prefix}">{shown}</a>' if prefix else shown
        return _table(("trace", "pattern", "steps", "duration (ms)", "tokens"),
                      ((name(r), _e(r["pattern"]), _n(r["steps"]), _n(r["duration_ms"]), _n(r["tokens"]))
                       for r in rows), 2)

    grid = [
        "<div><h3>Traces by pattern and release</h3>" + _table(
            ("pattern", "release", "traces"),
            ((_e(r["pattern"]), _e(r["release"]), _n(r["traces"])) for r in audit["patterns"]), 2) + "</div>",
        "<div><h3>Termination reasons</h3>" + _table(
            ("reason", "traces"), ((_e(r["reason"]), _n(r["traces"])) for r in audit["termination"])) + "</div>",
        f'<div id="audit-conformance"><h3>Conformance findings by rule</h3>{rules(audit["conformance"])}</div>',
        f'<div id="audit-behaviour"><h3>Behaviour findings by rule</h3>{rules(audit["behaviour"])}</div>',
    ]
    plots = [_plot(audit["iterations"], "iterations per agent trace", "iterations")]
    for row in audit["step_kinds"]:
        plots.append(_plot(row["duration_ms"], f"{row['kind']}: duration", "ms"))
        plots.append(_plot(row["tokens"], f"{row['kind']}: tokens", "tokens"))
    return (f'<section id="audit"><h2>Audit of {plural(audit["traces"], "trace")}</h2>'
            f'<div class="grid">{"".join(grid)}</div>'
            f'<h3>Distributions</h3><div class="plots">{"".join(p for p in plots if p)}</div>'
            f'<div class="grid"><div id="audit-slowest"><h3>Slowest traces</h3>{traces(audit["slowest"])}</div>'
            f'<div id="audit-longest"><h3>Longest traces</h3>{traces(audit["longest"])}</div></div></section>')


def _drawn(views: list[TraceView], audit: dict[str, Any] | None, bound: int) -> set[int]:
    """The indexes of the views whose diagram is drawn: at most ``bound``, those with errors first,
    then warnings, then the traces the audit lists, then those with information findings, each
    group in input order."""
    listed = {(r["file"], r["trace"]) for key in ("slowest", "longest") for r in (audit or {}).get(key, ())}

    def rank(index: int) -> tuple:
        view = views[index]
        counts = view.counts()
        return (not counts["error"], not counts["warning"], (view.file, view.trace) not in listed,
                not counts["info"], index)
    return set(sorted(range(len(views)), key=rank)[:bound])


def render(report: Report, output: Output | None = None) -> str:
    root = getattr(output, "root", None)
    rules = all_rules()
    # The views the run built of each graph it judged (the face asks for them: the format needs them).
    views: list[TraceView] = report.views or []
    prefix_of: dict[tuple, str] = {}
    node_of: dict[tuple, str] = {}
    for index, view in enumerate(views):
        prefix = f"t{index}"
        prefix_of[(view.file, view.trace)] = prefix
        for step in view.all_steps():
            node_of[(view.file, step.node)] = f"{prefix}-{diagram.node_id(step.node)}"
            for finding in step.findings:
                node_of.setdefault((view.file, finding.focus), f"{prefix}-{diagram.node_id(step.node)}")
    counts = report.counts()
    parts = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        # Nothing may load from elsewhere: the report is an artifact opened offline.
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
        "script-src 'unsafe-inline'; img-src data:\">",
        "<title>tg-trace report</title>", f"<style>{_CSS}</style></head><body>",
        "<header><h1>tg-trace report</h1>",
        f"<div>{census(report.file_count, len(report.traces), report.repeated, sum(report.items.values()))}, "
        f"{plural(report.triples, 'triple')}: {'passed' if report.conforms else 'failed'}</div>"
        + (f'<div class="warning" id="gate-off">{_e(report.gate_off)}</div>' if report.gate_off else "")
        + "".join(f'<div class="muted note">{_e(note)}</div>' for note in report.notes)
        + "</header><main>",
        '<section id="summary"><h2>Summary</h2><div class="counts">'
        f'<span class="error">{plural(counts.get("error", 0), "error")}</span>'
        f'<span class="warning">{plural(counts.get("warning", 0), "warning")}</span>'
        f'<span class="info">{counts.get("info", 0)} info</span>'
        # --show: the counts are of every finding; the table lists those at or above it.
        + (f'<span class="muted" id="not-shown">{not_shown(report)}</span>' if report.not_shown else "")
        + "</div></section>",
    ]
    audit = summarize(report.audit, report.findings) if report.audit is not None else None
    if audit is not None:
        parts.append(_audit(audit, prefix_of))
    # Traces.
    # Its heading counts its rows; a trace that several files hold has a row for each file.
    rows = f'<span id="traces-shown">{len(views)}</span>'
    heading = (f"Traces ({rows})" if len(views) == len(report.traces) else
               f"Traces ({rows} rows: {plural(len(report.traces), 'trace')}, a row for each file that holds one)")
    parts.append(f'<section><h2>{heading}</h2><div class="scroll"><table id="traces"><thead><tr><th>trace</th>'
                 "<th>file</th><th>pattern</th><th>question</th><th>steps</th><th>error</th><th>warning</th><th>info</th>"
                 "</tr></thead><tbody>")
    for view in views:
        c = view.counts()
        prefix = prefix_of[(view.file, view.trace)]
        parts.append(f'<tr data-trace="{prefix}"><td><a href="#{prefix}">{_iri(view.trace)}</a></td>'
                     f"<td>{_e(shown_path(view.file, root))}</td><td>{_e(view.pattern)}</td>"
                     f"<td>{_e(view.question)}</td><td>{view.step_count}</td>"
                     f'<td class="error">{c["error"] or ""}</td><td class="warning">{c["warning"] or ""}</td>'
                     f'<td class="info">{c["info"] or ""}</td></tr>')
    parts.append("</tbody></table></div></section>")
    # Findings with filters.
    used = sorted({f.rule for f in report.findings})
    families = sorted({f.family for f in report.findings})

    def select(name: str, values: Iterable[str]) -> str:
        options = "".join(f'<option value="{_e(v)}">{_e(v)}</option>' for v in values)
        return f'<label>{name} <select class="filter" name="{name}"><option value="">all</option>{options}</select></label>'

    parts.append('<section><h2>Findings (<span id="shown">' + str(len(report.findings)) + "</span>)</h2>"
                 + select("rule", used) + select("family", families)
                 + select("severity", [str(s) for s in (Severity.ERROR, Severity.WARNING, Severity.INFO)])
                 # Fixed widths: a long excerpt scrolls in its cell, the location and node stay in view.
                 + '<div class="scroll"><table id="findings"><colgroup>'
                 + "".join(f'<col class="c-{name}">' for name in ("severity", "rule", "family", "message", "where", "node"))
                 + "</colgroup><thead><tr><th>severity</th><th>rule</th><th>family</th><th>message</th>"
                 "<th>where</th><th>node</th></tr></thead><tbody>")
    sources = excerpts(report.findings, report.held)
    for finding in report.findings:
        node = node_of.get((finding.file, finding.focus))
        trace = prefix_of.get((finding.file, finding.trace), "")
        link = (f'<a class="to-node" href="#{node}" data-node="{node}">{_iri(finding.focus)}</a>'
                if node else _iri(finding.focus))
        advice = advise(finding)
        message = _e(advice.message if advice is not None else finding.message)
        # The source line with the term at fault marked, what the rule accepts, the fix and its page.
        details = detail_lines(finding, None, sources.get(finding))
        if details:
            # Each line escaped on its own: the line breaks are the excerpt's layout, kept as lines.
            message += '<pre class="source">' + "\n".join(_e(line) for line in details) + "</pre>"
        if advice is not None:
            message += "".join(f'<p class="advice">{_e(note)}</p>' for note in advice.sentences)
            message += (f'<p class="advice">{_e(advice.fix)} <a href="{_e(advice.url)}">'
                        f'{_e(finding.rule)} on the docs site</a></p>')
        parts.append(f'<tr data-rule="{_e(finding.rule)}" data-family="{_e(finding.family)}" '
                     f'data-severity="{finding.severity}" data-trace="{trace}" data-node="{node or ""}">'
                     f'<td class="{finding.severity}" data-v="{int(finding.severity)}">{finding.severity}</td>'
                     f'<td><a href="#rule-{_e(finding.rule)}">{_e(finding.rule)}</a></td><td>{_e(finding.family)}</td>'
                     f"<td>{message}</td><td>{_e(shown_location(finding.file, finding.line, root))}</td>"
                     f"<td>{link}</td></tr>")
    parts.append("</tbody></table></div></section>")
    # Each trace's diagram, of as many traces as the bound allows.
    bound = output.diagrams if output is not None else MAX_DIAGRAMS
    drawn = _drawn(views, audit, bound)
    undrawn = (f'<p class="muted">No diagram: the report draws {plural(bound, "trace")}\' diagrams of '
               f"{len(views):,}, those with the most severe findings first (--diagrams; tg-trace graph draws any "
               "one).</p>")
    for index, view in enumerate(views):
        prefix = prefix_of[(view.file, view.trace)]
        parts.append(f'<section class="trace" id="{prefix}" data-trace="{prefix}"><h2>[{_e(view.pattern)}] {_e(view.question or view.trace)}</h2>'
                     f'<p class="muted">{_iri(view.trace)} in {_e(shown_path(view.file, root))}'
                     + (f" · trace model of TrustGraph {_e(view.trace_model)}" if view.trace_model else "")
                     + "</p>" + (_diagram(view, prefix) if index in drawn else undrawn) + "</section>")
    # Rules.
    if used:
        parts.append("<section><h2>Rules</h2>")
        for code in used:
            rule = rules.get(code)
            if rule is None:
                continue
            parts.append(f'<details id="rule-{_e(code)}"><summary><b>{_e(code)}</b> {_e(rule.name)}: '
                         f"{_e(rule.title)}</summary><p>{_e(rule.rationale)}</p><p><b>Fix:</b> {_e(rule.fix)}</p>"
                         f'<p><a href="{_e(rule.help_uri)}">{_e(code)} on the docs site</a></p></details>')
        parts.append("</section>")
    parts.append(f"</main><script>{_JS}</script></body></html>")
    return "\n".join(parts)
