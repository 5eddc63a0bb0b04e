"""The generated pages, as Markdown, and the directives hand-written pages use.

Every fact on these pages is read from the package (``tgtrace``): the ontology
and shapes it loads, its rule registry, its rule explanations and its CLI, and
from the example traces the tests lint. Nothing here restates a term, a rule
or a pattern by hand.
"""

from __future__ import annotations

import json
import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path

import pyoxigraph as ox

from tgtrace import resources
from tgtrace.explain import PREFIXES, curie
from tgtrace.rules import FAMILIES

from . import diagrams, faults
from .patterns import PATTERNS, Pattern, candidates, choose_example
from .traces import DERIVED, TG, TURTLE_PREFIXES, Trace, first_explain_event, load_examples, to_turtle
from .vocab import ClassInfo, PropertyUse, Term, Vocabulary, is_tg, local_name

# One line per family, for the family headings of the rule reference. The
# family names themselves come from tgtrace.rules.FAMILIES; a family without a
# line here stops the build (see Site.check).
FAMILY_TEXT = {
    "mixin": "An entity asserts every type a client dispatches on, since no consumer runs a reasoner.",
    "chain": "Each entity derives, with `prov:wasDerivedFrom`, from an entity its pattern allows.",
    "termination": "An agent's answer says why the agent stopped, with a reason that fits its pattern.",
    "datatype": "Values have the form TrustGraph emits: IRIs where a link belongs, and literals whose text reads as the value.",
    "structure": "Entities carry what their step records, links point at what they should, and a trace reaches one answer.",
    "vocabulary": "Every term in TrustGraph's namespace is one the ontology defines, and none is deprecated.",
}

DIAGRAM_MARK = "TGDOCS-DIAGRAM-"
SHORT_PATTERN = 16
_DIRECTIVE = re.compile(r"<!--\s*tgdocs:([a-z-]+)((?:\s+[^\s>]+)*)\s*-->")
_CURIE = re.compile(r"(?<![\w/#:.\[`-])tg:([A-Za-z_][A-Za-z0-9_-]*)")


class SiteError(RuntimeError):
    """A generated page would be wrong; the build stops."""


def rel(from_src: str, to_src: str) -> str:
    """A link from one docs file to another, both given relative to docs/."""
    target, _, anchor = to_src.partition("#")
    path = posixpath.relpath(target, posixpath.dirname(from_src) or ".")
    return path + (f"#{anchor}" if anchor else "")


def html_url(src: str) -> str:
    """Where a docs file lands in the built site (use_directory_urls is off)."""
    return re.sub(r"\.md$", ".html", src)


def rel_html(from_src: str, to_src: str) -> str:
    """A link for raw HTML (a diagram), which mkdocs does not rewrite."""
    target, _, anchor = to_src.partition("#")
    path = posixpath.relpath(html_url(target), posixpath.dirname(html_url(from_src)) or ".")
    return path + (f"#{anchor}" if anchor else "")


def fenced(code: str, lang: str = "", marks: list[int] | None = None) -> str:
    fence = "````" if "```" in code else "```"
    options = f' hl_lines="{" ".join(map(str, marks))}"' if marks else ""
    return f"{fence}{lang}{options}\n{code.rstrip()}\n{fence}"


def cell(text: str) -> str:
    """Text safe inside a Markdown table cell."""
    return text.replace("|", "\\|").replace("\n", " ")


def rule_link(code: str, src: str) -> str:
    return f"[{code}]({rel(src, 'rules/index.md#' + code.lower())})"


