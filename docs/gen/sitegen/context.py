"""What every page module shares: the data of one build, links between pages, and the templates.

A page module gets a ``Context`` and renders one Jinja2 template (under
docs/gen/templates/) per page; ``Context.at(src)`` gives the template the
helpers that write links relative to that page.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

import jinja2
import pyoxigraph as ox
from tgtrace.ground.namespaces import RDF_TYPE
from tgtrace.tracemodel.naming import curie

from . import diagrams
from .ontology import is_tg
from .patterns import PATTERNS, Pattern, choose_example
from .traces import TG, Trace, load_examples
from .vocab import PropertyUse, Vocabulary

TEMPLATES = Path(__file__).resolve().parents[1] / "templates"
DIAGRAM_MARK = "TGDOCS-DIAGRAM-"
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


def code(text: str) -> str:
    """Text as a Markdown code span."""
    return f"`{text}`"


def rule_link(code: str, src: str) -> str:
    return f"[{code}]({rel(src, f'rules/{code}/index.md')})"


def external_anchor(iri: str) -> str:
    return curie(iri).replace(":", "-")


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        undefined=jinja2.StrictUndefined,
        autoescape=False,  # the templates write Markdown, not HTML
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters.update(cell=cell, code=code, curie=curie, external_anchor=external_anchor, fenced=fenced)
    return env


class Context:
    """Everything read for one build, and the links between the pages made from it."""

    def __init__(self, root: Path):
        self.root = root  # the checkout: mkdocs.yml, examples/
        self.vocab = Vocabulary()
        self.examples_dir = root / "examples"
        self.traces: list[Trace] = load_examples(self.examples_dir)
        self.pattern_examples: dict[str, Trace | None] = {p.slug: choose_example(p, self.traces) for p in PATTERNS}
        self.diagrams: dict[str, str] = {}
        self.templates = _environment()
        self._add_observed_predicates()
        self.external_predicates = self._external_predicates()

    def _add_observed_predicates(self) -> None:
        """List on each class page the predicates its instances carry in the examples.

        Predicates whose domain is a broad class (prov:Entity: token counts, the
        LLM model) are not named by any one class's shapes or domain; the examples
        show which classes carry them. Their rows say only what the value shapes say.
        """
        vocab = self.vocab
        for trace in self.traces:
            for quad in trace.quads:
                predicate = quad.predicate.value
                if predicate == RDF_TYPE or not isinstance(quad.subject, ox.NamedNode):
                    continue
                for cls in trace.types.get(quad.subject.value, []):
                    info = vocab.classes.get(cls)
                    if info is None or predicate in info.properties or info.mixin_for:
                        continue
                    if predicate not in vocab.predicates and predicate not in vocab.value_constraints:
                        continue
                    use = PropertyUse(path=predicate, constrained=False)
                    if predicate in vocab.value_constraints:
                        use.merge_values(vocab.value_constraints[predicate])
                    info.properties[predicate] = use

    def _external_predicates(self) -> list[str]:
        """Predicates outside tg: that the shapes constrain (prov:wasDerivedFrom, rdfs:label, ...)."""
        found = set()
        for info in self.vocab.classes.values():
            found |= {p for p in info.properties if not is_tg(p)}
        found |= {p for p in self.vocab.value_constraints if not is_tg(p)}
        return sorted(found, key=curie)

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
        if iri in self.external_predicates:
            return f"predicates.md#{external_anchor(iri)}"
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

    def pattern_of(self, trace: Trace) -> Pattern | None:
        for pattern in PATTERNS:
            if self.pattern_examples[pattern.slug] is trace:
                return pattern
        return None

    def at(self, src: str) -> PageLinks:
        return PageLinks(self, src)

    def render(self, template: str, src: str, **values) -> str:
        """A template, given ``page`` (links from ``src``) and ``values``."""
        return self.templates.get_template(template).render(page=self.at(src), **values)


class PageLinks:
    """The helpers a template uses to link from the page it writes (``page`` in templates)."""

    def __init__(self, context: Context, src: str):
        self.context = context
        self.src = src

    def link(self, iri: str) -> str:
        return self.context.link(iri, self.src)

    def links(self, iris, separator: str = ", ") -> str:
        return separator.join(self.link(i) for i in iris)

    def linkify(self, text: str) -> str:
        return self.context.linkify(text, self.src)

    def rule(self, code: str) -> str:
        return rule_link(code, self.src)

    def rules(self, codes, separator: str = ", ") -> str:
        return separator.join(self.rule(c) for c in codes)

    def rel(self, target: str) -> str:
        return rel(self.src, target)
