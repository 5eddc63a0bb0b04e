"""What `tg-trace` shows of the examples, generated when the site is built: the output of
`show` as a picture of the terminal, the HTML report of a few examples (a file of the site,
shown in the page), and the home page's overview of the five patterns' chains.

Each is made by the package's own code (``tgtrace.views.traces``, ``tgtrace.formats``), so the
pictures cannot drift from what the commands print.
"""

from __future__ import annotations

import re

from tgtrace.api import lint
from tgtrace.formats import diagram, listshow, render
from tgtrace.tracemodel.traces import AGENT_PATTERNS, RAG_PATTERNS
from tgtrace.views import audit
from tgtrace.views import traces as traceviews

from ..context import DIAGRAM_MARK, Context, SiteError, rel_html
from ..patterns import PATTERNS

# The query patterns of the home page's overview, in the order a reader meets them (the trace
# model's, extraction aside).
OVERVIEW = tuple(p.slug for p in PATTERNS if p.pattern in (*RAG_PATTERNS.values(), *AGENT_PATTERNS))
REPORT = "explore/report.html"
# The report's inputs: clean traces of several patterns and traces with findings of several rules.
REPORT_EXAMPLES = ("graph-rag.nq", "supervisor.nq", "orchestrator-react-max-iterations.nq",
                   "legacy-react-one-shot.nq", "releases/2.1.16/react.nq")


def _path(context: Context, name: str) -> str:
    path = context.examples_dir / name
    if not path.is_file():
        raise SiteError(f"examples/{name} is missing")
    return str(path)


def pages(context: Context) -> dict[str, str]:
    """The HTML report of the examples, a page of the site of its own."""
    # The run builds the traces' views and their audit in its pass, as `lint --format html` has it.
    visit = audit.AuditVisit(traceviews.ViewsVisit(), keep=True)
    report = lint(*(_path(context, name) for name in REPORT_EXAMPLES), visit=visit)
    # Files named relative to the checkout (examples/...), as the README and the tests name them.
    return {REPORT: render(report, "html", root=str(context.examples_dir.parent))}


def _inline(context: Context, key: str, svg: str) -> str:
    context.diagrams[key] = svg
    return f'<div class="tg-diagram" markdown="0">{DIAGRAM_MARK}{key}</div>'


def overview_directive(context: Context, args, options, src: str) -> str:
    """<!-- tgdocs:patterns-overview -->: the five patterns' chains in one picture."""
    chains = []
    for slug in OVERVIEW:
        pattern = next(p for p in PATTERNS if p.slug == slug)
        trace = context.pattern_examples.get(slug)
        if trace is None:
            raise SiteError(f"{src}: no example of the {pattern.title} pattern")
        (view,) = traceviews.build(_path(context, trace.name))
        chains.append((pattern.title, view))
    return _inline(context, "patterns-overview", diagram.render_svg(diagram.chains_dot(chains)))


def show_directive(context: Context, args, options, src: str) -> str:
    """<!-- tgdocs:show EXAMPLE -->: what `tg-trace show examples/EXAMPLE` prints, as a picture."""
    found = traceviews.build(_path(context, args[0]))
    if not found:
        raise SiteError(f"{src}: examples/{args[0]} holds no trace")
    svg = listshow.render_show(found, "svg", width=int(options.get("width", 100)))
    svg = re.sub(r"<!--.*?-->", "", svg, flags=re.S)
    # The picture's own size, so the page can scale it to the column (and the tests see a size).
    width, height = re.search(r'viewBox="0 0 ([0-9.]+) ([0-9.]+)"', svg).groups()
    svg = svg.replace("<svg ", f'<svg width="{width}" height="{height}" ', 1)
    return f"`tg-trace show examples/{args[0]}`:\n\n" + _inline(context, f"show-{args[0]}", svg)


def report_directive(context: Context, args, options, src: str) -> str:
    """<!-- tgdocs:report -->: the HTML report of the examples, shown in the page and linked."""
    link = rel_html(src, REPORT)
    names = ", ".join(f"`examples/{name}`" for name in REPORT_EXAMPLES)
    return (f"The report of {names}, as `tg-trace lint --format html` writes it "
            f"([open it on its own]({link})):\n\n"
            f'<iframe class="tg-report" src="{link}" title="tg-trace HTML report of the examples" '
            'loading="lazy"></iframe>')


DIRECTIVES = {
    "patterns-overview": overview_directive,
    "show": show_directive,
    "report": report_directive,
}
