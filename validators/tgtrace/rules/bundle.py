"""The shapes as published: the ontology's declared terms written into them, and the one-file bundle.

The vocabulary rules (V001, V002, V003) judge a trace by the terms the ontology
declares. So that any SHACL processor can run them on a trace alone, without
the ontology merged into the data, the declared classes and properties and the
deprecated properties are written into ``shapes/core.ttl``, between two marker
lines, from ``ontology/trustgraph.ttl``; a test keeps the two in step.

The bundle is every module in one Turtle file with no ``owl:imports``: what a
user downloads and hands to a SHACL processor as it is. The expanded bundle is the
same shapes with each use of a SPARQL-based constraint component written out as the
SPARQL-based constraint (``sh:sparql``) it stands for, and each SPARQL-based target
type as a SPARQL-based target (``sh:target [ sh:select ... ]``), made from the
components' and target types' declarations: for the engines that run those but not
declared components (shacl-engine, in JavaScript).

    python -m tgtrace.rules.bundle --update            # rewrite the declared terms in shapes/core.ttl
    python -m tgtrace.rules.bundle -o FILE             # write the one-file bundle
    python -m tgtrace.rules.bundle --expanded -o FILE  # write the expanded bundle
"""

from __future__ import annotations

import argparse
import re
import sys
import textwrap
from collections.abc import Iterable, Sequence
from functools import cache
from pathlib import Path

import rdflib
from rdflib.compare import to_canonical_graph

from ..ground.namespaces import OWL, SH, TG
from ..ground.resources import ontology_graph, read_turtle, shapes_dir, shapes_paths
from ..shacl.shapes import CORE_COMPONENTS, Component, Constraint, Shape, ShapesError, ShapesModel
from ..tracemodel.vocabulary import deprecated_terms
from . import all_rules, model

BEGIN = "# BEGIN declared terms"
END = "# END declared terms"
_GENERATED = " (generated from ontology/trustgraph.ttl by `python -m tgtrace.rules.bundle --update`)"
_PROPERTY_KINDS = (OWL + "ObjectProperty", OWL + "DatatypeProperty", OWL + "AnnotationProperty")
BUNDLE_NAME = "trustgraph-shapes.ttl"
EXPANDED_NAME = "trustgraph-shapes-expanded.ttl"


def _tg_subjects(graph: rdflib.Graph, kinds: Iterable[str]) -> list[str]:
    found = {str(term) for kind in kinds for term in graph.subjects(rdflib.RDF.type, rdflib.URIRef(kind))
             if isinstance(term, rdflib.URIRef) and str(term).startswith(TG) and str(term) != TG}
    return sorted(found)


def _bounded_by_a_rule() -> frozenset[str]:
    """The predicates a rule of its own says are stated at most once (S001's tg:query, ...): the
    generated rule of functional properties leaves them to it."""
    return frozenset(rule.path for rule in all_rules().values()
                     if rule.path is not None and SH + "MaxCountConstraintComponent" in rule.components)


