"""The pattern pages: the patterns index, and the chain, entity table and trace each pattern page shows."""

from __future__ import annotations

import json

from tgtrace.rules.help import to_turtle

from .. import diagrams
from ..context import Context, SiteError, rel_html
from ..patterns import PATTERNS, Pattern, candidates
from ..traces import TG, Trace, first_explain_event

INDEX = "patterns/index.md"


def check(context: Context) -> list[str]:
    """What stops the build: a pattern no example shows."""
    return [f"no example under examples/ shows the {p.title} pattern" for p in PATTERNS
            if context.pattern_examples[p.slug] is None]


def pages(context: Context) -> dict[str, str]:
    rows = []
    for pattern in PATTERNS:
        trace = context.pattern_examples[pattern.slug]
        others = [t.name for t in candidates(pattern, context.traces) if t is not trace]
        rows.append((pattern, trace, others))
    return {INDEX: context.render("patterns-index.md.j2", INDEX, rows=rows)}


def trace_for(context: Context, slug: str, src: str, stem: str | None = None) -> tuple[Pattern, Trace]:
    """A pattern and the trace to draw: its chosen example, or the example ``stem`` when it shows the pattern."""
    pattern = next((p for p in PATTERNS if p.slug == slug), None)
    if pattern is None:
        raise SiteError(f"{src}: unknown pattern {slug!r}")
    if stem is None:
        return pattern, context.pattern_examples[slug]
    trace = next((t for t in context.traces if t.stem == stem), None)
    if trace is None:
        raise SiteError(f"{src}: no example examples/{stem}.nq")
    if not pattern.matches(trace):
        raise SiteError(f"{src}: examples/{trace.name} does not show the {pattern.title} pattern")
    return pattern, trace


def chain_diagram(context: Context, pattern: Pattern, trace: Trace, src: str) -> str:
    return context.diagram(
        f"pattern-{pattern.slug}-{trace.stem}",
        diagrams.trace_diagram(
            trace,
            context.specific,
            lambda iri: rel_html(src, context.term_src(iri)) if iri in context.vocab.classes else None,
            f"{pattern.title}: examples/{trace.name}",
        ),
    )


def pattern_directive(context: Context, args, options, src: str) -> str:
    """<!-- tgdocs:pattern SLUG -->: the chain, the entities in order and the whole example trace."""
    pattern, trace = trace_for(context, args[0], src)
    numbers = {node: i for i, node in enumerate(trace.chain_order, 1)}
    entities = [
        (numbers[node], trace.types[node], [numbers[p] for p in trace.parents(node) if p in numbers], node)
        for node in trace.chain_order
    ]
    graphs = [
        (f"`{graph}`" if graph else "the default graph (the extracted knowledge)", to_turtle(trace.graph_triples(graph))[0])
        for graph in trace.graphs
    ]
    return context.render(
        "directives/pattern.md.j2",
        src,
        trace=trace,
        producers=any(trace.producer(n) for n in trace.types),
        diagram=chain_diagram(context, pattern, trace, src),
        entities=entities,
        graphs=graphs,
    )


def chain_directive(context: Context, args, options, src: str) -> str:
    """<!-- tgdocs:chain SLUG STEM -->: a second example of a pattern, drawn only."""
    pattern, trace = trace_for(context, args[0], src, args[1])
    return f"Drawn from `examples/{trace.name}`:\n\n" + chain_diagram(context, pattern, trace, src)


def event_json(event: dict) -> str:
    """An explain event as JSON, one triple per line, so it reads as a list of statements."""
    lines = ["{"]
    fields = list(event.items())
    for index, (key, value) in enumerate(fields):
        comma = "," if index < len(fields) - 1 else ""
        if key == "explain_triples" and isinstance(value, list):
            lines.append(f'  "{key}": [')
            for position, triple in enumerate(value):
                end = "," if position < len(value) - 1 else ""
                lines.append("    " + json.dumps(triple, ensure_ascii=False) + end)
            lines.append("  ]" + comma)
        else:
            lines.append(f"  {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}{comma}")
    lines.append("}")
    return "\n".join(lines)


def explain_event_directive(context: Context, args, options, src: str) -> str:
    """<!-- tgdocs:explain-event type=CLASS -->: one recorded explain event of that question type."""
    found = first_explain_event(context.examples_dir, TG + options.get("type", "GraphRagQuestion"))
    if found is None:
        raise SiteError(f"{src}: no explain-event recording (*.jsonl) under examples/")
    file_name, event = found
    return context.render("directives/explain-event.md.j2", src, file_name=file_name, event=event_json(event)).removesuffix("\n")


DIRECTIVES = {
    "pattern": pattern_directive,
    "chain": chain_directive,
    "explain-event": explain_event_directive,
}
