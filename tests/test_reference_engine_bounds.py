"""The reference engine (--engine shacl, pySHACL) on hostile shapes and traces: a shapes file whose
SPARQL uses SERVICE is refused by both engines as the default one refuses it (one line, exit 2,
nothing fetched), and a long derivation cycle and a long ReAct loop finish with every finding, as
in the default engine. (Speed is measured by benchmarks/run.py, never asserted here: the subprocess timeout is
only the bound past which the run counts as stalled.)"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import EXAMPLES, ROOT

# Slow: the reference engine (pySHACL) on long chains and cycles (`python -m pytest -m "not slow"` leaves it out; CI runs it).
pytestmark = pytest.mark.slow

TG = "https://trustgraph.ai/ns/"
TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
DERIVED = "http://www.w3.org/ns/prov#wasDerivedFrom"


def tg_trace(*args, env=None, timeout=300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tgtrace.cli", *args], capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, **(env or {})})


def shapes_with_service(folder: Path) -> Path:
    """A copy of the shapes whose ReAct-order validator also asks a remote endpoint: the default
    engine implements that component in Python and would never run the query; pySHACL would."""
    shapes = folder / "shapes"
    shutil.copytree(ROOT / "shapes", shapes)
    components = shapes / "components.ttl"
    text = components.read_text()
    anchor = "                    $this prov:wasDerivedFrom $value .\n                    FILTER (\n"
    assert anchor in text
    components.write_text(text.replace(anchor, anchor.replace(
        "FILTER (\n", "OPTIONAL { SERVICE <http://127.0.0.1:9/sparql> { $value ?p ?o } }\n                    FILTER (\n"), 1))
    return shapes


@pytest.mark.parametrize("engine", ["fast", "shacl"])
def test_service_in_the_shapes_is_refused_by_both_engines(tmp_path, engine):
    shapes = shapes_with_service(tmp_path)
    result = tg_trace("lint", "--no-config", "--engine", engine, str(EXAMPLES / "orchestrator-react-multi-iteration.nq"),
                      env={"TG_TRACE_SHAPES": str(shapes)})
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 2 and len(lines) == 1, result.stderr
    assert lines[0].startswith("tg-trace: shapes: tgl:IterationOrderConstraintComponent: a SPARQL query uses SERVICE")
    assert "internal error" not in result.stderr


def test_reference_engine_on_a_2000_entity_derivation_cycle(tmp_path):
    n = 2_000
    cycle = tmp_path / "cycle.nq"
    cycle.write_text("".join(f"<urn:e:{i}> <{TYPE}> <{TG}Focus> .\n<urn:e:{i}> <{DERIVED}> <urn:e:{(i + 1) % n}> .\n"
                             for i in range(n)))
    found = {}
    for engine in ("fast", "shacl"):
        result = tg_trace("lint", "--no-config", "--engine", engine, "--format", "json", str(cycle))
        assert result.returncode == 1, result.stderr
        found[engine] = sorted((f["rule"], f["focus"]) for f in json.loads(result.stdout)["findings"])
    assert found["shacl"] == found["fast"]
    assert sum(rule == "C003" for rule, _ in found["shacl"]) == n  # every entity of the cycle


def react_loop(path: Path, links: int, out_of_order: int) -> Path:
    """A ReAct loop of ``links`` derivation links (Question, then Analysis n and its Observation n
    in turn), whose Analysis ``out_of_order`` claims the wrong step number."""
    step = "https://trustgraph.ai/ns/stepNumber"
    lines = [f"<urn:r:q> <{TYPE}> <{TG}Question> .", f"<urn:r:q> <{TYPE}> <{TG}AgentQuestion> ."]
    previous = "urn:r:q"
    for n in range(1, links // 2 + 1):
        claimed = n + 5 if n == out_of_order else n
        lines += [f"<urn:r:a{n}> <{TYPE}> <{TG}Analysis> .", f'<urn:r:a{n}> <{step}> "{claimed}" .',
                  f"<urn:r:a{n}> <{DERIVED}> <{previous}> .",
                  f"<urn:r:o{n}> <{TYPE}> <{TG}Observation> .", f"<urn:r:o{n}> <{DERIVED}> <urn:r:a{n}> ."]
        previous = f"urn:r:o{n}"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.slow
def test_reference_engine_on_a_2000_link_react_loop(tmp_path):
    # C004 once listed every ancestor of each Observation to find the nearest Analysis: cubic,
    # 400 iterations took 7 minutes, so 2,000 would take hours. (tests/test_reference_paths.py
    # counts its lookups; benchmarks/run.py --chains prints the cost per link at two lengths.) Its
    # time still grows faster than the chain: 15 s at 1,000 links, 46 s at 2,000 (issue 51).
    loop = react_loop(tmp_path / "loop.nq", 2_000, out_of_order=500)
    found = {}
    for engine in ("fast", "shacl"):
        result = tg_trace("lint", "--no-config", "--engine", engine, "--format", "json", str(loop), timeout=900)
        assert result.returncode == 1, result.stderr[-2000:]
        found[engine] = sorted((f["rule"], f["focus"]) for f in json.loads(result.stdout)["findings"])
    assert found["shacl"] == found["fast"]
    assert {(rule, focus) for rule, focus in found["shacl"] if rule == "C004"} == {
        ("C004", "urn:r:a500"), ("C004", "urn:r:a501")}  # its own step, and the next one's previous