def declared_terms_block(graph: rdflib.Graph | None = None, bounded: frozenset[str] | None = None) -> str:
    """The Turtle that states, in the shapes, which tg: terms the ontology declares, and which of
    its properties are functional (stated at most once per entity)."""
    graph = ontology_graph() if graph is None else graph
    classes = _tg_subjects(graph, (OWL + "Class",))
    properties = _tg_subjects(graph, _PROPERTY_KINDS)
    deprecated = sorted(deprecated_terms(graph))
    bounded = _bounded_by_a_rule() if bounded is None else bounded
    functional = [p for p in _tg_subjects(graph, (OWL + "FunctionalProperty",)) if p not in bounded]

    def listed(terms: Iterable[str], indent: str) -> str:
        return ("\n" + indent).join("tg:" + t[len(TG):] for t in terms)

    def spaced(terms: Iterable[str]) -> str:
        return '"' + " ".join(terms) + '"'

    return "\n".join([
        BEGIN + _GENERATED,
        "tgsh:DeclaredClass a sh:NodeShape ;",
        '    rdfs:label "a class the ontology declares" ;',
        "    sh:in ( " + listed(classes, "        ") + " ) .",
        "",
        "# Space-separated IRIs: SPARQL cannot read a list of the shapes graph. Each rule's target",
        "# selects its nodes with the same list.",
        "tgsh:unknown-predicate tgl:declaredPredicates",
        "    " + spaced(properties) + " .",
        "tgsh:undeclared-predicate-users tgl:declaredPredicates",
        "    " + spaced(properties) + " .",
        "",
        "tgsh:deprecated-term tgl:deprecatedPredicates",
        "    " + spaced(deprecated) + " .",
        "tgsh:deprecated-predicate-users tgl:deprecatedPredicates",
        "    " + spaced(deprecated) + " .",
        "",
        "# The ontology's functional properties that no rule of their own bounds.",
        "tgsh:stated-once",
        "    sh:targetSubjectsOf " + listed(functional, "        ").replace("\n", ",\n") + " ;",
        "    tgl:statedOnce",
        "    " + spaced(functional) + " .",
        END,
    ])


def with_declared_terms(text: str, block: str) -> str:
    """core.ttl's text with its generated block replaced by block."""
    start, end = text.find(BEGIN), text.find(END)
    if start == -1 or end == -1:
        raise ValueError(f"the markers of the declared terms are missing ({BEGIN!r} ... {END!r})")
    return text[:start] + block + text[end + len(END):]


def _within(shape: Shape) -> list[Shape]:
    """The shape and every shape it uses."""
    found, pending = {}, [shape]
    while pending:
        current = pending.pop()
        if current.node in found:
            continue
        found[current.node] = current
        for constraint in current.constraints:
            for value in constraint.params.values():
                pending.extend(item for item in (value if isinstance(value, list) else [value]) if isinstance(item, Shape))
    return list(found.values())


def beyond_core(shapes: ShapesModel | None = None) -> list[str]:
    """The rules an engine of SHACL Core alone cannot evaluate: each uses a constraint component
    or a target of SHACL-SPARQL or SHACL Advanced Features (the project's own components, declared
    in SPARQL, or SPARQL-based targets), itself or in a shape that carries it."""
    shapes = model() if shapes is None else shapes
    core = {SH + name for name in CORE_COMPONENTS}
    codes = set()
    for shape in list(shapes.shapes.values()):
        code = shapes.code_of(shape.node)
        if code is not None and any(s.sparql or any(c.component not in core for c in s.constraints)
                                    for s in _within(shape)):
            codes.add(code)
        if any(target.kind in ("custom", "sparql") for target in shape.targets):
            codes |= shapes.codes_within(shape)
    return sorted(codes)


def bundle_graph(paths: Sequence[Path | str] | None = None) -> rdflib.Graph:
    """Every module's triples, the modules' own ontology headers and their imports left out:
    the bundle is one ontology, tgsh:, and needs nothing else."""
    paths = shapes_paths() if paths is None else paths
    graph = read_turtle(paths)
    for path in paths:
        module = rdflib.URIRef(Path(path).absolute().as_uri())
        graph.remove((module, None, None))
    graph.remove((None, rdflib.OWL.imports, None))
    return graph


# ---------------------------------------------------------------- the expanded bundle

# What a SPARQL text holds that no variable is looked for in, then a variable and the ASK keyword.
_SPARQL_TOKENS = re.compile(r"""
      "{3}(?:[^"\\]|\\.|"(?!""))*"{3}      # strings, long and short
    | '{3}(?:[^'\\]|\\.|'(?!''))*'{3}
    | "(?:[^"\\\n]|\\.)*"
    | '(?:[^'\\\n]|\\.)*'
    | <[^<>"{}|^`\\\x00-\x20]*>            # IRIs
    | \#[^\n]*                               # comments
    | \bFILTER\s*\(\s*[?$](\w+)\s*\)            # a FILTER on a variable alone
    | [?$](\w+)                              # a variable: $name or ?name
    | \b(ASK)\b
""", re.VERBOSE | re.IGNORECASE)
_TRUE = rdflib.Literal(True).n3()


