"""The ontology: it parses, is complete, covers what the emitter writes, and
behaves under HermiT as docs/decisions.md records, alone, with PROV-O, and
with every example trace."""

from __future__ import annotations

import os
import re
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pyoxigraph as ox
import pytest
import rdflib
from rdflib.collection import Collection
from rdflib.namespace import OWL, RDF, RDFS, SKOS
from tgtrace.ground.namespaces import PROV, TG
from tgtrace.rules import selfcheck

# Slow: runs the HermiT reasoner on Java (`python -m pytest -m "not slow"` leaves it out; CI runs it).
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
ONTOLOGY = ROOT / "ontology" / "trustgraph.ttl"
PROV_O = ROOT / "tests" / "data" / "prov-o.ttl"
EXAMPLES = sorted((ROOT / "examples").glob("*.nq"))

T = rdflib.Namespace(TG)
P = rdflib.Namespace(PROV)
DCTERMS = rdflib.Namespace("http://purl.org/dc/terms/")
# An open namespace: rdflib's XSD warns when pytest probes its attributes.
XSD = rdflib.Namespace("http://www.w3.org/2001/XMLSchema#")
V23 = (
    "https://raw.githubusercontent.com/trustgraph-ai/trustgraph/"
    "d2751553a3791196f1ba6fcbe691c1258794bc10/specs/ontology/trustgraph.ttl"
)

STARTED = ox.NamedNode(PROV + "startedAtTime")
GENERATED = ox.NamedNode(PROV + "generatedAtTime")
TYPE = ox.NamedNode(str(RDF.type))
DATETIME = ox.NamedNode(str(XSD.dateTime))


@pytest.fixture(scope="module")
def onto() -> rdflib.Graph:
    graph = rdflib.Graph()
    graph.parse(ONTOLOGY, format="turtle")
    return graph


@pytest.fixture(scope="module")
def declared(onto) -> dict[str, str]:
    return selfcheck.declared_terms(onto)


def test_examples_are_present():
    # Every example-driven test below would pass vacuously without them.
    assert len(EXAMPLES) >= 10, "examples/*.nq are missing; run examples/generate.py"


# --- Parsing and header ----------------------------------------------------------


def test_parses_with_rdflib_and_pyoxigraph(onto):
    assert len(onto) > 500
    assert len(list(ox.parse(path=str(ONTOLOGY), format=ox.RdfFormat.TURTLE))) == len(onto)


def test_header_is_complete(onto):
    header = rdflib.URIRef(TG)
    assert (header, RDF.type, OWL.Ontology) in onto
    for predicate in (DCTERMS.title, DCTERMS.description, DCTERMS.license, DCTERMS.creator):
        assert onto.value(header, predicate) is not None, predicate
    assert str(onto.value(header, OWL.versionInfo)) == "3.0.0"
    assert onto.value(header, OWL.versionIRI) == rdflib.URIRef(TG + "3.0.0")
    assert onto.value(header, OWL.priorVersion) == rdflib.URIRef(V23)
    # Loading must never reach for the network.
    assert onto.value(header, OWL.imports) is None


def test_every_term_is_labelled_defined_and_owned(onto, declared):
    assert len(declared) > 90
    for term in declared:
        node = rdflib.URIRef(term)
        assert onto.value(node, RDFS.label) is not None, f"{term} has no label"
        assert onto.value(node, SKOS.definition) is not None, f"{term} has no definition"
        assert (node, RDFS.isDefinedBy, rdflib.URIRef(TG)) in onto, term


def test_declared_terms_reports_each_kind(declared):
    assert declared[TG + "Question"] == "class"
    assert declared[TG + "thought"] == "object property"
    assert declared[TG + "edgeCount"] == "datatype property"
    assert declared[TG + "mixinFor"] == "annotation"
    assert declared[TG + "reactPattern"] == "individual"
    assert declared[TG + "nonNegativeIntegerForm"] == "datatype"
    assert all(term.startswith(TG) for term in declared)


# --- Coverage of what TrustGraph writes --------------------------------------------


