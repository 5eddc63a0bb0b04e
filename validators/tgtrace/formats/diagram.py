"""Derivation diagrams drawn with Graphviz: `tg-trace graph`, the HTML report and the docs
site's chain diagrams share this one module.

The DOT source is built here (no Graphviz needed for `.dot`); ``render`` runs
Graphviz's ``dot`` for SVG or PNG. Derivations are drawn from the older entity
down to the newer, the arrow pointing back the way ``prov:wasDerivedFrom`` points.
"""

from __future__ import annotations

import re
import shutil
import subprocess

from ..ground.errors import TgTraceError
from ..ground.escaping import bounded, message, printable
from ..ground.model import Severity
from ..tracemodel.naming import within_session
from ..tracemodel.traces import CHAIN
from ..views.traces import TraceView
from .common import ORPHAN

FONT = "Helvetica,Arial,sans-serif"
# The docs site theme's indigo palette, so diagrams read as part of the page.
STEP = {"shape": "box", "style": "rounded,filled", "fillcolor": "#e8eaf6", "color": "#3f51b5"}
DETAIL = {"shape": "note", "style": "filled", "fillcolor": "#fff8e1", "color": "#ff8f00"}
OTHER = {"shape": "ellipse", "style": "filled", "fillcolor": "#eceff1", "color": "#607d8b"}
# Fill colour by kind of step, so a chain's phases read at a glance.
KIND_COLOURS = {
    "Question": "#c5cae9", "AgentQuestion": "#c5cae9", "GraphRagQuestion": "#c5cae9", "DocRagQuestion": "#c5cae9",
    "PatternDecision": "#d1c4e9", "Plan": "#d1c4e9", "Decomposition": "#d1c4e9",
    "Grounding": "#e0f2f1", "Exploration": "#e0f2f1", "Focus": "#e0f2f1",
    "Analysis": "#e3f2fd", "Observation": "#f1f8e9", "StepResult": "#f1f8e9", "Finding": "#f1f8e9",
    "Conclusion": "#c8e6c9", "Synthesis": "#c8e6c9",
    "Document": "#eceff1", "Page": "#eceff1", "Chunk": "#eceff1", "Subgraph": "#eceff1",
}
FAULT = "#d32f2f"
_SEVERITY_COLOUR = {Severity.ERROR: FAULT, Severity.WARNING: "#f57c00", Severity.INFO: "#0288d1"}


class DiagramError(TgTraceError, RuntimeError):
    """Graphviz is missing or failed."""


# Characters of one quoted DOT string: Graphviz (2.43) refuses a quoted string over 16 KiB, and
# a character is at most 4 bytes of UTF-8.
QUOTED_LIMIT = 2000


def quote(text: str) -> str:
    """A DOT quoted string of ``text``: its line breaks kept as DOT's, every other unsafe
    character escaped (a NUL ends dot's input, a control character makes the SVG ill-formed),
    bounded so that dot accepts it."""
    shown = bounded("\n".join(printable(line) for line in str(text).split("\n")), QUOTED_LIMIT)
    return '"' + shown.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def attrs(values: dict) -> str:
    return "[" + ", ".join(f"{k}={quote(v)}" for k, v in values.items()) + "]"


def header(name: str, graph: dict | None = None, node: dict | None = None, edge: dict | None = None) -> list[str]:
    """The opening lines of a digraph with the site's fonts and spacing."""
    return [
        f"digraph {name} {{",
        "  graph " + attrs({"rankdir": "TB", "fontname": FONT, "bgcolor": "transparent", "nodesep": "0.3",
                            "ranksep": "0.35", **(graph or {})}) + ";",
        "  node " + attrs({"fontname": FONT, "fontsize": "11", "margin": "0.12,0.05", **(node or {})}) + ";",
        "  edge " + attrs({"fontname": FONT, "fontsize": "9", "color": "#455a64", "fontcolor": "#455a64",
                           **(edge or {})}) + ";",
    ]


def graphviz() -> str:
    dot = shutil.which("dot")
    if dot is None:
        raise DiagramError("Graphviz 'dot' is not installed; install graphviz (e.g. apt-get install graphviz, "
                           "brew install graphviz), or write .dot")
    return dot


# Seconds dot may take to lay a drawing out (its layout is worse than linear in the nodes).
DOT_TIMEOUT = 120


def render(dot_source: str, fmt: str = "svg") -> bytes:
    """Run ``dot -T<fmt>`` (svg or png)."""
    try:
        result = subprocess.run([graphviz(), f"-T{fmt}"], input=dot_source.encode(), capture_output=True,
                                timeout=DOT_TIMEOUT)
    except subprocess.TimeoutExpired:
        raise DiagramError(f"dot took longer than {DOT_TIMEOUT} seconds to lay the drawing out; draw one trace "
                           "with tg-trace graph --trace, or write .dot") from None
    if result.returncode != 0:
        raise DiagramError(f"dot failed: {message(result.stderr.decode(errors='replace').strip())}")
    return result.stdout


def inline_svg(svg: bytes | str) -> str:
    """An SVG ready to inline in HTML: no XML declaration, doctype or comments."""
    text = svg.decode("utf-8") if isinstance(svg, bytes) else svg
    return re.sub(r"<\?xml[^>]*\?>|<!DOCTYPE[^>]*>|<!--.*?-->", "", text, flags=re.S).strip()


def render_svg(dot_source: str) -> str:
    """The inline SVG of a DOT source."""
    return inline_svg(render(dot_source, "svg"))


def node_id(iri: str) -> str:
    """A stable id for an entity in the SVG (the HTML report links findings to it)."""
    return "n" + format(abs(hash_iri(iri)), "x")


# The characters of an entity's name a diagram's box shows (its tooltip holds the IRI).
LABEL_WIDTH = 40

