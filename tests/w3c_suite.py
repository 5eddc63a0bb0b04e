"""The W3C SHACL test suite (tests/data/w3c-shacl, see its NOTICE.md), read
into plain test cases, and the code that runs an engine on a case and compares
its results with the expected report.

    python tests/w3c_suite.py [reference|fast]   # print pass counts per component

Not a test module: tests/test_w3c_shacl.py parametrizes over ``approved_cases()``
and the docs site lists ``pass_counts(...)``.

How a result is compared follows the suite's own instructions
(data-shapes-test-suite/index.html, "Validate RDF data"), with these choices:

- One result is the key (focus node, result path, value, source shape, source
  constraint component, severity). sh:resultMessage and sh:detail are not
  compared, and neither is sh:sourceConstraint (the fast engine's results do
  not carry it).
- A field the expected result leaves out is not checked for that result
  (None in the expected key). Results match as a multiset.
- A blank-node result path (a complex path) is compared by its structure: the
  expected report writes a fresh ``[ sh:inversePath ex:p ]`` where the shape has
  its own blank node, so the nodes themselves never match, while the suite asks
  for the reports to be isomorphic.
- Every other blank node is compared as itself: when data, shapes and expected
  report are one file they come from one parse (the same rdflib Graph object),
  so ``_:b30507`` in the expected report is the very node of the data graph.
"""

from __future__ import annotations

import sys
from collections import defaultdict
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from urllib.parse import urlparse
from urllib.request import url2pathname

import rdflib
from rdflib import BNode, Graph, Literal, Namespace, URIRef
from rdflib.namespace import RDF, RDFS, XSD

HERE = Path(__file__).resolve().parent
SUITE = HERE / "data" / "w3c-shacl"
ROOT_MANIFEST = SUITE / "manifest.ttl"

SH = Namespace("http://www.w3.org/ns/shacl#")
MF = Namespace("http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#")
SHT = Namespace("http://www.w3.org/ns/shacl-test#")

# The key of one result, in this order.
FIELDS = ("focus", "path", "value", "source_shape", "component", "severity")
_REPORT_PREDICATES = (SH.focusNode, SH.resultPath, SH.value, SH.sourceShape,
                      SH.sourceConstraintComponent, SH.resultSeverity)

# SHACL Core (SHACL 1.0, section 4) and SHACL-SPARQL (section 5.1): each
# constraint component by the parameter whose value makes a shape use it.
# Optional parameters (sh:flags, sh:ignoredProperties,
# sh:qualifiedValueShapesDisjoint) do not select a component on their own.
# The qualified components need sh:qualifiedValueShape as well; there is no
# "QualifiedValueShapeConstraintComponent": the count says which of the two.
CORE_COMPONENTS = {
    SH["class"]: SH.ClassConstraintComponent,
    SH.datatype: SH.DatatypeConstraintComponent,
    SH.nodeKind: SH.NodeKindConstraintComponent,
    SH.minCount: SH.MinCountConstraintComponent,
    SH.maxCount: SH.MaxCountConstraintComponent,
    SH.minExclusive: SH.MinExclusiveConstraintComponent,
    SH.minInclusive: SH.MinInclusiveConstraintComponent,
    SH.maxExclusive: SH.MaxExclusiveConstraintComponent,
    SH.maxInclusive: SH.MaxInclusiveConstraintComponent,
    SH.minLength: SH.MinLengthConstraintComponent,
    SH.maxLength: SH.MaxLengthConstraintComponent,
    SH.pattern: SH.PatternConstraintComponent,
    SH.languageIn: SH.LanguageInConstraintComponent,
    SH.uniqueLang: SH.UniqueLangConstraintComponent,
    SH.equals: SH.EqualsConstraintComponent,
    SH.disjoint: SH.DisjointConstraintComponent,
    SH.lessThan: SH.LessThanConstraintComponent,
    SH.lessThanOrEquals: SH.LessThanOrEqualsConstraintComponent,
    SH["not"]: SH.NotConstraintComponent,
    SH["and"]: SH.AndConstraintComponent,
    SH["or"]: SH.OrConstraintComponent,
    SH.xone: SH.XoneConstraintComponent,
    SH.node: SH.NodeConstraintComponent,
    SH.property: SH.PropertyConstraintComponent,
    SH.qualifiedMinCount: SH.QualifiedMinCountConstraintComponent,
    SH.qualifiedMaxCount: SH.QualifiedMaxCountConstraintComponent,
    SH.closed: SH.ClosedConstraintComponent,
    SH.hasValue: SH.HasValueConstraintComponent,
    SH["in"]: SH.InConstraintComponent,
    SH.sparql: SH.SPARQLConstraintComponent,
}


