"""How trace views are printed: `tg-trace list`'s table and `tg-trace show`'s tree, as text
(rich) or JSON. Views come from :mod:`tgtrace.views.traces`; input text is made printable
and never read as rich markup."""

from __future__ import annotations

import io
import json
import re
import shutil
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text
from rich.tree import Tree

from ..ground.escaping import json_text, printable
from ..ground.model import Severity
from ..tracemodel.naming import short_iri
from ..views.traces import Step, TraceView
from .common import ORPHAN, census, plural, severities, shown_path

_STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}
_LETTER = {Severity.ERROR: "E", Severity.WARNING: "W", Severity.INFO: "I"}


def _escaped_iri(iri: str | None) -> str:
    # A row starts with it: escaped, and what is left never starts like a workflow command ("::").
    return printable(short_iri(iri))


def _ms(value: int | None) -> str:
    if value is None:
        return ""
    return f"{value / 1000:.1f} s" if value >= 1000 else f"{value} ms"


def _console(color: bool, width: int | None, record: bool = False) -> tuple[Console, io.StringIO]:
    buffer = io.StringIO()
    # Not a terminal: wide enough that rows do not fold (a pipe or file has no width).
    width = width or (shutil.get_terminal_size((160, 24)).columns if color else 220)
    return Console(file=buffer, force_terminal=color, no_color=not color, width=width, highlight=False,
                   soft_wrap=False, emoji=False, record=record), buffer


def _offline_svg_format() -> str:
    """rich's SVG template without its web fonts: a picture of the terminal loads nothing."""
    from rich._export_format import CONSOLE_SVG_FORMAT

    return re.sub(r"@font-face\s*\{\{.*?\}\}\s*", "", CONSOLE_SVG_FORMAT, flags=re.S)


def _findings_cell(counts: dict) -> Text:
    text = Text()
    for name, severity in (("error", Severity.ERROR), ("warning", Severity.WARNING), ("info", Severity.INFO)):
        if counts.get(name):
            if text:
                text.append(" ")
            text.append(f"{counts[name]}{_LETTER[severity]}", style=_STYLE[severity])
    return text or Text("-", style="green")


# The list's columns in the order shown, and the order in which they give way when the terminal
# is too narrow for all of them (the highest number first); trace, question and findings stay.
_LIST_COLUMNS = (("trace", "left", 0), ("file", "left", 0), ("pattern", "left", 0), ("model", "left", 5),
                 ("question", "left", 0), ("started", "left", 6), ("steps", "right", 4), ("llm", "right", 9),
                 ("tool", "right", 8), ("tokens in/out", "right", 10), ("llm model", "left", 11),
                 ("termination", "left", 7), ("answered", "left", 3), ("findings", "left", 0))
# The question gets what the other columns leave, at least this much and at most the longer.
_QUESTION = (20, 60)


def list_width() -> int:
    """The width the list fits: $COLUMNS, else the terminal's, else (a pipe) wide enough for
    every column."""
    return shutil.get_terminal_size((220, 24)).columns


def _list_rows(views: list[TraceView], root: str | Path | None = None) -> list[dict]:
    # A trace found in several files (extraction.json and extraction.nq) is one row per file:
    # the file column says which is which.
    files_of: dict = {}
    for view in views:
        files_of.setdefault(view.trace, set()).add(view.file)
    repeated = any(len(files) > 1 for files in files_of.values())
    rows = []
    for view in views:
        tokens = "" if view.tokens_in is None and view.tokens_out is None else \
            f"{view.tokens_in or 0}/{view.tokens_out or 0}"
        nested = sum(1 for _ in view.subtraces())
        rows.append({
            "trace": _escaped_iri(view.trace) + (f" (+{nested} sub)" if nested else ""),
            "file": shown_path(view.file, root) if repeated else "",
            "pattern": view.pattern, "model": printable(view.trace_model or ""),
            "question": printable(" ".join((view.question or "").split())),
            "started": printable((view.started or "").replace("T", " ")[:16]), "steps": str(view.step_count),
            "llm": _ms(view.llm_ms), "tool": _ms(view.tool_ms), "tokens in/out": tokens,
            "llm model": printable(", ".join(view.models)), "termination": printable(view.termination or ""),
            "answered": {True: "yes", False: "no", None: ""}[view.answered],
            "findings": _findings_cell(view.counts()),
        })
    return rows


def _cell_width(value: Text | str) -> int:
    return value.cell_len if isinstance(value, Text) else len(value)


