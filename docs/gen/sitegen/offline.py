"""Find what a built page would fetch from another host."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from urllib.parse import urlsplit

# Attributes through which a browser fetches something on its own (an <a href>
# is only followed when clicked, so it is not one of them).
FETCHING = {
    "script": ("src",),
    "img": ("src", "srcset"),
    "source": ("src", "srcset"),
    "iframe": ("src",),
    "video": ("src", "poster"),
    "audio": ("src",),
    "embed": ("src",),
    "object": ("data",),
    "input": ("src",),
    "image": ("href", "xlink:href"),  # SVG
    "use": ("href", "xlink:href"),  # SVG
}
LINK_RELS = {"stylesheet", "icon", "preload", "prefetch", "modulepreload", "manifest", "apple-touch-icon", "preconnect", "dns-prefetch"}
_CSS_URL = re.compile(r"""url\(\s*['"]?([^'")\s]+)|@import\s+['"]([^'"]+)""")
LOCAL_HOSTS = {"localhost", "127.0.0.1", "::1", "[::1]"}


def is_remote(url: str) -> bool:
    url = url.strip()
    parts = urlsplit(url)
    if parts.scheme in ("http", "https", "ws", "wss", "ftp") or url.startswith("//"):
        return (parts.hostname or "") not in LOCAL_HOSTS
    return False


class _Collector(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.urls: list[str] = []
        self._in_style = False

    def handle_starttag(self, tag, attrs):
        values = dict(attrs)
        for name in FETCHING.get(tag, ()):
            value = values.get(name)
            if value:
                # srcset lists "url width" pairs.
                self.urls += [part.split()[0] for part in value.split(",") if part.strip()] if "srcset" in name else [value]
        if tag == "link":
            rels = set((values.get("rel") or "").lower().split())
            if rels & LINK_RELS and values.get("href"):
                self.urls.append(values["href"])
        if values.get("style"):
            self._css(values["style"])
        self._in_style = tag == "style"

    def handle_endtag(self, tag):
        if tag == "style":
            self._in_style = False

    def handle_data(self, data):
        if self._in_style:
            self._css(data)

    def _css(self, text):
        for match in _CSS_URL.finditer(text):
            self.urls.append(match.group(1) or match.group(2))


def fetched_urls(html: str) -> list[str]:
    collector = _Collector()
    collector.feed(html)
    return collector.urls


def remote_assets(html: str) -> set[str]:
    return {url for url in fetched_urls(html) if is_remote(url)}