def _substituted(query: str, values: dict[str, str]) -> str:
    """The query with each variable named in ``values`` replaced by that SPARQL text (SHACL's
    pre-binding of a parameter, written out). A FILTER on a parameter that is true always holds
    and is left out: Comunica 5 (shacl-engine's SPARQL) finds no solution of a path from $this to
    itself (C003's cycle) beside a FILTER on a constant."""
    def replace(match: re.Match) -> str:
        filtered, name = match.group(1), match.group(2)
        if filtered is not None and filtered in values:
            return "" if values[filtered] == _TRUE else f"FILTER ({values[filtered]})"
        return values.get(name, match.group(0)) if name is not None else match.group(0)
    return _SPARQL_TOKENS.sub(replace, query)


def _ask_parts(query: str, where: str) -> tuple[str, str]:
    """(prologue, group pattern) of an ASK query, whose pattern is its whole WHERE clause."""
    keyword = next((m for m in _SPARQL_TOKENS.finditer(query) if m.group(3)), None)
    if keyword is None:
        raise ShapesError(f"{where}: an sh:ask validator without ASK")
    prologue, rest = query[:keyword.start()], query[keyword.end():].strip()
    rest = re.sub(r"(?i)^WHERE\b", "", rest).strip()
    if not (rest.startswith("{") and rest.endswith("}")):
        raise ShapesError(f"{where}: an ASK query other than ASK {{ pattern }} cannot be expanded")
    return prologue, rest


def _sparql_term(term: rdflib.term.Node, where: str) -> str:
    if isinstance(term, rdflib.BNode):
        raise ShapesError(f"{where}: a blank node cannot be written into SPARQL")
    return term.n3()


def _prologue(prefixes: dict[str, str]) -> str:
    return "".join(f"PREFIX {prefix}: <{namespace}>\n" for prefix, namespace in sorted(prefixes.items()))


def _pre_bound(shapes: ShapesModel, shape: Shape, params: dict, where: str) -> dict[str, str]:
    """The SPARQL text of what SHACL pre-binds in a constraint's query: its parameters (by their
    local names), $PATH and $currentShape."""
    values = {re.split(r"[#/]", str(path))[-1]: _sparql_term(value, where) for path, value in params.items()}
    if shape.path is not None:
        values["PATH"] = shape.path.sparql()
    if isinstance(shape.node, rdflib.URIRef):
        values["currentShape"] = shape.node.n3()
    return values


def _constraint_query(shapes: ShapesModel, shape: Shape, component: Component, constraint: Constraint) -> str:
    """The SELECT query of an sh:sparql constraint that says what ``constraint`` says: its
    component's validator with the parameters written in (SHACL 6.2, 6.3)."""
    where = f"{shapes.name(shape.node)} ({shapes.name(rdflib.URIRef(component.iri))})"
    validator = component.validator_for(shape)
    if validator is None:
        raise ShapesError(f"{where}: the component has no validator for this shape")
    values = _pre_bound(shapes, shape, constraint.params, where)
    query = textwrap.dedent(validator.query.strip("\n"))
    if validator.kind == "ask":
        # A value node conforms when the ASK query, with $value bound to it, is true: the
        # violations are the value nodes for which its pattern has no solution.
        prologue, pattern = _ask_parts(query, where)
        pattern = textwrap.indent(pattern, "    ").lstrip()
        if shape.path is not None:
            query = f"{prologue}SELECT $this ?value WHERE {{\n    $this $PATH ?value .\n    FILTER NOT EXISTS {pattern}\n}}"
        else:
            # A node shape's one value node is its focus node.
            query = f"{prologue}SELECT $this WHERE {{\n    FILTER NOT EXISTS {_substituted(pattern, {'value': '$this'})}\n}}"
    if re.search(r"[?$]shapesGraph\b", query):
        raise ShapesError(f"{where}: $shapesGraph cannot be written into a query")
    query = _substituted(query, values).strip()
    # A SELECT DISTINCT of $this alone, $this bound, has at most one solution: LIMIT 1 says the same,
    # and Comunica 5 (shacl-engine's SPARQL) leaves a DISTINCT of a path's solutions unfinished
    # after some queries before it (docs/shacl-engines.md).
    query = re.sub(r"(?is)^(.*?)\bSELECT\s+DISTINCT\s+([?$]this)\s+(WHERE\s*\{.*\})$", r"\1SELECT \2 \3 LIMIT 1", query)
    return _prologue(validator.prefixes) + _grouped_without_this(query) + "\n"


