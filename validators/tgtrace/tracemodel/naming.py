"""How the package names an IRI for a person, written once: the prefix table, CURIEs, and the short
forms of an IRI that reports, tables, diagrams and messages show.

Every face reads these: the rule help and advice (CURIEs), the text views and the HTML report
(short IRIs), diagrams (an entity's name within its session), TriG and Turtle writers (the
prefixes). Where a short form is shown, the full IRI goes with it (a tooltip, the copied text).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from ..ground.namespaces import DC, DCTERMS, OWL, PROV, RDF, RDFS, SH, SKOS, TG, TGL, TGSH, XSD

# Prefixes used when an IRI is shown to a person or written in Turtle; the longest namespace wins,
# so that the shapes namespace is not mistaken for a term of another one.
PREFIXES: Mapping[str, str] = {
    "tg": TG,
    "prov": PROV,
    "rdf": RDF,
    "rdfs": RDFS,
    "xsd": XSD,
    "owl": OWL,
    "sh": SH,
    "skos": SKOS,
    "dcterms": DCTERMS,
    "dc": DC,
    "tgsh": TGSH,
    "tgl": TGL,
}
# A UUID as TrustGraph mints them into its IRIs (a session, a document).
UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
# TrustGraph's own IRI scheme, which a short form leaves out.
_OWN_PREFIXES = ("urn:trustgraph:", "https://trustgraph.ai/")


def prefixes(*names: str) -> dict[str, str]:
    """The prefix table's entries for ``names`` (a writer's selection), in that order."""
    return {name: PREFIXES[name] for name in names}


def curie(iri: str | None, within: Mapping[str, str] = PREFIXES, brackets: bool = False) -> str:
    """``https://trustgraph.ai/ns/Question`` -> ``tg:Question`` by the prefixes ``within``; another
    IRI unchanged (``<iri>`` with ``brackets``)."""
    if not iri:
        return ""
    best = None
    for prefix, namespace in within.items():
        if iri.startswith(namespace) and (best is None or len(namespace) > len(best[1])):
            best = (prefix, namespace)
    local = iri[len(best[1]):] if best is not None else ""
    # A local name with characters Turtle would need escaped is clearer in full.
    if best is None or not local or any(c in local for c in "/#?:"):
        return f"<{iri}>" if brackets else iri
    return f"{best[0]}:{local}"


def local_name(iri: str) -> str:
    """The last segment of an IRI: tg:Analysis -> Analysis, prov:wasDerivedFrom -> wasDerivedFrom."""
    return iri.rsplit("/", 1)[-1].rsplit("#", 1)[-1] or iri


def shorten(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters with an ellipsis in the middle."""
    if len(text) <= limit:
        return text
    head = (limit - 1) * 2 // 3
    return text[:head] + "…" + text[len(text) - (limit - 1 - head):]


def short_iri(iri: str | None, limit: int | None = None) -> str:
    """An IRI as a person reads it: its CURIE where it has one; else, with no ``limit``, the IRI
    with TrustGraph's own scheme left out and each UUID cut to its first 8 digits (what a terminal
    row shows); with a ``limit``, its last segments that fit, a UUID cut to ``33a7dbc8…``
    (``…/i3/observation``, ``…agent:33a7dbc8…``), for a table cell."""
    if not iri:
        return ""
    shown = curie(iri)
    if shown != iri:
        return shown
    if limit is None:
        text = iri
        for own in _OWN_PREFIXES:
            text = text.removeprefix(own)
        return UUID.sub(lambda m: m.group(0)[:8], text if not text.startswith(":") else iri)
    segments = re.split(r"(?<=[/#:])", UUID.sub(lambda m: m.group(0)[:8] + "…", iri))
    tail, kept = "", 0
    for segment in reversed(segments):
        if tail and len(segment) + len(tail) > limit:
            break
        tail, kept = segment + tail, kept + 1
    if kept == len(segments):
        return tail
    # "…/i3/observation": the separator before the tail says a path was cut.
    cut = segments[len(segments) - kept - 1]
    return "…" + (cut[-1] if cut[-1] in "/#" else "") + tail


def within_session(iri: str, limit: int | None = None) -> str:
    """What names an entity within its session: what follows the first UUID of its IRI (``i1/observation``,
    ``pattern-decision``), else its last segment; at most ``limit`` characters."""
    match = UUID.search(iri)
    tail = iri[match.end():].lstrip(":/") if match else iri.rsplit("/", 1)[-1]
    return tail[:limit]
