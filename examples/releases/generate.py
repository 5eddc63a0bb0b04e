#!/usr/bin/env python3
"""Regenerate the per-release example traces from each TrustGraph release's own builders.

A maintainer tool; the tests never run it (they read the committed files).
It NEEDS THE NETWORK: for every release in ``RELEASES`` it creates a throwaway
virtual environment in a cache directory outside the repository, installs
that release of ``trustgraph-base`` from PyPI into it with ``pip install
--no-deps`` (``trustgraph.provenance`` needs only the standard library), and
runs ``emit.py`` (beside this file) with that environment's Python. emit.py
calls the release's triple builders, chained the way the same release's
``trustgraph-flow`` services chain them, and prints the traces; this script
writes each one as N-Quads to ``examples/releases/<release>/<pattern>.nq``.

    python examples/releases/generate.py                  # rewrite every file
    python examples/releases/generate.py --check          # exit 1 if a file is stale or missing
    python examples/releases/generate.py --release 2.2.13 # one release only

Run it with the project's environment (it needs pyoxigraph). Output is
byte-for-byte reproducible: ids are uuid5 values, timestamps are fixed, and
quads are written in emission order with repeats dropped. The environments
are kept in the cache directory (``--cache-dir``, default
``$XDG_CACHE_HOME/tg-trace/release-venvs`` or ``~/.cache/tg-trace/release-venvs``)
and reused while they hold the right release; ``--fresh`` rebuilds them.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import venv
from collections.abc import Sequence
from pathlib import Path

import pyoxigraph as ox

HERE = Path(__file__).resolve().parent
REPOSITORY = HERE.parents[1]
EMITTER = HERE / "emit.py"

# At least one release per trace-model generation (tgtrace.tracemodel.generations): the last release of
# the first, the first and last of the second and third, the first of the fourth and the newest.
RELEASES = ("2.1.16", "2.1.22", "2.2.12", "2.2.13", "2.6.8", "2.6.9", "2.11.1")


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "tg-trace" / "release-venvs"


def _installed(python: Path) -> str | None:
    if not python.exists():
        return None
    found = subprocess.run(
        [str(python), "-I", "-c", "from importlib.metadata import version; print(version('trustgraph-base'))"],
        capture_output=True, text=True)
    return found.stdout.strip() if found.returncode == 0 else None


def environment(release: str, cache_dir: Path, fresh: bool = False) -> Path:
    """The Python of a virtual environment holding trustgraph-base==release (and nothing else of TrustGraph)."""
    folder = cache_dir / f"trustgraph-base-{release}"
    python = folder / "bin" / "python"
    if not fresh and _installed(python) == release:
        return python
    shutil.rmtree(folder, ignore_errors=True)
    print(f"creating {folder} with trustgraph-base=={release} (from PyPI)", file=sys.stderr)
    venv.EnvBuilder(with_pip=True, clear=True).create(folder)
    pip = subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                          "--no-deps", f"trustgraph-base=={release}"], capture_output=True, text=True)
    if pip.returncode != 0:
        raise SystemExit(f"error: pip could not install trustgraph-base=={release}:\n{pip.stdout}{pip.stderr}")
    if _installed(python) != release:
        raise SystemExit(f"error: {folder} does not hold trustgraph-base {release}")
    return python


def _term(term: dict):
    kind = term["t"]
    if kind == "i":
        return ox.NamedNode(term["i"])  # raises on a term that is no IRI (N-Quads could not hold it)
    if kind == "l":
        if term.get("ln"):
            return ox.Literal(term["v"], language=term["ln"])
        if term.get("dt"):
            return ox.Literal(term["v"], datatype=ox.NamedNode(term["dt"]))
        return ox.Literal(term["v"])
    if kind == "t":
        tr = term["tr"]
        return ox.Triple(_term(tr["s"]), _term(tr["p"]), _term(tr["o"]))
    raise ValueError(f"unexpected wire term {term!r}")


def to_nquads(wire: list[dict]) -> bytes:
    """Wire triples as N-Quads: emission order, repeats dropped."""
    quads = (ox.Quad(_term(t["s"]), _term(t["p"]), _term(t["o"]),
                     ox.NamedNode(t["g"]) if t.get("g") else ox.DefaultGraph()) for t in wire)
    return ox.serialize(list(dict.fromkeys(quads)), format=ox.RdfFormat.N_QUADS)


def render(release: str, cache_dir: Path, fresh: bool = False) -> dict[str, bytes]:
    """``{"<release>/<pattern>.nq": content}`` for one release."""
    python = environment(release, cache_dir, fresh)
    ran = subprocess.run([str(python), "-I", str(EMITTER)], capture_output=True, text=True)
    if ran.returncode != 0:
        raise SystemExit(f"error: emit.py failed under trustgraph-base {release}:\n{ran.stderr}")
    document = json.loads(ran.stdout)
    if document["release"] != release:
        raise SystemExit(f"error: emit.py ran under trustgraph-base {document['release']}, not {release}")
    return {f"{release}/{name}.nq": to_nquads(wire) for name, wire in document["traces"].items()}


def _check(files: dict[str, bytes], releases: Sequence[str]) -> list[str]:
    problems = []
    for name, content in sorted(files.items()):
        path = HERE / name
        if not path.exists():
            problems.append(f"{path}: missing")
        elif path.read_bytes() != content:
            problems.append(f"{path}: out of date")
    for release in releases:
        for path in sorted((HERE / release).glob("*.nq")):
            if f"{release}/{path.name}" not in files:
                problems.append(f"{path}: not produced by generate.py (stale?)")
    return problems


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="generate.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a committed file differs or is missing")
    parser.add_argument("--release", action="append", choices=RELEASES,
                        help="only this release (repeatable; default: every release)")
    parser.add_argument("--cache-dir", type=Path, default=default_cache_dir(),
                        help="where the throwaway environments live (default: %(default)s)")
    parser.add_argument("--fresh", action="store_true", help="rebuild the environments")
    args = parser.parse_args(argv)

    cache_dir = args.cache_dir.expanduser().resolve()
    if cache_dir == REPOSITORY or REPOSITORY in cache_dir.parents:
        parser.error(f"--cache-dir {cache_dir} is inside the repository; use a directory outside it")
    releases = args.release or list(RELEASES)

    files: dict[str, bytes] = {}
    for release in releases:
        files.update(render(release, cache_dir, args.fresh))

    if args.check:
        problems = _check(files, releases)
        for line in problems:
            print(line, file=sys.stderr)
        if problems:
            print("run 'python examples/releases/generate.py' to regenerate", file=sys.stderr)
            return 1
        print(f"{len(files)} release example files up to date")
        return 0

    for release in releases:
        folder = HERE / release
        folder.mkdir(exist_ok=True)
        for path in folder.glob("*.nq"):
            if f"{release}/{path.name}" not in files:
                path.unlink()
    for name, content in files.items():
        (HERE / name).write_bytes(content)
    print(f"wrote {len(files)} files under {HERE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