# A query of $this grouped by $this and more: SELECT $this WHERE { ... } GROUP BY ... HAVING (...).
_GROUPED_BY_THIS = re.compile(r"""(?isx)^(?P<head>.*?)\bSELECT\s+(?P<this>[?$]this)\s+(?P<where>WHERE\s*\{.*\})
    \s*GROUP\s+BY\s+(?P<keys>(?:[?$]\w+\s*)+)(?P<having>HAVING\s*\(.*\))?\s*$""")


def _grouped_without_this(query: str) -> str:
    """A query grouped by $this, written with $this out of its GROUP BY: the same solutions, $this
    being bound. Comunica 5 (shacl-engine's SPARQL) refuses to bind a variable of a GROUP BY
    (docs/shacl-engines.md); a subquery that returns $this, grouped by the other keys, it reads.
    SPARQL 1.1 has a subquery's projected variables grouped, but $this is pre-bound, one value
    (SHACL 1.0, Appendix A), and the engines the expanded bundle is for read it so."""
    grouped = _GROUPED_BY_THIS.match(query)
    if grouped is None:
        return query
    keys = grouped["keys"].split()
    others = [key for key in keys if key[1:] != "this"]
    if len(others) == len(keys):
        return query
    group_by = f" GROUP BY {' '.join(others)}" if others else ""
    having = f" {grouped['having']}" if grouped["having"] else ""
    return (f"{grouped['head']}SELECT {grouped['this']} WHERE {{\n    {{ SELECT {grouped['this']} {grouped['where']}"
            f"{group_by}{having} }}\n}}")


def expanded_graph(paths: Sequence[Path | str] | None = None) -> rdflib.Graph:
    """The bundle with every SPARQL-based constraint component and target type written out:
    each constraint of a declared component becomes an sh:sparql constraint of the same shape
    (its parameters removed), each target of a declared SPARQL-based target type an sh:target
    with its sh:select. Components and target types declared later are expanded the same way."""
    graph = bundle_graph(paths)
    shapes = ShapesModel(graph)
    sh = rdflib.Namespace(SH)
    for shape in list(shapes.shapes.values()):
        for constraint in shape.constraints:
            component = shapes.components.get(constraint.component)
            if component is None:
                continue  # SHACL Core's: every engine runs it as written
            query = _constraint_query(shapes, shape, component, constraint)
            for parameter in component.mandatory + component.optional:
                graph.remove((shape.node, rdflib.URIRef(parameter), None))
            sparql = rdflib.BNode()
            graph.add((shape.node, sh.sparql, sparql))
            graph.add((sparql, rdflib.RDF.type, sh.SPARQLConstraint))
            graph.add((sparql, sh.select, rdflib.Literal(query)))
            for message in component.validator_for(shape).messages:  # type: ignore[union-attr]  # checked above
                graph.add((sparql, sh.message, rdflib.Literal(message)))
    for shape_node, target in list(graph.subject_objects(sh.target)):
        kinds = [shapes.target_types[str(t)] for t in graph.objects(target, rdflib.RDF.type) if str(t) in shapes.target_types]
        if not kinds:
            continue
        kind, where = kinds[0], f"{shapes.name(shape_node)} ({shapes.name(rdflib.URIRef(kinds[0].iri))})"
        values = {re.split(r"[#/]", path)[-1]: _sparql_term(graph.value(target, rdflib.URIRef(path)), where)  # type: ignore[arg-type]  # not None: filtered
                  for path in kind.parameters if graph.value(target, rdflib.URIRef(path)) is not None}
        graph.remove((target, None, None))
        graph.add((target, rdflib.RDF.type, sh.SPARQLTarget))
        select = _substituted(textwrap.dedent(kind.select.strip("\n")), values).strip()
        graph.add((target, sh.select, rdflib.Literal(_prologue(kind.prefixes) + select + "\n")))
    return graph


