"""The rule registry: every rule the shapes define, with its documentation.

A rule is a named shape carrying ``tgl:code``; its family, severity, message,
documentation and a real-trace fault recipe live on the same node, so the
shapes are the only place a rule is defined. The registry is read from the
shapes by ``tgtrace.shapes`` and is what the linter, the formats, the docs
site and the tests list and explain.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pyoxigraph as ox
import rdflib

from .errors import TgTraceError
from .model import Severity
from .namespaces import SH
from .resources import shapes_graph
from .shapes import Family, FaultRecipe, ShapesModel

DOCS_BASE = "https://trustgraph-ai.github.io/trustgraph-ontology/"
SHACL_SEVERITY = {
    SH + "Violation": Severity.ERROR,
    SH + "Warning": Severity.WARNING,
    SH + "Info": Severity.INFO,
}

# The variables a rule's sh:message may name, as {?name} or {$name} (SHACL 1.0, 3.6.2): what a
# finding fills in. ``tg-trace check`` reports a placeholder naming anything else.
MESSAGE_VARIABLES = ("value", "path")
PLACEHOLDER = re.compile(r"\{([?$])([A-Za-z_][A-Za-z0-9_]*)\}")


def fill_message(message: str, variables: dict[str, str]) -> str:
    """The message with each placeholder of a known variable replaced by its text."""
    return PLACEHOLDER.sub(lambda m: variables.get(m.group(2), m.group(0)), message)


UPDATE_PREFIXES = """PREFIX tg: <https://trustgraph.ai/ns/>
PREFIX prov: <http://www.w3.org/ns/prov#>
PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>
"""


@dataclass(frozen=True)
class Fault(FaultRecipe):
    """A real example trace, an update that breaks it, and the node that must be reported.

    ``update`` is SPARQL 1.1 Update in which ``$this`` stands for the focus IRI
    and the tg, prov, rdf, rdfs and xsd prefixes are predeclared.
    """

    @property
    def sparql(self) -> str:
        return UPDATE_PREFIXES + self.update.replace("$this", f"<{self.focus}>")

    def apply(self, examples_dir) -> bytes:
        """The example trace with the fault injected, as N-Quads."""
        store = ox.Store()
        store.load(path=str(Path(examples_dir) / self.trace), format=ox.RdfFormat.N_QUADS)
        before = set(store)
        store.update(self.sparql)
        if set(store) == before:
            raise ValueError(f"the fault update on {self.trace} changed nothing")
        return store.dump(format=ox.RdfFormat.N_QUADS)  # type: ignore[return-value]  # bytes, as no output is given


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    family: str
    severity: Severity
    message: str
    description: str
    rationale: str
    fix: str
    shape: str  # IRI of the shape that defines the rule
    node_shapes: tuple[str, ...]  # shapes that use it
    targets: tuple[str, ...]  # classes it applies to
    path: str | None  # the predicate a property-shape rule is about
    components: tuple[str, ...]  # the constraint components it uses
    fault: Fault | None
    # The first TrustGraph release whose traces meet the rule; older traces get it as info.
    since: str | None = None
    # The values the rule accepts, when it accepts a closed set (termination reasons, patterns).
    allowed: tuple[str, ...] = ()

    @property
    def title(self) -> str:
        """A one-line title: the first sentence of the description."""
        text = " ".join((self.description or self.message or self.name).split())
        end = text.find(". ")
        return text[:end + 1] if end != -1 else text

    @property
    def help_uri(self) -> str:
        return f"{DOCS_BASE}{self.page}"

    @property
    def page(self) -> str:
        """The rule's own page on the docs site, a stable address (rules/T001/)."""
        return f"rules/{self.code}/"


class UnknownRule(TgTraceError, KeyError):
    def __init__(self, code: str, known=()):
        super().__init__(code)
        self.hint = difflib.get_close_matches(code.upper(), sorted(known), n=1)

    def __str__(self) -> str:
        suggestion = f" (did you mean {self.hint[0]}?)" if self.hint else ""
        return f"unknown rule code {self.args[0]!r}{suggestion}; 'tg-trace rules' lists them"


@cache
def model() -> ShapesModel:
    """The packaged (or TG_TRACE_SHAPES) shapes, read once."""
    return ShapesModel(shapes_graph())


@cache
def _activated(codes: frozenset[str]) -> ShapesModel:
    graph = rdflib.Graph()
    graph += shapes_graph()  # a copy: the packaged graph is shared
    for code in codes:
        graph.remove((rdflib.URIRef(model().rules[code].shape), rdflib.URIRef(SH + "deactivated"), None))
    return ShapesModel(graph)


def model_for(codes: frozenset[str] | None) -> ShapesModel:
    """The shapes as tg-trace runs them for the selected rules: the opt-in rules are published
    sh:deactivated true, so that any SHACL processor leaves them out by default, and run here
    when selected."""
    opt_in = {name for name, family in families().items() if family.opt_in}
    selected = frozenset(code for code, rule in model().rules.items()
                         if rule.family in opt_in and codes is not None and code in codes)
    return _activated(selected) if selected else model()


@cache
def all_rules() -> dict[str, Rule]:
    """Every rule, by code, in code order."""
    rules = {}
    for code, r in model().rules.items():
        fault = Fault(r.fault.trace, r.fault.update, r.fault.focus) if r.fault is not None else None
        rules[code] = Rule(code=code, name=r.name, family=r.family, severity=SHACL_SEVERITY.get(r.severity, Severity.ERROR),
                           message=r.message, description=r.description, rationale=r.rationale, fix=r.fix,
                           shape=r.shape, node_shapes=r.node_shapes, targets=r.targets, path=r.path,
                           components=r.components, fault=fault, since=r.since, allowed=r.allowed)
    return rules


def families() -> dict[str, Family]:
    """The rule families, by name, in the order the shapes give them."""
    return model().families


def get_rule(code: str) -> Rule:
    rules = all_rules()
    try:
        return rules[code.upper()]
    except KeyError:
        raise UnknownRule(code, rules) from None
