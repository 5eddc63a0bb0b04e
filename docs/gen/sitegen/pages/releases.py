"""The page "Trace models by release": the generations tgtrace.tracemodel.generations names, how the
linter dates the examples of each release, and each pattern's chain in every generation side
by side, drawn from examples/releases/."""

from __future__ import annotations

from pathlib import Path

from tgtrace.inputs.loaders import load
from tgtrace.tracemodel.generations import GENERATIONS, infer, release_key

from .. import diagrams
from ..context import Context, SiteError, rel_html
from ..traces import Trace

SRC = "releases.md"
# The patterns drawn side by side (file stem under examples/releases/<release>/, title).
COMPARED = (("graph-rag", "GraphRAG"), ("document-rag", "Document RAG"), ("react", "ReAct agent"),
            ("supervisor", "Supervisor"))


def _folders(examples: Path) -> list[Path]:
    folder = examples / "releases"
    return sorted((p for p in folder.iterdir() if p.is_dir() and p.name[0].isdigit()),
                  key=lambda p: release_key(p.name)) if folder.is_dir() else []


def _generation_of(release: str):
    """The generation a release belongs to, by the release ranges the generations name."""
    for generation in GENERATIONS:
        low = release_key(generation.first)
        high = release_key(generation.last) if generation.last else None
        if low <= release_key(release) and (high is None or release_key(release) <= high):
            return generation
    return GENERATIONS[0] if release_key(release) < release_key(GENERATIONS[1].first) else None


def _dated(path: Path) -> tuple[list[str], list[str]]:
    """The trace models the linter infers for a file's traces, and the signals it read."""
    models, signals = [], []
    for item in load(path):
        for inference in infer(item.graph()).values():
            models.append(inference.releases)
            signals += [s.what for s in inference.signals]
    return list(dict.fromkeys(models)), list(dict.fromkeys(signals))


def check(context: Context) -> list[str]:
    if not _folders(context.examples_dir):
        return [f"no release examples under {context.examples_dir / 'releases'}"]
    return []


def pages(context: Context) -> dict[str, str]:
    folders = _folders(context.examples_dir)
    by_generation: dict = {g.number: [] for g in GENERATIONS}
    releases = []
    for folder in folders:
        generation = _generation_of(folder.name)
        if generation is None:
            raise SiteError(f"examples/releases/{folder.name}: no trace model covers this release")
        by_generation[generation.number].append(folder)
        files = sorted(folder.glob("*.nq"))
        models, signals = [], []
        for path in files:
            found_models, found_signals = _dated(path)
            models += [m for m in found_models if m not in models]
            signals += [s for s in found_signals if s not in signals]
        releases.append((folder.name, generation, [p.stem for p in files], models, signals))
    generations = [(g, [f.name for f in by_generation[g.number]]) for g in GENERATIONS]
    comparisons = []
    for stem, title in COMPARED:
        cells = []
        for generation in GENERATIONS:
            # The newest example release of the generation that shows the pattern.
            path = next((f / f"{stem}.nq" for f in reversed(by_generation[generation.number])
                         if (f / f"{stem}.nq").exists()), None)
            if path is None:
                cells.append((generation, None, None))
                continue
            trace = Trace.load(path)
            key = f"release-{path.parent.name}-{stem}"
            drawing = context.diagram(key, diagrams.trace_diagram(
                trace, context.specific,
                lambda iri: rel_html(SRC, context.term_src(iri)) if iri in context.vocab.classes else None,
                f"{title}: examples/releases/{path.parent.name}/{path.name}"))
            cells.append((generation, path.parent.name, drawing))
        comparisons.append((title, stem, cells))
    return {SRC: context.render("releases.md.j2", SRC, generations=generations, releases=releases,
                                comparisons=comparisons)}
