"""The class pages: the classes index, one page per class, and the class tables of the concept pages."""

from __future__ import annotations

from dataclasses import dataclass

from tgtrace.rules.help import to_turtle
from tgtrace.tracemodel.naming import curie, local_name

from .. import diagrams
from ..constraints import PropertyUse
from ..context import Context, SiteError, cell, rel_html
from ..ontology import ClassInfo
from ..patterns import PATTERNS
from ..traces import DERIVED, Trace

INDEX = "classes/index.md"
# A longer sh:pattern does not fit a table cell; the page lists it under the table.
SHORT_PATTERN = 16


def page_list(context: Context) -> list[str]:
    """Every class page, in the order the nav lists them."""
    return [info.page for info in context.vocab.classes.values()]


def pages(context: Context) -> dict[str, str]:
    out = {INDEX: index_page(context)}
    for info in context.vocab.classes.values():
        out[info.page] = class_page(context, info)
    return out


# -- the index ------------------------------------------------------------------


@dataclass
class TreeEntry:
    depth: int
    info: ClassInfo
    suffix: str  # the superclasses outside the ontology, for a top-level class


def hierarchy(context: Context) -> list[TreeEntry]:
    """The classes as a tree by rdfs:subClassOf, each under every parent it has."""
    classes = context.vocab.classes
    children: dict[str | None, list[str]] = {}
    for info in classes.values():
        parents = [p for p in info.superclasses if p in classes] or [None]
        for parent in parents:
            children.setdefault(parent, []).append(info.iri)
    entries: list[TreeEntry] = []

    def walk(parent, depth, trail):
        for iri in sorted(children.get(parent, []), key=local_name):
            info = classes[iri]
            extra = [curie(s) for s in info.superclasses if s not in classes]
            suffix = f" (a {', '.join(extra)})" if extra and depth == 0 else ""
            entries.append(TreeEntry(depth, info, suffix))
            if iri not in trail:
                walk(iri, depth + 1, trail | {iri})

    walk(None, 0, frozenset())
    return entries


def index_page(context: Context) -> str:
    return context.render("classes-index.md.j2", INDEX, tree=hierarchy(context), classes=context.vocab.classes.values())


# -- one class ------------------------------------------------------------------


@dataclass
class PredicateRow:
    predicate: str  # IRI
    kinds: str
    ranges: str
    lexical: str
    cardinality: str
    rules: str


@dataclass
class PredicateTable:
    rows: list[PredicateRow]
    long_patterns: list[tuple[str, str]]  # (predicate IRI, pattern) too long for the table


def predicate_table(context: Context, info: ClassInfo, src: str, skip=()) -> PredicateTable | None:
    items = [(p, u) for p, u in info.properties.items() if p not in skip]
    if not items:
        return None
    # Predicates the shapes constrain on this class first, then those only the ontology or values name.
    items.sort(key=lambda item: (not item[1].constrained, curie(item[0])))
    rows = [predicate_row(context, path, use, src) for path, use in items]
    long_patterns = [(path, p) for path, use in items for p in sorted(use.patterns) if len(p) > SHORT_PATTERN]
    return PredicateTable(rows, long_patterns)


def predicate_row(context: Context, path: str, use: PropertyUse, src: str) -> PredicateRow:
    ontology = context.vocab.predicates.get(path)
    kinds = sorted(use.kinds)
    if not kinds and ontology is not None:
        kinds = {"object property": ["IRI"], "datatype property": ["literal"]}.get(ontology.kind, [])
    ranges = [context.link(c, src) for c in sorted(use.classes, key=curie)]
    ranges += [f"`{curie(d)}`" for d in sorted(use.datatypes)]
    if not ranges and ontology is not None:
        ranges = [context.link(r, src) for r in ontology.ranges]
    lexical = [f"matches `{cell(p)}`" if len(p) <= SHORT_PATTERN else "see below" for p in sorted(use.patterns)]
    if use.values:
        lexical.append("one of " + ", ".join(f"`{cell(curie(v))}`" for v in use.values))
    cardinality = use.cardinality if use.constrained else "any"
    if use.one_of:
        cardinality += " (exactly one of this and " + ", ".join(f"`{curie(p)}`" for p in use.one_of) + ")"
    return PredicateRow(
        predicate=path,
        kinds=", ".join(kinds) or "—",
        ranges=", ".join(ranges) or "—",
        lexical="; ".join(lexical) or "—",
        cardinality=cardinality,
        rules=", ".join(context.at(src).rule(c) for c in sorted(use.rules)) or "—",
    )


def inherited_tables(context: Context, info: ClassInfo, src: str) -> list[tuple[str, PredicateTable]]:
    """(class, table) for each related class whose shapes add predicates this class's table lacks."""
    vocab = context.vocab
    shown = set(info.properties)
    found = []
    for other in vocab.related_classes(info):
        if other in vocab.classes:
            table = predicate_table(context, vocab.classes[other], src, skip=shown)
            if table is not None:
                found.append((other, table))
                shown |= set(vocab.classes[other].properties)
    return found


