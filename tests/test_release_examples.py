"""Traces written by each TrustGraph release's own builders (examples/releases/): they load, and the
trace-model generation inferred from each one admits the release that wrote it.

The files are committed; examples/releases/generate.py rewrites them (it needs the network) and is
run here only with TG_TRACE_REGENERATE=1.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from tgtrace.inputs import loaders
from tgtrace.tracemodel.generations import GENERATIONS, infer, release_key

RELEASES_DIR = Path(__file__).resolve().parents[1] / "examples" / "releases"
FILES = sorted(RELEASES_DIR.glob("*/*.nq"), key=lambda p: (release_key(p.parent.name), p.name))
# Extraction provenance holds no trace (no Question): tests/test_old_releases.py lints it.
TRACES = [p for p in FILES if p.stem != "extraction"]

# The releases generate.py covers, and the patterns every release supports.
RELEASES = ("2.1.16", "2.1.22", "2.2.12", "2.2.13", "2.6.8", "2.6.9", "2.11.1")
ALWAYS = {"graph-rag", "document-rag", "react", "react-one-shot"}
ORCHESTRATOR = {"orchestrator-react", "plan-then-execute", "supervisor"}  # from 2.2.12


def generation_of(release: str) -> int:
    """The trace-model generation a release writes, as tgtrace.tracemodel.generations defines them."""
    key = release_key(release)
    for generation in GENERATIONS:
        if generation.last is None or key <= release_key(generation.last):
            return generation.number
    raise AssertionError(release)


# Real traces whose inference excludes the release that wrote them (none: keep it so).
MISDATED: dict = {}

_LATER = ("nothing this trace holds tells {release} from the later releases (the agent services, GraphRAG "
          "and Document RAG without a reranker write the same shapes up to 2.11.1), so the newest "
          "generation admitted is a later one")
# Traces whose inference admits their release but names a newer generation as the newest admitted.
NEWEST_ADMITTED_IS_LATER = {
    **{f"{release}/{pattern}": _LATER.format(release=release)
       for release in ("2.2.13", "2.6.8") for pattern in ("document-rag", "react", "react-one-shot", "supervisor")},
    **{f"2.6.8/{pattern}": _LATER.format(release="2.6.8")
       for pattern in ("graph-rag", "orchestrator-react", "plan-then-execute")},
    **MISDATED,
}


def name(path: Path) -> str:
    return f"{path.parent.name}/{path.stem}"


def cases(known: dict) -> list:
    def marks(path):
        return [pytest.mark.xfail(strict=True, reason=known[name(path)])] if name(path) in known else []
    return [pytest.param(path, id=name(path), marks=marks(path)) for path in TRACES]


def load(path: Path):
    (item,) = loaders.load(str(path))
    return item.graph()


def test_every_release_has_its_patterns():
    # A check that matched no file checks nothing.
    assert FILES, f"no traces under {RELEASES_DIR}; run examples/releases/generate.py"
    found: dict[str, set] = {}
    for path in FILES:
        found.setdefault(path.parent.name, set()).add(path.stem)
    assert sorted(found, key=release_key) == list(RELEASES)
    assert {generation_of(r) for r in RELEASES} == {g.number for g in GENERATIONS}  # one of each
    for release, patterns in found.items():
        expected = set(ALWAYS)
        if release_key(release) >= (2, 2, 12):
            expected |= ORCHESTRATOR
        if release_key(release) >= (2, 6, 9):
            expected.add("document-rag-reranked")
        if release == "2.1.16":
            expected.add("extraction")  # untyped prov:Entity nodes with tg: predicates
        assert patterns == expected, release


def test_known_cases_name_existing_files():
    names = {name(p) for p in FILES}
    assert set(NEWEST_ADMITTED_IS_LATER) <= names and set(MISDATED) <= names


@pytest.mark.parametrize("path", cases({}))
def test_release_trace_loads(path):
    graph = load(path)  # an InputError fails the test
    assert graph.roots(), "every file holds at least one trace"


@pytest.mark.parametrize("path", cases(MISDATED))
def test_inference_admits_the_release(path):
    expected = generation_of(path.parent.name)
    inferred = infer(load(path))
    assert inferred, "no trace inferred"
    for root, inference in inferred.items():
        assert not inference.contradictory, (root, inference.signals)
        assert expected in inference.generations, (root, inference.releases, [s.what for s in inference.signals])


@pytest.mark.parametrize("path", cases(NEWEST_ADMITTED_IS_LATER))
def test_newest_generation_admitted_is_the_releases(path):
    expected = generation_of(path.parent.name)
    for root, inference in infer(load(path)).items():
        assert inference.generation is not None and inference.generation.number == expected, \
            (root, inference.releases, [s.what for s in inference.signals])


def test_readme_lists_every_file():
    readme = (RELEASES_DIR / "README.md").read_text(encoding="utf-8")
    for release in RELEASES:
        assert f"`{release}/`" in readme, release
    for pattern in {p.stem for p in FILES}:
        assert f"`{pattern}`" in readme, pattern


@pytest.mark.skipif(os.environ.get("TG_TRACE_REGENERATE") != "1",
                    reason="set TG_TRACE_REGENERATE=1 (installs every release of trustgraph-base from PyPI)")
def test_regenerating_gives_the_committed_files():
    result = subprocess.run([sys.executable, str(RELEASES_DIR / "generate.py"), "--check"],
                            capture_output=True, text=True, timeout=3600)
    assert result.returncode == 0, result.stdout + result.stderr
