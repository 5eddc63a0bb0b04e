"""The published shapes as a standard: the bundle, exactly as downloaded, run by a SHACL processor
as its user calls it, gives tg-trace's (rule, focus) pairs.

pySHACL runs the one-file bundle (what the docs site offers at downloads/trustgraph-shapes.ttl)
on every example trace rdflib can read, every rule's fault and a sample of the mutation suite,
with the call the recipe in docs/shacl-engines.md gives. The modules each pass SHACL-for-SHACL
with what they import, the bundle too, and the ontology's declared terms written into the shapes
are in step with the ontology.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlsplit
from urllib.request import url2pathname

import pyoxigraph as ox
import pyshacl
import pytest
import rdflib

import tgtrace
from tgtrace import bundle
from tgtrace.rules import all_rules, families

from conftest import EXAMPLES, example_traces
from test_mutations import SAMPLE

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


# ---------------------------------------------------------------- the published files

def test_declared_terms_are_in_step_with_the_ontology():
    text = (SHAPES / "core.ttl").read_text(encoding="utf-8")
    assert bundle.with_declared_terms(text, bundle.declared_terms_block()) == text, (
        "shapes/core.ttl's declared terms differ from the ontology's: run python -m tgtrace.bundle --update")


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


@pytest.mark.parametrize("module", sorted(SHAPES.glob("*.ttl")), ids=lambda p: p.name)
def test_each_module_with_its_imports_passes_shacl_for_shacl(module):
    graph = rdflib.Graph()
    for path in _imports_closure(module):
        graph.parse(path, format="turtle")
    conforms, _, text = pyshacl.validate(graph, shacl_graph=str(SHACL_SHACL))
    assert conforms, text


def test_bundle_passes_shacl_for_shacl_and_needs_nothing_else(bundle_graph):
    conforms, _, text = pyshacl.validate(bundle_graph, shacl_graph=str(SHACL_SHACL))
    assert conforms, text
    assert not list(bundle_graph.triples((None, rdflib.OWL.imports, None)))
    opt_in = {name for name, family in families().items() if family.opt_in}
    for rule in all_rules().values():
        deactivated = bundle_graph.value(rdflib.URIRef(rule.shape), SH.deactivated)
        assert (deactivated is not None and deactivated.toPython() is True) == (rule.family in opt_in), rule.code
    queries = " ".join(str(o) for p in (SH.select, SH.ask) for o in bundle_graph.objects(None, p))
    calls = re.findall(r"(?:tgl:\w+|<https://trustgraph\.ai/lint#\w+>)\s*\(", queries)
    assert not calls, f"queries call functions of the project's own: {calls}"


# ---------------------------------------------------------------- pySHACL as a user calls it

def _pyshacl_pairs(nquads: bytes, shapes: rdflib.Graph) -> set:
    """The recipe: the trace's named graphs merged into one graph, pySHACL with SHACL-AF on."""
    dataset = rdflib.Dataset()
    dataset.parse(data=nquads, format="nquads")
    data = rdflib.Graph()
    for s, p, o, _ in dataset.quads((None, None, None, None)):
        data.add((s, p, o))
    _, report, _ = pyshacl.validate(data, shacl_graph=shapes, advanced=True)
    pairs = set()
    for result in report.objects(None, SH.result):
        source = report.value(result, SH.sourceConstraint)
        code = shapes.value(source, TGL.code) if source is not None else None
        code = code or shapes.value(report.value(result, SH.sourceShape), TGL.code)
        if code is not None:
            pairs.add((str(code), str(report.value(result, SH.focusNode))))
    return pairs


def _tgtrace_pairs(nquads: bytes) -> set:
    quads = list(ox.parse(nquads, format=ox.RdfFormat.N_QUADS))
    return {(f.rule, f.focus) for f in tgtrace.lint(quads, fail_on="never")}


def _rdflib_reads(nquads: bytes) -> bool:
    # rdflib 7 cannot parse RDF 1.2 triple terms; the docs say what to do for those traces.
    return b"<<(" not in nquads


EXAMPLE_FILES = [p for p in example_traces(".nq") if _rdflib_reads(p.read_bytes())]
FAULTS = [r for r in all_rules().values() if r.fault is not None and r.family not in
          {name for name, family in families().items() if family.opt_in}]