def test_every_emitter_constant_is_declared(declared):
    pytest.importorskip("trustgraph.provenance.namespaces")
    constants = selfcheck.emitter_constants()
    assert len(constants) > 60
    missing = {name: iri for name, iri in constants.items() if iri not in declared}
    assert not missing


LEGACY = {"answer": "datatype property", "content": "datatype property",
          "observation": "object property", "reifies": "object property"}


def test_legacy_terms_are_declared_and_deprecated(onto, declared):
    assert selfcheck.deprecated_terms(onto) == {TG + name for name in LEGACY}
    for name, kind in LEGACY.items():
        assert declared[TG + name] == kind
        assert onto.value(T[name], DCTERMS.isReplacedBy) is not None
    # Still written by 2.11.1 with IRIs: declared as that, not deprecated; the
    # literal form of older traces is a history note, not a second declaration.
    for name in ("thought", "selectedChunk"):
        assert declared[TG + name] == "object property"
        assert onto.value(T[name], SKOS.historyNote) is not None


def _example_quads():
    for path in EXAMPLES:
        yield from ox.parse(path=str(path), format=ox.RdfFormat.N_QUADS)


def test_examples_use_only_declared_terms_in_the_declared_way(declared):
    seen: dict[str, set[str]] = {}
    for quad in _example_quads():
        p, o = quad.predicate.value, quad.object
        if p.startswith(TG):
            kind = "literal" if isinstance(o, ox.Literal) else "resource"
            seen.setdefault(p, set()).add(kind)
        if quad.predicate == TYPE and o.value.startswith(TG):
            assert declared.get(o.value) == "class", o.value
    assert seen, "no tg: predicates in the examples"
    for predicate, kinds in seen.items():
        expected = {"literal"} if declared.get(predicate) == "datatype property" else {"resource"}
        assert declared.get(predicate) in ("datatype property", "object property"), predicate
        assert kinds == expected, f"{predicate} is used with {kinds}, declared {declared[predicate]}"


def _xsd_pattern(onto, datatype) -> re.Pattern:
    """The xsd:pattern of the plain-string member of a lexical datatype's union."""
    union = onto.value(onto.value(datatype, OWL.equivalentClass), OWL.unionOf)
    for member in Collection(onto, union):
        restrictions = onto.value(member, OWL.withRestrictions)
        if restrictions is not None:
            assert onto.value(member, OWL.onDatatype) == XSD.string
            (facet,) = Collection(onto, restrictions)
            return re.compile(str(onto.value(facet, XSD.pattern)))
    raise AssertionError(f"{datatype} has no pattern")


def test_example_numbers_match_the_lexical_datatypes(onto):
    forms = {T.nonNegativeIntegerForm: _xsd_pattern(onto, T.nonNegativeIntegerForm),
             T.decimalForm: _xsd_pattern(onto, T.decimalForm)}
    assert forms[T.nonNegativeIntegerForm].pattern == "[0-9]+"
    ranged = {str(p): forms[r] for p, r in onto.subject_objects(RDFS.range) if r in forms}
    checked = 0
    for quad in _example_quads():
        form = ranged.get(quad.predicate.value)
        if form is not None:
            # XSD patterns are anchored: fullmatch, not search.
            assert form.fullmatch(quad.object.value), quad
            assert quad.object.datatype == ox.NamedNode(str(XSD.string)), "emitted as plain strings"
            checked += 1
    assert checked > 50


# --- Modelling choices, as data ------------------------------------------------------


def test_mixins_are_named_and_are_entities(onto):
    mixins = {m: set(onto.objects(m, T.mixinFor)) for m in onto.subjects(T.mixinFor, None)}
    assert mixins == {
        T.Answer: {T.Synthesis, T.Conclusion, T.Finding, T.StepResult},
        T.Reflection: {T.Thought},
        T.ToolUse: {T.Analysis},
        T.Error: {T.Observation},
    }
    for mixin in mixins:
        assert (mixin, RDFS.subClassOf, P.Entity) in onto
    # 2.11.1 writes Observation standalone; the client relies on it not being a Reflection.
    assert (T.Observation, RDFS.subClassOf, T.Reflection) not in onto
    for selection in (T.EdgeSelection, T.ChunkSelection):
        assert onto.value(selection, RDFS.subClassOf) is None


