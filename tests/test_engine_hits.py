"""Both engines report what they find as one type, ``model.Hit``: the same hits on the same
trace, each naming where in the shapes it comes from."""

from __future__ import annotations

import pytest
from conftest import EXAMPLES
from tgtrace.api import packaged_engine
from tgtrace.ground.model import Hit
from tgtrace.inputs.loaders import from_bytes
from tgtrace.rules import all_rules, model
from tgtrace.shacl import reference as shacl
from tgtrace.shacl.shapes import Shape

# A node shape's rule (a missing type) and a property shape's (a value outside its closed set).
CODES = ("M001", "T001")


@pytest.mark.parametrize("code", CODES)
def test_both_engines_give_the_same_hits_with_their_source(code):
    rule = all_rules()[code]
    assert rule.fault is not None
    graph = from_bytes("faulty.nq", rule.fault.apply(EXAMPLES)).graph()
    engine = packaged_engine()
    declared = engine.prepare(graph)
    fast_hits = list(engine.check(graph, declared))
    reference_hits = shacl.check(graph, model())
    assert all(type(hit) is Hit for hit in fast_hits + reference_hits)
    assert {hit for hit in fast_hits if hit.rule == code} == {hit for hit in reference_hits if hit.rule == code}
    (hit,) = [hit for hit in fast_hits if hit.rule == code and hit.focus == rule.fault.focus]
    assert isinstance(hit.shape, Shape) and str(hit.shape.node) == rule.shape
    assert hit.component in rule.components
    assert hit.path == rule.path
    (reference,) = [r for r in reference_hits if r.rule == code and r.focus == rule.fault.focus]
    assert reference.shape is hit.shape and reference.component == hit.component
