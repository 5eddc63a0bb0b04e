"""Rule help: human-readable explanations of rules (named so, not "explain", in a project about
explainability traces).

``tg-trace rule CODE``, ``tg-trace rules``, the SARIF help text and the docs
site's rule reference all print what these functions return, so a rule reads
the same wherever a user meets it. A rule's example is the faulty trace as a user
meets it: the nodes its fault recipe (``tgl:fault``) changes in the example
trace, as Turtle, the fault marked.
"""

from __future__ import annotations

import json
import re
from collections.abc import Container, Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pyoxigraph as ox

from ..ground.namespaces import RDF, RDF_TYPE, XSD
from ..ground.resources import examples_dir
from ..tracemodel.naming import PREFIXES, curie
from . import Rule, all_rules
from .registry import Fault

# A trace's Turtle is written with the trace vocabularies' prefixes (not the shapes' and the lint's).
TURTLE_PREFIXES = {name: ns for name, ns in PREFIXES.items() if name not in ("tgsh", "tgl")}
_PN_LOCAL = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")


def term_text(term: ox.NamedNode | ox.BlankNode | ox.Literal | ox.Triple, used: set[str] | None = None) -> str:
    """One RDF term in Turtle 1.2 syntax, abbreviated with TURTLE_PREFIXES (those used are added to ``used``)."""
    if isinstance(term, ox.NamedNode):
        iri = term.value
        for prefix, namespace in TURTLE_PREFIXES.items():
            if iri.startswith(namespace) and _PN_LOCAL.match(iri[len(namespace):]):
                if used is not None:
                    used.add(prefix)
                return f"{prefix}:{iri[len(namespace):]}"
        return f"<{iri}>"
    if isinstance(term, ox.Literal):
        text = json.dumps(term.value, ensure_ascii=False)
        if term.language:
            return f"{text}@{term.language}"
        datatype = term.datatype.value if term.datatype is not None else XSD + "string"
        if datatype in (XSD + "string", RDF + "langString"):
            return text
        return f"{text}^^{term_text(term.datatype, used)}"
    if isinstance(term, ox.BlankNode):
        return f"_:{term.value}"
    if isinstance(term, ox.Triple):
        parts = (term_text(term.subject, used), term_text(term.predicate, used), term_text(term.object, used))
        return "<<( " + " ".join(parts) + " )>>"
    return str(term)


def to_turtle(triples: Iterable[ox.Triple],
              highlight: Container[tuple[object, object, object]] = frozenset()) -> tuple[str, list[int]]:
    """Turtle with one predicate per line, and the line numbers of highlighted triples.

    Subjects keep the order in which they first appear, and predicates their
    order within a subject, so a snippet reads in the order the emitter wrote it.
    ``highlight`` holds (subject, predicate, object) tuples to mark.
    """
    used: set[str] = set()
    by_subject: dict = {}
    for triple in triples:
        predicates = by_subject.setdefault(triple.subject, {})
        predicates.setdefault(triple.predicate, [])
        if triple.object not in predicates[triple.predicate]:
            predicates[triple.predicate].append(triple.object)
    body: list[str] = []
    marked: list[int] = []
    for subject, predicates in by_subject.items():
        if body:
            body.append("")
        body.append(term_text(subject, used))
        items = list(predicates.items())
        # rdf:type first, written "a", as people read Turtle.
        items.sort(key=lambda item: item[0].value != RDF_TYPE)
        for index, (predicate, objects) in enumerate(items):
            verb = "a" if predicate.value == RDF_TYPE else term_text(predicate, used)
            end = " ." if index == len(items) - 1 else " ;"
            body.append(f"    {verb} " + ", ".join(term_text(o, used) for o in objects) + end)
            if any((subject, predicate, o) in highlight for o in objects):
                marked.append(len(body))
    header = [f"@prefix {p}: <{TURTLE_PREFIXES[p]}> ." for p in TURTLE_PREFIXES if p in used]
    if header:
        header.append("")
    text = "\n".join(header + body)
    return text, [line + len(header) for line in marked]


