"""The shapes' value lists and the fast engine follow the enumerations the ontology records."""

import rdflib
from tgtrace.ground.resources import shapes_paths
from tgtrace.rules.selfcheck import run_checks
from tgtrace.tracemodel.vocabulary import execution_patterns, permitted_reasons, termination_reasons


def test_ontology_enumerations():
    assert termination_reasons() == {"final-answer", "plan-complete", "subagents-complete", "max-iterations", "error"}
    assert execution_patterns() == {"react", "plan-then-execute", "supervisor"}
    assert permitted_reasons()["react"] == {"final-answer", "max-iterations", "error"}


def _shapes_with(old: str, new: str) -> rdflib.Graph:
    graph = rdflib.Graph()
    for path in shapes_paths():
        text = path.read_text()
        graph.parse(data=text.replace(old, new) if old in text else text, format="turtle")
    return graph


def test_check_reports_a_termination_pair_the_ontology_does_not_permit():
    shapes = _shapes_with('"plan-then-execute plan-complete",', '"plan-then-execute plan-complete", "plan-then-execute error",')
    problems = run_checks(shapes=shapes, reasoner=False)
    assert any("PermittedTerminationConstraintComponent" in p and "permitsTerminationReason" in p for p in problems), problems


def test_check_reports_a_reason_list_that_drifted():
    shapes = _shapes_with('"max-iterations" "error" )', '"max-iterations" "error" "timeout" )')
    problems = run_checks(shapes=shapes, reasoner=False)
    assert any("termination-known" in p for p in problems), problems


def test_packaged_shapes_agree():
    assert run_checks(reasoner=False) == []