def _notations(onto, cls) -> dict[str | None, rdflib.URIRef]:
    notations = {}
    for individual in onto.subjects(RDF.type, cls):
        notation = onto.value(individual, SKOS.notation)
        notations[None if notation is None else str(notation)] = individual
    return notations


def test_enumerations_are_individuals(onto):
    reasons = _notations(onto, T.TerminationReason)
    patterns = _notations(onto, T.ExecutionPattern)
    assert set(reasons) == {"final-answer", "plan-complete", "subagents-complete", "max-iterations", "error"}
    assert set(patterns) == {"react", "plan-then-execute", "supervisor"}
    permits = {str(onto.value(p, SKOS.notation)): {str(onto.value(r, SKOS.notation))
               for r in onto.objects(p, T.permitsTerminationReason)} for p in patterns.values()}
    assert permits == {"react": {"final-answer", "max-iterations", "error"},
                       "plan-then-execute": {"plan-complete"},
                       "supervisor": {"subagents-complete"}}
    graphs = _notations(onto, T.DatasetGraph)
    # The default graph has no name, so no notation.
    assert graphs == {"urn:graph:retrieval": T.retrievalGraph, "urn:graph:source": T.sourceGraph,
                      None: T.defaultGraph}
    assert onto.value(T.Question, T.storedIn) == T.retrievalGraph
    assert onto.value(T.Subgraph, T.storedIn) == T.sourceGraph
    # The 2.11.1 librarian writes the Document itself to the default graph.
    assert onto.value(T.Document, T.storedIn) == T.defaultGraph


def test_example_enumerated_values_are_known(onto):
    reasons = set(_notations(onto, T.TerminationReason))
    patterns = set(_notations(onto, T.ExecutionPattern))
    seen = {"terminationReason": set(), "pattern": set()}
    for quad in _example_quads():
        for name in seen:
            if quad.predicate.value == TG + name:
                seen[name].add(quad.object.value)
    assert seen["terminationReason"] and seen["terminationReason"] <= reasons
    assert seen["pattern"] and seen["pattern"] <= patterns


# --- HermiT ---------------------------------------------------------------------------
#
# Every reasoner run is independent, so they all run up front in a process
# pool: a JVM start per run dominates, and the runs together would otherwise
# take longer than the rest of the suite.


def _quads(path):
    return list(ox.parse(path=str(path), format=ox.RdfFormat.N_QUADS))


def _typed(quad):
    # HermiT rejects xsd:dateTime with more than millisecond precision (the
    # emitter writes microseconds), so the fraction is cut for this variant.
    value = re.sub(r"(\.\d{3})\d+", r"\1", quad.object.value)
    return ox.Quad(quad.subject, quad.predicate, ox.Literal(value, datatype=DATETIME), quad.graph_name)


def _timestamps(quads, keep_on: str, typed: bool):
    """The quads with prov:startedAtTime kept only on subjects of type ``keep_on``."""
    kind = {"Question": ox.NamedNode(TG + "Question"), "Activity": ox.NamedNode(PROV + "Activity")}.get(keep_on)
    owners = {q.subject for q in quads if q.predicate == TYPE and q.object == kind}
    out = []
    for quad in quads:
        if quad.predicate == STARTED:
            if quad.subject not in owners:
                continue
            quad = _typed(quad) if typed else quad
        out.append(quad)
    return out


def _prov_faithful(quads):
    """What a PROV-O reasoner needs: typed times, and a Question's time as prov:generatedAtTime."""
    questions = {q.subject for q in quads if q.predicate == TYPE and q.object == ox.NamedNode(TG + "Question")}
    out = []
    for quad in quads:
        if quad.predicate == STARTED:
            quad = _typed(quad)
            if quad.subject in questions:
                quad = ox.Quad(quad.subject, GENERATED, quad.object, quad.graph_name)
        out.append(quad)
    return out