@dataclass(frozen=True)
class FaultExample:
    """A fault recipe applied to its example trace: the nodes it changes (the focus first), as
    TrustGraph wrote them and as broken, in Turtle, with the lines the fault removes and adds."""

    fault: Fault
    fixed: str
    fixed_marks: tuple[int, ...]
    failing: str
    failing_marks: tuple[int, ...]
    removed: tuple[ox.Quad, ...]
    added: tuple[ox.Quad, ...]
    # Every quad of the broken trace, in the order the emitter wrote them (what is added, last).
    after: tuple[ox.Quad, ...]


def example_trace(folder: Path, name: str) -> Path:
    """The N-Quads form of an example; a fault may name the trace by any of its files."""
    path = folder / name
    return path if path.suffix == ".nq" else path.with_suffix(".nq")


def fault_example(fault: Fault, folder: Path) -> FaultExample:
    """``fault`` applied to its example trace under ``folder``. ValueError (SyntaxError, OSError)
    when the recipe does not apply or changes nothing."""
    # File order, so the snippets read as the emitter wrote them; the store (which iterates in
    # index order) only applies the update.
    before = list(ox.parse(path=str(example_trace(folder, fault.trace)), format=ox.RdfFormat.N_QUADS))
    store = ox.Store()
    store.extend(before)
    store.update(fault.sparql)
    after_set, before_set = set(store), set(before)
    removed = [q for q in before if q not in after_set]
    added = sorted((q for q in after_set if q not in before_set), key=str)
    if not removed and not added:
        raise ValueError(f"the fault's update changes nothing in {fault.trace}")
    after = [q for q in before if q in after_set] + added
    # The focus node and every node the update touched, in the order the emitter wrote them.
    subjects: list[ox.NamedNode | ox.BlankNode | ox.Triple] = \
        [ox.NamedNode(fault.focus)] if not fault.focus.startswith("_:") else []
    for quad in removed + added:
        if quad.subject not in subjects:
            subjects.append(quad.subject)
    wanted = set(subjects)

    def describe(quads: Iterable[ox.Quad], marks: Iterable[ox.Quad]) -> tuple[str, list[int]]:
        chosen = [q.triple for q in quads if q.subject in wanted]
        chosen.sort(key=lambda t: subjects.index(t.subject))  # stable: file order within a subject
        return to_turtle(chosen, highlight={(q.subject, q.predicate, q.object) for q in marks})

    fixed, fixed_marks = describe(before, removed)
    failing, failing_marks = describe(after, added)
    return FaultExample(fault, fixed, tuple(fixed_marks), failing, tuple(failing_marks), tuple(removed),
                        tuple(added), tuple(after))


@cache
def _shown_fault(fault: Fault, folder: Path) -> str | None:
    """The broken nodes of a fault's example as Turtle, each line the fault adds marked and each
    triple it removes named in a comment; None where the example trace is not installed."""
    try:
        example = fault_example(fault, folder)
    except (OSError, SyntaxError, ValueError):
        return None
    lines = example.failing.split("\n")
    for number in example.failing_marks:
        lines[number - 1] += "  # <- the fault"
    # A statement written in another named graph is the same triple: Turtle shows no graph, so
    # the block says where each marked one went.
    was = {q.triple: q.graph_name for q in example.removed}
    moves: dict[tuple[str, str], int] = {}
    for quad in example.added:
        if quad.triple in was and was[quad.triple] != quad.graph_name:
            move = (_graph_text(was[quad.triple]), _graph_text(quad.graph_name))
            moves[move] = moves.get(move, 0) + 1
    if moves:
        lines = [f"# the fault writes {count} of these statements (marked) in {new}, not in {old}"
                 for (old, new), count in moves.items()] + lines
    # What the fault took away, unless it put another value in its place (the marked line shows it).
    replaced = {(q.subject, q.predicate) for q in example.added}
    moved = {q.triple for q in example.added}
    kept = {q.subject for q in example.after}
    missing: list[str] = []
    gone: dict = {}
    for quad in example.removed:
        if quad.triple in moved:
            continue  # written elsewhere, said above
        if quad.subject not in kept:
            gone[quad.subject] = gone.get(quad.subject, 0) + 1
        elif (quad.subject, quad.predicate) not in replaced:
            verb = "a" if quad.predicate.value == RDF_TYPE else term_text(quad.predicate)
            missing.append(f"# the fault removed: {term_text(quad.subject)} {verb} {term_text(quad.object)} .")
    missing += [f"# the fault removed {term_text(subject)} (its {count} triples)" for subject, count in gone.items()]
    if missing:
        lines += ["", *missing]
    return "\n".join(lines)