def _chosen_columns(rows: list[dict], width: int) -> dict[str, int]:
    """The columns that have a value in some row, less those that give way to fit ``width``,
    each with the width it gets: its widest cell, the question what is left (within _QUESTION),
    and when even that is too wide, the file and the trace cut down."""
    kept = [(name, drop) for name, _, drop in _LIST_COLUMNS
            if name in ("trace", "question", "findings") or any(_cell_width(row[name]) for row in rows)]
    widths = {name: max([len(name), *(_cell_width(row[name]) for row in rows)]) for name, _ in kept}

    def others() -> int:
        # Each column is padded by one space either side, except at the table's edges.
        return sum(w for n, w in widths.items() if n != "question") + 2 * (len(widths) - 1)

    question = widths["question"]
    widths["question"] = min(question, _QUESTION[0])
    for name, drop in sorted(kept, key=lambda item: -item[1]):
        if others() + widths["question"] <= width or not drop:
            break
        del widths[name]
    for name in ("file", "trace"):
        over = others() + widths["question"] - width
        if over > 0 and name in widths:
            widths[name] = max(12, widths[name] - over)
    widths["question"] = max(_QUESTION[0], min(question, _QUESTION[1], width - others()))
    return widths


def render_list(views: list[TraceView], fmt: str = "text", color: bool = False, width: int | None = None,
                root: str | Path | None = None, files: int | None = None, listed: int | None = None,
                outside: dict[str, int] | None = None) -> str:
    """The table `tg-trace list` prints (or its rows as JSON), and its count of the files read
    (``files``; default: those the rows name) and traces (as lint counts them: a trace that
    several files hold is one), saying how many of ``listed`` traces the filters left."""
    if fmt == "json":
        # The rows; findings outside every trace as a last row with no trace, as lint reports them.
        return json_text([v.summary() for v in views] + ([{"trace": None, "findings": outside}] if outside else []))
    width = width or list_width()
    console, buffer = _console(color, width)
    rows = _list_rows(views, root)
    columns = _chosen_columns(rows, width)
    table = Table(box=None, header_style="bold", pad_edge=False, expand=False)
    justify: dict[str, Any] = {name: how for name, how, _ in _LIST_COLUMNS}
    for name, size in columns.items():
        # One line a row: a long question is cut with an ellipsis (show prints it whole).
        table.add_column(name, justify=justify[name], overflow="ellipsis", no_wrap=True, width=size)
    for row in rows:
        if "file" in columns and len(row["file"]) > columns["file"]:
            # A path keeps its end, the file's name.
            row["file"] = "…" + row["file"][len(row["file"]) - columns["file"] + 1:]
        table.add_row(*(row[name] for name in columns))
    console.print(table)
    files_of: dict = {}
    for view in views:
        files_of.setdefault(view.trace, set()).add(view.file)
    repeated = sum(1 for held in files_of.values() if len(held) > 1)
    said = census(len({v.file for v in views}) if files is None else files, len(files_of), repeated)
    if listed is not None and listed != len(files_of):
        said += f", of {plural(listed, 'trace')} before the filters"
    rows_said = f"{plural(len(views), 'row')}: " if len(views) != len(files_of) else ""
    console.print(f"{rows_said}{said}.")
    if outside:
        console.print(f"Outside any trace: {severities(outside)}.")
    return buffer.getvalue().rstrip("\n")


# ---------------------------------------------------------------------------
# show
# ---------------------------------------------------------------------------

def _step_head(step: Step) -> Text:
    text = Text()
    mixins = [t for t in step.types if t != step.kind and t not in ("Question",)]
    text.append(printable(step.kind), style="bold")
    if mixins:
        text.append(" +" + " +".join(printable(m) for m in mixins), style="magenta")
    if step.number is not None:
        text.append(f" #{step.number}")
    if step.label and step.label != step.kind:
        text.append(f"  {printable(step.label)}")
    facts = []
    if step.llm_ms is not None:
        facts.append(f"llm {_ms(step.llm_ms)}")
    if step.tool_ms is not None:
        facts.append(f"tool {_ms(step.tool_ms)}")
    if step.tokens_in is not None or step.tokens_out is not None:
        facts.append(f"tokens {step.tokens_in or 0}/{step.tokens_out or 0}")
    if step.model:
        facts.append(printable(step.model))
    if facts:
        text.append("  " + " · ".join(facts), style="dim")
    text.append(f"  {_escaped_iri(step.node)}", style="dim cyan")
    if step.orphan:
        text.append(f"  [{ORPHAN}]", style="bold red")
    return text


