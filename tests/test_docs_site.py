"""The documentation site as a reader sees it.

The site is built with ``mkdocs build --strict``, served over localhost, and
opened in headless Chromium: the key pages must load with no console error, no
failed request and no request to another host, and every diagram must be drawn.
Screenshots of those pages are kept under SCREENSHOTS for CI to publish.

Chromium is driven over the Chrome DevTools Protocol with the small
``websocket-client`` package: it talks to the Debian ``chromium`` binary as it
is, where Selenium would also need a matching chromedriver and a heavier stack.
"""

from __future__ import annotations

import base64
import contextlib
import itertools
import json
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import tomllib
import urllib.request
from pathlib import Path

import pytest

from docs_support import ROOT, built_site, is_external, read_pages, require, resolve

# CI publishes this folder as an artefact; keep the name stable.
SCREENSHOTS = ROOT / "ci-artifacts" / "docs-screenshots"

# The pages a reader meets first: the home page, a pattern, a class and the rule reference.
PAGES = {
    "home": "index.html",
    "pattern-graphrag": "patterns/graphrag.html",
    "class-question": "classes/Question.html",
    "rules": "rules/index.html",
}
# Pages that must show at least one diagram.
DIAGRAM_PAGES = {"pattern-graphrag", "class-question"}

CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--hide-scrollbars",
    "--window-size=1280,900",
]


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None


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


class DevTools:
    """A minimal Chrome DevTools Protocol client for one page target."""

    def __init__(self, ws_url: str):
        import websocket

        self.ws = websocket.create_connection(ws_url, timeout=30, suppress_origin=True)
        self.ids = itertools.count(1)
        self.events: list[dict] = []

    def send(self, method: str, **params) -> dict:
        ident = next(self.ids)
        self.ws.send(json.dumps({"id": ident, "method": method, "params": params}))
        while True:
            message = json.loads(self.ws.recv())
            if message.get("id") == ident:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            if "method" in message:
                self.events.append(message)

    def pump(self, seconds: float) -> None:
        """Collect events for a while."""
        deadline = time.monotonic() + seconds
        self.ws.settimeout(0.1)
        try:
            while time.monotonic() < deadline:
                try:
                    message = json.loads(self.ws.recv())
                except Exception as error:  # websocket timeout: nothing arrived
                    if type(error).__name__ == "WebSocketTimeoutException":
                        continue
                    raise
                if "method" in message:
                    self.events.append(message)
        finally:
            self.ws.settimeout(30)

    def close(self) -> None:
        self.ws.close()


@pytest.fixture(scope="module")
def browser():
    chromium = _chromium()
    require(chromium is not None, "Chromium is not installed (Debian package chromium)")
    try:
        import websocket  # noqa: F401
    except ImportError:
        require(False, "the websocket-client package is not installed (pip install -e '.[test]')")
    profile = tempfile.mkdtemp(prefix="tgdocs-chromium-")
    process = subprocess.Popen(
        [chromium, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--remote-debugging-port=0", "about:blank"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        # Chromium writes the port it chose into the profile folder.
        active = Path(profile) / "DevToolsActivePort"
        deadline = time.monotonic() + 30
        while not (active.exists() and active.read_text().strip()):
            if time.monotonic() > deadline or process.poll() is not None:
                pytest.fail("headless Chromium did not start")
            time.sleep(0.1)
        port = int(active.read_text().split()[0])
        targets = []
        while not targets:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=5) as response:
                targets = [t for t in json.load(response) if t.get("type") == "page"]
            if not targets:
                time.sleep(0.1)
        client = DevTools(targets[0]["webSocketDebuggerUrl"])
        for domain in ("Page", "Runtime", "Log", "Network"):
            client.send(f"{domain}.enable")
        yield client
        client.close()
    finally:
        process.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=10)
        if process.poll() is None:
            process.kill()
        shutil.rmtree(profile, ignore_errors=True)


def visit(client: DevTools, url: str) -> dict:
    """Load a page and wait until the network is quiet; report what went wrong."""
    client.events.clear()
    client.send("Page.navigate", url=url)
    # Done when the load event has fired and the network has been quiet for a
    # second (Material fetches its search index after the load event). In-flight
    # requests are not counted: a worker's own requests finish in the worker's
    # target, which this page session does not see.
    deadline = time.monotonic() + 30
    loaded = False
    quiet_since = time.monotonic()
    seen = 0
    while time.monotonic() < deadline:
        client.pump(0.2)
        for event in client.events[seen:]:
            if event["method"] == "Page.loadEventFired":
                loaded = True
            if event["method"].startswith("Network."):
                quiet_since = time.monotonic()
        seen = len(client.events)
        if loaded and time.monotonic() - quiet_since > 1.0:
            break
    assert loaded, f"{url} did not finish loading"

    problems = {"console": [], "failed": [], "remote": []}
    for event in client.events:
        method, params = event["method"], event.get("params", {})
        if method == "Runtime.exceptionThrown":
            details = params["exceptionDetails"]
            problems["console"].append(details.get("exception", {}).get("description") or details.get("text"))
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            problems["console"].append(" ".join(str(a.get("value", a.get("description", ""))) for a in params["args"]))
        elif method == "Log.entryAdded" and params["entry"]["level"] == "error":
            problems["console"].append(params["entry"]["text"] + " " + params["entry"].get("url", ""))
        elif method == "Network.loadingFailed":
            problems["failed"].append(f"{params.get('errorText')} ({params['requestId']})")
        elif method == "Network.responseReceived" and params["response"]["status"] >= 400:
            problems["failed"].append(f"{params['response']['status']} {params['response']['url']}")
        elif method == "Network.responseReceivedExtraInfo" and params.get("statusCode", 200) >= 400:
            problems["failed"].append(f"{params['statusCode']} ({params['requestId']})")
        elif method == "Network.requestWillBeSent":
            target = params["request"]["url"]
            if not target.startswith(("http://127.0.0.1:", "data:", "blob:", "about:")):
                problems["remote"].append(target)
    return problems


DIAGRAM_SIZES = """
(() => Array.from(document.querySelectorAll('.tg-diagram')).map(box => {
    const drawing = box.querySelector('svg, img');
    if (!drawing) return {found: false};
    const r = drawing.getBoundingClientRect();
    return {found: true, width: r.width, height: r.height,
            loaded: drawing.tagName.toLowerCase() !== 'img' || (drawing.complete && drawing.naturalWidth > 0)};
}))()
"""


def screenshot(client: DevTools, name: str) -> Path:
    metrics = client.send("Page.getLayoutMetrics")
    size = metrics.get("cssContentSize") or metrics["contentSize"]
    width, height = int(size["width"]), min(int(size["height"]), 16000)
    shot = client.send(
        "Page.captureScreenshot",
        format="png",
        captureBeyondViewport=True,
        clip={"x": 0, "y": 0, "width": width, "height": height, "scale": 1},
    )
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    path.write_bytes(base64.b64decode(shot["data"]))
    return path


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

    path = screenshot(browser, name)
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
