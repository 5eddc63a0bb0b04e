"""The behaviour rules on real traces: each fires, in both engines and every form, on the traces of
``examples/behaviours/`` (TrustGraph 2.11.1's builders chained as its services chain them:
``examples/generate.py``'s BEHAVIOURS) that show its behaviour, and on no other example, release
capture or service capture but those that show it too. They are information unless escalated."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pyoxigraph as ox
import pytest
import tgtrace
from conftest import EXAMPLES
from tgtrace.rules import all_rules
from tgtrace.rules.registry import BEHAVIOUR_FAMILY, families
from tgtrace.tracemodel.behaviour import arguments_key

BEHAVIOUR = sorted(code for code, rule in all_rules().items() if rule.family == "behaviour")

# Each behaviour trace and the behaviours it shows.
SHOWN = {
    "react-same-call-three-times": {"B001"},
    "react-same-call-after-error": {"B001"},  # an error, then the same call twice in a row
    "react-tool-always-fails": {"B003"},
    "graph-rag-focus-selects-nothing": {"B002"},
    "graph-rag-exploration-finds-nothing": {"B002"},
    "document-rag-no-chunk": {"B002"},
    "document-rag-no-chunk-unreranked": {"B002"},
    # Ten iterations that cycle through three calls: the limit, and a loop.
    "react-iteration-limit": {"B001", "B004"},
    "legacy-react-iteration-limit": {"B001", "B004"},
    "plan-iteration-limit": {"B004"},
    "supervisor-empty-finding": {"B005"},
    "supervisor-subagent-error": {"B006"},
    # A tool that failed, then another call that answered: no behaviour to report.
    "react-graphrag-tool-fails-before-synthesis": set(),
}
# The other traces that show a behaviour: the orchestrator stopped at its iteration limit.
ALSO_SHOWN = {"orchestrator-react-max-iterations": {"B004"}}


def behaviours(source, engine: str = "fast") -> set[str]:
    report = tgtrace.lint(source, engine=engine, fail_on="never", select=["behaviour"])
    return {f.rule for f in report}


def test_every_behaviour_rule_is_information_and_shown_by_a_real_trace():
    assert BEHAVIOUR == ["B001", "B002", "B003", "B004", "B005", "B006"]
    assert all(str(all_rules()[code].severity) == "info" for code in BEHAVIOUR)
    assert set().union(*SHOWN.values()) == set(BEHAVIOUR)
    assert sorted(p.stem for p in (EXAMPLES / "behaviours").glob("*.nq")) == sorted(SHOWN)


@pytest.mark.parametrize("name", sorted(SHOWN))
def test_behaviour_fires_on_its_real_trace_in_both_engines(name):
    path = EXAMPLES / "behaviours" / f"{name}.nq"
    fast = {(f.rule, f.focus) for f in tgtrace.lint(path, fail_on="never", select=["behaviour"])}
    shacl = {(f.rule, f.focus) for f in tgtrace.lint(path, engine="shacl", fail_on="never", select=["behaviour"])}
    assert fast == shacl
    assert {rule for rule, _ in fast} == SHOWN[name]
    assert behaviours(path.with_suffix(".json")) == SHOWN[name]  # TrustGraph's wire triples


def _others() -> list[Path]:
    found = [p for p in EXAMPLES.glob("*.nq")] + sorted((EXAMPLES / "releases").glob("*/*.nq"))
    found += [p for p in (EXAMPLES / "services").iterdir() if p.suffix in (".nq", ".jsonl")]
    return sorted(found)


@pytest.mark.parametrize("path", _others(), ids=lambda p: str(p.relative_to(EXAMPLES)))
def test_behaviours_are_silent_on_traces_that_do_not_show_them(path):
    assert behaviours(path) == ALSO_SHOWN.get(path.stem, set())


def test_a_behaviour_is_counted_not_listed_and_passes_unless_escalated(tmp_path):
    path = EXAMPLES / "behaviours" / "react-same-call-three-times.nq"

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "tgtrace.cli", "lint", str(path), *args],
                              capture_output=True, text=True, cwd=tmp_path)

    default = run()
    assert default.returncode == 0 and "B001" not in default.stdout and "1 info" in default.stdout
    escalated = run("--select", "B", "--fail-on", "info")
    assert escalated.returncode == 1 and "B001" in escalated.stdout
    (tmp_path / "tg-trace.toml").write_text('[severity]\nB001 = "error"\n')
    configured = run("--config", str(tmp_path / "tg-trace.toml"))
    assert configured.returncode == 1 and "B001 error" in configured.stdout
    ignored = run("--ignore", "behaviour", "--fail-on", "info")
    assert ignored.returncode == 0


def _with_arguments(arguments: dict[str, str]) -> bytes:
    """The three-call loop with some calls' tg:arguments text replaced."""
    store = ox.Store()
    store.load(path=str(EXAMPLES / "behaviours" / "react-same-call-three-times.nq"), format=ox.RdfFormat.N_QUADS)
    predicate = ox.NamedNode("https://trustgraph.ai/ns/arguments")
    for quad in list(store.quads_for_pattern(None, predicate, None, None)):
        step = quad.subject.value.rsplit("/", 1)[-1]
        if step in arguments:
            store.remove(quad)
            store.add(ox.Quad(quad.subject, predicate, ox.Literal(arguments[step]), quad.graph_name))
    return store.dump(format=ox.RdfFormat.N_QUADS)


