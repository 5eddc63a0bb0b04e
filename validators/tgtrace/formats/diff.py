"""How `tg-trace diff` writes what changed between two inputs' traces (``tgtrace.views.diff``):
a tree as text (the default), ``json``, and ``markdown`` for a pull request's comment; and the
structure snapshot the pytest plugin keeps, as TriG.

Every name shown comes from the input (file names, the local names of classes and links that
name places, contract values, questions): each is made printable, Markdown's code spans fence
what they hold, and the whole output passes the last guard of its syntax.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable

from ..ground.escaping import bounded, printable, safe_json, safe_layout
from ..ground.files import write_atomic
from ..tracemodel.naming import curie
from ..tracemodel.traces import PATTERN_TITLES
from ..views.diff import (
    SNAPSHOT,
    Change,
    DiffGroup,
    Entity,
    EntityDiff,
    StructureDiff,
    TraceStructure,
    Value,
    snapshot_quads,
)
from . import DIFF_FORMATS, rdf
from .common import plural, shown_path

# The longest question shown beside a trace, and the longest contract value (the rest is elided;
# JSON keeps them whole).
QUESTION_WIDTH = 80
VALUE_WIDTH = 200
_MARK = {"added": "+", "removed": "-", "changed": "~"}
_STYLE = {"+": "green", "-": "red", "~": "yellow"}


def render(diff: StructureDiff, fmt: str = "text", color: bool = False) -> str:
    """The diff in one of DIFF_FORMATS; ``color`` (text only) gives rich markup for a terminal.
    Whatever a writer left of the input's unsafe characters is escaped here, by the format's syntax."""
    chosen = DIFF_FORMATS.get(fmt)
    if chosen is None:
        raise ValueError(f"unknown format {fmt!r} (choose from {', '.join(DIFF_FORMATS)})")
    written = (json.dumps(to_dict(diff), indent=2, ensure_ascii=False) if fmt == "json"
               else markdown(diff) if fmt == "markdown" else text(diff, color))
    return safe_json(written) if chosen.syntax == "json" else safe_layout(written)


def emit(diff: StructureDiff, fmt: str = "text", color: bool = False, output_file: str | None = None) -> None:
    """Write the diff to ``output_file`` (atomically) or standard output, coloured on a terminal."""
    shown = render(diff, fmt, color=color and not output_file and fmt == "text")
    if output_file:
        write_atomic(output_file, shown if shown.endswith("\n") else shown + "\n")
    elif color and fmt == "text":
        # Imported here alone: rich's console costs every uncoloured run start-up time.
        from rich.console import Console
        Console(highlight=False, soft_wrap=True, force_terminal=True).print(shown)
    else:
        sys.stdout.write(shown if shown.endswith("\n") else shown + "\n")
        sys.stdout.flush()


# ---------------------------------------------------------------------------
# What every format says the same way.
# ---------------------------------------------------------------------------

def pattern_name(pattern: str) -> str:
    return PATTERN_TITLES.get(pattern, pattern)


def value_text(value: Value) -> str:
    """A value as a person reads it: a place, ``literal xsd:string``, ``"final-answer"``, ``IRI``,
    ``blank node``, ``<<( IRI IRI literal xsd:string )>>`` (input text made printable)."""
    if value.kind == "link":
        return printable(str(value.place))
    if value.kind == "literal":
        if value.text is not None:
            return f'"{bounded(printable(value.text), VALUE_WIDTH)}"'
        return "literal " + (f"@{printable(value.language)}" if value.language else printable(curie(value.datatype)))
    if value.kind == "triple":
        return "<<( " + " ".join(value_text(t) for t in value.terms) + " )>>"
    return {"iri": "IRI", "blank": "blank node"}.get(value.kind, value.kind)


def values_text(values: Iterable[Value]) -> str:
    return ", ".join(value_text(v) for v in values) or "nothing"


def _graph_name(name: str) -> str:
    return "default graph" if name == "" else printable(name)


def change_text(change: Change) -> str:
    """One change, after its sign: ``type tg:EdgeSelection``, ``tg:score: literal xsd:string``,
    ``prov:wasDerivedFrom: Focus → Exploration``, ``named graph: urn:graph:retrieval → default graph``."""
    if change.aspect in ("type", "mixin"):
        return f"{change.aspect} {printable(curie(change.term))}"
    if change.aspect == "graph":
        old = ", ".join(map(_graph_name, change.old)) or "none"
        new = ", ".join(map(_graph_name, change.new)) or "none"
        return f"named graph: {old} → {new}"
    term = printable(curie(change.term))
    if change.sign == "+":
        return f"{term}: {values_text(change.new)}"
    if change.sign == "-":
        return f"{term}: {values_text(change.old)}"
    return f"{term}: {values_text(change.old)} → {values_text(change.new)}"


def entity_lines(entity: Entity) -> list[str]:
    """What an added or removed entity carries, one predicate a line."""
    lines = []
    if entity.graphs:
        lines.append("named graph: " + ", ".join(map(_graph_name, sorted(entity.graphs))))
    lines += [f"{printable(curie(p))}: {values_text(sorted(v, key=Value.sort_key))}" for p, v in entity.values]
    return lines


def entity_kinds(entity: Entity) -> str:
    kinds = [printable(curie(t)) for t in sorted(entity.types)] + [printable(curie(m)) for m in sorted(entity.mixins)]
    return ", ".join(kinds) or "untyped"


def _question(trace: TraceStructure) -> str:
    return bounded(printable(trace.question), QUESTION_WIDTH) if trace.question else ""


def group_title(group: DiffGroup, quote: Callable[[str], str] = lambda text: f'"{text}"') -> str:
    """The group's pattern (and the pattern it became), and its one trace's question, quoted for the output."""
    pattern = pattern_name(group.pattern)
    if group.new_pattern != group.pattern:
        pattern = f"{pattern} → {pattern_name(group.new_pattern)}"
    if group.count == 1:
        # Two traces paired by their place (two different inputs' one trace each): both questions.
        old, new = _question(group.pairs[0][0]), _question(group.pairs[0][1])
        if old and new and old != new:
            return f"{pattern} trace {quote(old)} → {quote(new)}"
        question = old or new
        return f"{pattern} trace" + (f" {quote(question)}" if question else "")
    return f"{group.count} {pattern} traces"


def summary(diff: StructureDiff) -> str:
    counts = diff.counts()
    total = counts["paired"] + counts["only_old"] + counts["only_new"]
    if diff.same:
        return f"no structural difference ({plural(counts['paired'], 'trace')})"
    parts = [f"{counts['changed']} of {plural(counts['paired'], 'paired trace')} changed"]
    if counts["only_old"] or counts["only_new"]:
        parts.append(f"{counts['only_old']} only in the old input, {counts['only_new']} only in the new "
                     f"({plural(total, 'trace')} in all)")
    return "; ".join(parts)


def _unpaired(traces: list[TraceStructure]) -> list[tuple[str, list[str]]]:
    """Unpaired traces by pattern: (pattern, their questions)."""
    found: dict = {}
    for trace in traces:
        found.setdefault(trace.pattern, []).append(_question(trace))
    return list(found.items())


# ---------------------------------------------------------------------------
# Text.
# ---------------------------------------------------------------------------

def text(diff: StructureDiff, color: bool = False) -> str:
    if color:  # rich's markup, imported for coloured output alone
        from rich.markup import escape

    def show(line: str, sign: str | None = None) -> str:
        stripped = line.lstrip()
        if stripped.startswith("::"):  # a CI runner would read it as a workflow command (an IRI from the input)
            line = line[:len(line) - len(stripped)] + "\\x3a" + stripped[1:]
        if not color:
            return line
        line = escape(line)
        return f"[{_STYLE[sign]}]{line}[/]" if sign else line

    lines = [show(f"--- {shown_path(diff.old)}"), show(f"+++ {shown_path(diff.new)}")]
    for group in diff.groups:
        lines.append("")
        if not group.differs:
            lines.append(show(f"{group_title(group)}: no structural difference"))
            continue
        lines.append(show(group_title(group)))
        if group.new_pattern != group.pattern:
            lines.append(show(f"  ~ pattern: {pattern_name(group.pattern)} → {pattern_name(group.new_pattern)}", "~"))
        for entity in group.entities:
            sign = _MARK[entity.status]
            if entity.status == "changed":
                lines.append(show(f"  {sign} {printable(str(entity.place))}", sign))
                lines += [show(f"      {change.sign} {change_text(change)}", change.sign) for change in entity.changes]
            else:
                assert entity.entity is not None
                lines.append(show(f"  {sign} {printable(str(entity.place))} ({entity_kinds(entity.entity)})", sign))
                lines += [show(f"      {line}", sign) for line in entity_lines(entity.entity)]
    for side, traces in (("old", diff.only_old), ("new", diff.only_new)):
        for pattern, questions in _unpaired(traces):
            sign = "-" if side == "old" else "+"
            lines += ["", show(f"{sign} {plural(len(questions), pattern_name(pattern) + ' trace')} only in the {side} "
                               "input", sign)]
            lines += [show(f'      "{q}"', sign) for q in questions if q]
    lines += ["", summary(diff)]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------
# Markdown.
# ---------------------------------------------------------------------------

def code(text_: str) -> str:
    """Input text as a Markdown code span: printable, fenced by more backticks than it holds."""
    shown = printable(text_)
    run = longest = 0
    for char in shown:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    fence = "`" * (longest + 1)
    pad = " " if shown.startswith("`") or shown.endswith("`") or not shown.strip() else ""
    return f"{fence}{pad}{shown}{pad}{fence}"


def _md_value(value: Value) -> str:
    return code(value_text(value))


def _md_values(values: Iterable[Value]) -> str:
    return ", ".join(map(_md_value, values)) or "nothing"


def _md_change(change: Change) -> str:
    if change.aspect in ("type", "mixin"):
        verb = "added" if change.sign == "+" else "removed"
        return f"{verb} {change.aspect} {code(curie(change.term))}"
    if change.aspect == "graph":
        old = ", ".join(code(_graph_name(g)) for g in change.old) or "none"
        new = ", ".join(code(_graph_name(g)) for g in change.new) or "none"
        return f"named graph {old} → {new}"
    term = code(curie(change.term))
    if change.sign == "+":
        return f"added {term}: {_md_values(change.new)}"
    if change.sign == "-":
        return f"removed {term}: {_md_values(change.old)}"
    return f"changed {term}: {_md_values(change.old)} → {_md_values(change.new)}"


def markdown_entities(entities: tuple[EntityDiff, ...]) -> list[str]:
    """The changes of one group of traces, as a Markdown list."""
    lines = []
    for entity in entities:
        place = code(str(entity.place))
        if entity.status == "changed":
            lines.append(f"- **changed** {place}")
            lines += [f"  - {_md_change(change)}" for change in entity.changes]
        else:
            assert entity.entity is not None
            kinds = ", ".join(code(curie(t)) for t in sorted(entity.entity.types | entity.entity.mixins)) or "untyped"
            lines.append(f"- **{entity.status}** {place} ({kinds})")
            lines += [f"  - {code(line)}" for line in entity_lines(entity.entity)]
    return lines


def markdown(diff: StructureDiff, title: bool = True, level: int = 3) -> str:
    """The diff as Markdown: with ``title``, a heading (at ``level``) and the two inputs; each group
    of traces under a heading one level below."""
    heading = "#" * level
    lines: list[str] = []
    if title:
        verdict = ":white_check_mark:" if diff.same else ":warning:"
        lines += [f"{heading} {verdict} tg-trace diff: {summary(diff)}", "",
                  f"{code(shown_path(diff.old))} → {code(shown_path(diff.new))}", ""]
    sub = "#" * (level + 1)
    for group in diff.groups:
        if not group.differs:
            lines += [f"{sub} {_md_title(group)}: no structural difference", ""]
            continue
        lines += [f"{sub} {_md_title(group)}", ""]
        if group.new_pattern != group.pattern:
            lines.append(f"- **changed** pattern: {code(pattern_name(group.pattern))} → "
                         f"{code(pattern_name(group.new_pattern))}")
        lines += markdown_entities(group.entities) + [""]
    for side, traces in (("old", diff.only_old), ("new", diff.only_new)):
        for pattern, questions in _unpaired(traces):
            lines += [f"{sub} {plural(len(questions), pattern_name(pattern) + ' trace')} only in the {side} input", ""]
            lines += [f"- {code(q)}" for q in questions if q] + [""]
    if not title:
        lines.append(summary(diff).capitalize() + ".")
    return "\n".join(lines).rstrip("\n") + "\n"


def _md_title(group: DiffGroup) -> str:
    return group_title(group, code)


# ---------------------------------------------------------------------------
# JSON.
# ---------------------------------------------------------------------------

def value_dict(value: Value) -> dict:
    data: dict = {"kind": value.kind}
    if value.kind == "link":
        data["place"] = str(value.place)
    elif value.kind == "literal":
        data["datatype"] = value.datatype
        if value.language:
            data["language"] = value.language
        if value.text is not None:
            data["value"] = value.text
    elif value.kind == "triple":
        data["terms"] = [value_dict(t) for t in value.terms]
    return data


def _change_dict(change: Change) -> dict:
    data: dict = {"aspect": change.aspect, "change": {"+": "added", "-": "removed", "~": "changed"}[change.sign]}
    if change.aspect in ("type", "mixin"):
        data["term"] = change.term
    elif change.aspect == "graph":
        data["old"], data["new"] = list(change.old), list(change.new)
    else:
        data["term"] = change.term
        data["old"] = [value_dict(v) for v in change.old]
        data["new"] = [value_dict(v) for v in change.new]
    return data


def entity_dict(entity: Entity) -> dict:
    return {"types": sorted(entity.types), "mixins": sorted(entity.mixins), "graphs": sorted(entity.graphs),
            "predicates": {p: [value_dict(v) for v in sorted(vs, key=Value.sort_key)] for p, vs in entity.values}}


def _entity_diff_dict(entity: EntityDiff) -> dict:
    data: dict = {"place": str(entity.place), "path": list(entity.place.path), "status": entity.status}
    if entity.entity is not None:
        data["entity"] = entity_dict(entity.entity)
    if entity.changes:
        data["changes"] = [_change_dict(c) for c in entity.changes]
    return data


def _trace_dict(trace: TraceStructure) -> dict:
    return {"pattern": trace.pattern, "question": trace.question, "file": trace.source}


def to_dict(diff: StructureDiff) -> dict:
    return {
        "old": diff.old,
        "new": diff.new,
        "same": diff.same,
        "summary": diff.counts(),
        "groups": [{"pattern": g.pattern, "new_pattern": g.new_pattern, "traces": g.count, "differs": g.differs,
                    "pairs": [{"old": _trace_dict(a), "new": _trace_dict(b)} for a, b in g.pairs],
                    "changes": [_entity_diff_dict(e) for e in g.entities]} for g in diff.groups],
        "only_old": [_trace_dict(t) for t in diff.only_old],
        "only_new": [_trace_dict(t) for t in diff.only_new],
    }


# ---------------------------------------------------------------------------
# Snapshots.
# ---------------------------------------------------------------------------

SNAPSHOT_HEADER = """\
# The structure of {traces}, as tg-trace compares traces: each entity named by its
# place in its trace, each value by its kind ("…" stands for any literal of its datatype,
# snap:iri for any IRI); termination reasons, patterns, tool names and named graphs as they are.
# Compare a trace with it: tg-trace diff THIS-FILE TRACE. The pytest plugin rewrites it with
# pytest --tg-trace-update.
"""


def snapshot(traces: list[TraceStructure]) -> bytes:
    """The structure snapshot of ``traces``: TriG that ``tg-trace diff`` (and any RDF tool) reads."""
    header = SNAPSHOT_HEADER.format(traces=plural(len(traces), "trace"))
    return header.encode("utf-8") + rdf.serialize(snapshot_quads(traces), "trig", prefixes={"snap": SNAPSHOT})

