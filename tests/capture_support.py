"""Cut a trace file into parts at line boundaries, and say where its findings must then be."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def cut(source: Path, folder: Path, parts: int, seed: int = 0) -> list[tuple[Path, int]]:
    """``source`` cut into ``parts`` files at lines chosen by ``seed``: (part, lines before it)."""
    lines = source.read_bytes().splitlines(keepends=True)
    chosen = sorted(random.Random(seed).sample(range(1, len(lines)), min(parts - 1, len(lines) - 1)))
    bounds = [0, *chosen, len(lines)]
    made = []
    for number, (start, end) in enumerate(zip(bounds, bounds[1:])):
        part = folder / f"{source.stem}.part{number}{source.suffix}"
        part.write_bytes(b"".join(lines[start:end]))
        made.append((part, start))
    return made


def rows(report) -> list[tuple]:
    """What a user reads of each finding: rule, focus, file and line."""
    return sorted(((f.rule, f.focus, f.file, f.line) for f in report.findings), key=repr)


def moved(report, parts: list[tuple[Path, int]]) -> list[tuple]:
    """The findings of the uncut file, each moved to the part (and its line) that holds its line."""
    found = []
    for f in report.findings:
        if f.line is None:
            found.append((f.rule, f.focus, str(parts[0][0]), None))
            continue
        part, before = next((p, b) for p, b in reversed(parts) if f.line > b)
        found.append((f.rule, f.focus, str(part), f.line - before))
    return sorted(found, key=repr)


def corpus(size: int, folder: Path) -> Path:
    """The benchmark corpus of ``size`` triples, faults in about 1% of its traces."""
    path = folder / f"corpus-{size}.nq"
    if not path.exists():
        subprocess.run([sys.executable, str(ROOT / "benchmarks" / "generate_corpus.py"), "--triples", str(size),
                        "--out", str(path), "--faults", "0.01", "--seed", "7"], check=True,
                       stdout=subprocess.DEVNULL)
    return path