def _bad_count():
    q = ox.NamedNode("urn:trustgraph:prov:exploration:00000000-0000-0000-0000-000000000000")
    return [ox.Triple(q, TYPE, ox.NamedNode(TG + "Exploration")),
            ox.Triple(q, ox.NamedNode(TG + "edgeCount"), ox.Literal("many"))]


def _cases() -> dict[str, tuple]:
    onto, prov = selfcheck.owl_ntriples(ONTOLOGY), selfcheck.owl_ntriples(PROV_O)
    traces = {p.stem: _quads(p) for p in EXAMPLES}
    every = lambda **kw: [selfcheck.owl_ntriples(_timestamps(q, **kw)) for q in traces.values()]  # noqa: E731
    cases = {
        "ontology+examples": (onto, *(selfcheck.owl_ntriples(q) for q in traces.values())),
        "ontology+bad-count": (onto, selfcheck.owl_ntriples(_bad_count())),
        "prov+examples-without-timestamps": (onto, prov, *every(keep_on="none", typed=False)),
        "prov+examples-question-timestamps-typed": (onto, prov, *every(keep_on="Question", typed=True)),
        "prov+examples-activity-timestamps-plain": (onto, prov, *every(keep_on="Activity", typed=False)),
        "prov+examples-prov-faithful": (onto, prov, *(selfcheck.owl_ntriples(_prov_faithful(q)) for q in traces.values())),
    }
    for name, quads in traces.items():
        cases[f"prov+{name}"] = (onto, prov, selfcheck.owl_ntriples(quads))
    return cases


def _run(sources):
    return selfcheck.hermit(*sources)


@pytest.fixture(scope="module")
def hermit():
    cases = _cases()
    workers = max(1, min(len(cases), os.cpu_count() or 1))
    with ProcessPoolExecutor(max_workers=workers) as pool:
        results = dict(zip(cases, pool.map(_run, cases.values())))
    return results


def test_ontology_alone_and_with_prov_o_is_consistent_with_no_empty_class():
    # run_checks runs HermiT on the ontology, then on the ontology with PROV-O,
    # and reports inconsistency and unsatisfiable classes.
    assert selfcheck.run_checks(ONTOLOGY, prov_o=PROV_O) == []


def test_examples_are_consistent_with_the_ontology(hermit):
    # One run over all examples together: consistency of the union implies
    # that of each example.
    assert hermit["ontology+examples"].consistent


def test_a_malformed_number_is_inconsistent(hermit):
    assert not hermit["ontology+bad-count"].consistent


@pytest.mark.parametrize("name", [p.stem for p in EXAMPLES])
def test_each_example_is_inconsistent_with_prov_o(hermit, name):
    # Documented outcome: every 2.11.1 trace carries prov:startedAtTime, which
    # contradicts PROV-O; the tests below pin down exactly how.
    assert not hermit[f"prov+{name}"].consistent


def test_prov_o_conflict_is_prov_started_at_time_alone(hermit):
    assert hermit["prov+examples-without-timestamps"].consistent


def test_prov_o_conflict_one_question_typed_entity_with_a_start_time(hermit):
    # Even with a well-typed xsd:dateTime, a Question (prov:Entity) with
    # prov:startedAtTime (domain prov:Activity, disjoint) is inconsistent.
    assert not hermit["prov+examples-question-timestamps-typed"].consistent


def test_prov_o_conflict_two_plain_string_timestamps(hermit):
    # On extraction activities the domain is right; the plain-string value
    # is not an xsd:dateTime, the range PROV-O gives.
    assert not hermit["prov+examples-activity-timestamps-plain"].consistent


def test_prov_o_faithful_rewrite_is_consistent(hermit):
    # The remedy docs/decisions.md gives consumers that reason with PROV-O:
    # type the times, and give a Question prov:generatedAtTime instead.
    assert hermit["prov+examples-prov-faithful"].consistent


# --- selfcheck reports problems --------------------------------------------------------


def _broken_copy(tmp_path, old: str, new: str) -> Path:
    text = ONTOLOGY.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path = tmp_path / "trustgraph.ttl"
    path.write_text(text.replace(old, new), encoding="utf-8")
    return path