def observed_derivations(context: Context, cls: str) -> tuple[list[str], list[str]]:
    """The classes instances of ``cls`` derive from, and that derive from them, in the examples."""
    vocab = context.vocab
    # Mixins are named through the main class that carries them.
    mixins = {c.iri for c in vocab.classes.values() if c.mixin_for}
    parents, children = set(), set()
    for trace in context.traces:
        for s, p, o in trace.links:
            if p != DERIVED:
                continue
            if cls in trace.types.get(s, []):
                parents |= {t for t in context.specific(trace.types.get(o, [])) if t in vocab.classes and t not in mixins}
            if cls in trace.types.get(o, []):
                children |= {t for t in context.specific(trace.types.get(s, [])) if t in vocab.classes and t not in mixins}
    return sorted(parents, key=curie), sorted(children, key=curie)


def derivation_diagram(context: Context, info: ClassInfo, src: str) -> str:
    return context.diagram(
        f"derivation-{info.name}",
        diagrams.class_diagram(
            info.iri,
            info.derives_from,
            info.derived_by,
            label_of=curie,
            page_of=lambda iri: rel_html(src, context.term_src(iri)) if context.term_src(iri) else None,
        ),
    )


@dataclass
class Example:
    trace: Trace
    turtle: str
    pattern: object  # the Pattern the trace is the example of, or None


def ordered_traces(context: Context) -> list[Trace]:
    """The pattern examples first, then every other trace."""
    chosen = [context.pattern_examples[p.slug] for p in PATTERNS if context.pattern_examples[p.slug] is not None]
    return list(dict.fromkeys(chosen + context.traces))


def class_example(context: Context, info: ClassInfo) -> Example | None:
    for trace in ordered_traces(context):
        instances = trace.instances(info.iri)
        if instances:
            turtle, _ = to_turtle(trace.triples_about([instances[0]]))
            return Example(trace, turtle, context.pattern_of(trace))
    return None


def class_page(context: Context, info: ClassInfo) -> str:
    src = info.page
    vocab = context.vocab
    facts = []
    if info.iri_templates:
        facts.append(("IRIs TrustGraph mints", ", ".join(f"`{t}`" for t in info.iri_templates)))
    if info.stored_in:
        facts.append(("Stored in", ", ".join(context.link(g, src) for g in info.stored_in)))
    if info.mixin_for:
        facts.append(("Mixin for", ", ".join(context.link(c, src) for c in info.mixin_for)))
    derives = bool(info.derives_from or info.derived_by)
    observed_parents, observed_children = observed_derivations(context, info.iri)
    return context.render(
        "class.md.j2",
        src,
        info=info,
        facts=facts,
        ancestors=vocab.ancestors(info.iri),
        must=vocab.types_to_assert(info),
        mixins=vocab.mixins_of(info),
        conditions=vocab.conditions_for(info),
        table=predicate_table(context, info, src),
        inherited=inherited_tables(context, info, src),
        diagram=derivation_diagram(context, info, src) if derives else "",
        observed_parents=observed_parents,
        observed_children=observed_children,
        rules=[vocab.rules[code] for code in info.rules],
        example=class_example(context, info),
    )


# -- directives of the concept pages ------------------------------------------------


def mixins_directive(context: Context, args, options, src: str) -> str:
    """<!-- tgdocs:mixins -->: each mixin class, what it means and what it mixes into."""
    mixins = [info for info in context.vocab.classes.values() if info.mixin_for]
    return context.render("directives/mixins.md.j2", src, mixins=mixins).removesuffix("\n")


def mixin_table_directive(context: Context, args, options, src: str) -> str:
    """<!-- tgdocs:mixin-table -->: the types each class must and must not assert beside its own."""
    vocab = context.vocab
    rows = []
    for info in vocab.classes.values():
        wanted = [context.link(w, src) for w in vocab.types_to_assert(info)]
        wanted += ["one of " + " / ".join(context.link(c, src) for c in choices) for choices, _ in info.one_of_types]
        wanted += [
            f"{context.link(c.required_type, src)} when it has {context.link(c.predicate, src)}"
            for c in vocab.conditions_for(info)
        ]
        banned = [context.link(t, src) for t in sorted(info.must_not_assert)]
        if wanted or banned:
            rows.append((info, wanted, banned, vocab.ancestors(info.iri)))
    return context.render("directives/mixin-table.md.j2", src, rows=rows).removesuffix("\n")


def uri_table_directive(context: Context, args, options, src: str) -> str:
    """<!-- tgdocs:uri-table -->: the IRI templates TrustGraph mints, by class."""
    return context.render("directives/uri-table.md.j2", src, classes=context.vocab.classes.values()).removesuffix("\n")


def graphs_directive(context: Context, args, options, src: str) -> str:
    """<!-- tgdocs:graphs -->: the named graphs of a dataset and the classes stored in each."""
    classes = context.vocab.classes.values()
    stored = {g for c in classes for g in c.stored_in}
    graph_class = next((c for c in classes if any(i.iri in stored for i in c.individuals)), None)
    if graph_class is None:
        raise SiteError(f"{src}: the ontology names no graph classes are stored in (tg:storedIn)")
    graphs = [(individual, [c.iri for c in classes if individual.iri in c.stored_in]) for individual in graph_class.individuals]
    return context.render("directives/graphs.md.j2", src, graphs=graphs).removesuffix("\n")


DIRECTIVES = {
    "mixins": mixins_directive,
    "mixin-table": mixin_table_directive,
    "uri-table": uri_table_directive,
    "graphs": graphs_directive,
}
