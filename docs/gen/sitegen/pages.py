"""The generated pages, as Markdown, and the directives hand-written pages use.

Every fact on these pages is read from the package (``tgtrace``): the ontology
and shapes it loads, its rule registry, its rule explanations and its CLI, and
from the example traces the tests lint. Nothing here restates a term, a rule
or a pattern by hand.
"""

from __future__ import annotations

import json
import logging
import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path

from tgtrace import resources
from tgtrace.explain import curie
from tgtrace.rules import FAMILIES

from . import diagrams, faults
from .patterns import PATTERNS, Pattern, choose_example
from .traces import DERIVED, TG, Trace, first_explain_event, load_examples, to_turtle
from .vocab import ClassInfo, PropertyUse, Vocabulary, is_tg, local_name

log = logging.getLogger("mkdocs.plugins.tgdocs")

# One line per family, for the family headings of the rule reference. The
# family names themselves come from tgtrace.rules.FAMILIES; a family without a
# line here fails the build (see Site.check).
FAMILY_TEXT = {
    "mixin": "An entity asserts every type a client dispatches on, since no consumer runs a reasoner.",
    "chain": "Each entity derives, with prov:wasDerivedFrom, from an entity its pattern allows.",
    "termination": "A trace reaches an answer, and says why it stopped.",
    "datatype": "Literals have the lexical form TrustGraph emits: plain strings that read as the value.",
    "structure": "Links point at entities that exist, and entities carry what their step records.",
    "vocabulary": "Every term in TrustGraph's namespace is one the ontology defines.",
}

