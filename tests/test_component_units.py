"""A constraint component is one unit: its compiled form says what its check says.

The default engine inlines a component's compiled form (shacl/component.py) into the code it
generates, instead of calling the check. Each compiled form is run here beside its check, on the
value nodes of the real example traces and on a few odd ones (blank nodes, tagged and ill-typed
literals), for every constraint of the packaged shapes that has one and for parameters the packaged
shapes do not use. A check changed without its compiled form, or the reverse, fails naming the
component. The components are those of the tables engines are given (SHACL Core's, TrustGraph's),
and every component a module writes is in its table.
"""

from __future__ import annotations

from dataclasses import replace
from types import ModuleType

import pyoxigraph as ox
import pytest
import rdflib
from conftest import EXAMPLES
from tgtrace.api import capture_graph, packaged_engine
from tgtrace.ground.graph import TraceGraph, key_from_rdflib
from tgtrace.ground.namespaces import SH
from tgtrace.inputs.loaders import load
from tgtrace.rules import components as trustgraph
from tgtrace.rules.components import PACKAGED
from tgtrace.shacl import core
from tgtrace.shacl.component import ComponentTable, Native
from tgtrace.shacl.core import (
    cardinality,
    logical,
    other,
    property_pair,
    shape_based,
    string_based,
    value_range,
    value_type,
)
from tgtrace.shacl.fast import Compiler, Engine, _Run
from tgtrace.shacl.shapes import CORE_COMPONENTS, ShapesModel

SAMPLES = """
@prefix sh: <http://www.w3.org/ns/shacl#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix ex: <http://example.org/> .
@prefix tg: <https://trustgraph.ai/ns/> .
@prefix prov: <http://www.w3.org/ns/prov#> .

ex:class a sh:PropertyShape ; sh:path ex:p ; sh:class tg:Question .
ex:iri a sh:PropertyShape ; sh:path ex:p ; sh:nodeKind sh:IRI .
ex:literal a sh:PropertyShape ; sh:path ex:p ; sh:nodeKind sh:Literal .
ex:blank a sh:PropertyShape ; sh:path ex:p ; sh:nodeKind sh:BlankNode .
ex:blankOrIri a sh:PropertyShape ; sh:path ex:p ; sh:nodeKind sh:BlankNodeOrIRI .
ex:blankOrLiteral a sh:PropertyShape ; sh:path ex:p ; sh:nodeKind sh:BlankNodeOrLiteral .
ex:iriOrLiteral a sh:PropertyShape ; sh:path ex:p ; sh:nodeKind sh:IRIOrLiteral .
ex:pattern a sh:PropertyShape ; sh:path ex:p ; sh:pattern "^urn:trustgraph:" .
ex:patternFlags a sh:PropertyShape ; sh:path ex:p ; sh:pattern "QUESTION" ; sh:flags "i" .
ex:in a sh:PropertyShape ; sh:path ex:p ; sh:in ( tg:Question "chat"@en 42 ex:nothing ) .
ex:orClasses a sh:PropertyShape ; sh:path ex:p ; sh:or ( [ sh:class tg:Question ] [ sh:class prov:Entity ] ) .
ex:orTypes a sh:PropertyShape ; sh:path ex:p ;
    sh:or ( [ sh:not [ sh:class tg:Question ] ] [ sh:class tg:Analysis ; sh:class prov:Entity ] ) .
ex:node a sh:PropertyShape ; sh:path ex:p ; sh:node [ sh:class tg:Analysis ] .
ex:min0 a sh:PropertyShape ; sh:path ex:p ; sh:minCount 0 .
ex:min2 a sh:PropertyShape ; sh:path ex:p ; sh:minCount 2 .
ex:max0 a sh:PropertyShape ; sh:path ex:p ; sh:maxCount 0 .
ex:max1 a sh:PropertyShape ; sh:path ex:p ; sh:maxCount 1 .
ex:hasIri a sh:PropertyShape ; sh:path ex:p ; sh:hasValue tg:Question .
ex:hasLiteral a sh:PropertyShape ; sh:path ex:p ; sh:hasValue "chat"@en .
"""
# Values no example trace holds, beside every node and value of the examples.
ODD = """
@prefix ex: <http://example.org/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
ex:odd ex:p [ ex:q 1 ], "chat"@en, "CHAT"@en-GB, 42, "4x2"^^xsd:integer, "",
    <urn:trustgraph:question:x>, <http://example.org/a> .
"""
TRACES = ("graph-rag.nq", "document-rag-reranked.nq", "orchestrator-react-multi-iteration.nq",
          "legacy-react-one-shot.nq")


def _graph() -> TraceGraph:
    graph = capture_graph([item for name in TRACES for item in load(EXAMPLES / name)])
    for s, p, o in rdflib.Graph().parse(data=ODD, format="turtle"):
        graph.add(key_from_rdflib(s), key_from_rdflib(p), key_from_rdflib(o))
    return graph


@pytest.fixture(scope="module")
def graph() -> TraceGraph:
    return _graph()


COMPONENTS = PACKAGED.constraints


def _constraints(model: ShapesModel, natives=COMPONENTS):
    """(shape, constraint) for each constraint whose component has a compiled form."""
    for shape in model.shapes.values():
        for constraint in shape.constraints:
            native = natives.get(constraint.component)
            if native is not None and native.compiled is not None:
                yield shape, constraint