def test_selfcheck_reports_a_missing_label(tmp_path):
    path = _broken_copy(tmp_path, '    rdfs:label "Focus"@en ;\n', "")
    assert selfcheck.run_checks(path, reasoner=False) == ["trustgraph.ttl: tg:Focus has no rdfs:label"]


def test_selfcheck_reports_an_undeclared_term(tmp_path):
    path = _broken_copy(tmp_path, "tg:score\n    a owl:DatatypeProperty, owl:FunctionalProperty ;", "tg:score")
    problems = selfcheck.run_checks(path, reasoner=False)
    assert "trustgraph.ttl: tg:score is used but not declared" in problems
    if TG + "score" in selfcheck.shape_terms(_packaged_shapes()):
        assert any(p.startswith("shapes: tg:score (") for p in problems), problems
    if selfcheck.emitter_constants() is not None:
        assert "trustgraph.ttl: tg:score (trustgraph.provenance TG_SCORE) is not declared" in problems


def _packaged_shapes():
    from tgtrace.ground import resources

    return resources.shapes_graph()


def test_selfcheck_reports_an_unparseable_ontology(tmp_path):
    path = _broken_copy(tmp_path, "tg:Focus\n    a owl:Class ;", "tg:Focus\n    a owl:Class ) ;")
    (problem,) = selfcheck.run_checks(path)
    assert problem.startswith("trustgraph.ttl: does not parse")


def test_selfcheck_reports_an_unsatisfiable_class(tmp_path):
    path = _broken_copy(
        tmp_path,
        "    rdfs:subClassOf tg:Answer ;\n    rdfs:label \"Conclusion\"@en ;",
        "    rdfs:subClassOf tg:Answer, tg:Question ;\n    rdfs:label \"Conclusion\"@en ;",
    )
    problems = selfcheck.run_checks(path, shapes=rdflib.Graph())
    assert "trustgraph.ttl: tg:Conclusion is unsatisfiable under HermiT" in problems


def test_selfcheck_names_missing_java(monkeypatch):
    import owlready2

    monkeypatch.setattr(owlready2, "JAVA_EXE", "/nonexistent/java")
    problems = selfcheck.run_checks(ONTOLOGY, shapes=rdflib.Graph())
    assert len(problems) == 1 and "HermiT consistency not checked: no Java runtime" in problems[0]


SHAPES = """
@prefix sh: <http://www.w3.org/ns/shacl#> .
@prefix tg: <https://trustgraph.ai/ns/> .
@prefix ex: <https://example.org/shapes#> .
ex:S a sh:NodeShape ; sh:targetClass tg:Question ;
    sh:property [ sh:path ( tg:query tg:notATerm ) ] ;
    sh:sparql [ sh:select "SELECT $this WHERE { $this tg:alsoNotATerm ?x ; <https://trustgraph.ai/ns/norThis> ?y ; tg:query ?q }" ] .
"""


def test_selfcheck_reports_shape_terms_the_ontology_lacks():
    shapes = rdflib.Graph().parse(data=SHAPES, format="turtle")
    problems = selfcheck.run_checks(ONTOLOGY, shapes=shapes, reasoner=False)
    assert problems == [
        "shapes: tg:alsoNotATerm (sh:select query of ex:S) is not declared in trustgraph.ttl",
        "shapes: tg:norThis (sh:select query of ex:S) is not declared in trustgraph.ttl",
        "shapes: tg:notATerm (sh:path in ex:S) is not declared in trustgraph.ttl",
    ]


def test_selfcheck_accepts_empty_shapes_and_the_packaged_ones():
    assert selfcheck.run_checks(ONTOLOGY, shapes=rdflib.Graph(), reasoner=False) == []
    assert selfcheck.run_checks(reasoner=False) == []


def test_prov_o_is_the_unmodified_w3c_file():
    import hashlib

    digest = hashlib.sha256(PROV_O.read_bytes()).hexdigest()
    assert digest in (ROOT / "tests" / "data" / "PROV-O-NOTICE.md").read_text(encoding="utf-8")
