"""The rule registry: every code a finding can carry, with what the faces show of it.

A rule is a named shape carrying ``tgl:code``; its family, severity, message, documentation and a
real-trace fault recipe live on the same node, so the shapes are the only place a rule is defined.
This registry reads them from the shapes (through the generic shapes reader, ``tgtrace.shacl.shapes``,
which knows shapes and their annotations, not rules), adds the codes no shape carries
(``codes.toml``: what ``tg-trace check`` finds, what a run says of an input), and is what the linter,
the formats, the docs site and the tests list and explain.
"""

from __future__ import annotations

import difflib
import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from os import PathLike
from pathlib import Path, PurePath
from typing import TYPE_CHECKING

import pyoxigraph as ox
import rdflib

from ..ground.errors import TgTraceError
from ..ground.model import Severity
from ..ground.namespaces import RDFS, SH, TGL
from ..ground.resources import shapes_graph, shapes_paths
from ..shacl.shapes import TARGETS_INSTANCES_OF, ShapesError, ShapesModel
from ..tracemodel.naming import prefixes

if TYPE_CHECKING:
    from rdflib.term import Node

__all__ = ["DOCS_BASE", "MESSAGE_VARIABLES", "PLACEHOLDER", "UPDATE_PREFIXES", "Fault", "Family", "Rule",
           "UnknownRule", "all_rules", "families", "fill_message", "get_rule", "model", "model_for"]

_SH = rdflib.Namespace(SH)
_TGL = rdflib.Namespace(TGL)
# Where each rule's page is (rules/CODE/), on the docs site.
DOCS_BASE = "https://trustgraph-ai.github.io/trustgraph-ontology/"
# The family (tgl:behaviour) whose findings say what an agent did, apart from how its trace is written:
# the audit and watch's metrics count them on their own.
BEHAVIOUR_FAMILY = "behaviour"
SHACL_SEVERITY = {
    SH + "Violation": Severity.ERROR,
    SH + "Warning": Severity.WARNING,
    SH + "Info": Severity.INFO,
}
# What a fault recipe's update may use without declaring it.
UPDATE_PREFIXES = "".join(f"PREFIX {name}: <{namespace}>\n"
                          for name, namespace in prefixes("tg", "prov", "rdf", "rdfs", "xsd").items())


@dataclass(frozen=True)
class Family:
    iri: str
    name: str
    title: str
    description: str
    order: int
    # Its rules run only when selected by name, code or code prefix.
    opt_in: bool = False


@dataclass(frozen=True)
class Fault:
    """A real example trace, an update that breaks it, and the node that must then be reported.

    ``update`` is SPARQL 1.1 Update in which ``$this`` stands for the focus IRI
    and the tg, prov, rdf, rdfs and xsd prefixes are predeclared.
    """

    trace: str
    update: str
    focus: str

    @property
    def sparql(self) -> str:
        return UPDATE_PREFIXES + self.update.replace("$this", f"<{self.focus}>")

    def apply(self, examples_dir: str | PathLike[str]) -> bytes:
        """The example trace with the fault injected, as N-Quads."""
        store = ox.Store()
        store.load(path=str(PurePath(examples_dir) / self.trace), format=ox.RdfFormat.N_QUADS)
        before = set(store)
        store.update(self.sparql)
        if set(store) == before:
            raise ValueError(f"the fault update on {self.trace} changed nothing")
        dumped = store.dump(format=ox.RdfFormat.N_QUADS)
        assert dumped is not None  # bytes, as no output is given
        return dumped


@dataclass(frozen=True)
class Rule:
    """One rule: a named shape carrying tgl:code, with its documentation."""

    code: str
    name: str
    family: str  # the family's name
    severity: Severity  # from its sh:severity (sh:Violation when it has none)
    message: str
    description: str
    rationale: str
    fix: str
    shape: str  # IRI of the shape that defines the rule
    node_shapes: tuple[str, ...]  # shapes that use it (or define it)
    targets: tuple[str, ...]  # classes it applies to
    path: str | None  # the predicate a property-shape rule is about
    components: tuple[str, ...]  # the constraint components it uses
    # Real example traces broken so that the rule fires: the first is its example; each further one
    # shows another way the same rule catches a fault.
    faults: tuple[Fault, ...]
    # The first TrustGraph release whose traces meet the rule; older traces get it as info.
    since: str | None = None
    # The closed set of values the rule accepts (its sh:in: termination reasons, patterns), shown with a finding.
    allowed: tuple[str, ...] = ()

    @property
    def fault(self) -> Fault | None:
        """The rule's example fault (its first)."""
        return self.faults[0] if self.faults else None

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


