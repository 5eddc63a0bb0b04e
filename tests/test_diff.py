"""`tg-trace diff`: what changed between two inputs' traces, with traces from the real emitter.

"The same query run twice" is the real builders (examples/generate.py, TrustGraph 2.11.1's
provenance) run twice with other ids, timestamps, token counts and texts. An emitter change is
a builder of ``trustgraph.provenance`` wrapped the way a refactor would change it (a predicate
no longer written, a step no longer emitted, a mixin added, a derivation moved, a literal typed),
and the diff must name the entity by its place and say what changed.
"""

from __future__ import annotations

import dataclasses
import importlib
import io
import json
import os
import random
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pyoxigraph as ox
import pytest
from chain_mutations import mutants
from conftest import EXAMPLES, ROOT
from tgtrace.formats import DIFF_FORMATS, rdf
from tgtrace.formats.diff import render, snapshot
from tgtrace.inputs.loaders import InputError
from tgtrace.views.diff import compare, compare_inputs, read, snapshot_quads

TG = "https://trustgraph.ai/ns/"
XSD = "http://www.w3.org/2001/XMLSchema#"
RELEASES = EXAMPLES / "releases"
NEEDS_EMITTER = "the real emitter: pip install --no-deps trustgraph-base==2.11.1"


@pytest.fixture(scope="module")
def generate():
    pytest.importorskip("trustgraph.provenance", reason=NEEDS_EMITTER, exc_type=ImportError)
    sys.path.insert(0, str(ROOT))
    try:
        return importlib.import_module("examples.generate")
    finally:
        sys.path.remove(str(ROOT))


def tg_trace(*args, cwd=None, stdin=None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("GITHUB_STEP_SUMMARY", "GITHUB_ACTIONS", "NO_COLOR")}
    return subprocess.run([sys.executable, "-m", "tgtrace.cli", *args], capture_output=True, text=True, timeout=120,
                          cwd=cwd, input=stdin, env=env)


def write(path: Path, triples, generate) -> Path:
    path.write_bytes(generate.to_nquads(triples))
    return path


def _other_steps(steps):
    """The same tool calls as the first run, with other thoughts, observations, timings and tokens."""
    return [dataclasses.replace(s, thought=f"Rephrased: {s.thought}", observation=f"{s.observation} (again)",
                                llm_duration_ms=s.llm_duration_ms + 311, tool_duration_ms=s.tool_duration_ms * 2,
                                in_token=s.in_token + 57, out_token=s.out_token - 9) for s in steps]


def _runs(generate, run: int) -> dict:
    """Each pattern's trace as one run of the services writes it: run 2 has its own ids, starts an
    hour and a day later, and (where the builders take them) other texts, timings and token counts."""
    start = generate.START + timedelta(days=run - 1, hours=run - 1)
    seed = f"run-{run}"
    steps = generate.REACT_STEPS if run == 1 else _other_steps(generate.REACT_STEPS)
    answer = None if run == 1 else "The prizes came eight years apart (1903, 1911)."
    extra = {} if answer is None else {"answer": answer}
    return {
        "graph-rag": generate.build_graphrag(seed=f"{seed}/graph-rag", start=start),
        "document-rag": generate.build_docrag(seed=f"{seed}/document-rag", start=start),
        "document-rag-reranked": generate.build_docrag(seed=f"{seed}/reranked", reranker=True, start=start),
        "orchestrator-react": generate.build_orchestrator_react(seed=f"{seed}/react", steps=steps, start=start,
                                                                **extra),
        "orchestrator-react-graphrag-tool": generate.build_orchestrator_react(
            seed=f"{seed}/react-tool", steps=[dataclasses.replace(generate._GRAPH_RAG_TOOL_STEP,
                                                                  in_token=900 + run)], start=start),
        "legacy-react": generate.build_legacy_react(seed=f"{seed}/legacy", steps=steps, start=start, **extra),
        "plan-then-execute": generate.build_plan_then_execute(seed=f"{seed}/plan", start=start, **extra),
        "supervisor": generate.build_supervisor(seed=f"{seed}/supervisor", start=start, **extra),
        "extraction": generate.build_extraction(seed=f"{seed}/extraction", start=start),
    }


