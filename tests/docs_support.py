"""Build the documentation site once per test run, and read the built HTML.

Shared by the docs tests; the build is the real ``mkdocs build --strict`` a
reader's copy of the site comes from.
"""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from functools import cache
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[1]
IN_CI = bool(os.environ.get("CI"))


def require(condition: bool, reason: str) -> None:
    """Skip when a tool the test needs is missing on a developer's machine; fail in CI."""
    if condition:
        return
    if IN_CI:
        pytest.fail(f"{reason} (CI must have it: see .ci/run)")
    pytest.skip(reason)


@cache
def _build() -> tuple[Path | None, str]:
    site = Path(tempfile.mkdtemp(prefix="tgdocs-site-"))
    atexit.register(shutil.rmtree, site, ignore_errors=True)
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    output = result.stdout + result.stderr
    return (site if result.returncode == 0 else None), output


def built_site() -> Path:
    """The site, built with ``mkdocs build --strict``; the test fails with mkdocs' output if it does not build."""
    require(shutil.which("dot") is not None, "Graphviz 'dot' is not installed (Debian package graphviz)")
    site, output = _build()
    assert site is not None, f"mkdocs build --strict failed:\n{output[-6000:]}"
    return site


@dataclass
class Page:
    path: Path  # relative to the site root
    ids: set[str] = field(default_factory=set)
    links: list[str] = field(default_factory=list)  # href/src values, as written
    text: list[str] = field(default_factory=list)


class _Reader(HTMLParser):
    LINKING = {"href", "src", "xlink:href"}

    def __init__(self, page: Page):
        super().__init__(convert_charrefs=True)
        self.page = page
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if value is None:
                continue
            if name in ("id", "name") and tag != "meta":
                self.page.ids.add(value)
            if name in self.LINKING and tag not in ("base",):
                self.page.links.append(value)
        if tag in ("script", "style"):
            self._skip += 1

    def handle_endtag(self, tag):
        if tag in ("script", "style") and self._skip:
            self._skip -= 1

    def handle_data(self, data):
        if not self._skip:
            self.page.text.append(data)


def read_pages(site: Path) -> dict[str, Page]:
    """Every HTML page of the built site, by its path relative to the site root."""
    pages = {}
    for path in sorted(site.rglob("*.html")):
        relative = path.relative_to(site).as_posix()
        page = Page(path=Path(relative))
        _Reader(page).feed(path.read_text(encoding="utf-8"))
        pages[relative] = page
    return pages


def is_external(url: str) -> bool:
    parts = urlsplit(url)
    return bool(parts.scheme) or url.startswith("//")


@cache
def site_path_prefix() -> str:
    """The path of site_url ("/trustgraph-ontology/"): the 404 page links from there."""
    import yaml

    class _Loader(yaml.SafeLoader):
        pass

    # mkdocs.yml may use mkdocs' own YAML tags; they do not matter here.
    _Loader.add_multi_constructor("", lambda loader, suffix, node: None)
    config = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_Loader)
    return urlsplit(config.get("site_url") or "/").path or "/"


def resolve(page: str, url: str) -> tuple[str, str]:
    """A link on ``page`` as (target path relative to the site root, fragment)."""
    parts = urlsplit(url)
    if not parts.path:
        return page, unquote(parts.fragment)
    base = Path(page).parent
    if parts.path.startswith("/"):
        prefix = site_path_prefix()
        if not parts.path.startswith(prefix):
            return parts.path, unquote(parts.fragment)  # outside the site: reported as missing
        base, url = Path("."), url[len(prefix):] or "index.html"
        parts = urlsplit(url)
    target = os.path.normpath((base / unquote(parts.path)).as_posix())
    if url.split("#")[0].endswith("/") or target == ".":
        target = (Path(target) / "index.html").as_posix() if target != "." else "index.html"
    return Path(target).as_posix(), unquote(parts.fragment)