MUTATION_SAMPLE = [m for m in SAMPLE[::3] if _rdflib_reads(ox.serialize(m.quads, format=ox.RdfFormat.N_QUADS))]


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.name)
def test_pyshacl_on_an_example_agrees_with_tgtrace(path, bundle_graph):
    data = path.read_bytes()
    assert _pyshacl_pairs(data, bundle_graph) == _tgtrace_pairs(data)


@pytest.mark.parametrize("rule", FAULTS, ids=lambda r: r.code)
def test_pyshacl_on_a_rule_fault_agrees_with_tgtrace(rule, bundle_graph):
    data = rule.fault.apply(EXAMPLES)
    if not _rdflib_reads(data):
        pytest.skip("the fault's trace holds RDF 1.2 triple terms, which rdflib cannot parse")
    pairs = _tgtrace_pairs(data)
    assert (rule.code, rule.fault.focus) in pairs
    assert _pyshacl_pairs(data, bundle_graph) == pairs


@pytest.mark.parametrize("mutation", MUTATION_SAMPLE, ids=lambda m: m.id)
def test_pyshacl_on_a_mutation_agrees_with_tgtrace(mutation, bundle_graph):
    data = ox.serialize(mutation.quads, format=ox.RdfFormat.N_QUADS)
    assert _pyshacl_pairs(data, bundle_graph) == _tgtrace_pairs(data)


# ---------------------------------------------------------------- pyrudof, an engine of SHACL Core

CORE_LEFT_OUT = set(bundle.beyond_core())


def _pyrudof_pairs(nquads: bytes, downloaded: Path, shapes: rdflib.Graph) -> set:
    """The recipe: the trace as written (RDF 1.2 triple terms and all), the bundle as downloaded."""
    import pyrudof

    rudof = pyrudof.Rudof(pyrudof.RudofConfig())
    rudof.read_data(nquads.decode(), format=pyrudof.RDFFormat.NQuads, reader_mode=pyrudof.ReaderMode.Strict)
    rudof.read_shacl(str(downloaded), reader_mode=pyrudof.ReaderMode.Strict)
    report = rudof.validate_shacl()
    pairs = set()
    for entry in report.violations:
        code = shapes.value(rdflib.URIRef(entry.source_shape), TGL.code)
        if code is not None:
            pairs.add((str(code), entry.focus_node))
    return pairs


def _core_pairs(nquads: bytes) -> set:
    return {(code, focus) for code, focus in _tgtrace_pairs(nquads) if code not in CORE_LEFT_OUT}


def test_the_core_profile_leaves_out_the_rules_beyond_core(downloaded):
    header = downloaded.read_text(encoding="utf-8").split("\n\n", 1)[0]
    assert ", ".join(sorted(CORE_LEFT_OUT)) in header.replace("\n# ", " ")
    assert CORE_LEFT_OUT < set(all_rules())


ALL_FAULTS = [r for r in FAULTS if r.code not in CORE_LEFT_OUT]


@pytest.mark.parametrize("path", example_traces(".nq"), ids=lambda p: p.name)
def test_pyrudof_on_an_example_agrees_with_tgtrace_on_core_rules(path, downloaded, bundle_graph):
    data = path.read_bytes()
    assert _pyrudof_pairs(data, downloaded, bundle_graph) == _core_pairs(data)


@pytest.mark.parametrize("rule", ALL_FAULTS, ids=lambda r: r.code)
def test_pyrudof_on_a_rule_fault_agrees_with_tgtrace_on_core_rules(rule, downloaded, bundle_graph):
    data = rule.fault.apply(EXAMPLES)
    pairs = _core_pairs(data)
    assert (rule.code, rule.fault.focus) in pairs
    assert _pyrudof_pairs(data, downloaded, bundle_graph) == pairs


@pytest.mark.parametrize("mutation", SAMPLE, ids=lambda m: m.id)
def test_pyrudof_on_a_mutation_agrees_with_tgtrace_on_core_rules(mutation, downloaded, bundle_graph):
    data = ox.serialize(mutation.quads, format=ox.RdfFormat.N_QUADS)
    assert _pyrudof_pairs(data, downloaded, bundle_graph) == _core_pairs(data)
