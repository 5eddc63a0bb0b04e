"""What several formats share: where paths are relative to, and text made safe to show."""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ..ground.escaping import printable
from ..ground.files import git_root
from ..ground.locations import OBJECTS, place
from ..ground.model import Report

# Names a loader gives input that did not come from a file.
NOT_A_FILE = {None, "", "-", "<stdin>", "<input>", OBJECTS}

def repository_root() -> Path:
    """Where CI resolves paths from: $GITHUB_WORKSPACE, else the enclosing git work tree,
    else the working directory."""
    workspace = os.environ.get("GITHUB_WORKSPACE")
    if workspace:
        return Path(os.path.abspath(workspace))
    cwd = Path(os.path.abspath(os.getcwd()))
    return git_root(cwd) or cwd


def relative_path(file: str | None, root: str | Path | None = None) -> str | None:
    """The input file as a POSIX path relative to ``root`` (default: :func:`repository_root`),
    or as given when it lies outside; None for input that is not a file."""
    if file in NOT_A_FILE:
        return None
    # Asked once per finding: a capture with a million findings names a handful of files.
    return _relative(str(file), None if root is None else str(root), os.getcwd(), os.environ.get("GITHUB_WORKSPACE"))


@lru_cache(maxsize=4096)
def _relative(file: str, root: str | None, cwd: str, workspace: str | None) -> str:
    # cwd and workspace are part of the key: the answer depends on them.
    base = Path(root) if root is not None else repository_root()
    absolute = Path(os.path.abspath(file))
    try:
        return absolute.relative_to(os.path.abspath(base)).as_posix()
    except ValueError:
        return Path(file).as_posix() if not Path(file).is_absolute() else absolute.as_posix()


def shown_path(file: str | None, root: str | Path | None = None) -> str:
    """The file as a report names it: relative to the root, made printable. Lines of the text
    formats start with it, and a CI runner reads a line that starts with "::" as a workflow
    command: such a name is shown as ./::name, the same file."""
    path = relative_path(file, root)
    shown = printable(path if path is not None else (file or "<input>"))
    return "./" + shown if shown.startswith(":") else shown


def shown_location(file: str | None, line: int | None, root: str | Path | None = None) -> str:
    """FILE:LINE as a report names a place, or FILE alone for a finding about no one line (a
    notice about the whole input): the exit contract's FILE[:LINE]; the item of a list of Python
    objects as ``<objects>[INDEX]``."""
    return place(shown_path(file, root), line)


def plural(count: int, noun: str, plural_form: str | None = None) -> str:
    return f"{count} {noun if count == 1 else (plural_form or noun + 's')}"


def not_shown(report: Report) -> str:
    """What --show (or the format's default) left out of a report's list, as every summary says
    it ("info not shown; --show info lists them": the counts are beside it); empty when it left
    out nothing. What it leaves out is every finding below a severity."""
    if not report.not_shown:
        return ""
    names = [("warnings" if name == "warning" else name) for name in ("error", "warning", "info")
             if report.hidden.get(name)]
    return f"{' and '.join(names)} not shown; --show info lists them"


def severities(counts: dict[str, int]) -> str:
    """Findings per severity in words, as every summary says them: "1 error, 4 warnings, 2 info"."""
    return ", ".join(plural(counts[name], name) if name != "info" else f"{counts[name]} info"
                     for name in ("error", "warning", "info") if counts.get(name))


# How show, graph and the HTML report mark a step no link of its trace reaches (views' Step.orphan).
ORPHAN = "not linked to its trace"


def census(files: int, traces: int, repeated: int = 0, items: int = 0) -> str:
    """How many files were read and traces found, as every report and `tg-trace list` say it (the
    items of Python objects counted as items, not files: "12 items"). A trace is a root
    Question's, or an extraction trace's Document (tgtrace.tracemodel.traces.trace_roots); a trace
    that several files hold is one trace, and the count says so."""
    read = [plural(files, "file")] if files or not items else []
    read += [plural(items, "item")] if items else []
    said = f"{', '.join(read)}, {plural(traces, 'trace')}"
    if repeated:
        which = ("" if traces == 1 else "each ") if repeated == traces else f"{repeated} "
        said += f" ({which}held by several files, counted once)"
    return said


@dataclass(frozen=True)
class Format:
    """An output format: its name, a one-line help, the module here that writes it, and its kind."""

    name: str
    help: str
    module: str  # its render(report, output: tgtrace.run.settings.Output) -> str
    # Whether --statistics can follow this format's output (as text, or as JSON for json).
    statistics: bool = False
    # "json" for a JSON document, "turtle" for a Turtle document, else a text layout (text,
    # Markdown, XML, HTML): how the last guard escapes what input text might still hold
    # (tgtrace.ground.escaping).
    syntax: str = "text"
    # Which command writes it (tgtrace.formats.KINDS): report (lint, check), live (watch), view
    # (list, show), rdf (convert) or diff (diff).
    kind: str = "report"
    # Whether the report it writes shows the traces' views (steps, diagrams, excerpts): the face
    # then asks the run to build them in its one pass (``report.views``).
    views: bool = False
    # Whether it opens with the audit of the traces (tgtrace.views.audit): the face then asks the
    # run for each trace's record in its one pass (``report.audit``).
    audit: bool = False