@pytest.fixture(scope="module")
def two_runs(generate, tmp_path_factory):
    folder = tmp_path_factory.mktemp("runs")
    files = {}
    for run in (1, 2):
        for name, triples in _runs(generate, run).items():
            files[(name, run)] = write(folder / f"{name}-{run}.nq", triples, generate)
    return files


# ---------------------------------------------------------------------------
# The same query run twice: no structural difference.
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["graph-rag", "document-rag", "document-rag-reranked", "orchestrator-react",
                                  "orchestrator-react-graphrag-tool", "legacy-react", "plan-then-execute",
                                  "supervisor", "extraction"])
def test_the_same_query_run_twice_has_no_structural_difference(two_runs, name):
    first, second = two_runs[(name, 1)], two_runs[(name, 2)]
    # The runs share no IRI, timestamp or text of their own: only the structure is alike.
    assert first.read_bytes() != second.read_bytes()
    result = tg_trace("diff", str(first), str(second))
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stderr == ""
    assert result.stdout.rstrip().endswith("no structural difference (1 trace)"), result.stdout


def test_two_captures_of_the_same_queries_compare_as_sets(two_runs, tmp_path):
    # Every pattern's run 1 in one capture; run 2 in another, in a different order: paired by
    # pattern and question, whatever the order, and counted.
    names = sorted({name for name, _ in two_runs})
    first = tmp_path / "capture-1.nq"
    first.write_bytes(b"".join(two_runs[(n, 1)].read_bytes() for n in names))
    shuffled = names[:]
    random.Random(7).shuffle(shuffled)
    second = tmp_path / "capture-2.nq"
    second.write_bytes(b"".join(two_runs[(n, 2)].read_bytes() for n in shuffled))
    result = tg_trace("diff", str(first), str(second))
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.rstrip().endswith(f"no structural difference ({len(names)} traces)"), result.stdout


# ---------------------------------------------------------------------------
# Emitter changes, each named by place and what changed.
# ---------------------------------------------------------------------------

def _rewrap(monkeypatch, generate, builder: str, change):
    """Make ``trustgraph.provenance.<builder>`` (as the services call it) return ``change(triples,
    args, kwargs)``: an emitter change at the builder's boundary."""
    original = getattr(generate.prov, builder)

    def changed(*args, **kwargs):
        return change(original, args, kwargs)

    monkeypatch.setattr(generate.prov, builder, changed)


def _diff(before: list, after: list, tmp_path: Path, generate, *args: str) -> subprocess.CompletedProcess:
    old = write(tmp_path / "old.nq", before, generate)
    new = write(tmp_path / "new.nq", after, generate)
    return tg_trace("diff", str(old), str(new), *args)


def _changes(result: subprocess.CompletedProcess) -> list[dict]:
    """The entity changes of the one group of a JSON diff."""
    document = json.loads(result.stdout)
    (group,) = document["groups"]
    assert group["traces"] == 1 and document["only_old"] == document["only_new"] == []
    return group["changes"]


def test_an_optional_predicate_dropped_from_one_step(generate, monkeypatch, tmp_path):
    before = generate.build_graphrag(seed="before")
    # The refactor: the Grounding no longer records the model (tg:llmModel); the Synthesis still does.
    _rewrap(monkeypatch, generate, "grounding_triples",
            lambda original, args, kwargs: original(*args, **{**kwargs, "model": None}))
    after = generate.build_graphrag(seed="after")
    result = _diff(before, after, tmp_path, generate)
    assert result.returncode == 1, result.stderr
    assert "  ~ Grounding\n      - tg:llmModel: literal xsd:string\n\n" in result.stdout, result.stdout
    assert _changes(_diff(before, after, tmp_path, generate, "--format", "json")) == [{
        "place": "Grounding", "path": ["Grounding"], "status": "changed",
        "changes": [{"aspect": "predicate", "change": "removed", "term": TG + "llmModel",
                     "old": [{"kind": "literal", "datatype": XSD + "string"}], "new": []}]}]


