"""The docs page "What changed between releases": built by the docs build from the release
examples, each pattern from each release to the next, as `tg-trace diff` tells it."""

from __future__ import annotations

import html
import re

import pytest
from docs_support import ROOT, built_site
from tgtrace.tracemodel.generations import release_key

# Slow: builds the docs site (`python -m pytest -m "not slow"` leaves it out; CI runs it).
pytestmark = pytest.mark.slow

RELEASES = ROOT / "examples" / "releases"


@pytest.fixture(scope="module")
def site():
    return built_site()


def _plain(fragment: str) -> str:
    return re.sub(r"[ \t]+", " ", html.unescape(re.sub(r"<[^>]+>", "", fragment))).replace("¶", "")


@pytest.fixture(scope="module")
def page(site):
    text = (site / "trace-changes.html").read_text()
    return text[text.find("<h1"):text.find("</article>")]


@pytest.fixture(scope="module")
def text(page):
    return _plain(page)


def _parts(fragment: str, level: int) -> dict[str, str]:
    """The fragment cut at its headings of one level: heading text -> what follows, as text."""
    pieces = re.split(rf"<h{level}\b[^>]*>(.*?)</h{level}>", fragment, flags=re.S)
    return {_plain(pieces[i]).strip(): pieces[i + 1] for i in range(1, len(pieces) - 1, 2)}


def _section(page: str, title: str) -> dict[str, str]:
    """A pattern's comparisons: "old → new" -> what the page says of it, as text."""
    return {k: _plain(v) for k, v in _parts(_parts(page, 2)[title], 3).items()}


def test_the_page_is_generated_and_in_the_nav(site, text):
    assert text.lstrip().startswith("What changed between releases")
    assert 'href="trace-changes.html"' in (site / "releases.html").read_text()


def test_every_pattern_is_compared_from_each_release_to_the_next(page):
    releases = sorted((p.name for p in RELEASES.iterdir() if p.is_dir()), key=release_key)
    for stem, title in (("graph-rag", "GraphRAG"), ("document-rag", "Document RAG"),
                        ("orchestrator-react", "ReAct agent (orchestrator)"), ("supervisor", "Supervisor")):
        section = _section(page, title)
        having = [r for r in releases if (RELEASES / r / f"{stem}.nq").exists()]
        assert len(having) >= 4
        assert list(section) == [f"{old} → {new}" for old, new in zip(having, having[1:])]
        for old, new in zip(having, having[1:]):
            assert f"examples/releases/{old}/{stem}.nq → examples/releases/{new}/{stem}.nq" in section[f"{old} → {new}"]


def test_graphrag_names_the_typed_edge_selections_where_they_came(page):
    section = _section(page, "GraphRAG")
    step = section["2.2.13 → 2.6.8"]
    for line in ("changed Focus › selectedEdge", "added type tg:EdgeSelection", "added tg:score: literal xsd:string",
                 "added tg:concept: literal xsd:string"):
        assert line in step, step
    # From 2.6.8 to 2.11.1 the GraphRAG trace did not change (2.6.8's builders type the selections already).
    for old, new in (("2.6.8", "2.6.9"), ("2.6.9", "2.11.1")):
        assert ": no structural difference." in section[f"{old} → {new}"]
