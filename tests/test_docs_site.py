"""The documentation site as a reader sees it.

The site is built with ``mkdocs build --strict``, served over localhost, and
opened in headless Chromium: the key pages must load with no console error, no
failed request and no request to another host, and every diagram must be drawn.
Screenshots of those pages are kept under SCREENSHOTS for CI to publish.

Chromium is driven over the Chrome DevTools Protocol (``browser_support``).
"""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import time
import tomllib
import urllib.request
from pathlib import Path

import pytest
from browser_support import chromium, screenshot, visit
from docs_support import ROOT, built_site, is_external, read_pages, resolve

# Slow: builds the docs site and opens it in Chromium (`python -m pytest -m "not slow"` leaves it out; CI runs it).
pytestmark = pytest.mark.slow

# CI publishes this folder as an artefact; keep the name stable.
SCREENSHOTS = ROOT / "ci-artifacts" / "docs-screenshots"

# The pages a reader meets first: the home page, a pattern, a class, the rule reference and a
# rule's own page (where a finding's help link leads).
PAGES = {
    "home": "index.html",
    "pattern-graphrag": "patterns/graphrag.html",
    "class-question": "classes/Question.html",
    "rules": "rules/index.html",
    "rule-t001": "rules/T001/index.html",
    "explore": "explore.html",
}
# Pages that must show at least one diagram (the home page's overview of the patterns; on
# "Exploring traces", the picture of tg-trace show).
DIAGRAM_PAGES = {"home", "pattern-graphrag", "class-question", "explore"}

def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def site() -> Path:
    return built_site()


@pytest.fixture(scope="module")
def server(site, tmp_path_factory):
    """``python -m http.server`` on a free localhost port, serving the built site as mike
    publishes it: under its version's folder, with versions.json beside it (the version
    selector reads it)."""
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    pages = tmp_path_factory.mktemp("pages")
    (pages / version).symlink_to(site, target_is_directory=True)
    (pages / "versions.json").write_text(json.dumps([{"version": version, "title": version, "aliases": ["latest"]}]))
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1", "--directory", str(pages)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}/{version}/"
    deadline = time.monotonic() + 20
    while True:
        try:
            urllib.request.urlopen(base, timeout=2).close()
            break
        except OSError:
            if time.monotonic() > deadline or process.poll() is not None:
                process.kill()
                pytest.fail("the local HTTP server for the built site did not start")
            time.sleep(0.1)
    yield base
    process.terminate()
    process.wait(timeout=10)


@pytest.fixture(scope="module")
def browser():
    with chromium() as client:
        yield client


DIAGRAM_SIZES = """
(() => Array.from(document.querySelectorAll('.tg-diagram')).map(box => {
    const drawing = box.querySelector('svg, img');
    if (!drawing) return {found: false};
    const r = drawing.getBoundingClientRect();
    return {found: true, width: r.width, height: r.height,
            loaded: drawing.tagName.toLowerCase() !== 'img' || (drawing.complete && drawing.naturalWidth > 0)};
}))()
"""


@pytest.mark.parametrize("name", list(PAGES))
def test_page_loads_cleanly_in_chromium(server, browser, name):
    problems = visit(browser, server + PAGES[name])
    assert not problems["console"], f"console errors on {PAGES[name]}: {problems['console']}"
    assert not problems["failed"], f"failed requests on {PAGES[name]}: {problems['failed']}"
    assert not problems["remote"], f"{PAGES[name]} fetched from other hosts: {problems['remote']}"

    diagrams = browser.send("Runtime.evaluate", expression=DIAGRAM_SIZES, returnByValue=True)["result"]["value"]
    if name in DIAGRAM_PAGES:
        assert diagrams, f"{PAGES[name]} shows no diagram"
    for index, diagram in enumerate(diagrams):
        assert diagram["found"], f"diagram {index} on {PAGES[name]} has no SVG or image"
        assert diagram["loaded"], f"diagram {index} on {PAGES[name]} did not load"
        assert diagram["width"] > 0 and diagram["height"] > 0, f"diagram {index} on {PAGES[name]} has size 0"

    # The version selector in the header, filled from versions.json.
    shown = browser.send("Runtime.evaluate", returnByValue=True,
                         expression="document.querySelector('.md-version__current')?.textContent")["result"]
    assert shown.get("value"), f"{PAGES[name]} shows no version selector"

    path = screenshot(browser, SCREENSHOTS / f"{name}.png")
    assert path.stat().st_size > 10_000, f"screenshot of {PAGES[name]} is blank"