def test_a_step_dropped(generate, monkeypatch, tmp_path):
    before = generate.build_graphrag(seed="before")
    # The refactor: no Grounding step any more; the Exploration derives from the Question (as up to 2.1.16).
    _rewrap(monkeypatch, generate, "grounding_triples", lambda original, args, kwargs: [])
    _rewrap(monkeypatch, generate, "exploration_triples", lambda original, args, kwargs: original(
        args[0], args[1].replace(":prov:grounding:", ":question:"), *args[2:], **kwargs))
    after = generate.build_graphrag(seed="after")
    result = _diff(before, after, tmp_path, generate)
    assert result.returncode == 1, result.stderr
    assert "  - Grounding (prov:Entity, tg:Grounding)\n" in result.stdout, result.stdout
    assert "  ~ Exploration\n      ~ prov:wasDerivedFrom: Grounding → Question\n" in result.stdout, result.stdout
    changes = _changes(_diff(before, after, tmp_path, generate, "--format", "json"))
    assert [(c["place"], c["status"]) for c in changes] == [("Grounding", "removed"), ("Exploration", "changed")]
    assert changes[0]["entity"]["predicates"][TG + "concept"] == [{"kind": "literal", "datatype": XSD + "string"}]
    assert changes[1]["changes"] == [{"aspect": "predicate", "change": "changed", "term": _PROV + "wasDerivedFrom",
                                      "old": [{"kind": "link", "place": "Grounding"}],
                                      "new": [{"kind": "link", "place": "Question"}]}]


_PROV = "http://www.w3.org/ns/prov#"


def test_a_mixin_added(generate, monkeypatch, tmp_path):
    steps = generate.REACT_STEPS[:2]
    before = generate.build_orchestrator_react(seed="before", steps=steps)

    def reflective(original, args, kwargs):
        triples = original(*args, **kwargs)
        typed = next(t for t in triples if t.p.iri.endswith("#type"))
        return [*triples, dataclasses.replace(typed, o=generate.Term(type=generate.IRI, iri=TG + "Reflection"))]

    # The refactor: Observations typed tg:Reflection again, as before 2.2.13.
    _rewrap(monkeypatch, generate, "agent_observation_triples", reflective)
    after = generate.build_orchestrator_react(seed="after", steps=steps)
    result = _diff(before, after, tmp_path, generate)
    assert result.returncode == 1, result.stderr
    for n in (1, 2):
        assert f"  ~ Observation {n}\n      + mixin tg:Reflection\n" in result.stdout, result.stdout
    changes = _changes(_diff(before, after, tmp_path, generate, "--format", "json"))
    assert [(c["place"], c["changes"]) for c in changes] == [
        (f"Observation {n}", [{"aspect": "mixin", "change": "added", "term": TG + "Reflection"}]) for n in (1, 2)]


def test_a_derivation_moved(generate, monkeypatch, tmp_path):
    before = generate.build_graphrag(seed="before")
    # The refactor: the Synthesis derives from the Exploration, skipping the Focus.
    _rewrap(monkeypatch, generate, "synthesis_triples", lambda original, args, kwargs: original(
        args[0], args[1].replace(":prov:focus:", ":prov:exploration:"), *args[2:], **kwargs))
    after = generate.build_graphrag(seed="after")
    result = _diff(before, after, tmp_path, generate)
    assert result.returncode == 1, result.stderr
    assert "  ~ Synthesis\n      ~ prov:wasDerivedFrom: Focus → Exploration\n\n" in result.stdout, result.stdout
    changes = _changes(_diff(before, after, tmp_path, generate, "--format", "json"))
    assert [(c["place"], len(c["changes"])) for c in changes] == [("Synthesis", 1)]


def test_a_literal_datatype_changed(generate, monkeypatch, tmp_path):
    before = generate.build_graphrag(seed="before")

    def typed_tokens(original, args, kwargs):
        return [dataclasses.replace(t, o=dataclasses.replace(t.o, datatype=XSD + "integer"))
                if t.p.iri == TG + "inToken" else t for t in original(*args, **kwargs)]

    # The refactor: the Grounding's token count written as xsd:integer.
    _rewrap(monkeypatch, generate, "grounding_triples", typed_tokens)
    after = generate.build_graphrag(seed="after")
    result = _diff(before, after, tmp_path, generate)
    assert result.returncode == 1, result.stderr
    assert "  ~ Grounding\n      ~ tg:inToken: literal xsd:string → literal xsd:integer\n\n" in result.stdout
    changes = _changes(_diff(before, after, tmp_path, generate, "--format", "json"))
    assert changes[0]["changes"][0]["new"] == [{"kind": "literal", "datatype": XSD + "integer"}]