@dataclass(frozen=True, eq=False)
class Case:
    id: str                     # the entry's IRI relative to the suite: "core/node/class-001"
    label: str
    status: str                 # "approved", "proposed" or "rejected"
    data_graph: Graph
    shapes_graph: Graph         # the same object as data_graph when both name one file
    expected_failure: bool      # mf:result sht:Failure: the processor must report a failure
    expected_conforms: bool | None     # None when a failure is expected
    expected_results: tuple[tuple, ...]  # keys in FIELDS order, None = not checked; a multiset
    components: frozenset[str]  # constraint component IRIs the shapes graph uses
    file: Path                  # the test file holding the entry

    def __repr__(self) -> str:
        return f"Case({self.id})"


# ---------------------------------------------------------------- reading


def _parse(path: Path) -> Graph:
    # The file URI as base, so <> and <class-001> resolve as the manifest means them.
    # Lexical forms as written: SHACL sees RDF terms, and rdflib's normalising would turn
    # "1"^^xsd:boolean into true (uniqueLang-002) and "none"^^xsd:boolean into a
    # well-formed false (or-datatypes-001), changing what the tests test.
    normalize, rdflib.NORMALIZE_LITERALS = rdflib.NORMALIZE_LITERALS, False
    try:
        return Graph().parse(str(path), format="turtle", publicID=path.as_uri())
    finally:
        rdflib.NORMALIZE_LITERALS = normalize


def _file_of(iri: URIRef) -> Path:
    parts = urlparse(iri)
    assert parts.scheme == "file", f"not a local test file: {iri}"
    return Path(url2pathname(parts.path))


def load_cases(manifest: Path = ROOT_MANIFEST) -> list[Case]:
    """Every entry reachable from ``manifest`` through mf:include, in manifest order."""
    cases: list[Case] = []
    _load(manifest.resolve(), cases, seen=set())
    ids = [c.id for c in cases]
    assert len(ids) == len(set(ids)), "two entries with one id"
    return cases


def _load(manifest: Path, cases: list[Case], seen: set) -> None:
    if manifest in seen:
        return
    seen.add(manifest)
    graph = _parse(manifest)
    node = URIRef(manifest.as_uri())
    for entries in graph.objects(node, MF.entries):
        for entry in graph.items(entries):
            cases.append(_case(graph, manifest, entry))
    # Sorted: rdflib gives a subject's objects in no fixed order.
    for included in sorted(graph.objects(node, MF.include)):
        _load(_file_of(included), cases, seen)


