"""A rule is written once: added to a shapes file alone, it works everywhere.

A contributor copies the shapes, adds one SHACL-SPARQL rule (an Analysis's
tg:stepNumber must match the /i{n} of its IRI) and, with no Python written,
the rule fires in the default engine on a faulty real trace, stays quiet on
the examples, and appears in `tg-trace rules`, `tg-trace rule`, the SARIF
rule metadata and the docs site. A shape that uses a component the engine
does not know is one line and exit 2, from `lint` and from `check`.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import EXAMPLES, ROOT, shapes_with_rule

# Slow: adds a rule as a contributor does and builds its docs page (`python -m pytest -m "not slow"` leaves it out; CI runs it).
pytestmark = pytest.mark.slow

NEW_RULE = '''
tgsh:StepNumberShape a sh:NodeShape ;
    rdfs:label "Step number" ;
    sh:targetClass tg:Analysis ;
    sh:sparql tgsh:step-number-iri .

tgsh:step-number-iri a sh:SPARQLConstraint ;
    tgl:code "S099" ; tgl:name "step-number-iri" ; tgl:family tgl:structure ;
    sh:severity sh:Violation ;
    sh:message "tg:stepNumber {?value} is not the iteration the IRI names" ;
    sh:description "An Analysis's tg:stepNumber n matches the /i{n} its IRI ends with." ;
    tgl:rationale "Viewers order iterations by either; when they disagree the order is ambiguous." ;
    tgl:fix "Number the step as its IRI does." ;
    tgl:fault [ tgl:trace "orchestrator-react-multi-iteration.nq" ;
        tgl:focus "urn:trustgraph:agent:33a7dbc8-ce5b-58b6-91c6-ff32961e9c7d/i2" ;
        tgl:update """DELETE { GRAPH ?g { $this tg:stepNumber ?n } } INSERT { GRAPH ?g { $this tg:stepNumber "7" } } WHERE { GRAPH ?g { $this tg:stepNumber ?n } }""" ] ;
    sh:prefixes tgsh: ;
    sh:select """
        SELECT $this ?value WHERE {
            $this tg:stepNumber ?value .
            FILTER (!STRENDS(STR($this), CONCAT("/i", STR(?value))))
        }""" .
'''
TRACE = EXAMPLES / "orchestrator-react-multi-iteration.nq"
ANALYSIS = "urn:trustgraph:agent:33a7dbc8-ce5b-58b6-91c6-ff32961e9c7d/i2"


@pytest.fixture(scope="module")
def shapes(tmp_path_factory) -> Path:
    return shapes_with_rule(tmp_path_factory.mktemp("contributor") / "shapes", NEW_RULE)


def run(shapes: Path, *args, cwd=None) -> subprocess.CompletedProcess:
    env = {**os.environ, "TG_TRACE_SHAPES": str(shapes), "NO_MKDOCS_2_WARNING": "1"}
    return subprocess.run([sys.executable, "-m", "tgtrace.cli", *args], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=300)


@pytest.fixture(scope="module")
def faulty(tmp_path_factory) -> Path:
    text = TRACE.read_text(encoding="utf-8")
    line = next(x for x in text.splitlines() if x.startswith(f"<{ANALYSIS}> <https://trustgraph.ai/ns/stepNumber>"))
    broken = line.replace('"2"', '"7"')
    assert broken != line
    path = tmp_path_factory.mktemp("faulty") / TRACE.name
    path.write_text(text.replace(line, broken), encoding="utf-8")
    return path


def test_new_rule_fires_on_a_faulty_real_trace(shapes, faulty):
    result = run(shapes, "lint", "--format", "json", str(faulty))
    assert result.returncode == 1, result.stderr
    findings = [f for f in json.loads(result.stdout)["findings"] if f["rule"] == "S099"]
    assert [(f["focus"], f["value"], f["severity"]) for f in findings] == [(ANALYSIS, "7", "error")]
    assert findings[0]["message"] == "tg:stepNumber 7 is not the iteration the IRI names"


def test_new_rule_is_quiet_on_the_examples(shapes):
    result = run(shapes, "lint", "--format", "json", "--select", "S099", str(EXAMPLES))
    assert result.returncode == 0, result.stdout + result.stderr
    assert json.loads(result.stdout)["findings"] == []


def test_new_rule_is_listed_explained_and_in_sarif(shapes, faulty):
    listed = run(shapes, "rules")
    assert re.search(r"^S099\s+error\s+structure\s+step-number-iri(\s|$)", listed.stdout, re.M), listed.stdout
    explained = run(shapes, "rule", "S099")
    assert explained.returncode == 0 and "matches the /i{n} its IRI ends with" in explained.stdout
    sarif = json.loads(run(shapes, "lint", "--format", "sarif", str(faulty)).stdout)
    rules = {r["id"]: r for r in sarif["runs"][0]["tool"]["driver"]["rules"]}
    assert rules["S099"]["fullDescription"]["text"].startswith("An Analysis's tg:stepNumber")
    assert "S099" in {r["ruleId"] for r in sarif["runs"][0]["results"]}


def test_new_rule_is_on_the_docs_site(shapes, tmp_path):
    site = tmp_path / "site"
    env = {**os.environ, "TG_TRACE_SHAPES": str(shapes), "NO_MKDOCS_2_WARNING": "1"}
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
                            cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    index = (site / "rules" / "index.html").read_text(encoding="utf-8")
    assert 'href="S099/index.html"' in index and "step-number-iri" in index
    page = (site / "rules" / "S099" / "index.html").read_text(encoding="utf-8")
    assert "S099 step-number-iri" in page and "matches the /i{n} its IRI ends with" in page


def test_unknown_component_is_one_line_and_exit_2(shapes, tmp_path):
    folder = tmp_path / "shapes"
    shutil.copytree(shapes, folder)
    with open(folder / "agent.ttl", "a", encoding="utf-8") as handle:
        handle.write("\ntgsh:AnalysisShape sh:maxCont 1 .\n")
    for args in (("lint", str(TRACE)), ("check",)):
        result = run(folder, *args)
        lines = result.stderr.strip().splitlines() + [x for x in result.stdout.splitlines() if "maxCont" in x]
        assert result.returncode == 2, (args, result.stdout, result.stderr)
        assert "Traceback" not in result.stderr
        assert any("tgsh:AnalysisShape" in x and "sh:maxCont" in x for x in lines), (args, result.stdout, result.stderr)


def test_check_judges_the_new_rule(shapes, tmp_path):
    # The rule as written is valid; a message naming a variable its query does not select is not.
    assert run(shapes, "check", "--no-reasoner").returncode == 0
    folder = tmp_path / "shapes"
    shutil.copytree(shapes, folder)
    path = folder / "agent.ttl"
    path.write_text(path.read_text(encoding="utf-8").replace("tg:stepNumber {?value} is not", "tg:stepNumber {?path} is not"),
                    encoding="utf-8")
    line = next(n for n, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if "{?path} is not" in text)
    result = run(folder, "check", "--no-reasoner", "--format", "json")
    assert result.returncode == 1, result.stderr
    findings = json.loads(result.stdout)["findings"]
    assert [(f["rule"], f["file"], f["line"]) for f in findings] == [("K015", str(path), line)]
    assert findings[0]["message"] == "rule S099: its sh:message names {?path}, which its SPARQL query does not select"