def test_contract_values_are_compared_as_values(generate, tmp_path):
    # A termination reason is part of the contract; a thought's text is not.
    before = generate.build_orchestrator_react(seed="before", steps=[])
    after = [dataclasses.replace(t, o=dataclasses.replace(t.o, value="max-iterations"))
             if t.p.iri == TG + "terminationReason" else t
             for t in generate.build_orchestrator_react(seed="after", steps=[], answer="Another text.")]
    result = _diff(before, after, tmp_path, generate)
    assert result.returncode == 1
    assert '  ~ Conclusion\n      ~ tg:terminationReason: "final-answer" → "max-iterations"\n' in result.stdout


def test_a_capture_counts_traces_that_changed_alike(generate, monkeypatch, tmp_path):
    questions = ("Who discovered radium?", "When was polonium named?", "Where was Marie Curie born?")
    before = [t for i, q in enumerate(questions) for t in generate.build_graphrag(seed=f"a{i}", query=q)]
    before += generate.build_orchestrator_react(seed="agent")
    _rewrap(monkeypatch, generate, "focus_triples", lambda original, args, kwargs: [
        t for t in original(*args, **kwargs) if t.p.iri != TG + "score"])
    after = generate.build_orchestrator_react(seed="agent-again")
    after += [t for i, q in reversed(list(enumerate(questions))) for t in generate.build_graphrag(seed=f"b{i}", query=q)]
    result = _diff(before, after, tmp_path, generate)
    assert result.returncode == 1, result.stderr
    assert ("3 GraphRAG traces\n  ~ Focus › selectedEdge\n      - tg:score: literal xsd:string\n"
            in result.stdout), result.stdout
    assert "ReAct trace" in result.stdout and "no structural difference" in result.stdout
    assert result.stdout.rstrip().endswith("3 of 4 paired traces changed")
    document = json.loads(_diff(before, after, tmp_path, generate, "--format", "json").stdout)
    assert document["summary"] == {"paired": 4, "changed": 3, "unchanged": 1, "only_old": 0, "only_new": 0}
    (changed,) = [g for g in document["groups"] if g["differs"]]
    # Paired by question: the new capture lists them in the other order.
    assert [(p["old"]["question"], p["new"]["question"]) for p in changed["pairs"]] == [(q, q) for q in questions]


def test_traces_only_one_side_holds(generate, tmp_path):
    before = generate.build_graphrag(seed="g") + generate.build_docrag(seed="d")
    after = generate.build_graphrag(seed="g2") + generate.build_supervisor(seed="s")
    result = _diff(before, after, tmp_path, generate)
    assert result.returncode == 1
    assert "- 1 Document RAG trace only in the old input" in result.stdout
    assert "+ 1 supervisor trace only in the new input" in result.stdout
    assert result.stdout.rstrip().endswith(
        "0 of 1 paired trace changed; 1 only in the old input, 1 only in the new (3 traces in all)")


def test_one_trace_each_is_compared_whatever_its_pattern_became(generate, tmp_path):
    # One trace on each side is the same trace, whatever its pattern became: compared entity by entity.
    before = generate.build_orchestrator_react(seed="r", steps=[])
    after = generate.build_plan_then_execute(seed="p", n_steps=1)
    result = _diff(before, after, tmp_path, generate)
    assert result.returncode == 1
    assert "  ~ pattern: ReAct → plan-then-execute\n" in result.stdout
    assert "  - Conclusion (prov:Entity, tg:Conclusion, tg:Answer)" in result.stdout and "  + Plan (" in result.stdout


# ---------------------------------------------------------------------------
# Between releases.
# ---------------------------------------------------------------------------

def test_graphrag_from_2_6_8_to_2_11_1_is_unchanged():
    # 2.6.8's focus_triples already types tg:EdgeSelection with tg:score and tg:concept (read from
    # trustgraph-base 2.6.8's provenance/triples.py; generation 4 starts at 2.6.4): nothing changed.
    result = tg_trace("diff", str(RELEASES / "2.6.8" / "graph-rag.nq"), str(RELEASES / "2.11.1" / "graph-rag.nq"))
    assert result.returncode == 0, result.stdout
    assert result.stdout.rstrip().endswith("no structural difference (1 trace)")