def _case(graph: Graph, file: Path, entry: URIRef) -> Case:
    kind = graph.value(entry, RDF.type)
    assert kind == SHT.Validate, f"{entry}: unsupported test type {kind}"
    action = graph.value(entry, MF.action)
    data_file = _file_of(graph.value(action, SHT.dataGraph))
    shapes_file = _file_of(graph.value(action, SHT.shapesGraph))

    # One parse per file: the manifest's own graph when an action names <>,
    # and one Graph for data and shapes when they name the same file, so that
    # blank nodes are shared between data, shapes and expected report.
    parsed = {file: graph}
    for f in (data_file, shapes_file):
        if f not in parsed:
            parsed[f] = _parse(f)
    data, shapes = parsed[data_file], parsed[shapes_file]

    result = graph.value(entry, MF.result)
    if result == SHT.Failure:
        failure, conforms, expected = True, None, ()
    else:
        assert (result, RDF.type, SH.ValidationReport) in graph, f"{entry}: no expected report"
        failure = False
        conforms = graph.value(result, SH.conforms).toPython()
        assert isinstance(conforms, bool)
        expected = tuple(sorted(
            (_expected_key(graph, r) for r in graph.objects(result, SH.result)), key=_sort_key))

    status = graph.value(entry, MF.status)
    return Case(
        id=str(entry)[len(SUITE.resolve().as_uri()) + 1:],
        label=str(graph.value(entry, RDFS.label) or ""),
        status=str(status).rsplit("#", 1)[-1],
        data_graph=data,
        shapes_graph=shapes,
        expected_failure=failure,
        expected_conforms=conforms,
        expected_results=expected,
        components=used_components(shapes),
        file=file,
    )


def _expected_key(graph: Graph, result) -> tuple:
    values = [graph.value(result, p) for p in _REPORT_PREDICATES]
    values[1] = path_key(values[1], (graph,))
    return tuple(None if v is None else _term(v) for v in values)


def used_components(shapes: Graph) -> frozenset[str]:
    """The constraint components whose parameters have values in ``shapes``.

    Parameter declarations (objects of sh:parameter) are left out: their
    sh:datatype or sh:minLength describe a parameter, they are not shapes that
    get validated. Over-counting elsewhere only makes the fast engine skip a
    case it might have run, never run one it cannot.
    """
    declarations = set(shapes.objects(None, SH.parameter))
    used = {str(c) for p, c in CORE_COMPONENTS.items()
            if any(s not in declarations for s in shapes.subjects(p, None))}
    # Custom (SPARQL-based) components: SHACL instances of sh:ConstraintComponent
    # (its subclasses count: sparql/component/validator-001 declares one), used
    # where one node has values for all of the component's mandatory parameters.
    kinds = set(shapes.transitive_subjects(RDFS.subClassOf, SH.ConstraintComponent))
    declared = {c for kind in kinds for c in shapes.subjects(RDF.type, kind)}
    for component in sorted(declared):
        mandatory = [shapes.value(p, SH.path) for p in shapes.objects(component, SH.parameter)
                     if not (shapes.value(p, SH.optional) or Literal(False)).toPython()]
        if not mandatory:
            continue
        nodes = set.intersection(*(set(shapes.subjects(p, None)) for p in mandatory)) - declarations
        if nodes:
            used.add(str(component))
    return frozenset(used)


# ---------------------------------------------------------------- comparing


def _term(term):
    # RDF 1.1: "x" and "x"^^xsd:string are one term; rdflib keeps them apart.
    if isinstance(term, Literal) and term.datatype == XSD.string and not term.language:
        return Literal(str(term))
    return term


def path_key(node, graphs):
    """A result path as a comparable value: IRIs as themselves, a blank-node
    path as its structure, read from the first of ``graphs`` that describes it."""
    if not isinstance(node, BNode):
        return node
    for graph in graphs:
        if (node, None, None) in graph:
            return _structure(graph, node, ())
    return node  # described nowhere: only the node itself is left to compare


def _structure(graph: Graph, node, seen: tuple):
    if not isinstance(node, BNode):
        return node
    assert node not in seen, "cyclic path"
    seen = seen + (node,)
    if (node, RDF.first, None) in graph:     # a sequence path or an sh:alternativePath list
        return ("list",) + tuple(_structure(graph, item, seen) for item in graph.items(node))
    return frozenset((p, _structure(graph, o, seen)) for p, o in graph.predicate_objects(node))