DIAGRAM_MARK = "TGDOCS-DIAGRAM-"
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
        self.pattern_examples: dict[str, Trace | None] = {
            p.slug: choose_example(p, self.traces) for p in PATTERNS
        }

    # -- links ------------------------------------------------------------

    def term_src(self, iri: str) -> str | None:
        """The docs file (and anchor) that documents a term, when the site has one."""
        if iri in self.vocab.classes:
            return self.vocab.classes[iri].page
        if iri in self.vocab.predicates:
            return f"predicates.md#{self.vocab.predicates[iri].anchor}"
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
            iri = TG + match.group(1)
            target = self.term_src(iri)
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

    # -- inventories --------------------------------------------------------

    def external_predicates(self) -> list[str]:
        """Predicates outside tg: that the shapes constrain (prov:wasDerivedFrom, rdfs:label, ...)."""
        if not hasattr(self, "_external"):
            found = set()
            for info in self.vocab.classes.values():
                found |= {p for p in info.properties if not is_tg(p)}
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
        graph = self.vocab.ontology
        files = {"downloads/trustgraph.ttl": resources.ontology_path().read_bytes()}
        for suffix, fmt in ((".nt", "nt"), (".rdf", "pretty-xml"), (".jsonld", "json-ld")):
            data = graph.serialize(format=fmt, encoding="utf-8")
            files[f"downloads/trustgraph{suffix}"] = data
        for path in resources.shapes_paths():
            files[f"downloads/shapes/{path.name}"] = path.read_bytes()
        return files

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
                out.append("    " * depth + f"- [{info.label}]({rel(src, info.page)}) `{curie(iri)}`")
                if iri not in trail:
                    tree(iri, depth + 1, trail | {iri})

        tree(None, 0, frozenset())
        out += ["", "## All classes", "", "| class | definition | rules |", "|---|---|---|"]
        for info in classes.values():
            rules = ", ".join(f"[{c}]({rel(src, 'rules/index.md#' + c.lower())})" for c in info.rules) or "—"
            definition = self.linkify(cell(info.definition), src) or "—"
            out.append(f"| [`{curie(info.iri)}`]({rel(src, info.page)}) | {definition} | {rules} |")
        return "\n".join(out) + "\n"

    def _predicate_rows(self, info: ClassInfo, src: str) -> list[str]:
        rows = [
            "| predicate | kind | range | lexical form | cardinality | rules |",
            "|---|---|---|---|---|---|",
        ]
        for path, use in sorted(info.properties.items(), key=lambda item: curie(item[0])):
            rows.append(self._predicate_row(path, use, src))
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
        lexical = [f"matches `{cell(p)}`" for p in sorted(use.patterns)]
        if use.values:
            lexical.append("one of " + ", ".join(f"`{cell(curie(v))}`" for v in use.values))
        rules = ", ".join(f"[{c}]({rel(src, 'rules/index.md#' + c.lower())})" for c in sorted(use.rules)) or "—"
        return (
            f"| {self.link(path, src)} | {', '.join(kinds) or '—'} | {', '.join(ranges) or '—'} "
            f"| {'; '.join(lexical) or '—'} | {use.cardinality} | {rules} |"
        )

    def class_page(self, info: ClassInfo) -> str:
        src = info.page
        vocab = self.vocab
        out = [f"# {info.label}", "", f"`{curie(info.iri)}` · `{info.iri}`", ""]
        if info.deprecated:
            out += ['!!! warning "Deprecated"', "    The ontology marks this class deprecated.", ""]
        out += [self.linkify(info.definition, src) or "*The ontology gives no definition.*", ""]

        out += ["## Types to assert", ""]
        must = vocab.types_to_assert(info)
        ancestors = vocab.ancestors(info.iri)
        if must:
            out += [
                "An instance asserts its own type and each of these, because consumers run no",
                f"reasoner ([mixins without a reasoner]({rel(src, 'concepts/mixins.md')})):",
                "",
            ]
            for iri in must:
                why = []
                if iri in info.superclasses:
                    why.append("superclass")
                elif iri in ancestors:
                    why.append("ancestor")
                if iri in info.must_assert:
                    why.append("required by the shapes")
                out.append(f"- {self.link(iri, src)} ({', '.join(why)})")
        else:
            out.append("Only its own type: the ontology gives it no superclass and the shapes require no other type.")
        if info.subclasses:
            out += ["", "Subclasses: " + ", ".join(self.link(c, src) for c in info.subclasses) + "."]
        out.append("")

        out += ["## Predicates", ""]
        if info.properties:
            out += [
                "What the shapes say about each predicate an instance carries. *Kind* is the",
                "kind of term the value is, *lexical form* what a literal's text must look like,",
                "and *cardinality* how many values one instance has.",
                "",
            ]
            out += self._predicate_rows(info, src)
        else:
            out.append("The shapes constrain no predicate on this class itself.")
        inherited = [c for c in vocab.types_to_assert(info) if c in vocab.classes and vocab.classes[c].properties]
        for other in inherited:
            out += ["", f"### From {curie(other)}", "", f"An instance is also a {self.link(other, src)}, so these apply too:", ""]
            out += self._predicate_rows(vocab.classes[other], src)
        out.append("")

        out += ["## Derivation", ""]
        out += self._derivation(info, src)
        out.append("")

        out += ["## Rules", ""]
        if info.rules:
            out += ["Rules whose shapes target this class:", ""]
            for code in info.rules:
                rule = vocab.rules[code]
                out.append(
                    f"- [{code}]({rel(src, 'rules/index.md#' + code.lower())}) {rule.name} "
                    f"({rule.severity}, {rule.family}): {self.linkify(rule.message, src)}"
                )
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
            out.append("From the shapes: the `prov:wasDerivedFrom` links an instance may have.")
            out.append("")
            out.append(
                self.diagram(
                    f"derivation-{info.name}",
                    diagrams.class_diagram(
                        info.iri,
                        parents,
                        children,
                        label_of=lambda iri: curie(iri),
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
            out.append("The shapes do not constrain what this class derives from, or what derives from it.")
        if observed_parents or observed_children:
            out += ["", "In the example traces:", ""]
            if observed_parents:
                out.append("- derives from " + ", ".join(self.link(p, src) for p in observed_parents))
            if observed_children:
                out.append("- is derived from by " + ", ".join(self.link(c, src) for c in observed_children))
        return out

    def _observed_derivations(self, cls: str) -> tuple[list[str], list[str]]:
        parents, children = set(), set()
        for trace in self.traces:
            for s, p, o in trace.links:
                if p != DERIVED:
                    continue
                if cls in trace.types.get(s, []):
                    parents |= {t for t in self.specific(trace.types.get(o, [])) if t in self.vocab.classes}
                if cls in trace.types.get(o, []):
                    children |= {t for t in self.specific(trace.types.get(s, [])) if t in self.vocab.classes}
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
        return ["No example trace has an instance of this class."]

    # -- predicates ---------------------------------------------------------------

    def predicates_page(self) -> str:
        src = "predicates.md"
        vocab = self.vocab
        out = [
            "# Predicates",
            "",
            "Every predicate of the TrustGraph ontology, and the predicates of other",
            "vocabularies that the shapes check. Domain and range are the ontology's;",
            "*constrained on* lists the classes whose shapes say how the predicate is used",
            "there (see each class page for kind, lexical form and cardinality).",
            "",
            "| predicate | kind | constrained on |",
            "|---|---|---|",
        ]
        for info in vocab.predicates.values():
            used = ", ".join(self.link(c, src) for c in info.used_by) or "—"
            out.append(f"| [`{curie(info.iri)}`](#{info.anchor}) | {info.kind} | {used} |")
        out += ["", "## TrustGraph predicates", ""]
        for info in vocab.predicates.values():
            out += [f"### {curie(info.iri)} {{ #{info.anchor} }}", ""]
            if info.deprecated:
                out += ["**Deprecated.**", ""]
            out += [self.linkify(info.definition, src) or "*The ontology gives no definition.*", ""]
            facts = [("Label", info.label), ("Kind", info.kind), ("IRI", f"`{info.iri}`")]
            if info.domains:
                facts.append(("Domain", ", ".join(self.link(d, src) for d in info.domains)))
            if info.ranges:
                facts.append(("Range", ", ".join(self.link(r, src) for r in info.ranges)))
            if info.used_by:
                facts.append(("Constrained on", ", ".join(self.link(c, src) for c in info.used_by)))
            if info.rules:
                facts.append(
                    ("Rules", ", ".join(f"[{c}]({rel(src, 'rules/index.md#' + c.lower())})" for c in info.rules))
                )
            out += [f"- **{k}:** {v}" for k, v in facts] + [""]
        external = self.external_predicates()
        if external:
            out += ["## From other vocabularies", "", "Not defined here, but checked by the shapes:", ""]
            for iri in external:
                used = [c.iri for c in vocab.classes.values() if iri in c.properties]
                out += [
                    f"### {curie(iri)} {{ #{self.external_anchor(iri)} }}",
                    "",
                    f"- **IRI:** `{iri}`",
                    "- **Constrained on:** " + ", ".join(self.link(c, src) for c in used),
                    "",
                ]
        return "\n".join(out) + "\n"

    # -- namespaces and downloads ----------------------------------------------------

    def namespaces_page(self) -> str:
        from .traces import TURTLE_PREFIXES

        meta = self.vocab.metadata
        out = ["# Namespaces and downloads", ""]
        out += [
            f"The ontology is `{meta['iri']}`"
            + (f", version {meta['version']}" if meta["version"] else "")
            + f": {len(self.vocab.classes)} classes and {len(self.vocab.predicates)} predicates"
            + f" in the namespace `{TG}`.",
            "",
        ]
        if meta["comment"]:
            out += [self.linkify(meta["comment"], "namespaces.md"), ""]
        out += ["## Prefixes", "", "The prefixes this site and the linter's messages use:", "", "| prefix | namespace |", "|---|---|"]
        from tgtrace.explain import PREFIXES

        for prefix, namespace in {**TURTLE_PREFIXES, **PREFIXES}.items():
            out.append(f"| `{prefix}:` | `{namespace}` |")
        out += ["", "## Downloads", "", "The ontology, as the linter loads it:", ""]
        names = {".ttl": "Turtle", ".nt": "N-Triples", ".rdf": "RDF/XML", ".jsonld": "JSON-LD"}
        for path, data in self.downloads().items():
            suffix = Path(path).suffix
            if path.startswith("downloads/trustgraph"):
                out.append(f"- [{Path(path).name}]({path}) ({names[suffix]}, {len(data):,} bytes)")
        out += ["", "The SHACL shapes (Turtle), one file per module:", ""]
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
            "in the order they were emitted, and shows the trace in Turtle.",
            "",
            "| pattern | example | entities | triples |",
            "|---|---|---|---|",
        ]
        for pattern in PATTERNS:
            trace = self.pattern_examples[pattern.slug]
            out.append(
                f"| [{pattern.title}]({rel(src, pattern.page)}) | `examples/{trace.name}` "
                f"| {len(trace.types)} | {len(trace.quads)} |"
            )
        return "\n".join(out) + "\n"

    def pattern_section(self, slug: str, src: str) -> str:
        pattern = next((p for p in PATTERNS if p.slug == slug), None)
        if pattern is None:
            raise SiteError(f"{src}: unknown pattern {slug!r}")
        trace = self.pattern_examples[slug]
        out = [
            "## The chain",
            "",
            f"Drawn from `examples/{trace.name}`. Solid arrows are `prov:wasDerivedFrom`,",
            "pointing from each entity back to the one it was made from; dashed arrows are",
            "other links between entities. Each box links to its class.",
            "",
            self.diagram(
                f"pattern-{slug}",
                diagrams.trace_diagram(
                    trace,
                    self.specific,
                    lambda iri: rel_html(src, self.term_src(iri)) if iri in self.vocab.classes else None,
                    pattern.title,
                ),
            ),
            "",
            "## The entities in order",
            "",
            "As the service emitted them:",
            "",
            "| # | types | derives from | IRI |",
            "|---|---|---|---|",
        ]
        numbers = {node: i for i, node in enumerate(trace.types, 1)}
        for node, types in trace.types.items():
            parents = ", ".join(f"{numbers[p]}" for p in trace.parents(node) if p in numbers) or "—"
            out.append(
                f"| {numbers[node]} | {', '.join(self.link(t, src) for t in types)} | {parents} | `{cell(node)}` |"
            )
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
        out += [self.linkify("\n".join(explain_body(rule)), src)]
        out += ["", "#### Failing example", ""]
        if rule.fault is None:
            out += ["This rule has no failing example: the shapes record no change to a real trace that makes it fire.", ""]
            return out
        example = faults.build_example(rule, self.examples_dir, lint=lint, render=render)
        focus = f"`{example.focus}`"
        out += [
            f"Take the real trace `examples/{example.trace}` and apply this SPARQL Update:",
            "",
            fenced(example.update, "sparql"),
            "",
            "**Fixed**, as TrustGraph emits it"
            + (" (highlighted: what the update removes)" if example.fixed_marks else "")
            + ":",
            "",
            fenced(example.fixed, "turtle", example.fixed_marks),
            "",
            "**Failing**, after the update"
            + (" (highlighted: what it adds)" if example.failing_marks else "")
            + f"; {rule.code} reports {focus}:",
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
            name, args = match.group(1), match.group(2).split()
            return self.directive(name, args, src)

        return _DIRECTIVE.sub(replace, markdown)

    def directive(self, name: str, args: list[str], src: str) -> str:
        options = dict(a.split("=", 1) for a in args if "=" in a)
        positional = [a for a in args if "=" not in a]
        if name == "pattern":
            return self.pattern_section(positional[0], src)
        if name == "families":
            lines = []
            for family in FAMILIES:
                codes = [r.code for r in self.vocab.rules.values() if r.family == family]
                listed = ", ".join(f"[{c}]({rel(src, 'rules/index.md#' + c.lower())})" for c in codes) or "none yet"
                lines.append(
                    f"- [**{family}**]({rel(src, 'rules/index.md#family-' + family)}): "
                    f"{self.linkify(FAMILY_TEXT[family], src)} ({listed})"
                )
            return "\n".join(lines)
        if name == "rules":
            family = options.get("family")
            chosen = [r for r in self.vocab.rules.values() if family is None or r.family == family]
            if not chosen:
                return "No rule in this family yet."
            return "\n".join(
                f"- [{r.code}]({rel(src, 'rules/index.md#' + r.code.lower())}) {r.name}: {self.linkify(r.message, src)}"
                for r in chosen
            )
        if name == "mixin-table":
            rows = ["| class | asserts also | why |", "|---|---|---|"]
            for info in self.vocab.classes.values():
                wanted = self.vocab.types_to_assert(info)
                if not wanted:
                    continue
                why = []
                for iri in wanted:
                    reason = "shapes" if iri in info.must_assert else "superclass"
                    why.append(f"{curie(iri)}: {reason}")
                rows.append(
                    f"| {self.link(info.iri, src)} | {', '.join(self.link(w, src) for w in wanted)} | {'; '.join(why)} |"
                )
            return "\n".join(rows)
        if name == "explain-event":
            found = first_explain_event(self.examples_dir, TG + "GraphRagQuestion")
            if found is None:
                raise SiteError(f"{src}: no explain-event recording (*.jsonl) under examples/")
            file_name, event = found
            return f"From `examples/{file_name}`:\n\n" + fenced(json.dumps(event, indent=2, ensure_ascii=False), "json")
        raise SiteError(f"{src}: unknown directive tgdocs:{name}")


def explain_body(rule) -> list[str]:
    """The rule's explanation from ``tgtrace.explain``, as part of a longer page.

    The title, the short example and the documentation link are left out: the
    entry has its own heading, a fuller example, and is the documentation.
    """
    from tgtrace.explain import explain_rule

    lines = explain_rule(rule).splitlines()
    out, skipping = [], False
    for line in lines:
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

    out = [
        "# Command line",
        "",
        "The help of each command, exactly as `tg-trace` prints it.",
        "",
    ]
    root = click.Context(main, info_name="tg-trace", terminal_width=88, max_content_width=88)
    out += ["## tg-trace { #tg-trace }", "", fenced(main.get_help(root), "text"), ""]
    commands = getattr(main, "commands", {})
    for name in sorted(commands):
        command = commands[name]
        if getattr(command, "hidden", False):
            continue
        ctx = click.Context(command, info_name=name, parent=root, terminal_width=88, max_content_width=88)
        out += [f"## tg-trace {name} {{ #{name} }}", "", fenced(command.get_help(ctx), "text"), ""]
    return "\n".join(out) + "\n"