@cache
def rules_and_families(shapes: ShapesModel) -> tuple[dict[str, Rule], dict[str, Family]]:
    """The rules (by code, in code order) and families (in order) a shapes graph defines, read once
    per shapes graph."""
    families = _families_of(shapes)
    return _rules_of_with(shapes, families), families


def _families_of(shapes: ShapesModel) -> dict[str, Family]:
    """The families the shapes declare (tgl:Family), in order."""
    g = shapes.annotations
    found = []
    for node in g.subjects(rdflib.RDF.type, _TGL.Family):
        order = g.value(node, _SH.order)
        found.append(Family(iri=str(node), name=shapes.text(node, TGL + "name"),
                            title=shapes.text(node, TGL + "title"),
                            description=" ".join(shapes.text(node, RDFS + "comment").split()),
                            order=int(order) if order is not None else 0,  # type: ignore[call-overload]  # a Literal
                            opt_in=str(g.value(node, _TGL.optIn)) == "true"))
    return {f.name: f for f in sorted(found, key=lambda f: (f.order, f.name))}


def _rules_of_with(shapes: ShapesModel, declared: dict[str, Family]) -> dict[str, Rule]:
    """Every rule the shapes define (a shape carrying tgl:code), by code, in code order."""
    g = shapes.annotations
    families = {f.iri: f.name for f in declared.values()}
    found: dict[str, Rule] = {}
    for node, code_term in g.subject_objects(_TGL.code):
        code = str(code_term)
        if code in found:
            raise ShapesError(f"rule code {code} is defined twice ({found[code].shape} and {node})")
        family_node = g.value(node, _TGL.family)
        if family_node is None or str(family_node) not in families:
            raise ShapesError(f"{shapes.name(node)}: rule {code} names no tgl:Family ({family_node})")
        owners = set(g.subjects(_SH.property, node)) | set(g.subjects(_SH.sparql, node))
        shape = shapes.shapes.get(node)
        if shape is not None and shape.targets:
            owners.add(node)
        targets = {t.value for o in owners if o in shapes.shapes for t in shapes.shapes[o].targets if t.kind == "class"}
        targets |= {c for o in owners if o in shapes.shapes for t in shapes.shapes[o].targets if t.kind == "custom"
                    for c in t.value[1].get(TARGETS_INSTANCES_OF, ())}
        # The rule's example (tgl:fault), then the further faults it catches, in a stable order.
        example = [_fault(shapes, f) for f in g.objects(node, _TGL.fault)][:1]
        further = sorted((_fault(shapes, f) for f in g.objects(node, _TGL.furtherFault)),
                         key=lambda fault: (fault.trace, fault.focus, fault.update))
        faults = tuple(example + further)
        severity = g.value(node, _SH.severity)
        if severity is None and shape is None:
            owner = next(iter(owners), None)
            severity = g.value(owner, _SH.severity) if owner is not None else None
        found[code] = Rule(
            code=code, name=shapes.text(node, TGL + "name"), family=families[str(family_node)],
            severity=SHACL_SEVERITY.get(str(severity), Severity.ERROR) if severity is not None else Severity.ERROR,
            message=shapes.text(node, SH + "message"), description=shapes.text(node, SH + "description"),
            rationale=shapes.text(node, TGL + "rationale"), fix=shapes.text(node, TGL + "fix"),
            shape=str(node), node_shapes=tuple(sorted(str(o) for o in owners)),
            targets=tuple(sorted(targets)),
            path=shape.path.iri if shape is not None and shape.path is not None else None,
            components=tuple(sorted({c.component for c in shape.constraints})) if shape is not None
            else (SH + "SPARQLConstraintComponent",),
            faults=faults, since=shapes.text(node, TGL + "since") or None,
            allowed=tuple(str(v) for c in (shape.constraints if shape is not None else ())
                          if c.component == SH + "InConstraintComponent" for v in c.params[SH + "in"]))
    return dict(sorted(found.items()))