def _wrapped(text: str) -> str:
    return "\n".join(textwrap.wrap(text, 96, initial_indent="# ", subsequent_indent="# ")) + "\n"


def _turtle(graph: rdflib.Graph, header: str) -> bytes:
    # Blank nodes named canonically, so that the same shapes always give the same file.
    canonical = rdflib.Graph()
    canonical += to_canonical_graph(graph)
    for prefix, namespace in graph.namespaces():
        canonical.bind(prefix, namespace, override=True, replace=True)
    return header.encode() + canonical.serialize(format="turtle", encoding="utf-8")


_CORE_PROFILE = "Core profile: an engine of SHACL Core alone (no SHACL-SPARQL, no SPARQL-based targets) evaluates every rule but "
_RECIPES = "# Recipes per engine: https://trustgraph-ai.github.io/trustgraph-ontology/shacl-engines/\n\n"


@cache
def bundle_turtle(paths: tuple | None = None) -> bytes:
    """The one-file bundle as Turtle, with a header saying what it is (paths: the modules, as a
    tuple; the installed shapes by default)."""
    return _turtle(bundle_graph(paths), (
        "# TrustGraph explainability shapes: every module in one file, for any SHACL processor.\n"
        "# Run it on a trace as it is written (RDF 1.2 triple terms, no ontology merged):\n"
        "# SHACL Core and SHACL-SPARQL, with SPARQL-based targets (SHACL Advanced Features).\n"
        "# The opt-in rules are sh:deactivated true; activate them by removing that triple.\n"
        + _wrapped(_CORE_PROFILE + ", ".join(beyond_core()) + ".") + _RECIPES))


@cache
def expanded_turtle(paths: tuple | None = None) -> bytes:
    """The expanded bundle as Turtle, with a header saying what it is (paths as for bundle_turtle)."""
    return _turtle(expanded_graph(paths), (
        "# TrustGraph explainability shapes: every module in one file, expanded for the SHACL processors\n"
        f"# that run SPARQL-based constraints and targets but not declared components ({BUNDLE_NAME}\n"
        "# is the same shapes as they are written). Generated by python -m tgtrace.rules.bundle --expanded:\n"
        "# each use of a SPARQL-based constraint component is the sh:sparql constraint it stands for,\n"
        "# each SPARQL-based target type an sh:target with its sh:select.\n"
        "# The opt-in rules are sh:deactivated true; activate them by removing that triple.\n"
        + _wrapped(_CORE_PROFILE + ", ".join(beyond_core()) + ".") + _RECIPES))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tgtrace.rules.bundle", description=__doc__.split("\n\n")[0])
    parser.add_argument("--update", action="store_true", help="rewrite the declared terms in shapes/core.ttl")
    parser.add_argument("--expanded", action="store_true",
                        help="the expanded bundle (SPARQL-based components and target types written out)")
    parser.add_argument("-o", "--output", type=Path, help="write the bundle to this file")
    args = parser.parse_args(argv)
    if args.update:
        core = shapes_dir() / "core.ttl"
        core.write_text(with_declared_terms(core.read_text(encoding="utf-8"), declared_terms_block()), encoding="utf-8")
    written = expanded_turtle() if args.expanded else bundle_turtle()
    if args.output is not None:
        args.output.write_bytes(written)
    elif not args.update:
        sys.stdout.buffer.write(written)
    return 0


if __name__ == "__main__":
    sys.exit(main())