def test_graphrag_from_2_2_13_to_2_11_1_names_the_typed_edge_selections():
    result = tg_trace("diff", str(RELEASES / "2.2.13" / "graph-rag.nq"), str(RELEASES / "2.11.1" / "graph-rag.nq"))
    assert result.returncode == 1
    block = result.stdout.split("\n  ~ Focus › selectedEdge\n", 1)[1].split("\n  ~ Synthesis\n", 1)[0] + "\n"
    for line in ("+ type tg:EdgeSelection", "+ tg:score: literal xsd:string", "+ tg:concept: literal xsd:string",
                 "- tg:reasoning: literal xsd:string"):
        assert f"      {line}\n" in block, result.stdout


def test_releases_in_markdown_for_a_pull_request():
    result = tg_trace("diff", "--format", "markdown", str(RELEASES / "2.2.13" / "graph-rag.nq"),
                      str(RELEASES / "2.6.8" / "graph-rag.nq"))
    assert result.returncode == 1
    text = result.stdout
    assert text.startswith("### :warning: tg-trace diff: 1 of 1 paired trace changed\n")
    assert "- **changed** `Focus › selectedEdge`\n  - added type `tg:EdgeSelection`\n" in text
    assert "  - added `tg:score`: `literal xsd:string`\n" in text


# ---------------------------------------------------------------------------
# Any input tg-trace reads; exit statuses.
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["graph-rag", "orchestrator-react-graphrag-tool", "supervisor"])
def test_every_form_of_one_capture_has_the_same_structure(name):
    # The services' explain stream, its wire JSON and its N-Quads hold the same triples.
    services = EXAMPLES / "services"
    for other in (f"{name}.json", f"{name}.nq"):
        result = tg_trace("diff", str(services / f"{name}.jsonl"), str(services / other))
        assert result.returncode == 0, result.stdout + result.stderr


def test_standard_input_and_an_output_file(tmp_path):
    example = EXAMPLES / "graph-rag.nq"
    out = tmp_path / "diff.md"
    result = tg_trace("diff", "--format", "markdown", "-o", str(out), "-", str(example), stdin=example.read_text())
    assert result.returncode == 0 and result.stdout == "", result.stderr
    assert out.read_text().startswith("### :white_check_mark: tg-trace diff: no structural difference (1 trace)")
    # An output file that is an input is refused, the input left as it was.
    before = example.read_bytes()
    refused = tg_trace("diff", "-o", str(example), str(example), str(example))
    assert refused.returncode == 2 and "names an input file" in refused.stderr
    assert example.read_bytes() == before


@pytest.mark.parametrize("case, expected", [
    (("missing.nq", "graph-rag.nq"), "missing.nq: no such file or directory"),
    (("broken.nq", "graph-rag.nq"), "broken.nq:1: "),
    (("no-trace.nq", "graph-rag.nq"), "no-trace.nq: holds no TrustGraph trace"),
    (("graph-rag.nq", "-", "--format", "yaml"), "diff: Invalid value for '--format'"),
    (("graph-rag.nq",), "diff: Missing argument 'NEW'"),
    (("-", "-"), "standard input can be only one of the two inputs"),
])
def test_unreadable_input_and_bad_usage_exit_2_with_one_line(tmp_path, case, expected):
    (tmp_path / "graph-rag.nq").write_bytes((EXAMPLES / "graph-rag.nq").read_bytes())
    (tmp_path / "broken.nq").write_text("<urn:a> <urn:b> .\n")
    (tmp_path / "no-trace.nq").write_text("<urn:a> <urn:b> <urn:c> .\n")
    result = tg_trace("diff", *case, cwd=tmp_path, stdin="")
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert line.startswith("tg-trace: ") and expected in line and "Traceback" not in line, line


# ---------------------------------------------------------------------------
# Never a silent pass, never a false difference.
# ---------------------------------------------------------------------------