def _fault(shapes: ShapesModel, node: Node) -> Fault:
    return Fault(trace=shapes.text(node, TGL + "trace"), update=shapes.text(node, TGL + "update"),
                 focus=shapes.text(node, TGL + "focus"))


# The variables a rule's sh:message may name, as {?name} or {$name} (SHACL 1.0, 3.6.2): what a
# finding fills in. ``tg-trace check`` reports a placeholder naming anything else.
MESSAGE_VARIABLES = ("value", "path")
PLACEHOLDER = re.compile(r"\{([?$])([A-Za-z_][A-Za-z0-9_]*)\}")


def fill_message(message: str, variables: dict[str, str]) -> str:
    """The message with each placeholder of a known variable replaced by its text."""
    return PLACEHOLDER.sub(lambda m: variables.get(m.group(2), m.group(0)), message)


class UnknownRule(TgTraceError, KeyError):
    def __init__(self, code: str, known: Iterable[str] = ()) -> None:
        super().__init__(code)
        self.hint = difflib.get_close_matches(code.upper(), sorted(known), n=1)

    def __str__(self) -> str:
        suggestion = f" (did you mean {self.hint[0]}?)" if self.hint else ""
        return f"unknown rule code {self.args[0]!r}{suggestion}; 'tg-trace rules' lists them"


@cache
def model() -> ShapesModel:
    """The packaged (or TG_TRACE_SHAPES) shapes, read once (a malformed parameter is a ParameterError
    naming its file and line)."""
    return ShapesModel(shapes_graph(), shapes_paths())


@cache
def _activated(codes: frozenset[str]) -> ShapesModel:
    graph = rdflib.Graph()
    graph += shapes_graph()  # a copy: the packaged graph is shared
    for code in codes:
        graph.remove((rdflib.URIRef(rules_and_families(model())[0][code].shape), rdflib.URIRef(SH + "deactivated"), None))
    return ShapesModel(graph, shapes_paths())


def model_for(codes: frozenset[str] | None) -> ShapesModel:
    """The shapes as tg-trace runs them for the selected rules: the opt-in rules are published
    sh:deactivated true, so that any SHACL processor leaves them out by default, and run here
    when selected."""
    opt_in = {name for name, family in families().items() if family.opt_in}
    selected = frozenset(code for code, rule in rules_and_families(model())[0].items()
                         if rule.family in opt_in and codes is not None and code in codes)
    return _activated(selected) if selected else model()


@cache
def all_rules() -> dict[str, Rule]:
    """Every code a finding can carry, by code, in code order: the shapes' rules, and those of
    ``codes.toml`` (what ``tg-trace check`` finds, what a run says of its input)."""
    return dict(sorted({**rules_and_families(model())[0], **_other_codes()[1]}.items()))


@cache
def families() -> dict[str, Family]:
    """The rule families, by name, in order: the shapes' own, then those of ``codes.toml``."""
    found = {**rules_and_families(model())[1], **_other_codes()[0]}
    return dict(sorted(found.items(), key=lambda item: (item[1].order, item[0])))


CODES = Path(__file__).with_name("codes.toml")


@cache
def _other_codes() -> tuple[dict[str, Family], dict[str, Rule]]:
    """The families and rules ``codes.toml`` defines (no shape carries them: they have no fault)."""
    with CODES.open("rb") as handle:
        data = tomllib.load(handle)
    found_families = {name: Family(iri="", name=name, title=entry["title"], description=entry["description"],
                                   order=entry["order"]) for name, entry in data["families"].items()}
    rules = {code: Rule(code=code, name=entry["name"], family=entry["family"],
                        severity=Severity.parse(entry["severity"]), message=entry["message"],
                        description=entry["description"], rationale=entry["rationale"], fix=entry["fix"],
                        shape="", node_shapes=(), targets=(), path=None, components=(), faults=())
             for code, entry in data["codes"].items()}
    return found_families, rules


def get_rule(code: str) -> Rule:
    # A code of codes.toml is known without the shapes: tg-trace check names the shapes that do
    # not parse by one (K010).
    other = _other_codes()[1]
    if code.upper() in other:
        return other[code.upper()]
    rules = all_rules()
    try:
        return rules[code.upper()]
    except KeyError:
        raise UnknownRule(code, rules) from None