def test_every_internal_link_resolves(site):
    pages = read_pages(site)
    assert "index.html" in pages and len(pages) > 20
    broken = []
    for name, page in pages.items():
        for url in page.links:
            if is_external(url) or url.startswith(("mailto:", "javascript:", "data:")):
                continue
            target, fragment = resolve(name, url)
            if not (site / target).is_file():
                broken.append(f"{name}: {url} (no {target})")
            elif fragment and target.endswith(".html"):
                ids = pages[target].ids if target in pages else set()
                if fragment not in ids:
                    broken.append(f"{name}: {url} (no #{fragment} in {target})")
    assert not broken, "broken internal links:\n" + "\n".join(broken[:50])


def test_no_page_loads_anything_from_another_host(site):
    sys.path.insert(0, str(ROOT / "docs" / "gen"))
    try:
        from sitegen.offline import remote_assets
    finally:
        sys.path.remove(str(ROOT / "docs" / "gen"))
    remote = {}
    for path in site.rglob("*.html"):
        found = remote_assets(path.read_text(encoding="utf-8"))
        if found:
            remote[path.relative_to(site).as_posix()] = sorted(found)
    assert not remote, f"pages load remote assets: {remote}"


def test_every_diagram_is_inline_svg_in_the_html(site):
    """Diagrams are drawn at build time: each one is SVG in the page, with a size, on every page."""
    box = re.compile(r'<div class="tg-diagram"[^>]*>\s*(<svg\b[^>]*>)', re.S)
    size = re.compile(r'\b(width|height)="([0-9.]+)(?:pt|px)?"')
    pattern_pages = [p for p in sorted((site / "patterns").glob("*.html")) if p.name != "index.html"]
    assert len(pattern_pages) >= 7
    drawn = 0
    for path in sorted(site.rglob("*.html")):
        html = path.read_text(encoding="utf-8")
        name = path.relative_to(site).as_posix()
        assert "TGDOCS-DIAGRAM-" not in html, f"{name} names a diagram that was not drawn"
        boxes = html.count('<div class="tg-diagram"')
        svgs = box.findall(html)
        assert len(svgs) == boxes, f"{name}: a diagram box holds no SVG"
        for svg in svgs:
            dimensions = dict(size.findall(svg))
            assert float(dimensions.get("width", 0)) > 0 and float(dimensions.get("height", 0)) > 0, f"{name}: empty SVG"
        if path in pattern_pages:
            assert boxes >= 1, f"{name} has no diagram"
        drawn += boxes
    assert drawn >= len(pattern_pages)


def test_site_works_from_a_folder(site):
    """Links between pages name files (page.html), so the folder works without a server."""
    pages = read_pages(site)
    directory_links = [
        f"{name}: {url}"
        for name, page in pages.items()
        for url in page.links
        if not is_external(url) and url.split("#")[0].endswith("/")
    ]
    assert not directory_links, "links that need a web server's index.html:\n" + "\n".join(directory_links[:20])


PHONE = 390


@pytest.fixture
def phone(browser):
    """The browser at a phone's width (390 CSS pixels), for one test."""
    browser.send("Emulation.setDeviceMetricsOverride", width=PHONE, height=844, deviceScaleFactor=1, mobile=True)
    yield browser
    browser.send("Emulation.clearDeviceMetricsOverride")


