"""The predicates page: every tg: predicate and datatype, and the other vocabularies' predicates the shapes check."""

from __future__ import annotations

from ..context import Context
from ..ontology import PredicateInfo

SRC = "predicates.md"


def facts(context: Context, info: PredicateInfo) -> list[tuple[str, str]]:
    """The list under a predicate's entry: what the ontology and the shapes say about it."""
    page = context.at(SRC)
    found = [("Label", info.label), ("Kind", info.kind), ("IRI", f"`{info.iri}`")]
    if info.domains:
        found.append(("Domain", page.links(info.domains)))
    if info.ranges:
        found.append(("Range", page.links(info.ranges)))
    value = context.vocab.value_constraints.get(info.iri)
    if value is not None and (value.patterns or value.kinds):
        form = sorted(value.kinds) + [f"matching `{p}`" for p in sorted(value.patterns)]
        found.append(("Value, wherever it is used", ", ".join(form)))
    if info.used_by:
        found.append(("Constrained on", page.links(info.used_by)))
    if info.rules:
        found.append(("Rules", page.rules(info.rules)))
    return found


def pages(context: Context) -> dict[str, str]:
    vocab = context.vocab
    predicates = [(info, facts(context, info)) for info in vocab.predicates.values()]
    datatypes = [
        (info, [p.iri for p in vocab.predicates.values() if info.iri in p.ranges]) for info in vocab.datatypes.values()
    ]
    external = []
    for iri in context.external_predicates:
        used = [c.iri for c in vocab.classes.values() if iri in c.properties and c.properties[iri].constrained]
        codes = sorted({code for code, preds in vocab.rule_predicates.items() if iri in preds})
        external.append((iri, used, codes))
    return {SRC: context.render("predicates.md.j2", SRC, predicates=predicates, datatypes=datatypes, external=external)}