def hash_iri(iri: str) -> int:
    # FNV-1a: stable across runs (Python's hash() is salted per process).
    value = 0xcbf29ce484222325
    for byte in iri.encode():
        value = ((value ^ byte) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return value


def trace_dot(view: TraceView, title: str | None = None) -> str:
    """Graphviz source for one trace: steps coloured by kind with their mixins, owned details
    (Thoughts, selections) as notes, sub-traces as clusters, links that break a rule in red
    with the rule code, and nodes with findings outlined by their worst severity."""
    lines = header("trace", graph={"tooltip": title or view.trace, "compound": "true"})
    drawn: dict[str, str] = {}
    edges: list[tuple[str, str, str]] = []
    faulty_links: dict[tuple, list[str]] = {}
    for step in view.all_steps():
        for finding in step.findings:
            if finding.value is not None and finding.path is not None:
                faulty_links.setdefault((finding.focus, finding.path, finding.value), []).append(finding.rule)


    def draw(trace: TraceView, indent: str) -> None:
        for step in trace.steps:
            ident = drawn[step.node] = node_id(step.node)
            mixins = [t for t in step.types if t != step.kind and t != "Question"]
            label = step.kind + (" +" + " +".join(mixins) if mixins else "")
            if step.number is not None:
                label += f" #{step.number}"
            if step.action:
                label += f"\n{step.action}"
            tail = within_session(step.node, LABEL_WIDTH)
            if tail:
                label += f"\n{tail}"
            style = dict(STEP, fillcolor=KIND_COLOURS.get(step.kind, STEP["fillcolor"]), label=label,
                         tooltip=step.node, id=ident)
            if step.orphan:
                label += f"\n({ORPHAN})"
                style.update(label=label, style="rounded,filled,dashed")
            if step.findings:
                worst = max(f.severity for f in step.findings)
                codes = sorted({f.rule for f in step.findings})
                style.update(color=_SEVERITY_COLOUR[worst], penwidth="2.5", label=label + "\n" + " ".join(codes),
                             tooltip=step.node + "\n" + "\n".join(f"{f.rule}: {f.message}" for f in step.findings))
            lines.append(f"{indent}{ident} {attrs(style)};")
            for iri, kind, predicate in step.owned:
                if iri in drawn:
                    continue
                sub = drawn[iri] = node_id(iri)
                lines.append(f"{indent}{sub} {attrs(dict(DETAIL, label=kind, tooltip=iri, id=sub, fontsize='9'))};")
                edges.append((step.node, predicate, iri))
            for subtrace in step.subtraces:
                cluster = node_id(subtrace.trace).replace("n", "cluster_", 1)
                lines.append(f"{indent}subgraph {cluster} {{")
                lines.append(f"{indent}  graph {attrs({'label': f'{subtrace.pattern}: {subtrace.question or subtrace.trace}'[:80], 'style': 'dashed,rounded', 'color': '#7986cb', 'fontsize': '10', 'tooltip': subtrace.trace})};")
                draw(subtrace, indent + "  ")
                lines.append(f"{indent}}}")

    draw(view, "  ")
    for step in view.all_steps():
        for link, parent in step.chain:
            edges.append((step.node, link, parent))
    missing: set = set()
    for source, predicate, target in edges:
        rules = faulty_links.get((source, predicate, target), [])
        if target not in drawn:
            # A link to an entity the trace does not hold: drawn, dashed, so the cut shows.
            drawn[target] = node_id(target)
            if target not in missing:
                missing.add(target)
                lines.append(f"  {drawn[target]} {attrs(dict(OTHER, style='dashed', label=within_session(target, LABEL_WIDTH) + chr(10) + '(not in the trace)', tooltip=target, id=drawn[target]))};")
        style: dict = {"tooltip": f"{source} {predicate.rsplit('#', 1)[-1].rsplit('/', 1)[-1]} {target}"}
        if predicate in CHAIN:
            line = f"  {drawn[target]} -> {drawn[source]}"
            style["dir"] = "back"
        else:
            line = f"  {drawn[source]} -> {drawn[target]}"
            style.update(style="dashed", color="#ff8f00", arrowhead="none")
        if rules:
            style.update(color=FAULT, fontcolor=FAULT, penwidth="2.5", label=" " + " ".join(sorted(set(rules))),
                         **{"class": "fault"})
        lines.append(line + " " + attrs(style) + ";")
    lines.append("}")
    return "\n".join(lines) + "\n"


def chains_dot(chains: list[tuple[str, TraceView]]) -> str:
    """Several traces' chains side by side, one titled cluster each, steps named by their kind:
    an overview of the patterns (the docs site's home page)."""
    lines = header("chains", graph={"newrank": "true", "nodesep": "0.2", "ranksep": "0.25"},
                   node={"fontsize": "10"})
    for index, (title, view) in enumerate(chains):
        steps = list(view.all_steps())
        drawn = {step.node: f"c{index}_{node_id(step.node)}" for step in steps}
        lines.append(f"  subgraph cluster_{index} {{")
        lines.append("    graph " + attrs({"label": title, "style": "rounded", "color": "#9fa8da",
                                          "fontsize": "12", "tooltip": view.trace}) + ";")
        for step in steps:
            style = dict(STEP, fillcolor=KIND_COLOURS.get(step.kind, STEP["fillcolor"]), label=step.kind,
                         tooltip=step.node)
            lines.append(f"    {drawn[step.node]} {attrs(style)};")
        for step in steps:
            for parent in step.parents:
                if parent in drawn:
                    lines.append(f"    {drawn[parent]} -> {drawn[step.node]} [dir=back];")
        lines.append("  }")
    lines.append("}")
    return "\n".join(lines) + "\n"