def _sort_key(key: tuple) -> tuple:
    return tuple("" if v is None else str(v) for v in key)


def _fits(expected: tuple, actual: tuple) -> bool:
    return all(e is None or e == a for e, a in zip(expected, actual))


def unmatched(expected: tuple[tuple, ...], actual: list[tuple]) -> tuple[list, list]:
    """Expected and actual results left over by a largest one-to-one matching.

    A plain bipartite matching (augmenting paths): with fields left unchecked
    one expected result may fit several actual ones, so pairing them greedily
    could miss a matching that exists.
    """
    partner: dict[int, int] = {}  # actual index -> expected index

    def augment(i: int, visited: set) -> bool:
        for j, a in enumerate(actual):
            if j not in visited and _fits(expected[i], a):
                visited.add(j)
                if j not in partner or augment(partner[j], visited):
                    partner[j] = i
                    return True
        return False

    for i in range(len(expected)):
        augment(i, set())
    matched = set(partner.values())
    return ([e for i, e in enumerate(expected) if i not in matched],
            [a for j, a in enumerate(actual) if j not in partner])


# ---------------------------------------------------------------- running


class EngineFailure(Exception):
    """The engine reported a failure instead of a validation report."""


def reference_results(case: Case) -> tuple[bool, list[tuple]]:
    """pySHACL's verdict and results on ``case``."""
    import pyshacl
    from pyshacl.errors import ValidationFailure

    # pySHACL adds triples to the shapes graph it is given (owl:Class
    # rdfs:subClassOf rdfs:Class, ...), so it gets a copy; one copy when data
    # and shapes are one graph. The copy keeps the blank nodes' ids.
    data = _copy(case.data_graph)
    shapes = data if case.shapes_graph is case.data_graph else _copy(case.shapes_graph)
    conforms, report, _ = pyshacl.validate(
        data, shacl_graph=shapes, advanced=True, inference="none", allow_warnings=True)
    # pySHACL reports a failure (sht:Failure) by returning the error in place of the report.
    if isinstance(report, ValidationFailure):
        raise EngineFailure(str(report))
    root = report.value(predicate=RDF.type, object=SH.ValidationReport)
    results = []
    # Only the report's own sh:result values: results nested under sh:detail are not compared.
    for r in report.objects(root, SH.result):
        values = [report.value(r, p) for p in _REPORT_PREDICATES]
        values[1] = path_key(values[1], (report, case.shapes_graph))
        results.append(tuple(None if v is None else _term(v) for v in values))
    return bool(conforms), results


def _copy(graph: Graph) -> Graph:
    copy = Graph()
    copy += graph
    return copy


def fast_results(case: Case) -> tuple[bool, list[tuple]]:
    """The fast engine's verdict and results on ``case``. SHACL: a report
    conforms exactly when it has no results, whatever their severity."""
    from tgtrace.ground.graph import TraceGraph, key_from_rdflib
    from tgtrace.shacl.core import CORE
    from tgtrace.shacl.fast import Engine

    try:
        engine = Engine.from_graph(case.shapes_graph, components=CORE)
        graph = TraceGraph()
        for s, p, o in case.data_graph:
            graph.add(key_from_rdflib(s), key_from_rdflib(p), key_from_rdflib(o))
        found = list(engine.validate(graph))
    except Exception as error:  # noqa: BLE001 - the interface has no other way to report a failure
        raise EngineFailure(f"{type(error).__name__}: {error}") from error
    results = []
    for hit in found:
        values = as_reported(hit)
        values[1] = path_key(values[1], (case.shapes_graph,))
        results.append(tuple(None if v is None else _term(v) for v in values))
    return not results, results