def _models() -> dict[str, ShapesModel]:
    return {"packaged": packaged_engine().model,
            "samples": ShapesModel(rdflib.Graph().parse(data=SAMPLES, format="turtle"))}


def _value_sets(graph: TraceGraph) -> list[list]:
    nodes = list(graph.out)
    sets = [[], nodes[:1], nodes[:2], nodes[:3]]
    sets += [list(dict.fromkeys(v for vs in props.values() for v in vs)) for props in graph.out.values()]
    return sets


def _disagreements(model: ShapesModel, graph: TraceGraph,
                   components: ComponentTable = PACKAGED) -> tuple[list[str], set[str]]:
    """(what disagrees, one line each naming the component; the components whose compiled form ran)."""
    natives = components.constraints
    run = _Run(Engine(model, components=components), graph, set())
    values = list(dict.fromkeys([*graph.out, *(v for props in graph.out.values() for vs in props.values()
                                                for v in vs)]))
    sets = _value_sets(graph)
    problems, ran = [], set()
    for shape, constraint in _constraints(model, natives):
        name = constraint.component.removeprefix(SH)
        native = natives[constraint.component]
        # Also as in a run's generated code, where a form may ask the run whether a value
        # conforms to a shape (an sh:or of type-judged members and others).
        for subclass, in_run in ((False, False), (True, False), (False, True)):
            namespace = {"Literal": ox.Literal, "conforms": run.conforms}
            compiled = Compiler(subclass, namespace, in_run=in_run, natives=natives).function(constraint)
            if compiled is None:
                continue
            ran.add(constraint.component)
            if native.value_test is not None:
                test = run.test(constraint)
                wrong = [v for v in values if bool(compiled(graph.types_of, v)) != bool(test(graph, v))]
            else:
                wrong = [vs for vs in sets if bool(compiled(vs)) != (next(iter(native.check(
                    run.context, shape, None, vs, constraint.params)), None) is None)]
            if wrong:
                problems.append(f"{name}: the compiled form and the check disagree on {len(wrong)} of "
                                f"{len(values) if native.value_test else len(sets)} (subclass={subclass}, in_run={in_run}, "
                                f"shape {shape.node}), first {repr(wrong[0])[:160]}")
    run.release()
    return problems, ran


@pytest.mark.parametrize("source", ["packaged", "samples"])
def test_each_compiled_form_agrees_with_its_check(graph, source):
    problems, _ = _disagreements(_models()[source], graph)
    assert not problems, "\n".join(problems)


def test_every_compiled_form_is_run_against_its_check(graph):
    ran = set()
    for model in _models().values():
        ran |= _disagreements(model, graph)[1]
    unchecked = sorted(c.removeprefix(SH) for c, native in COMPONENTS.items()
                       if native.compiled is not None and c not in ran)
    assert not unchecked, f"compiled forms no sample here runs against their checks: {unchecked}"


def test_a_compiled_form_that_drifts_from_its_check_is_named(graph):
    iri = SH + "MinCountConstraintComponent"
    drifted = replace(COMPONENTS[iri], compiled=lambda params, compiler: "len(values) > 0")
    table = ComponentTable(constraints={**COMPONENTS, iri: drifted})
    problems, _ = _disagreements(_models()["samples"], graph, table)
    assert problems and all(p.startswith("MinCountConstraintComponent: ") for p in problems), problems


def test_each_component_reads_the_parameters_its_declaration_names():
    # SHACL Core's, as the shapes reader knows them; the project's, as shapes/components.ttl declares them.
    declared = {SH + local: {SH + p for p in mandatory + optional}
                for local, (mandatory, optional) in CORE_COMPONENTS.items()}
    declared |= {iri: {*c.mandatory, *c.optional} for iri, c in packaged_engine().model.components.items()}
    wrong = [f"{iri}: reads {sorted(native.parameters)}, declared {sorted(declared.get(iri, ()))}"
             for iri, native in COMPONENTS.items() if set(native.parameters) != declared.get(iri)]
    assert not wrong, "\n".join(wrong)


# Each module that writes components, and the table that lists them.
MODULES: dict[ModuleType, ComponentTable] = {
    **{module: core.CORE for module in (cardinality, logical, other, property_pair, shape_based, string_based,
                                        value_range, value_type)},
    trustgraph: trustgraph.TRUSTGRAPH,
}


def test_every_component_written_is_in_its_table():
    # A component written (decorated) but left out of its table would never run natively: the
    # engine would fall back on its SPARQL validator, or refuse the shapes.
    missing = [f"{module.__name__}.{name} ({native.iri})" for module, listed in MODULES.items()
               for name, native in vars(module).items()
               if isinstance(native, Native) and listed.constraints.get(native.iri) is not native]
    assert not missing, "components not in their table: " + ", ".join(missing)
    assert set(PACKAGED.constraints) == set(core.CORE.constraints) | set(trustgraph.TRUSTGRAPH.constraints)


def test_every_component_the_shapes_declare_is_implemented():
    # The packaged engine runs each of the project's components natively, its SPARQL being the reference's.
    declared = set(packaged_engine().model.components)
    assert declared <= set(trustgraph.TRUSTGRAPH.constraints), sorted(declared - set(trustgraph.TRUSTGRAPH.constraints))
    assert set(packaged_engine().model.target_types) <= trustgraph.TRUSTGRAPH.targets()