@dataclass
class Site:
    """Everything generated for one build."""

    root: Path  # the checkout: mkdocs.yml, examples/
    vocab: Vocabulary = field(init=False)
    traces: list[Trace] = field(init=False)
    diagrams: dict[str, str] = field(init=False, default_factory=dict)

    def __post_init__(self):
        self.vocab = Vocabulary()
        self.examples_dir = self.root / "examples"
        self.traces = load_examples(self.examples_dir)
        self.pattern_examples: dict[str, Trace | None] = {p.slug: choose_example(p, self.traces) for p in PATTERNS}
        self._add_observed_predicates()

    def _add_observed_predicates(self) -> None:
        """List on each class page the predicates its instances carry in the examples.

        Predicates whose domain is a broad class (prov:Entity: token counts, the
        LLM model) are not named by any one class's shapes or domain; the examples
        show which classes carry them. Their rows say only what the value shapes say.
        """
        from tgtrace.namespaces import RDF_TYPE

        for trace in self.traces:
            for quad in trace.quads:
                predicate = quad.predicate.value
                if predicate == RDF_TYPE or not isinstance(quad.subject, ox.NamedNode):
                    continue
                for cls in trace.types.get(quad.subject.value, []):
                    info = self.vocab.classes.get(cls)
                    if info is None or predicate in info.properties or info.mixin_for:
                        continue
                    if predicate not in self.vocab.predicates and predicate not in self.vocab.value_constraints:
                        continue
                    use = PropertyUse(path=predicate, constrained=False)
                    if predicate in self.vocab.value_constraints:
                        use.merge_values(self.vocab.value_constraints[predicate])
                    info.properties[predicate] = use

    # -- links ------------------------------------------------------------

    def term_src(self, iri: str) -> str | None:
        """The docs file (and anchor) that documents a term, when the site has one."""
        vocab = self.vocab
        if iri in vocab.classes:
            return vocab.classes[iri].page
        if iri in vocab.predicates:
            return f"predicates.md#{vocab.predicates[iri].anchor}"
        if iri in vocab.datatypes:
            return f"predicates.md#{vocab.datatypes[iri].anchor}"
        if iri in vocab.individuals:
            owner, individual = vocab.individuals[iri]
            return f"{owner.page}#{individual.name}"
        if iri in self.external_predicates():
            return f"predicates.md#{self.external_anchor(iri)}"
        return None

    def link(self, iri: str, from_src: str) -> str:
        target = self.term_src(iri)
        text = f"`{curie(iri)}`"
        return f"[{text}]({rel(from_src, target)})" if target else text

    def linkify(self, text: str, from_src: str) -> str:
        """Turn each ``tg:Name`` in prose into a link to its page."""

        def replace(match):
            target = self.term_src(TG + match.group(1))
            return f"[tg:{match.group(1)}]({rel(from_src, target)})" if target else match.group(0)

        # Leave code spans and fenced blocks alone.
        parts = re.split(r"(```.*?```|`[^`]*`)", text, flags=re.S)
        return "".join(p if p.startswith("`") else _CURIE.sub(replace, p) for p in parts)

    def diagram(self, key: str, dot_source: str) -> str:
        self.diagrams[key] = diagrams.render_svg(dot_source)
        # A raw block the Markdown renderer leaves alone; the hook swaps the SVG in.
        return f'<div class="tg-diagram" markdown="0">{DIAGRAM_MARK}{key}</div>'

    def specific(self, types: list[str]) -> list[str]:
        """Drop each type that another of the list specialises (per the ontology)."""
        return [t for t in types if not any(t != o and t in self.vocab.ancestors(o) for o in types)]

    def notes(self, term: Term, src: str) -> list[str]:
        out = []
        for heading, text in term.notes:
            out += [f"**{heading}.** {self.linkify(text, src)}", ""]
        return out

    # -- inventories --------------------------------------------------------

    def external_predicates(self) -> list[str]:
        """Predicates outside tg: that the shapes constrain (prov:wasDerivedFrom, rdfs:label, ...)."""
        if not hasattr(self, "_external"):
            found = set()
            for info in self.vocab.classes.values():
                found |= {p for p in info.properties if not is_tg(p)}
            found |= {p for p in self.vocab.value_constraints if not is_tg(p)}
            self._external = sorted(found, key=curie)
        return self._external

    @staticmethod
    def external_anchor(iri: str) -> str:
        return curie(iri).replace(":", "-")

    def class_pages(self) -> list[str]:
        return [info.page for info in self.vocab.classes.values()]

    def pattern_of(self, trace: Trace) -> Pattern | None:
        for pattern in PATTERNS:
            if self.pattern_examples[pattern.slug] is trace:
                return pattern
        return None

    def check(self) -> None:
        """Stop the build when a page could not say what it must."""
        problems = []
        for family in FAMILIES:
            if family not in FAMILY_TEXT:
                problems.append(f"rule family {family!r} has no description in docs/gen/sitegen/pages.py")
        for rule in self.vocab.rules.values():
            if rule.family not in FAMILIES:
                problems.append(f"rule {rule.code} has family {rule.family!r}, not one of {', '.join(FAMILIES)}")
        if not self.traces:
            problems.append(f"no example traces (*.nq) under {self.examples_dir}")
        for pattern in PATTERNS:
            if self.pattern_examples[pattern.slug] is None:
                problems.append(f"no example under examples/ shows the {pattern.title} pattern")
        if problems:
            raise SiteError("; ".join(problems))

    # -- pages ----------------------------------------------------------------

    def pages(self, lint=None, render=None, cli=None) -> dict[str, str]:
        pages = {
            "classes/index.md": self.classes_index(),
            "predicates.md": self.predicates_page(),
            "namespaces.md": self.namespaces_page(),
            "patterns/index.md": self.patterns_index(),
            "rules/index.md": self.rules_page(lint, render),
        }
        for info in self.vocab.classes.values():
            pages[info.page] = self.class_page(info)
        if cli is not None:
            pages["cli.md"] = cli_page(cli)
        return pages

    def downloads(self) -> dict[str, bytes]:
        """The ontology in four syntaxes and the shapes as they are, under downloads/."""
        if not hasattr(self, "_downloads"):
            graph = self.vocab.ontology
            files = {"downloads/trustgraph.ttl": resources.ontology_path().read_bytes()}
            # Plain RDF/XML: rdflib's pretty-xml writer drops the OWL lists (unions, disjointness).
            for suffix, fmt in ((".nt", "nt"), (".rdf", "xml"), (".jsonld", "json-ld")):
                files[f"downloads/trustgraph{suffix}"] = graph.serialize(format=fmt, encoding="utf-8")
            for path in resources.shapes_paths():
                files[f"downloads/shapes/{path.name}"] = path.read_bytes()
            self._downloads = files
        return self._downloads

    # -- classes ---------------------------------------------------------------

    def classes_index(self) -> str:
        src = "classes/index.md"
        out = [
            "# Classes",
            "",
            "Every class of the TrustGraph ontology, one page each. A class page says what an",
            "instance must assert, which predicates it carries (read from the SHACL shapes),",
            "what it may derive from, which rules check it, and shows a real instance.",
            "",
            "## Hierarchy",
            "",
            "Read from `rdfs:subClassOf` in the ontology. Consumers do not infer these",
            f"types, so an instance asserts every one of them ([mixins without a reasoner]({rel(src, 'concepts/mixins.md')})).",
            "",
        ]
        classes = self.vocab.classes
        children: dict[str | None, list[str]] = {}
        for info in classes.values():
            parents = [p for p in info.superclasses if p in classes] or [None]
            for parent in parents:
                children.setdefault(parent, []).append(info.iri)

        def tree(parent, depth, trail):
            for iri in sorted(children.get(parent, []), key=local_name):
                info = classes[iri]
                extra = [curie(s) for s in info.superclasses if s not in classes]
                suffix = f" (a {', '.join(extra)})" if extra and depth == 0 else ""
                out.append("    " * depth + f"- [{info.label}]({rel(src, info.page)}) `{curie(iri)}`{suffix}")
                if iri not in trail:
                    tree(iri, depth + 1, trail | {iri})

        tree(None, 0, frozenset())
        out += ["", "## All classes", "", "| class | definition | rules |", "|---|---|---|"]
        for info in classes.values():
            rules = ", ".join(rule_link(c, src) for c in info.rules) or "—"
            definition = self.linkify(cell(info.definition), src) or "—"
            if info.deprecated:
                definition = "**Deprecated.** " + definition
            out.append(f"| [`{curie(info.iri)}`]({rel(src, info.page)}) | {definition} | {rules} |")
        return "\n".join(out) + "\n"

    def _predicate_rows(self, info: ClassInfo, src: str, skip=()) -> list[str]:
        rows = [
            "| predicate | kind | range | lexical form | cardinality | rules |",
            "|---|---|---|---|---|---|",
        ]
        items = [(p, u) for p, u in info.properties.items() if p not in skip]
        # Predicates the shapes constrain on this class first, then those only the ontology or values name.
        items.sort(key=lambda item: (not item[1].constrained, curie(item[0])))
        for path, use in items:
            rows.append(self._predicate_row(path, use, src))
        if len(rows) == 2:
            return []
        long_patterns = [(path, p) for path, use in items for p in sorted(use.patterns) if len(p) > SHORT_PATTERN]
        if long_patterns:
            rows += ["", "Lexical forms:", ""]
            rows += [f"- {self.link(path, src)} matches `{p}`" for path, p in long_patterns]
        return rows

    def _predicate_row(self, path: str, use: PropertyUse, src: str) -> str:
        ontology = self.vocab.predicates.get(path)
        kinds = sorted(use.kinds)
        if not kinds and ontology is not None:
            kinds = {"object property": ["IRI"], "datatype property": ["literal"]}.get(ontology.kind, [])
        ranges = [self.link(c, src) for c in sorted(use.classes, key=curie)]
        ranges += [f"`{curie(d)}`" for d in sorted(use.datatypes)]
        if not ranges and ontology is not None:
            ranges = [self.link(r, src) for r in ontology.ranges]
        # A long pattern does not fit a table cell; the page lists it under the table.
        lexical = [f"matches `{cell(p)}`" if len(p) <= SHORT_PATTERN else "see below" for p in sorted(use.patterns)]
        if use.values:
            lexical.append("one of " + ", ".join(f"`{cell(curie(v))}`" for v in use.values))
        rules = ", ".join(rule_link(c, src) for c in sorted(use.rules)) or "—"
        cardinality = use.cardinality if use.constrained else "any"
        if use.one_of:
            cardinality += " (exactly one of this and " + ", ".join(f"`{curie(p)}`" for p in use.one_of) + ")"
        return (
            f"| {self.link(path, src)} | {', '.join(kinds) or '—'} | {', '.join(ranges) or '—'} "
            f"| {'; '.join(lexical) or '—'} | {cardinality} | {rules} |"
        )

    def class_page(self, info: ClassInfo) -> str:
        src = info.page
        vocab = self.vocab
        out = [f"# {info.label[:1].upper() + info.label[1:]}", "", f"`{curie(info.iri)}` · `{info.iri}`", ""]
        if info.deprecated:
            replaced = ", ".join(self.link(r, src) for r in info.replaced_by)
            out += ['!!! warning "Deprecated"', "    " + (f"Replaced by {replaced}." if replaced else "The ontology marks it deprecated."), ""]
        out += [self.linkify(info.definition, src) or "*The ontology gives no definition.*", ""]
        out += self.notes(info, src)
        facts = []
        if info.iri_templates:
            facts.append(("IRIs TrustGraph mints", ", ".join(f"`{t}`" for t in info.iri_templates)))
        if info.stored_in:
            facts.append(("Stored in", ", ".join(self.link(g, src) for g in info.stored_in)))
        if info.mixin_for:
            facts.append(("Mixin for", ", ".join(self.link(c, src) for c in info.mixin_for)))
        out += [f"- **{k}:** {v}" for k, v in facts]
        if facts:
            out.append("")

        out += ["## Types", ""]
        ancestors = vocab.ancestors(info.iri)
        if ancestors:
            out += [
                "**Superclasses** in the ontology: " + ", ".join(self.link(a, src) for a in ancestors) + ". They are",
                "true of every instance, but consumers run no reasoner, so they count only when",
                f"written ([mixins without a reasoner]({rel(src, 'concepts/mixins.md')})).",
                "",
            ]
        must = vocab.types_to_assert(info)
        conditions = vocab.conditions_for(info)
        if must or info.one_of_types or conditions:
            out += ["**Must also assert**, as the shapes require:", ""]
            for iri in must:
                why = ["mixin"] if iri in vocab.mixins_of(info) else []
                codes = sorted(info.must_assert.get(iri, ()))
                if codes:
                    why.append("checked by " + ", ".join(rule_link(c, src) for c in codes))
                out.append(f"- {self.link(iri, src)}" + (f" ({', '.join(why)})" if why else ""))
            for choices, codes in info.one_of_types:
                checked = f" (checked by {', '.join(rule_link(c, src) for c in sorted(codes))})" if codes else ""
                out.append("- exactly one of " + ", ".join(self.link(c, src) for c in choices) + checked)
            for condition in conditions:
                codes = ", ".join(rule_link(c, src) for c in sorted(condition.rules))
                out.append(
                    f"- {self.link(condition.required_type, src)} when it carries {self.link(condition.predicate, src)}"
                    + (f" (checked by {codes})" if codes else "")
                )
            out.append("")
        else:
            out += ["The shapes require no type beside its own.", ""]
        if info.must_not_assert:
            out += ["**Must not assert:**", ""]
            for iri, codes in sorted(info.must_not_assert.items()):
                checked = f" (checked by {', '.join(rule_link(c, src) for c in sorted(codes))})" if codes else ""
                out.append(f"- {self.link(iri, src)}{checked}")
            out.append("")
        if info.subclasses:
            out += ["**Subclasses:** " + ", ".join(self.link(c, src) for c in info.subclasses) + ".", ""]

        if info.individuals:
            out += ["## Values", "", "The ontology lists these members; a trace writes each as its notation.", ""]
            for individual in info.individuals:
                out += [f"### {curie(individual.iri)} {{ #{individual.name} }}", ""]
                if individual.notation:
                    out += [f"Written as `{individual.notation}`. " + self.linkify(individual.definition, src), ""]
                else:
                    out += [self.linkify(individual.definition, src), ""]
                for heading, text in individual.notes:
                    out += [f"**{heading}.** {self.linkify(text, src)}", ""]
                for predicate, target in individual.links:
                    out.append(f"- {self.link(predicate, src)} {self.link(target, src)}")
                if individual.links:
                    out.append("")

        out += ["## Predicates", ""]
        rows = self._predicate_rows(info, src)
        if rows:
            out += [
                "What the shapes say about each predicate an instance carries. *Kind* is the",
                "kind of term the value is, *lexical form* what a literal's text must look like,",
                "and *cardinality* how many values one instance has (*any*: the shapes do not",
                "count them on this class; the ontology or the value shapes name the predicate).",
                "",
            ]
            out += rows
        else:
            out.append("The shapes and the ontology give this class no predicate of its own.")
        shown = set(info.properties)
        for other in vocab.related_classes(info):
            if other in vocab.classes:
                inherited = self._predicate_rows(vocab.classes[other], src, skip=shown)
                if inherited:
                    out += ["", f"### From {curie(other)}", "", f"An instance is also a {self.link(other, src)}, so these apply too:", ""]
                    out += inherited
                    shown |= set(vocab.classes[other].properties)
        out.append("")

        out += ["## Derivation", ""]
        out += self._derivation(info, src)
        out.append("")

        out += ["## Rules", ""]
        if info.rules:
            out += ["Rules whose shapes target this class:", ""]
            for code in info.rules:
                rule = vocab.rules[code]
                out.append(f"- {rule_link(code, src)} {rule.name} ({rule.severity}, {rule.family}): {self.linkify(cell(rule.message), src)}")
        else:
            out.append("No rule targets this class directly.")
        out.append("")

        out += ["## Example", ""]
        out += self._class_example(info, src)
        return "\n".join(out) + "\n"

    def _derivation(self, info: ClassInfo, src: str) -> list[str]:
        out = []
        parents, children = info.derives_from, info.derived_by
        observed_parents, observed_children = self._observed_derivations(info.iri)
        if parents or children:
            out += ["From the shapes: the `prov:wasDerivedFrom` links an instance may have, and the", "classes that may derive from it.", ""]
            out.append(
                self.diagram(
                    f"derivation-{info.name}",
                    diagrams.class_diagram(
                        info.iri,
                        parents,
                        children,
                        label_of=curie,
                        page_of=lambda iri: rel_html(src, self.term_src(iri)) if self.term_src(iri) else None,
                    ),
                )
            )
            out.append("")
            if parents:
                out.append("- **Derives from:** " + ", ".join(self.link(p, src) for p in parents))
            if children:
                out.append("- **Derived from by:** " + ", ".join(self.link(c, src) for c in children))
        else:
            out.append("The shapes do not constrain what this class derives from, and no shape lets another class derive from it.")
        if observed_parents or observed_children:
            out += ["", "In the example traces:", ""]
            if observed_parents:
                out.append("- it derives from " + ", ".join(self.link(p, src) for p in observed_parents))
            if observed_children:
                out.append("- " + ", ".join(self.link(c, src) for c in observed_children) + " derive from it")
        return out

    def _observed_derivations(self, cls: str) -> tuple[list[str], list[str]]:
        # Mixins are named through the main class that carries them.
        mixins = {c.iri for c in self.vocab.classes.values() if c.mixin_for}
        parents, children = set(), set()
        for trace in self.traces:
            for s, p, o in trace.links:
                if p != DERIVED:
                    continue
                if cls in trace.types.get(s, []):
                    parents |= {t for t in self.specific(trace.types.get(o, [])) if t in self.vocab.classes and t not in mixins}
                if cls in trace.types.get(o, []):
                    children |= {t for t in self.specific(trace.types.get(s, [])) if t in self.vocab.classes and t not in mixins}
        return sorted(parents, key=curie), sorted(children, key=curie)

    def _ordered_traces(self) -> list[Trace]:
        chosen = [self.pattern_examples[p.slug] for p in PATTERNS if self.pattern_examples[p.slug] is not None]
        return list(dict.fromkeys(chosen + self.traces))

    def _class_example(self, info: ClassInfo, src: str) -> list[str]:
        for trace in self._ordered_traces():
            instances = trace.instances(info.iri)
            if not instances:
                continue
            node = instances[0]
            turtle, _ = to_turtle(trace.triples_about([node]))
            pattern = self.pattern_of(trace)
            where = f"`examples/{trace.name}`"
            if pattern is not None:
                where += f", the [{pattern.title}]({rel(src, pattern.page)}) example"
            return [f"An instance from {where}:", "", fenced(turtle, "turtle")]
        if info.individuals:
            return ["The members listed above are this class's instances; traces write their notations."]
        return ["No example trace has an instance of this class."]

    # -- predicates ---------------------------------------------------------------

    def predicates_page(self) -> str:
        src = "predicates.md"
        vocab = self.vocab
        out = [
            "# Predicates",
            "",
            "Every predicate of the TrustGraph ontology, its datatypes, and the predicates of",
            "other vocabularies that the shapes check. Domain and range are the ontology's;",
            "*constrained on* lists the classes whose shapes say how the predicate is used",
            "there (each class page gives kind, lexical form and cardinality).",
            "",
            "| predicate | kind | domain | constrained on |",
            "|---|---|---|---|",
        ]
        for info in vocab.predicates.values():
            used = ", ".join(self.link(c, src) for c in info.used_by) or "—"
            domain = ", ".join(self.link(d, src) for d in info.domains) or "—"
            name = f"[`{curie(info.iri)}`](#{info.anchor})" + (" (deprecated)" if info.deprecated else "")
            out.append(f"| {name} | {info.kind} | {domain} | {used} |")
        out += ["", "## TrustGraph predicates", ""]
        for info in vocab.predicates.values():
            out += [f"### {curie(info.iri)} {{ #{info.anchor} }}", ""]
            if info.deprecated:
                replaced = ", ".join(self.link(r, src) for r in info.replaced_by)
                out += ["**Deprecated.**" + (f" Replaced by {replaced}." if replaced else ""), ""]
            out += [self.linkify(info.definition, src) or "*The ontology gives no definition.*", ""]
            out += self.notes(info, src)
            facts = [("Label", info.label), ("Kind", info.kind), ("IRI", f"`{info.iri}`")]
            if info.domains:
                facts.append(("Domain", ", ".join(self.link(d, src) for d in info.domains)))
            if info.ranges:
                facts.append(("Range", ", ".join(self.link(r, src) for r in info.ranges)))
            value = vocab.value_constraints.get(info.iri)
            if value is not None and (value.patterns or value.kinds):
                form = sorted(value.kinds) + [f"matching `{p}`" for p in sorted(value.patterns)]
                facts.append(("Value, wherever it is used", ", ".join(form)))
            if info.used_by:
                facts.append(("Constrained on", ", ".join(self.link(c, src) for c in info.used_by)))
            if info.rules:
                facts.append(("Rules", ", ".join(rule_link(c, src) for c in info.rules)))
            out += [f"- **{k}:** {v}" for k, v in facts] + [""]
        if vocab.datatypes:
            out += ["## Datatypes", "", "How the ontology describes the plain-string numbers TrustGraph writes.", ""]
            for info in vocab.datatypes.values():
                out += [f"### {curie(info.iri)} {{ #{info.anchor} }}", "", self.linkify(info.definition, src), ""]
                out += self.notes(info, src)
                if info.members:
                    out += ["- **Any of:** " + "; ".join(info.members)]
                if info.examples:
                    out += ["- **Examples:** " + ", ".join(f"`{e}`" for e in info.examples)]
                used = [p.iri for p in vocab.predicates.values() if info.iri in p.ranges]
                if used:
                    out += ["- **Range of:** " + ", ".join(self.link(p, src) for p in used)]
                out.append("")
        external = self.external_predicates()
        if external:
            out += ["## From other vocabularies", "", "Not defined here, but checked by the shapes:", ""]
            for iri in external:
                used = [c.iri for c in vocab.classes.values() if iri in c.properties and c.properties[iri].constrained]
                rules = sorted({code for code, preds in vocab.rule_predicates.items() if iri in preds})
                out += [f"### {curie(iri)} {{ #{self.external_anchor(iri)} }}", "", f"- **IRI:** `{iri}`"]
                if used:
                    out.append("- **Constrained on:** " + ", ".join(self.link(c, src) for c in used))
                if rules:
                    out.append("- **Rules:** " + ", ".join(rule_link(c, src) for c in rules))
                out.append("")
        return "\n".join(out) + "\n"

    # -- namespaces and downloads ----------------------------------------------------

    def namespaces_page(self) -> str:
        src = "namespaces.md"
        meta = self.vocab.metadata
        vocab = self.vocab
        out = ["# Namespaces and downloads", "", f"**{meta['label']}**" + (f", version {meta['version']}" if meta["version"] else "") + ".", ""]
        if meta["comment"]:
            out += [self.linkify(meta["comment"], src), ""]
        out += [
            f"- **Ontology IRI:** `{meta['iri']}`",
            f"- **Namespace:** `{TG}` (prefix `tg:`)",
            f"- **Terms:** {len(vocab.classes)} classes, {len(vocab.predicates)} predicates, "
            f"{len(vocab.datatypes)} datatypes, {len(vocab.individuals)} named values",
        ]
        if meta.get("version_iri"):
            out.append(f"- **Version IRI:** `{meta['version_iri']}`")
        out.append("")
        if meta["changes"]:
            out += [f"**Changes.** {self.linkify(meta['changes'], src)}", ""]
        out += ["## Prefixes", "", "The prefixes this site and the linter's messages use:", "", "| prefix | namespace |", "|---|---|"]
        for prefix, namespace in {**TURTLE_PREFIXES, **PREFIXES}.items():
            out.append(f"| `{prefix}:` | `{namespace}` |")
        out += ["", "## Downloads", "", "The ontology, as the linter loads it, in four syntaxes:", ""]
        names = {".ttl": "Turtle", ".nt": "N-Triples", ".rdf": "RDF/XML", ".jsonld": "JSON-LD"}
        for path, data in self.downloads().items():
            if path.startswith("downloads/trustgraph"):
                out.append(f"- [{Path(path).name}]({path}) ({names[Path(path).suffix]}, {len(data):,} bytes)")
        out += ["", "The SHACL shapes (Turtle), one file per module; the linter loads them all:", ""]
        for path, data in self.downloads().items():
            if path.startswith("downloads/shapes/"):
                out.append(f"- [{Path(path).name}]({path}) ({len(data):,} bytes)")
        return "\n".join(out) + "\n"

    # -- patterns --------------------------------------------------------------------

    def patterns_index(self) -> str:
        src = "patterns/index.md"
        out = [
            "# Patterns",
            "",
            "Each service that answers a request leaves a trace of its own shape. Each",
            "page draws the chain from a real trace under `examples/`, lists its entities",
            "in chain order, and shows the trace in Turtle.",
            "",
            "| pattern | example | entities | triples | other examples of it |",
            "|---|---|---|---|---|",
        ]
        for pattern in PATTERNS:
            trace = self.pattern_examples[pattern.slug]
            others = ", ".join(f"`{t.name}`" for t in candidates(pattern, self.traces) if t is not trace) or "—"
            out.append(
                f"| [{pattern.title}]({rel(src, pattern.page)}) | `examples/{trace.name}` "
                f"| {len(trace.types)} | {len(trace.quads)} | {others} |"
            )
        return "\n".join(out) + "\n"

    def _trace_for(self, slug: str, src: str, stem: str | None = None) -> tuple[Pattern, Trace]:
        pattern = next((p for p in PATTERNS if p.slug == slug), None)
        if pattern is None:
            raise SiteError(f"{src}: unknown pattern {slug!r}")
        if stem is None:
            return pattern, self.pattern_examples[slug]
        trace = next((t for t in self.traces if t.stem == stem), None)
        if trace is None:
            raise SiteError(f"{src}: no example examples/{stem}.nq")
        if not pattern.matches(trace):
            raise SiteError(f"{src}: examples/{trace.name} does not show the {pattern.title} pattern")
        return pattern, trace

    def chain_diagram(self, pattern: Pattern, trace: Trace, src: str) -> str:
        return self.diagram(
            f"pattern-{pattern.slug}-{trace.stem}",
            diagrams.trace_diagram(
                trace,
                self.specific,
                lambda iri: rel_html(src, self.term_src(iri)) if iri in self.vocab.classes else None,
                f"{pattern.title}: examples/{trace.name}",
            ),
        )

    def pattern_section(self, slug: str, src: str) -> str:
        pattern, trace = self._trace_for(slug, src)
        out = [
            "## The chain",
            "",
            f"Drawn from `examples/{trace.name}`. Solid arrows are `prov:wasDerivedFrom`,",
            "pointing from each entity back to the one it was made from; dashed arrows are",
            "other links between entities. Boxes are numbered as in the table below and",
            "link to their class."
            + (
                " Activities and agents are listed in the table, not drawn: each entity names the component that produced it."
                if any(trace.producer(n) for n in trace.types)
                else ""
            ),
            "",
            self.chain_diagram(pattern, trace, src),
            "",
            "## The entities in order",
            "",
            "Each entity after the one it derives from (a detail after the entity that links",
            "to it); entities that do not depend on each other keep the order the service",
            "emitted them in.",
            "",
            "| # | types | derives from | IRI |",
            "|---|---|---|---|",
        ]
        numbers = {node: i for i, node in enumerate(trace.chain_order, 1)}
        for node in trace.chain_order:
            types = trace.types[node]
            parents = ", ".join(f"{numbers[p]}" for p in trace.parents(node) if p in numbers) or "—"
            out.append(f"| {numbers[node]} | {', '.join(self.link(t, src) for t in types)} | {parents} | `{cell(node)}` |")
        out += ["", "## The example trace", ""]
        for graph in trace.graphs:
            name = f"`{graph}`" if graph else "the default graph (the extracted knowledge)"
            text, _ = to_turtle(trace.graph_triples(graph))
            out += [f"In {name}:", "", fenced(text, "turtle"), ""]
        return "\n".join(out)

    # -- rules --------------------------------------------------------------------------

    def rules_page(self, lint=None, render=None) -> str:
        src = "rules/index.md"
        rules = self.vocab.rules
        out = [
            "# Rule reference",
            "",
            "Every rule the linter checks, read from the SHACL shapes. Each entry says what",
            "the rule checks, why it matters and how to fix it, and shows a real trace from",
            "`examples/` before and after the change that makes the rule fire.",
            "`tg-trace rule CODE` prints the same explanation in a terminal.",
            "",
            "| code | severity | family | name |",
            "|---|---|---|---|",
        ]
        for rule in rules.values():
            out.append(f"| [{rule.code}](#{rule.code.lower()}) | {rule.severity} | {rule.family} | {rule.name} |")
        out.append("")
        for family in FAMILIES:
            members = [r for r in rules.values() if r.family == family]
            out += [f"## {family.capitalize()} rules {{ #family-{family} }}", "", self.linkify(FAMILY_TEXT[family], src), ""]
            if not members:
                out += ["No rule in this family yet.", ""]
            for rule in members:
                out += self.rule_entry(rule, src, lint, render)
        return "\n".join(out) + "\n"

    def rule_entry(self, rule, src: str, lint=None, render=None) -> list[str]:
        out = [f"### {rule.code} {rule.name} {{ #{rule.code.lower()} }}", ""]
        body = self.linkify("\n".join(explain_body(rule)), src)
        scope = self.vocab.rule_scopes.get(rule.code, [])
        if scope and not rule.targets:
            # Rules of value shapes (sh:targetSubjectsOf) apply by predicate, not class: say so
            # where the entry says what the rule checks.
            subjects = [self.link(p, src) for kind, p in scope if kind == "subject"]
            objects = [self.link(p, src) for kind, p in scope if kind == "object"]
            parts = []
            if subjects:
                parts.append("every node that has " + ", ".join(subjects))
            if objects:
                parts.append("every value of " + ", ".join(objects))
            line = "It checks " + "; ".join(parts) + ", whatever its type.\n\n"
            marker = "#### Why it matters"
            body = body.replace(marker, line + marker, 1) if marker in body else body + "\n\n" + line
        out += [body]
        out += ["", "#### Failing example", ""]
        if rule.fault is None:
            out += ["This rule has no failing example yet: the shapes record no change to a real trace that makes it fire.", ""]
            return out
        example = faults.build_example(rule, self.examples_dir, lint=lint, render=render)
        out += [
            f"Take the real trace `examples/{example.trace}` and apply this SPARQL Update:",
            "",
            fenced(example.update, "sparql"),
            "",
            "**Fixed**, as TrustGraph emits it" + (" (highlighted: what the update removes)" if example.fixed_marks else "") + ":",
            "",
            fenced(example.fixed, "turtle", example.fixed_marks),
            "",
            "**Failing**, after the update"
            + (" (highlighted: what it adds)" if example.failing_marks else "")
            + f"; {rule.code} reports `{example.focus}`:",
            "",
            fenced(example.failing, "turtle", example.failing_marks),
            "",
        ]
        if example.report:
            out += ["What `tg-trace lint` prints for the failing trace:", "", fenced(example.report, "text"), ""]
        return out

    # -- directives in hand-written pages ---------------------------------------------------

    def expand(self, markdown: str, src: str) -> str:
        def replace(match):
            return self.directive(match.group(1), match.group(2).split(), src)

        return _DIRECTIVE.sub(replace, markdown)

    def directive(self, name: str, args: list[str], src: str) -> str:
        options = dict(a.split("=", 1) for a in args if "=" in a)
        positional = [a for a in args if "=" not in a]
        vocab = self.vocab
        if name == "pattern":
            return self.pattern_section(positional[0], src)
        if name == "chain":
            # A second example of a pattern, drawn only: <!-- tgdocs:chain SLUG STEM -->
            pattern, trace = self._trace_for(positional[0], src, positional[1])
            return f"Drawn from `examples/{trace.name}`:\n\n" + self.chain_diagram(pattern, trace, src)
        if name == "families":
            lines = []
            for family in FAMILIES:
                codes = [r.code for r in vocab.rules.values() if r.family == family]
                listed = ", ".join(rule_link(c, src) for c in codes) or "none yet"
                lines.append(f"- [**{family}**]({rel(src, 'rules/index.md#family-' + family)}): {self.linkify(FAMILY_TEXT[family], src)} ({listed})")
            return "\n".join(lines)
        if name == "rules":
            family = options.get("family")
            chosen = [r for r in vocab.rules.values() if family is None or r.family == family]
            if not chosen:
                return "No rule in this family yet."
            return "\n".join(f"- {rule_link(r.code, src)} {r.name}: {self.linkify(r.message, src)}" for r in chosen)
        if name == "mixin-table":
            rows = ["| class | must also assert (shapes) | must not assert | superclasses (ontology) |", "|---|---|---|---|"]
            for info in vocab.classes.values():
                wanted = [self.link(w, src) for w in vocab.types_to_assert(info)]
                wanted += ["one of " + " / ".join(self.link(c, src) for c in choices) for choices, _ in info.one_of_types]
                wanted += [
                    f"{self.link(c.required_type, src)} when it has {self.link(c.predicate, src)}" for c in vocab.conditions_for(info)
                ]
                banned = [self.link(t, src) for t in sorted(info.must_not_assert)]
                supers = [self.link(a, src) for a in vocab.ancestors(info.iri)]
                if wanted or banned:
                    rows.append(f"| {self.link(info.iri, src)} | {', '.join(wanted) or '—'} | {', '.join(banned) or '—'} | {', '.join(supers) or '—'} |")
            return "\n".join(rows)
        if name == "mixins":
            lines = []
            for info in vocab.classes.values():
                if info.mixin_for:
                    lines.append(
                        f"- {self.link(info.iri, src)}: {self.linkify(info.definition, src)} Mixin for "
                        + ", ".join(self.link(c, src) for c in info.mixin_for)
                        + "."
                    )
            return "\n".join(lines) or "The ontology declares no mixin."
        if name == "uri-table":
            rows = ["| class | IRI template |", "|---|---|"]
            for info in vocab.classes.values():
                for template in info.iri_templates:
                    rows.append(f"| {self.link(info.iri, src)} | `{template}` |")
            return "\n".join(rows)
        if name == "graphs":
            stored = {g for c in vocab.classes.values() for g in c.stored_in}
            graph_class = next((c for c in vocab.classes.values() if any(i.iri in stored for i in c.individuals)), None)
            if graph_class is None:
                raise SiteError(f"{src}: the ontology names no graph classes are stored in (tg:storedIn)")
            rows = ["| graph | name in a dataset | holds |", "|---|---|---|"]
            for individual in graph_class.individuals:
                stored = [self.link(c.iri, src) for c in vocab.classes.values() if individual.iri in c.stored_in]
                holds = self.linkify(individual.definition, src)
                if stored:
                    holds += " Classes stored there: " + ", ".join(stored) + "."
                rows.append(f"| {self.link(individual.iri, src)} | {f'`{individual.notation}`' if individual.notation else '(unnamed)'} | {holds} |")
            return "\n".join(rows)
        if name == "explain-event":
            found = first_explain_event(self.examples_dir, TG + options.get("type", "GraphRagQuestion"))
            if found is None:
                raise SiteError(f"{src}: no explain-event recording (*.jsonl) under examples/")
            file_name, event = found
            return f"From `examples/{file_name}`:\n\n" + fenced(event_json(event), "json")
        raise SiteError(f"{src}: unknown directive tgdocs:{name}")


