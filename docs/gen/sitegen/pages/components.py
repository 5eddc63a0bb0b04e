"""The constraint components page: every component the fast engine implements, with the
W3C SHACL test-suite cases each engine passes for it, and the project's own components.

The counts are read from docs/gen/w3c-pass-counts.json, which docs/gen/w3c_counts.py
writes from the suite runner (tests/w3c_suite.py) and a test keeps up to date;
the build does not run the suite.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from tgtrace.api import supported_components
from tgtrace.ground.namespaces import SH
from tgtrace.rules import all_rules, model
from tgtrace.shacl.shapes import CORE_COMPONENTS, Component, Shape

from ..context import Context, SiteError

SRC = "rules/components.md"
COUNTS = Path(__file__).resolve().parents[2] / "w3c-pass-counts.json"
GENERATOR = "docs/gen/w3c_counts.py"
SHACL_SPEC = "https://www.w3.org/TR/shacl/"
QUALIFIED = SH + "QualifiedValueShapeConstraintComponent"
# sh:qualifiedValueShape is one component in the shapes and two in validation
# reports, by which count it has: the suite and the engine count the two.
QUALIFIED_COUNTS = {SH + "QualifiedMinCountConstraintComponent": "qualifiedMinCount",
                    SH + "QualifiedMaxCountConstraintComponent": "qualifiedMaxCount"}
SPARQL = SH + "SPARQLConstraintComponent"


def read_counts(path: Path = COUNTS) -> dict[str, dict[str, tuple[int, int]]]:
    """Engine name -> component IRI -> (cases passed, cases run)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return {engine: {c: (int(p), int(t)) for c, (p, t) in found.items()} for engine, found in data.items()}


def parameters(component: str) -> tuple[list[str], list[str]]:
    """The mandatory and optional parameters of a SHACL component, as sh: IRIs."""
    if component in QUALIFIED_COUNTS:
        mandatory, optional = CORE_COMPONENTS[QUALIFIED[len(SH):]]
        count = QUALIFIED_COUNTS[component]
        mandatory, optional = (*mandatory, count), tuple(p for p in optional if p not in QUALIFIED_COUNTS.values())
    elif component == SPARQL:
        mandatory, optional = ("sparql",), ()
    else:
        mandatory, optional = CORE_COMPONENTS.get(component[len(SH):], ((), ()))
    return [SH + p for p in mandatory], [SH + p for p in optional]


def _used(shape: Shape, found: set[str], seen: set) -> None:
    """The components ``shape`` uses, with those of the shapes it combines (not another rule's)."""
    if shape.node in seen:
        return
    seen.add(shape.node)
    if shape.sparql:
        found.add(SPARQL)
    for constraint in shape.constraints:
        if constraint.component == QUALIFIED:
            found.update(c for c, count in QUALIFIED_COUNTS.items() if SH + count in constraint.params)
        else:
            found.add(constraint.component)
        for value in constraint.params.values():
            for nested in value if isinstance(value, list) else [value]:
                if isinstance(nested, Shape) and model().code_of(nested.node) is None:
                    _used(nested, found, seen)


def rules_by_component() -> dict[str, list[str]]:
    """Component IRI -> the codes of the rules whose shapes use it."""
    shapes = {str(node): shape for node, shape in model().shapes.items()}
    users: dict[str, list[str]] = {}
    for rule in all_rules().values():
        found: set[str] = set(rule.components) - {QUALIFIED}
        if rule.shape in shapes:
            _used(shapes[rule.shape], found, set())
        for component in found:
            users.setdefault(component, []).append(rule.code)
    return users


def spec_order(components) -> list[str]:
    """SHACL's components in the order the specification gives them (CORE_COMPONENTS'), SPARQL last."""
    order = []
    for local in CORE_COMPONENTS:
        order += list(QUALIFIED_COUNTS) if SH + local == QUALIFIED else [SH + local]
    order.append(SPARQL)
    known = [c for c in order if c in components]
    return known + sorted(c for c in components if c not in order)


@dataclass
class Row:
    iri: str
    anchor: str  # the section of the SHACL specification that defines it
    mandatory: list[str]
    optional: list[str]
    fast: tuple[int, int]
    reference: tuple[int, int] | None
    rules: list[str]


@dataclass
class Declared:
    component: Component
    native: bool  # the fast engine has its own implementation; else it runs the SPARQL validator
    validators: list[str]
    rules: list[str]


def validators(component: Component) -> list[str]:
    named = (("node", component.node_validator), ("property", component.property_validator), ("", component.validator))
    return [f"{'SPARQL ' + v.kind.upper()}{' for ' + kind + ' shapes' if kind else ''}" for kind, v in named if v]


def pages(context: Context) -> dict[str, str]:
    counts = read_counts()
    fast, reference = counts.get("fast", {}), counts.get("reference", {})
    users = rules_by_component()
    native = supported_components()
    shacl = sorted(c for c in native if c.startswith(SH))
    missing = [c for c in shacl if c not in fast]
    if missing:
        raise SiteError(f"{COUNTS.name} has no fast-engine counts for {', '.join(missing)}: run python {GENERATOR}")
    rows = []
    for iri in spec_order(shacl):
        mandatory, optional = parameters(iri)
        anchor = "QualifiedValueShapeConstraintComponent" if iri in QUALIFIED_COUNTS else iri[len(SH):]
        rows.append(Row(iri, SHACL_SPEC + "#" + anchor, mandatory, optional, fast[iri], reference.get(iri),
                        sorted(users.get(iri, []))))
    # Components a test of the suite declares for itself (SHACL-SPARQL): only the reference runs those cases.
    suite_own = {c: pair for c, pair in reference.items() if not c.startswith(SH) and c not in native}
    declared = [
        Declared(component, component.iri in native, validators(component), sorted(users.get(component.iri, [])))
        for component in model().components.values()
    ]
    return {
        SRC: context.render(
            "components.md.j2",
            SRC,
            rows=rows,
            reference_short=any(r.reference and r.reference[0] < r.reference[1] for r in rows),
            suite_own=(sum(p for p, _ in suite_own.values()), sum(t for _, t in suite_own.values())) if suite_own else None,
            declared=declared,
        )
    }
