"""Mutation suite: faulty copies of every real example trace, each fault of every kind.

Each mutation names the family that must report it and the node it must name.
The fast engine runs on every mutation; pySHACL on a deterministic sample, and
the two must report the same (rule, focus) pairs.
"""

from __future__ import annotations

from dataclasses import dataclass

import pyoxigraph as ox
import pytest
import tgtrace
from conftest import example_traces

TG = "https://trustgraph.ai/ns/"
PROV = "http://www.w3.org/ns/prov#"
RDF_TYPE = ox.NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")
DERIVED = ox.NamedNode(PROV + "wasDerivedFrom")
MIXINS = {TG + "Answer", TG + "ToolUse", TG + "Reflection", TG + "Error"}
OTHER_PATTERN_REASON = {
    "final-answer": "plan-complete",
    "plan-complete": "subagents-complete",
    "subagents-complete": "final-answer",
}
TYPED_LITERALS = [TG + p for p in ("edgeCount", "chunkCount", "stepNumber", "llmDurationMs", "toolDurationMs",
                                   "inToken", "outToken", "pageNumber", "chunkIndex", "charOffset", "charLength",
                                   "score", "arguments")] + [PROV + "startedAtTime"]
REQUIRED = {
    TG + "Question": [TG + "query", PROV + "startedAtTime"],
    TG + "Analysis": [TG + "action"],
    TG + "EdgeSelection": [TG + "edge"],
    TG + "ChunkSelection": [TG + "document"],
    TG + "PatternDecision": [TG + "pattern"],
    TG + "StepResult": [TG + "planStep"],
    TG + "Finding": [TG + "subagentGoal"],
}
# Types that may never derive from a Question: retargeting them to one is a chain fault.
NOT_FROM_QUESTION = {TG + t for t in ("Exploration", "Focus", "Synthesis", "Observation", "Thought",
                                      "StepResult", "Finding")}


@dataclass
class Mutation:
    example: str
    kind: str
    family: str
    focus: str
    quads: list

    @property
    def id(self) -> str:
        return f"{self.example}:{self.kind}:{self.focus.rsplit(':', 1)[-1][-40:]}"


def _types(quads):
    types: dict = {}
    for q in quads:
        if q.predicate == RDF_TYPE:
            types.setdefault(q.subject, set()).add(q.object.value)
    return types


def _replace(quads, old, new):
    return [new if q == old else q for q in quads] if new is not None else [q for q in quads if q != old]


def mutations_of(path) -> list[Mutation]:
    quads = list(ox.parse(path=str(path), format=ox.RdfFormat.N_QUADS))
    name = path.stem
    types = _types(quads)
    questions = [s for s, t in types.items() if TG + "Question" in t]
    found: list[Mutation] = []

    def add(kind, family, focus, mutated):
        found.append(Mutation(name, kind, family, focus.value, mutated))

    derivations: dict = {}
    for q in quads:
        if q.predicate == DERIVED:
            derivations.setdefault(q.subject, []).append(q)
    for q in quads:
        s, p, o = q.subject, q.predicate, q.object
        if p == RDF_TYPE and o.value in MIXINS:
            add("remove-mixin", "mixin", s, _replace(quads, q, None))
        if p == RDF_TYPE and o.value.startswith(TG) and o.value not in MIXINS:
            typo = ox.Quad(s, p, ox.NamedNode(o.value + "x"), q.graph_name)
            add("misspell-class", "vocabulary", s, _replace(quads, q, typo))
        if p.value.startswith(TG) and p.value != TG + "contains":
            typo = ox.Quad(s, ox.NamedNode(p.value.replace(TG, TG + "x")), o, q.graph_name)
            add("misspell-predicate", "vocabulary", s, _replace(quads, q, typo))
        if p == DERIVED:
            kinds = types.get(s, set())
            if TG + "Question" not in kinds and len(derivations[s]) == 1:
                add("cut-link", "chain", s, _replace(quads, q, None))
            lost = ox.Quad(s, p, ox.NamedNode(o.value + "-lost"), q.graph_name)
            add("dangling-link", "chain", s, _replace(quads, q, lost))
            if kinds & NOT_FROM_QUESTION and questions:
                wrong = ox.Quad(s, p, questions[0], q.graph_name)
                if wrong not in quads:
                    add("retarget-link", "chain", s, _replace(quads, q, wrong))
        if p.value == TG + "terminationReason":
            swapped = ox.Quad(s, p, ox.Literal(OTHER_PATTERN_REASON[o.value]), q.graph_name)
            add("swap-reason", "termination", s, _replace(quads, q, swapped))
            add("unknown-reason", "termination", s, _replace(quads, q, ox.Quad(s, p, ox.Literal("stopped"), q.graph_name)))
            add("duplicate-reason", "termination", s, quads + [ox.Quad(s, p, ox.Literal("error"), q.graph_name)])
        if p.value in TYPED_LITERALS and isinstance(o, ox.Literal):
            add("corrupt-literal", "datatype", s, _replace(quads, q, ox.Quad(s, p, ox.Literal("n/a"), q.graph_name)))
    for node, kinds in types.items():
        for cls in kinds:
            for predicate in REQUIRED.get(cls, ()):
                kept = [q for q in quads if not (q.subject == node and q.predicate.value == predicate)]
                if len(kept) < len(quads):
                    add("drop-required", "structure", node, kept)
    # A loop: the root question derives from the trace's last entity.
    for question in questions:
        if derivations.get(question):
            continue
        leaves = [s for s in derivations if not any(q.object == s for q in quads if q.predicate == DERIVED)]
        if leaves:
            loop = ox.Quad(question, DERIVED, sorted(leaves, key=str)[0], quads[0].graph_name)
            add("loop", "chain", question, quads + [loop])
    return found


MUTATIONS = [m for path in example_traces(".nq") for m in mutations_of(path)]
KINDS = {"remove-mixin", "misspell-class", "misspell-predicate", "cut-link", "dangling-link", "retarget-link",
         "swap-reason", "unknown-reason", "duplicate-reason", "corrupt-literal", "drop-required", "loop"}


def test_every_kind_of_fault_is_exercised():
    assert {m.kind for m in MUTATIONS} == KINDS
    assert len({m.example for m in MUTATIONS}) == len(example_traces(".nq"))


@pytest.mark.parametrize("mutation", MUTATIONS, ids=lambda m: m.id)
def test_fault_is_reported_on_its_node(mutation):
    report = tgtrace.lint(mutation.quads, fail_on="never")
    named = {(f.family, f.focus) for f in report}
    assert (mutation.family, mutation.focus) in named, (
        f"{mutation.kind} on {mutation.focus}: expected a {mutation.family} finding; got {sorted(named)}")


SAMPLE = MUTATIONS[::9]


@pytest.mark.slow
@pytest.mark.parametrize("mutation", SAMPLE, ids=lambda m: m.id)
def test_fast_engine_matches_pyshacl(mutation):
    fast = {(f.rule, f.focus) for f in tgtrace.lint(mutation.quads, engine="fast", fail_on="never")}
    shacl = {(f.rule, f.focus) for f in tgtrace.lint(mutation.quads, engine="shacl", fail_on="never")}
    assert fast == shacl