def event_json(event: dict) -> str:
    """An explain event as JSON, one triple per line, so it reads as a list of statements."""
    lines = ["{"]
    fields = list(event.items())
    for index, (key, value) in enumerate(fields):
        comma = "," if index < len(fields) - 1 else ""
        if key == "explain_triples" and isinstance(value, list):
            lines.append(f'  "{key}": [')
            for position, triple in enumerate(value):
                end = "," if position < len(value) - 1 else ""
                lines.append("    " + json.dumps(triple, ensure_ascii=False) + end)
            lines.append("  ]" + comma)
        else:
            lines.append(f"  {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}{comma}")
    lines.append("}")
    return "\n".join(lines)


def explain_body(rule) -> list[str]:
    """The rule's explanation from ``tgtrace.explain``, as part of a longer page.

    The title, the short example and the documentation link are left out: the
    entry has its own heading, a fuller example, and is the documentation.
    """
    from tgtrace.explain import explain_rule

    out, skipping = [], False
    for line in explain_rule(rule).splitlines():
        if line.startswith("# "):
            continue
        if line.startswith("## "):
            skipping = line[3:].strip().lower() in ("example", "examples")
            if not skipping:
                out.append("#### " + line[3:].strip())
            continue
        if skipping or line.startswith("Documentation: "):
            continue
        out.append(line)
    while out and not out[-1].strip():
        out.pop()
    while out and not out[0].strip():
        out.pop(0)
    return out


def cli_page(main) -> str:
    """The command's own help, for the group and each subcommand."""
    import click

    out = ["# Command line", "", "The help of each command, exactly as `tg-trace` prints it.", ""]
    root = click.Context(main, info_name="tg-trace", terminal_width=88, max_content_width=88)
    out += ["## tg-trace { #tg-trace }", "", fenced(main.get_help(root), "text"), ""]
    for name in sorted(getattr(main, "commands", {})):
        command = main.commands[name]
        if getattr(command, "hidden", False):
            continue
        ctx = click.Context(command, info_name=name, parent=root, terminal_width=88, max_content_width=88)
        out += [f"## tg-trace {name} {{ #{name} }}", "", fenced(command.get_help(ctx), "text"), ""]
    return "\n".join(out) + "\n"