def as_reported(hit) -> list:
    """A hit of the fast engine as a validation report states it, in rdflib terms: focus node,
    result path (its node in the shapes graph), value, source shape, component and severity."""
    from tgtrace.ground.graph import to_rdflib
    from tgtrace.shacl.shapes import Path as ShapePath

    shape, path = hit.shape, hit.result_path
    if isinstance(path, ShapePath):
        path = path.node
    elif path is not None:
        path = URIRef(path)
    elif shape.path is not None:
        path = shape.path.node
    value = to_rdflib(hit.value) if hit.value is not None else None
    return [to_rdflib(hit.focus), path, value, shape.node, URIRef(hit.component), URIRef(shape.severity)]


ENGINES = {"reference": reference_results, "fast": fast_results}


def problems(case: Case, engine_name: str) -> list[str]:
    """What ``engine_name`` gets wrong on ``case``; empty when it passes."""
    run = ENGINES[engine_name]
    sizes = len(case.data_graph), len(case.shapes_graph)
    try:
        conforms, actual = run(case)
    except EngineFailure as failure:
        if case.expected_failure:
            return []
        return [f"the engine reported a failure: {failure}"]
    # The graphs are shared by every engine and test: an engine must leave them alone.
    assert (len(case.data_graph), len(case.shapes_graph)) == sizes, f"{engine_name} changed the input graphs"
    if case.expected_failure:
        return [f"expected the engine to report a failure, it gave conforms={conforms} "
                f"with {len(actual)} results"]
    out = []
    if conforms != case.expected_conforms:
        out.append(f"conforms: expected {case.expected_conforms}, got {conforms}")
    missing, extra = unmatched(case.expected_results, actual)
    out += [f"missing: {_show(k)}" for k in missing]
    out += [f"unexpected: {_show(k)}" for k in extra]
    return out


def _show(key: tuple) -> str:
    return "(" + ", ".join(f"{n}={'*' if v is None else _short(v)}" for n, v in zip(FIELDS, key)) + ")"


def _short(value) -> str:
    """A term in Turtle, a path structure (see _structure) in Turtle-like form."""
    if isinstance(value, tuple):       # ("list", item, ...)
        return "( " + " ".join(_short(v) for v in value[1:]) + " )"
    if isinstance(value, frozenset):   # {(predicate, object), ...}
        return "[ " + " ; ".join(f"{_short(p)} {_short(o)}" for p, o in sorted(value, key=str)) + " ]"
    # An engine giving something other than rdflib terms still gets a readable message.
    return value.n3() if hasattr(value, "n3") else repr(value)


# ---------------------------------------------------------------- selections


@cache
def all_cases() -> tuple[Case, ...]:
    return tuple(load_cases())


def approved_cases() -> list[Case]:
    return [c for c in all_cases() if c.status == "approved"]


def fast_cases(implemented: frozenset[str]) -> list[Case]:
    """The approved cases that use only components the fast engine implements."""
    return [c for c in approved_cases() if c.components <= implemented]


def cases_for(engine_name: str) -> list[Case]:
    if engine_name == "reference":
        return approved_cases()
    if engine_name == "fast":
        from tgtrace.shacl.core import CORE
        from tgtrace.shacl.fast import implemented
        return fast_cases(implemented(CORE))
    raise ValueError(f"unknown engine {engine_name!r}")


def pass_counts(engine_name: str) -> dict[str, tuple[int, int]]:
    """Per component IRI: (cases passed, cases run) for ``engine_name``
    ("fast" or "reference") over the cases it applies to. A case counts for
    every component its shapes graph uses."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for case in cases_for(engine_name):
        try:
            passed = not problems(case, engine_name)
        except Exception:  # noqa: BLE001 - an engine error is a failed case here
            passed = False
        for component in case.components:
            counts[component][0] += passed
            counts[component][1] += 1
    return {c: (p, t) for c, (p, t) in sorted(counts.items())}


if __name__ == "__main__":
    name = sys.argv[1] if len(sys.argv) > 1 else "reference"
    for component, (passed, total) in pass_counts(name).items():
        print(f"{passed:3d}/{total:<3d} {component}")
