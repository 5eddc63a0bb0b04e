"""The docs page "What changed", as a reader sees it, and the comparison it is computed with."""

from __future__ import annotations

import html
import re
import sys

import pytest
import rdflib
from docs_support import ROOT, built_site
from rdflib import OWL, RDF, Literal, URIRef
from tgtrace.ground import resources
from tgtrace.ground.namespaces import TG

# Slow: builds the docs site (`python -m pytest -m "not slow"` leaves it out; CI runs it).
pytestmark = pytest.mark.slow

V23 = ROOT / "docs" / "data" / "trustgraph-2.3.ttl"


@pytest.fixture(scope="module")
def changes():
    sys.path.insert(0, str(ROOT / "docs" / "gen"))
    try:
        from sitegen.pages import changes
    finally:
        sys.path.remove(str(ROOT / "docs" / "gen"))
    return changes


@pytest.fixture(scope="module")
def text():
    page = (built_site() / "changes.html").read_text()
    article = page[page.find("<h1"):page.find("</article>")]
    return re.sub(r"[ \t]+", " ", html.unescape(re.sub(r"<[^>]+>", "", article)))


def _section(text: str, title: str) -> list[str]:
    """The items listed under a bold heading such as 'Added (26):' of the v2.3 comparison."""
    start = re.search(rf"^{title} \(\d+\)[:.]$", text, re.M)
    assert start, f"no {title} list"
    lines = text[start.end():].strip().splitlines()
    return [line for line in lines[: next((i for i, text in enumerate(lines) if not text.startswith("tg:")), len(lines))]]


def _declared(graph) -> set[str]:
    return {str(s) for s in graph.subjects(RDF.type, None)
            if isinstance(s, URIRef) and str(s).startswith(TG) and str(s) != TG}


def test_page_is_in_the_nav_and_names_its_sources(text):
    assert "What changed" in text and "against TrustGraph's ontology v2.3" in text
    assert "TrustGraph v2.3.1" in text
    # One release so far: the page says so rather than showing an empty comparison.
    assert "first release of this project" in text


def test_v23_notice_names_source_commit_and_licence():
    notice = (ROOT / "docs" / "data" / "NOTICE").read_text()
    assert "d2751553a3791196f1ba6fcbe691c1258794bc10" in notice and "Apache License, Version 2.0" in notice
    assert 'owl:versionInfo "2.3"' in V23.read_text()


def test_added_terms_are_exactly_those_v23_lacks(text):
    old, new = rdflib.Graph().parse(V23), resources.ontology_graph()
    listed = {line.split(" ")[0] for line in _section(text, "Added")}
    expected = {"tg:" + iri[len(TG):] for iri in _declared(new) - _declared(old)}
    assert listed == expected and "tg:EdgeSelection" in listed


def test_changes_the_changelog_states_are_listed(text):
    changed = "\n".join(_section(text, "Changed"))
    assert re.search(r"^tg:selectedChunk: adds rdf:type owl:ObjectProperty.*drops rdf:type owl:DatatypeProperty", changed, re.M)
    assert re.search(r"^tg:Observation: .*drops rdfs:subClassOf tg:Reflection", changed, re.M)
    assert re.search(r"^tg:edge: adds .*rdfs:domain tg:EdgeSelection.*drops rdfs:domain tg:Focus", changed, re.M)


def test_releases_kept_in_docs_data_are_compared(changes, tmp_path):
    # A made-up earlier release: one term it had is gone now, one rule had another severity.
    new, shapes = resources.ontology_graph(), resources.shapes_graph()
    old, old_shapes = rdflib.Graph() + new, rdflib.Graph() + shapes
    gone = URIRef(TG + "formerTerm")
    old.add((gone, RDF.type, OWL.DatatypeProperty))
    old.remove((URIRef(TG + "score"), None, None))
    shape = next(old_shapes.subjects(changes.TGL.code, Literal("M001")))
    old_shapes.set((shape, changes.SH.severity, changes.SH.Info))
    diff = changes.diff("2.9.0", "3.0.0", old, new, old_shapes, shapes)
    assert diff.removed == [str(gone)] and diff.added == [TG + "score"]
    assert [code for code, _ in diff.rules["changed"]] == ["M001"]
    assert "sh:Info → sh:Violation" in diff.rules["changed"][0][1][0]

    (tmp_path / "releases" / "10.0.0").mkdir(parents=True)
    (tmp_path / "releases" / "9.1.0").mkdir()
    for folder in ("10.0.0", "9.1.0"):
        (tmp_path / "releases" / folder / "trustgraph.ttl").write_text("")
    assert [name for name, _ in changes.releases(tmp_path)] == ["9.1.0", "10.0.0"]
