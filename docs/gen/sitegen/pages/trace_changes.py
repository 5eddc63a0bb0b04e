"""The page "What changed between releases": for each pattern, what `tg-trace diff` finds from
each release's example trace to the next one's (examples/releases/<release>/<pattern>.nq,
written by each release's own builders), computed at each build with tgtrace.views.diff; and
``<!-- tgdocs:diff OLD NEW -->``, what `tg-trace diff examples/OLD examples/NEW` prints."""

from __future__ import annotations

from pathlib import Path

from tgtrace.formats.diff import markdown, render
from tgtrace.tracemodel.generations import release_key
from tgtrace.views.diff import compare, read

from ..context import Context, SiteError, fenced

SRC = "trace-changes.md"
# Titles of the patterns the release examples show, by file stem; a stem not listed is titled by itself.
TITLES = {"graph-rag": "GraphRAG", "document-rag": "Document RAG", "document-rag-reranked": "Document RAG with a reranker",
          "react": "ReAct agent (agent service)", "react-one-shot": "ReAct agent answering at once",
          "orchestrator-react": "ReAct agent (orchestrator)", "plan-then-execute": "Plan-then-execute",
          "supervisor": "Supervisor", "extraction": "Extraction"}


def _releases(examples: Path) -> list[Path]:
    folder = examples / "releases"
    return sorted((p for p in folder.iterdir() if p.is_dir() and p.name[0].isdigit()),
                  key=lambda p: release_key(p.name)) if folder.is_dir() else []


def comparisons(examples: Path) -> list[tuple[str, str, list]]:
    """(stem, title, [(old release, new release, old file, new file, StructureDiff)]) for each
    pattern that two releases or more show, releases in order."""
    folders = _releases(examples)
    stems = sorted({p.stem for folder in folders for p in folder.glob("*.nq")},
                   key=lambda s: (list(TITLES).index(s) if s in TITLES else len(TITLES), s))
    found = []
    for stem in stems:
        files = [folder / f"{stem}.nq" for folder in folders if (folder / f"{stem}.nq").exists()]
        steps = []
        for before, after in zip(files, files[1:]):
            old_name = f"examples/releases/{before.parent.name}/{before.name}"
            new_name = f"examples/releases/{after.parent.name}/{after.name}"
            diff = compare(read(before), read(after), old_name, new_name)
            steps.append((before.parent.name, after.parent.name, old_name, new_name, diff))
        if steps:
            found.append((stem, TITLES.get(stem, stem), steps))
    return found


def check(context: Context) -> list[str]:
    if not any(steps for _, _, steps in comparisons(context.examples_dir)):
        return [f"no pattern has example traces of two releases under {context.examples_dir / 'releases'}"]
    return []


def pages(context: Context) -> dict[str, str]:
    patterns = [(stem, title, [(old, new, old_name, new_name, diff, markdown(diff, title=False, level=4))
                               for old, new, old_name, new_name, diff in steps])
                for stem, title, steps in comparisons(context.examples_dir)]
    return {SRC: context.render("trace-changes.md.j2", SRC, patterns=patterns)}


def diff_directive(context: Context, args, options, src: str) -> str:
    """<!-- tgdocs:diff OLD NEW -->: what `tg-trace diff examples/OLD examples/NEW` prints."""
    if len(args) != 2:
        raise SiteError(f"{src}: tgdocs:diff names two examples, not {len(args)}")
    paths = [context.examples_dir / name for name in args]
    for path, name in zip(paths, args):
        if not path.is_file():
            raise SiteError(f"{src}: examples/{name} is missing")
    old, new = (f"examples/{name}" for name in args)
    shown = render(compare(read(paths[0]), read(paths[1]), old, new), "text")
    return f"```sh\ntg-trace diff {old} {new}\n```\n\n" + fenced(shown, "text")


DIRECTIVES = {"diff": diff_directive}