def _field(tree: Tree, name: str, value: str, style: str = "") -> None:
    line = Text()
    line.append(f"{name}: ", style="italic")
    line.append(value, style=style)
    tree.add(line)


def _step_tree(parent: Tree, step: Step) -> None:
    branch = parent.add(_step_head(step))
    if step.query:
        _field(branch, "query", printable(step.query))
    if step.pattern:
        _field(branch, "pattern", printable(step.pattern))
    if step.action:
        _field(branch, "tool", printable(step.action), "bold")
    if step.arguments is not None:
        shown = json.dumps(step.arguments, indent=2, ensure_ascii=False) \
            if not isinstance(step.arguments, str) else step.arguments
        _field(branch, "arguments", printable(shown, lines=True))
    if step.thought:
        if step.thought.startswith(("urn:", "http:", "https:")):
            _field(branch, "thought", f"in the librarian (tg:document) {printable(step.thought)}", "dim")
        else:
            _field(branch, "thought", printable(step.thought))
    if step.observation:
        _field(branch, "observation", printable(step.observation))
    if step.tool_error:
        _field(branch, "tool error", printable(step.tool_error), "bold red")
    if step.answer:
        _field(branch, "answer", printable(step.answer))
    if step.document:
        _field(branch, "content", f"in the librarian (tg:document) {printable(step.document)}", "dim")
    for name, values in step.details.items():
        if name in ("chunk", "entity") and isinstance(values, list) and len(values) > 3:
            values = values[:3] + [f"... {len(values) - 3} more"]
        _field(branch, name, printable(", ".join(map(str, values)) if isinstance(values, list) else str(values)))
    for edge in step.edges:
        line = f"{printable(edge['edge'])}"
        if edge.get("score") is not None:
            line += f"  score {edge['score']:g}"
        if edge.get("concept"):
            line += f"  concept {printable(edge['concept'])}"
        if edge.get("reasoning"):
            line += f"  reasoning: {printable(edge['reasoning'])}"
        _field(branch, "edge", line)
    for chunk in step.chunks:
        line = printable(chunk.get("document") or chunk["selection"])
        if chunk.get("score") is not None:
            line += f"  score {chunk['score']:g}"
        _field(branch, "chunk", line)
    if step.termination:
        _field(branch, "termination", printable(step.termination), "bold")
    for finding in step.findings:
        entry = Text()
        entry.append(f"{finding.rule} {finding.severity}", style=_STYLE[finding.severity])
        entry.append(f" {printable(finding.message)}")
        if finding.focus != step.node:
            entry.append(f" ({_escaped_iri(finding.focus)})", style="dim")
        branch.add(entry)
    for sub in step.subtraces:
        _trace_tree(branch, sub)


def _trace_head(view: TraceView, root: str | Path | None = None) -> Text:
    text = Text()
    text.append(f"[{view.pattern}] ", style="bold magenta")
    text.append(printable(view.question or "(no question)"), style="bold")
    text.append(f"  {_escaped_iri(view.trace)}", style="dim cyan")
    facts = []
    if view.parent_step is None:
        facts.append(shown_path(view.file, root))
        if view.trace_model:
            facts.append(f"trace model of TrustGraph {printable(view.trace_model)}")
    if view.started:
        facts.append(f"started {printable(view.started)}")
    if view.termination:
        facts.append(f"termination {printable(view.termination)}")
    if view.parent_step is None and view.answered is not None:
        facts.append("answered" if view.answered else "no answer")
    text.append("\n" + " · ".join(facts), style="dim")
    return text


def _trace_tree(parent: Tree | None, view: TraceView, root: str | Path | None = None) -> Tree:
    tree = Tree(_trace_head(view, root)) if parent is None else parent.add(_trace_head(view, root))
    for step in view.steps:
        _step_tree(tree, step)
    return tree


def render_show(views: list[TraceView], fmt: str = "text", color: bool = False, width: int | None = None,
                root: str | Path | None = None) -> str:
    if fmt == "json":
        return json_text([v.to_dict() for v in views])
    # svg: the coloured terminal output as a picture (the docs site's "screenshot" of show).
    console, buffer = _console(color or fmt == "svg", width, record=fmt == "svg")
    for index, view in enumerate(views):
        if index:
            console.print()
        console.print(_trace_tree(None, view, root))
        counts = view.counts()
        found = severities(counts)
        console.print(f"{view.step_count} steps; " + (f"findings: {found}." if found else "no findings."))
    if fmt == "svg":
        return console.export_svg(title="tg-trace show", code_format=_offline_svg_format())
    return buffer.getvalue().rstrip("\n")
