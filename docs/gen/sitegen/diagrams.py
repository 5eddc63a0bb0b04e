"""Diagrams drawn at build time with Graphviz, embedded in the page as SVG.

Drawing at build time means a reader's browser needs no diagram library and
no network: the page carries the picture.
"""

from __future__ import annotations

# The DOT building and the Graphviz call are tgtrace's own (tg-trace graph draws with them too):
# one drawing module, so the site's chains and the command's look alike.
from tgtrace.formats.diagram import DETAIL, OTHER, STEP, DiagramError, header, render_svg  # noqa: F401
from tgtrace.formats.diagram import attrs as _attrs
from tgtrace.tracemodel.naming import within_session

from .traces import DERIVED, GENERATED, PROV_ENTITY, TG, Trace


def short_types(types: list[str], specific) -> list[str]:
    """The tg: types worth naming on a node: those no other asserted type specialises."""
    tg_types = [t for t in types if t.startswith(TG)]
    return specific(tg_types) or tg_types or types


def trace_diagram(trace: Trace, specific, page_of, title: str) -> str:
    """Graphviz source for one example trace, drawn from its own derivation edges.

    ``specific(types)`` keeps the most specific of a node's types; ``page_of(iri)``
    gives the URL of a class page (or None), so each node links to its class.
    Derivations are drawn from the older entity down to the newer, with the
    arrow pointing back the way ``prov:wasDerivedFrom`` points.
    """
    ids = {node: f"n{i}" for i, node in enumerate(trace.chain_order)}
    lines = header("trace", graph={"tooltip": title})
    # Before 2.2.13 some steps are linked by prov:wasGeneratedBy: drawn as a chain link too, dashed.
    derived_nodes = {n for s, p, o in trace.links if p in (DERIVED, GENERATED) for n in (s, o)}
    # Activities and agents (extraction provenance) would double the drawing;
    # each entity names the component that produced it instead.
    hidden = {n for n, types in trace.types.items() if not any(t.startswith(TG) or t == PROV_ENTITY for t in types)}
    for number, node in enumerate(trace.chain_order, 1):
        types = trace.types[node]
        if node in hidden:
            continue
        names = [t.rsplit("/", 1)[-1].rsplit("#", 1)[-1] for t in short_types(types, specific)]
        tail = within_session(node)
        # Numbered as in the page's table of entities.
        label = f"{number}. " + " · ".join(names) + (f"\n{tail}" if tail and len(tail) <= 40 else "")
        producer = trace.producer(node)
        if producer:
            label += f"\nby {producer}"
        if PROV_ENTITY in types or node in derived_nodes:
            style = dict(STEP)
        elif any(t.startswith(TG) for t in types):
            style = dict(DETAIL)
        else:
            style = dict(OTHER)
        style["label"] = label
        style["tooltip"] = node
        main = next((t for t in short_types(types, specific) if page_of(t)), None)
        if main is not None:
            style["URL"] = page_of(main)
            style["target"] = "_top"
        lines.append(f"  {ids[node]} {_attrs(style)};")
    for s, p, o in trace.links:
        if s in hidden or o in hidden:
            continue
        if p == DERIVED:
            lines.append(f"  {ids[o]} -> {ids[s]} {_attrs({'dir': 'back', 'tooltip': f'{s} prov:wasDerivedFrom {o}'})};")
        elif p == GENERATED:
            lines.append(f"  {ids[o]} -> {ids[s]} " + _attrs({
                "dir": "back", "style": "dashed", "label": " prov:wasGeneratedBy",
                "tooltip": f"{s} prov:wasGeneratedBy {o}"}) + ";")
        else:
            name = p.rsplit("/", 1)[-1].rsplit("#", 1)[-1]
            prefix = "tg:" if p.startswith(TG) else "prov:" if "prov#" in p else ""
            lines.append(
                f"  {ids[s]} -> {ids[o]} "
                + _attrs({"style": "dashed", "label": f" {prefix}{name}", "color": "#ff8f00", "fontcolor": "#e65100", "tooltip": f"{s} {p} {o}"})
                + ";"
            )
    lines.append("}")
    return "\n".join(lines) + "\n"


def class_diagram(center: str, parents: list[str], children: list[str], label_of, page_of) -> str:
    """Graphviz source for the derivations a class may take part in, from the shapes."""
    nodes = [center] + [n for n in parents + children if n != center]
    ids = {node: f"c{i}" for i, node in enumerate(dict.fromkeys(nodes))}
    lines = header("derivation", graph={"nodesep": "0.25"})
    for node, ident in ids.items():
        style = dict(STEP)
        if node == center:
            style.update({"fillcolor": "#3f51b5", "fontcolor": "white", "penwidth": "1.5"})
        style["label"] = label_of(node)
        style["tooltip"] = node
        url = page_of(node)
        if url and node != center:
            style["URL"] = url
            style["target"] = "_top"
        lines.append(f"  {ident} {_attrs(style)};")
    for parent in parents:
        lines.append(f"  {ids[parent]} -> {ids[center]} [dir=back];")
    for child in children:
        if child != center or center not in parents:
            lines.append(f"  {ids[center]} -> {ids[child]} [dir=back];")
    lines.append("}")
    return "\n".join(lines) + "\n"
