"""The rule registry, read from the SHACL shapes.

A rule is a named shape (a property shape or a SPARQL constraint) that carries
``tgl:code``. Its family, severity, message, documentation and a real-trace
fault example live on the same node, so the shapes are the only place a rule
is defined; the linter, the docs site and the tests all read them from here.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from .model import Severity
from .namespaces import SH, TGL

DOCS_BASE = "https://trustgraph-ai.github.io/trustgraph-ontology/"
SHACL_SEVERITY = {
    SH + "Violation": Severity.ERROR,
    SH + "Warning": Severity.WARNING,
    SH + "Info": Severity.INFO,
}
FAMILIES = ("mixin", "chain", "termination", "datatype", "structure", "vocabulary")


UPDATE_PREFIXES = """PREFIX tg: <https://trustgraph.ai/ns/>
PREFIX prov: <http://www.w3.org/ns/prov#>
PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>
"""


@dataclass(frozen=True)
class Fault:
    """A real example trace, an update that breaks it, and the node that must be reported.

    ``update`` is SPARQL 1.1 Update in which ``$this`` stands for the focus IRI
    and the tg, prov, rdf, rdfs and xsd prefixes are predeclared.
    """

    trace: str  # file name under examples/
    update: str
    focus: str

    @property
    def sparql(self) -> str:
        return UPDATE_PREFIXES + self.update.replace("$this", f"<{self.focus}>")

    def apply(self, examples_dir) -> bytes:
        """The example trace with the fault injected, as N-Quads."""
        from pathlib import Path

        import pyoxigraph as ox

        store = ox.Store()
        store.load(path=str(Path(examples_dir) / self.trace), format=ox.RdfFormat.N_QUADS)
        before = len(store)
        store.update(self.sparql)
        changed = len(store) != before or True
        if not changed:
            raise ValueError(f"the fault update on {self.trace} changed nothing")
        return store.dump(format=ox.RdfFormat.N_QUADS)


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
    node_shapes: tuple[str, ...]  # node shapes that use it
    targets: tuple[str, ...]  # classes it applies to
    path: str | None  # the predicate a property-shape rule is about
    fault: Fault | None

    @property
    def help_uri(self) -> str:
        return f"{DOCS_BASE}rules/#{self.code.lower()}"


class UnknownRule(KeyError):
    def __str__(self) -> str:
        return f"unknown rule code {self.args[0]!r}; 'tg-trace rules' lists them"


def _text(graph, node, predicate) -> str:
    import rdflib

    value = graph.value(node, rdflib.URIRef(predicate))
    return str(value) if value is not None else ""


@cache
def all_rules() -> dict[str, Rule]:
    """Every rule, by code, in code order."""
    import rdflib

    from .resources import shapes_graph

    graph = shapes_graph()
    code_p = rdflib.URIRef(TGL + "code")
    rules: dict[str, Rule] = {}
    for shape, code in graph.subject_objects(code_p):
        code = str(code)
        if code in rules:
            raise ValueError(f"rule code {code} is defined twice ({rules[code].shape} and {shape})")
        owners = set(graph.subjects(rdflib.URIRef(SH + "property"), shape))
        owners |= set(graph.subjects(rdflib.URIRef(SH + "sparql"), shape))
        if (shape, rdflib.RDF.type, rdflib.URIRef(SH + "NodeShape")) in graph:
            owners.add(shape)
        targets = set()
        for owner in owners:
            targets |= set(graph.objects(owner, rdflib.URIRef(SH + "targetClass")))
        severity = graph.value(shape, rdflib.URIRef(SH + "severity"))
        fault_node = graph.value(shape, rdflib.URIRef(TGL + "fault"))
        fault = None
        if fault_node is not None:
            fault = Fault(
                trace=_text(graph, fault_node, TGL + "trace"),
                update=_text(graph, fault_node, TGL + "update"),
                focus=_text(graph, fault_node, TGL + "focus"),
            )
        path = graph.value(shape, rdflib.URIRef(SH + "path"))
        rules[code] = Rule(
            code=code,
            name=_text(graph, shape, TGL + "name"),
            family=_text(graph, shape, TGL + "family"),
            severity=SHACL_SEVERITY.get(str(severity), Severity.ERROR),
            message=_text(graph, shape, SH + "message"),
            description=_text(graph, shape, SH + "description"),
            rationale=_text(graph, shape, TGL + "rationale"),
            fix=_text(graph, shape, TGL + "fix"),
            shape=str(shape),
            node_shapes=tuple(sorted(str(o) for o in owners)),
            targets=tuple(sorted(str(t) for t in targets)),
            path=str(path) if isinstance(path, rdflib.URIRef) else None,
            fault=fault,
        )
    return dict(sorted(rules.items()))


def get_rule(code: str) -> Rule:
    try:
        return all_rules()[code.upper()]
    except KeyError:
        raise UnknownRule(code) from None
