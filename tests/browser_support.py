"""Headless Chromium driven over the Chrome DevTools Protocol, for the tests that open
pages as a reader does (the docs site, the HTML report).

Chromium is driven with the small ``websocket-client`` package: it talks to the
Debian ``chromium`` binary as it is, where Selenium would also need a matching
chromedriver and a heavier stack.
"""

from __future__ import annotations

import base64
import contextlib
import itertools
import json
import os
import shutil
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest
from docs_support import require

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


def artifacts(tmp_path_factory, name: str) -> Path:
    """The folder for screenshots: ``$TG_TRACE_ARTIFACTS/name`` when CI sets it (CI keeps
    that folder as artifacts), else a pytest temporary folder."""
    base = os.environ.get("TG_TRACE_ARTIFACTS")
    folder = Path(base) / name if base else tmp_path_factory.mktemp(name)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def chromium_binary() -> str | None:
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None


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

    def evaluate(self, expression: str):
        """The value of a JavaScript expression in the page (awaited when it is a promise)."""
        result = self.send("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression[:80]}: {result['exceptionDetails']}")
        return result["result"].get("value")

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


@contextlib.contextmanager
def chromium():
    """A headless Chromium with one page, its Page, Runtime, Log and Network events enabled."""
    binary = chromium_binary()
    require(binary is not None, "Chromium is not installed (Debian package chromium)")
    try:
        import websocket  # noqa: F401
    except ImportError:
        require(False, "the websocket-client package is not installed (pip install -e '.[test]')")
    profile = tempfile.mkdtemp(prefix="tg-chromium-")
    process = subprocess.Popen(
        [binary, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--remote-debugging-port=0", "about:blank"],
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


def visit(client: DevTools, url: str, local: tuple[str, ...] = ("http://127.0.0.1:",)) -> dict:
    """Load a page and wait until the network is quiet; report what went wrong.

    ``local``: URL prefixes the page may request; anything else is reported as remote."""
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
    return problems(client, local)


def problems(client: DevTools, local: tuple[str, ...] = ("http://127.0.0.1:",)) -> dict:
    """Console errors, failed requests and requests to other hosts among the events so far."""
    found = {"console": [], "failed": [], "remote": []}
    for event in client.events:
        method, params = event["method"], event.get("params", {})
        if method == "Runtime.exceptionThrown":
            details = params["exceptionDetails"]
            found["console"].append(details.get("exception", {}).get("description") or details.get("text"))
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            found["console"].append(" ".join(str(a.get("value", a.get("description", ""))) for a in params["args"]))
        elif method == "Log.entryAdded" and params["entry"]["level"] == "error":
            found["console"].append(params["entry"]["text"] + " " + params["entry"].get("url", ""))
        elif method == "Network.loadingFailed":
            found["failed"].append(f"{params.get('errorText')} ({params['requestId']})")
        elif method == "Network.responseReceived" and params["response"]["status"] >= 400:
            found["failed"].append(f"{params['response']['status']} {params['response']['url']}")
        elif method == "Network.responseReceivedExtraInfo" and params.get("statusCode", 200) >= 400:
            found["failed"].append(f"{params['statusCode']} ({params['requestId']})")
        elif method == "Network.requestWillBeSent":
            target = params["request"]["url"]
            if not target.startswith((*local, "data:", "blob:", "about:")):
                found["remote"].append(target)
    return found


def screenshot(client: DevTools, path: Path, full_page: bool = True) -> Path:
    """A PNG of the page (the whole page, or only what the viewport shows)."""
    if full_page:
        metrics = client.send("Page.getLayoutMetrics")
        size = metrics.get("cssContentSize") or metrics["contentSize"]
        width, height = int(size["width"]), min(int(size["height"]), 16000)
        shot = client.send("Page.captureScreenshot", format="png", captureBeyondViewport=True,
                           clip={"x": 0, "y": 0, "width": width, "height": height, "scale": 1})
    else:
        shot = client.send("Page.captureScreenshot", format="png")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(base64.b64decode(shot["data"]))
    return path