def _graph_text(graph: ox.NamedNode | ox.BlankNode | ox.DefaultGraph) -> str:
    return "the default graph" if isinstance(graph, ox.DefaultGraph) else f"the named graph {term_text(graph)}"


def _paragraph(text: str) -> str:
    # Shapes keep long literals on indented continuation lines; collapse that
    # layout but keep blank-line paragraph breaks.
    paragraphs = [" ".join(part.split()) for part in text.strip().split("\n\n")]
    return "\n\n".join(p for p in paragraphs if p)


def readable_message(template: str) -> str:
    """A message template with its SHACL placeholders as a reader reads them: {?value} as ‹value›."""
    return re.sub(r"\{[?$](\w+)\}", lambda m: f"‹{m.group(1)}›", template)


def explain_rule(rule: Rule) -> str:
    """The full explanation of one rule, as Markdown."""
    lines = [f"# {rule.code} {rule.name}".rstrip(), ""]
    facts = [
        ("Family", rule.family),
        ("Severity", str(rule.severity)),
        ("Applies to", ", ".join(curie(t) for t in rule.targets)),
        ("Predicate", curie(rule.path) if rule.path else ""),
        ("Defined by", curie(rule.shape)),
        ("Message", readable_message(rule.message)),
        ("Accepted values", ", ".join(f'"{v}"' for v in rule.allowed)),
        ("Since", f"TrustGraph {rule.since}. On a trace of an older release its findings are info, "
                  f"not {rule.severity}; they are errors when the trace is also older than --target-version"
                  if rule.since else ""),
    ]
    lines += [f"- **{label}:** {value}" for label, value in facts if value]
    sections = [
        ("What it checks", rule.description),
        ("Why it matters", rule.rationale),
        ("How to fix", rule.fix),
    ]
    for title, body in sections:
        if body.strip():
            lines += ["", f"## {title}", "", _paragraph(body)]
    folder = examples_dir()
    for index, fault in enumerate(rule.faults):
        shown = _shown_fault(fault, folder) if folder is not None else None
        lines += ["", "## Example" if index == 0 else f"## Another fault it catches ({index})", ""]
        if shown is not None:
            lines += [f"The example trace `examples/{fault.trace}`, broken as a faulty emitter would write it "
                      "(the nodes the fault changes):", "", "```turtle", shown, "```"]
        else:
            # Installed without the example traces: the recipe, runnable on a checkout's copy.
            lines += [f"Applying this SPARQL Update to the example trace `examples/{fault.trace}`:", "",
                      "```sparql", fault.sparql.strip(), "```"]
        lines += ["", f"makes {rule.code} report `{curie(fault.focus)}`."]
    lines += ["", f"Documentation: {rule.help_uri}"]
    return "\n".join(lines) + "\n"


def list_rules(rules: dict[str, Rule] | None = None) -> str:
    """One line per rule: code, severity, family, name and summary (the first sentence of what it
    checks), aligned in columns."""
    rules = all_rules() if rules is None else rules
    rows = [(r.code, str(r.severity), r.family, r.name, r.title) for r in rules.values()]
    header = ("code", "severity", "family", "name", "summary")
    aligned = len(header) - 1
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(aligned)]
    out = []
    for row in [header, *rows]:
        cells = [row[i].ljust(widths[i]) for i in range(aligned)] + [row[aligned]]
        out.append("  ".join(cells).rstrip())
    out.append(f"\n{len(rows)} rules; 'tg-trace rule CODE' explains one.")
    return "\n".join(out) + "\n"