# What a reader at that width would find cut: the page wider than the screen, the site's title
# clipped, a code block running past its box.
CUT = """
(() => {
    const title = document.querySelector('.md-header__title .md-ellipsis');
    return {
        page: document.scrollingElement.scrollWidth,
        title: title ? title.scrollWidth - title.clientWidth : 0,
        titleText: title ? title.innerText.trim() : '',
        code: Array.from(document.querySelectorAll('.md-typeset pre > code'))
            .filter(c => c.scrollWidth > c.clientWidth + 1).map(c => c.innerText.slice(0, 60)),
        blocks: document.querySelectorAll('.md-typeset pre > code').length,
    };
})()
"""


def test_a_rule_page_reads_on_a_phone(server, phone):
    assert not visit(phone, server + "rules/T001/index.html")["console"]
    assert not phone.evaluate("!!document.querySelector('.tg-file-notice')"), "served over HTTP, search works"
    cut = phone.evaluate(CUT)
    assert cut["page"] <= PHONE, f"the rule page is {cut['page']} px wide"
    assert cut["titleText"] == "TrustGraph explainability ontology" and cut["title"] <= 0, "the site's title is cut"
    assert cut["blocks"] >= 3 and not cut["code"], f"code blocks cut at the right edge: {cut['code']}"
    text = phone.evaluate("document.querySelector('.md-content').innerText")
    for part in ("What it checks", "Why it matters", "How to fix", "Example", "‹value› is not a known termination reason",
                 '"final-answer"'):
        assert part in text, part
    screenshot(phone, SCREENSHOTS / "rule-t001-390.png")


def test_the_home_diagram_keeps_a_readable_size_on_a_phone(server, phone):
    visit(phone, server + "index.html")
    assert phone.evaluate(CUT)["page"] <= PHONE
    # Each diagram drawn at (nearly) its own size, its box scrolling sideways, rather than shrunk
    # to the column.
    scales = phone.evaluate("""Array.from(document.querySelectorAll('.tg-diagram svg')).map(s =>
        s.getBoundingClientRect().width / (s.width.baseVal.value || 1))""")
    assert scales and min(scales) >= 0.9, scales
    screenshot(phone, SCREENSHOTS / "home-390.png")


def _search(client, query: str) -> list[str]:
    """The pages Material's search lists for a query typed into the search box."""
    client.evaluate(f"""(() => {{const box = document.querySelector('.md-search__input'); box.focus();
        box.value = {json.dumps(query)}; box.dispatchEvent(new Event('input', {{bubbles: true}}));
        box.dispatchEvent(new KeyboardEvent('keyup', {{bubbles: true}}));}})()""")
    deadline = time.monotonic() + 10
    found: list[str] = []
    while time.monotonic() < deadline and not found:
        client.pump(0.3)
        found = client.evaluate("Array.from(document.querySelectorAll('.md-search-result__item > a'))"
                                ".map(a => a.getAttribute('href').split('?')[0].split('#')[0])")
    return found


@pytest.mark.parametrize("query, page", [
    ("T001", "rules/T001/index.html"),  # a rule by its code
    ("termination-unknown", "rules/T001/index.html"),  # by its name
    ("tg:terminationReason", "rules/T001/index.html"),  # by a term it mentions, prefixed
    ("terminationReason", "rules/T001/index.html"),  # and not
    ("terminationReason", "predicates.html"),
    ("tg:terminationReason", "classes/TerminationReason.html"),
    ("wasDerivedFrom", "predicates.html"),  # the pages write prov:wasDerivedFrom
    ("tg:Conclusion", "classes/Conclusion.html"),
])
def test_search_finds_rules_and_terms(server, browser, query, page):
    visit(browser, server + "index.html")
    found = _search(browser, query)
    assert server + page in found, f"searching {query!r} does not list {page}: {found[:12]}"


def test_opened_from_files_the_site_says_search_is_unavailable(site, browser):
    visit(browser, (site / "rules" / "T001" / "index.html").as_uri(), local=("file://",))
    notice = browser.evaluate("document.querySelector('.tg-file-notice')?.innerText")
    assert notice and "Search is unavailable" in notice and "http.server" in notice
    visit(browser, (site / "index.html").as_uri(), local=("file://",))
    assert browser.evaluate("!!document.querySelector('.tg-file-notice')")
