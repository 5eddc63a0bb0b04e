"""The table of what each TrustGraph output format loses, per TrustGraph release (``losses.toml``)."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

TABLE = Path(__file__).with_name("losses.toml")
# The release whose tools the readers know; a format's entry is the newest one at or before it.
KNOWN_RELEASE = "2.11.1"


@dataclass(frozen=True)
class Loss:
    """What one format, as one TrustGraph release writes it, lost; empty ``lost``: nothing."""

    format: str
    name: str
    tool: str
    release: str
    lost: tuple[str, ...]
    silent: tuple[str, ...]
    restored: tuple[str, ...]
    # Per rule that still runs on such an input: the fault the loss can hide from it.
    unseen: tuple[tuple[str, str], ...] = ()

    @property
    def lossy(self) -> bool:
        return bool(self.lost)

    def notice(self) -> str:
        """The one line an input of this format gets: what was lost, what is not judged, what cannot
        be seen by the rules that are."""
        text = (f"read as a {self.name} from {self.tool} (TrustGraph {self.release}), which loses "
                f"{', '.join(self.lost)}; not judged on this input: {', '.join(self.silent) or 'none'}")
        if self.unseen:
            text += "; cannot be seen on it: " + ", ".join(f"{fault} ({code})" for code, fault in self.unseen)
        if self.restored:
            text += f"; restored with certainty: {', '.join(self.restored)}"
        return text


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


@cache
def table() -> dict[str, list[Loss]]:
    """Every format's entries, oldest release first."""
    with open(TABLE, "rb") as handle:
        data = tomllib.load(handle)
    formats: dict[str, list[Loss]] = {}
    for entry in data["format"]:
        releases = sorted(entry["release"], key=lambda r: _version(r["since"]))
        formats[entry["id"]] = [Loss(entry["id"], entry["name"], entry["tool"], r["since"], tuple(r["lost"]),
                                     tuple(r.get("silent", ())), tuple(r.get("restored", ())),
                                     tuple(r.get("unseen", {}).items()))
                                for r in releases]
    return formats


def loss_of(fmt: str, release: str = KNOWN_RELEASE) -> Loss:
    """The entry for ``fmt`` as ``release`` writes it: the newest entry not after that release."""
    entries = [e for e in table()[fmt] if _version(e.release) <= _version(release)]
    return entries[-1] if entries else table()[fmt][0]