def _example_files() -> list[Path]:
    files = sorted(EXAMPLES.glob("*.nq")) + sorted(RELEASES.glob("*/*.nq")) + sorted((EXAMPLES / "services").glob("*.nq"))
    assert files
    return [f for f in files if f != RELEASES / "2.1.16" / "extraction.nq"]  # its entities are typed prov:Entity alone


@pytest.mark.parametrize("path", _example_files(), ids=lambda p: str(p.relative_to(EXAMPLES)))
def test_a_snapshot_has_the_structure_of_what_it_was_taken_of(path):
    traces = read(path)
    taken = io.BytesIO(snapshot(traces))
    taken.name = "snapshot.trig"
    assert compare(traces, read(taken)).same
    # Written twice, the same bytes: a snapshot rewritten without a change leaves no diff to review.
    assert snapshot(read(io.BytesIO(rdf.serialize(snapshot_quads(traces), "trig")))) == snapshot(traces)


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.nq")), ids=lambda p: p.name)
def test_every_chain_mutation_of_every_example_is_a_difference(path):
    original = read(path)
    found = mutants(path)
    assert found
    silent = [str(m) for m in found if compare(original, read(list(m.quads))).same]
    assert not silent, "\n".join(silent[:20])


def test_the_2_1_16_extraction_holds_no_trace_diff_can_match():
    with pytest.raises(InputError, match="holds no TrustGraph trace"):
        compare_inputs(RELEASES / "2.1.16" / "extraction.nq", EXAMPLES / "extraction.nq")


@pytest.mark.parametrize("fmt", list(DIFF_FORMATS))
def test_every_diff_format_is_offered_and_written(fmt):
    # The command's --format choices and their help are the registry's.
    chosen = DIFF_FORMATS[fmt]
    assert chosen.help in " ".join(tg_trace("diff", "--help").stdout.split())
    result = tg_trace("diff", "--format", fmt, str(RELEASES / "2.2.13" / "graph-rag.nq"), str(EXAMPLES / "graph-rag.nq"))
    assert result.returncode == 1 and result.stderr == ""
    if chosen.syntax == "json":
        assert json.loads(result.stdout)["same"] is False
    else:
        assert "tg:EdgeSelection" in result.stdout


def test_render_refuses_an_unknown_format():
    with pytest.raises(ValueError, match="unknown format 'yaml'"):
        render(compare(read(EXAMPLES / "graph-rag.nq"), read(EXAMPLES / "graph-rag.nq")), "yaml")


def test_colour_only_on_request(tmp_path):
    example = str(EXAMPLES / "graph-rag.nq")
    other = str(RELEASES / "2.2.13" / "graph-rag.nq")
    coloured = tg_trace("diff", "--color", other, example)
    assert coloured.returncode == 1 and "\x1b[" in coloured.stdout
    plain = tg_trace("diff", other, example)
    assert "\x1b" not in plain.stdout and "~ Focus › selectedEdge" in plain.stdout


def test_a_mutant_quads_list_is_read_as_any_input():
    # The Python API reads what lint reads: here pyoxigraph quads.
    quads = list(ox.parse(path=str(EXAMPLES / "graph-rag.nq"), format=ox.RdfFormat.N_QUADS))
    assert compare_inputs(quads, EXAMPLES / "graph-rag.nq").same


def test_two_different_traces_are_headlined_by_both_questions():
    """One trace on each side, of two different queries: the headline quotes the old question and
    the new one, in text and Markdown."""
    old, new = EXAMPLES / "orchestrator-react-one-shot.nq", EXAMPLES / "orchestrator-react-multi-iteration.nq"
    result = tg_trace("diff", str(old), str(new))
    assert result.returncode == 1
    assert ('ReAct trace "In which city was Marie Curie born?" → '
            '"How many years passed between Marie Curie\'s two Nobel Prizes?"') in result.stdout.splitlines()
    markdown = tg_trace("diff", "--format", "markdown", str(old), str(new)).stdout
    assert ("#### ReAct trace `In which city was Marie Curie born?` → "
            "`How many years passed between Marie Curie's two Nobel Prizes?`") in markdown.splitlines()
    # The same question on both sides is quoted once.
    same = tg_trace("diff", str(old), str(old)).stdout
    assert 'ReAct trace "In which city was Marie Curie born?": no structural difference' in same