@pytest.mark.parametrize(("arguments", "loops"), [
    ({}, True),
    # Equal as JSON, written with other spacing: equal in both engines.
    ({"i2": '{"laureate":"Marie Curie","category":"physics"}',
      "i3": '{ "laureate" : "Marie Curie" , "category" : "physics" }'}, True),
    # Another value: another call.
    ({"i3": json.dumps({"laureate": "Marie Curie", "category": "chemistry"})}, False),
    ({"i3": json.dumps({"laureate": "Marie Curie", "category": "physics", "year": 1903})}, False),
], ids=["as-written", "other-spacing", "other-value", "more-arguments"])
def test_equal_arguments_are_equal_json_in_both_engines(arguments, loops):
    data = _with_arguments(arguments)
    for engine in ("fast", "shacl"):
        found = {f.rule for f in tgtrace.lint(io.BytesIO(data), engine=engine, input_format="nquads",
                                              fail_on="never", select=["B001"])}
        assert ("B001" in found) is loops, engine


def test_arguments_compare_as_json_values():
    """The default engine compares JSON values (the SPARQL of the shapes compares text without the
    white space around punctuation, which agrees on the arguments above)."""
    assert arguments_key('{"a": 1, "b": [1, 2]}') == arguments_key('{"b":[1,2],"a":1}')
    assert arguments_key('{"a": "\\u0041"}') == arguments_key('{"a": "A"}')
    assert arguments_key('{"a": 1}') != arguments_key('{"a": 2}')
    assert arguments_key("not json, at all") == arguments_key("not json,at all")


def test_a_loop_finding_names_the_repeated_call_and_a_stopped_loop_its_iterations():
    """B001's note names the tool, its arguments and each call; B004's how many iterations ran."""
    def notes(code: str) -> tuple:
        data = all_rules()[code].faults[0].apply(EXAMPLES)
        found = tgtrace.lint(io.BytesIO(data), input_format="nquads", fail_on="never", select=[code])
        return next(f.notes for f in found.findings if f.rule == code)

    loop, = notes("B001")
    assert loop.startswith('"nobel-registry" called 3 times with the arguments {"laureate": "Marie Curie"')
    assert all(f"/i{n}>" in loop for n in (1, 2, 3))
    assert notes("B004") == ("the loop ran 3 iterations before it stopped",)


def test_the_behaviour_family_counted_apart_is_the_shapes_b_family():
    assert BEHAVIOUR_FAMILY in families()
    assert {r.code[0] for r in all_rules().values() if r.family == BEHAVIOUR_FAMILY} == {"B"}
