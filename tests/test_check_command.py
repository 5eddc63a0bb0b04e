"""tg-trace check: every problem of the ontology and shapes is a finding with a code, in every format."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest
from conftest import ROOT


def run(*args, env=None):
    environment = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    environment.update(env or {})
    return subprocess.run([sys.executable, "-m", "tgtrace.cli", *args], capture_output=True, text=True,
                          env=environment)


@pytest.fixture
def broken_shapes(tmp_path):
    """A copy of the shapes in which one rule names a class the ontology does not declare."""
    folder = tmp_path / "shapes"
    shutil.copytree(ROOT / "shapes", folder)
    path = folder / "agent.ttl"
    text = path.read_text()
    assert "sh:class tg:Thought" in text
    path.write_text(text.replace("sh:class tg:Thought", "sh:class tg:Thougth", 1))
    line = next(n for n, ln in enumerate(path.read_text().splitlines(), 1) if "tg:Thougth" in ln)
    return folder, path, line


def test_clean_ontology_and_shapes_pass_in_every_format():
    text = run("check", "--no-reasoner")
    assert text.returncode == 0 and text.stdout.strip() == "ontology and shapes: all checks passed."
    data = json.loads(run("check", "--no-reasoner", "--format", "json").stdout)
    assert data["findings"] == [] and data["summary"]["conforms"] is True


def test_a_problem_is_a_finding_with_a_code_file_and_line(broken_shapes):
    folder, path, line = broken_shapes
    env = {"TG_TRACE_SHAPES": str(folder)}
    text = run("check", "--no-reasoner", env=env)
    assert text.returncode == 1
    assert f"{path}:{line}: K011 error tg:Thougth (sh:class in " in text.stdout
    assert text.stdout.splitlines()[-1] == "ontology and shapes: 1 error."
    data = json.loads(run("check", "--no-reasoner", "--format", "json", env=env).stdout)
    (finding,) = data["findings"]
    assert (finding["rule"], finding["severity"], finding["family"]) == ("K011", "error", "selfcheck")
    assert finding["file"] == str(path) and finding["line"] == line
    assert finding["focus"] == "https://trustgraph.ai/ns/Thougth"
    sarif = json.loads(run("check", "--no-reasoner", "--format", "sarif", env=env).stdout)
    (result,) = sarif["runs"][0]["results"]
    assert result["ruleId"] == "K011" and result["locations"][0]["physicalLocation"]["region"]["startLine"] == line
    github = run("check", "--no-reasoner", "--format", "github", env=env).stdout
    assert github.startswith("::error file=") and f"line={line},title=K011::" in github


def test_shapes_that_do_not_parse_are_one_line_with_file_and_line(tmp_path):
    # A contributor's copy of the shapes with a typo: lint refuses it (exit 2, one line, no
    # traceback, never an internal error) and check reports it as K010 on that line.
    folder = tmp_path / "shapes"
    shutil.copytree(ROOT / "shapes", folder)
    path = folder / "agent.ttl"
    lines = path.read_text().splitlines()
    line = len(lines) + 1
    path.write_text("\n".join(lines) + "\ntgsh:typo a sh:NodeShape ; sh:targetClass .\n")
    env = {"TG_TRACE_SHAPES": str(folder)}
    lint = run("lint", str(ROOT / "examples" / "graph-rag.nq"), env=env)
    assert lint.returncode == 2, lint.stderr
    assert lint.stderr.splitlines() == [f"tg-trace: {path}:{line}: . is not a valid RDF object"]
    check = run("check", "--no-reasoner", "--format", "json", env=env)
    assert check.returncode == 1
    (finding,) = json.loads(check.stdout)["findings"]
    assert (finding["rule"], finding["file"], finding["line"]) == ("K010", str(path), line)
    assert finding["message"] == "does not parse: . is not a valid RDF object"


# Each way a rule can be malformed: the text written in agent.ttl, what it becomes, the check's
# code, and the text on the line the finding must name.
MALFORMED_RULES = {
    "duplicate code": ('tgl:code "S006" ; tgl:name "analysis-action"', 'tgl:code "S012" ; tgl:name "analysis-action"',
                       "K013", 'tgl:code "S012" ; tgl:name "analysis-action"'),
    "code of another family": ('tgl:code "M002"', 'tgl:code "S098"', "K014", 'tgl:code "S098"'),
    "misspelt placeholder": ('Observation, not {?value}', 'Observation, not {?valeu}', "K015", "{?valeu}"),
    "no rationale": ('tgl:rationale "Clients list tool calls', 'rdfs:comment "Clients list tool calls', "K016",
                     'tgl:code "M002"'),
    "no fix": ('tgl:fix "Emit `<analysis> rdf:type tg:ToolUse`', 'rdfs:comment "Emit `<analysis> rdf:type tg:ToolUse`',
               "K017", 'tgl:code "M002"'),
    "no fault": ('tgl:fault [ tgl:trace "orchestrator-react-multi-iteration.nq" ; '
                 'tgl:focus "urn:trustgraph:agent:33a7dbc8-ce5b-58b6-91c6-ff32961e9c7d/i2" ;\n'
                 '        tgl:update """DELETE DATA { GRAPH <urn:graph:retrieval> { $this a tg:ToolUse } }""" ]',
                 'rdfs:seeAlso tg:ToolUse', "K018", 'tgl:code "M002"'),
    "no description": ('sh:description "Every agent Analysis (one think-act step)',
                       'rdfs:comment "Every agent Analysis (one think-act step)', "K019", 'tgl:code "M002"'),
    # A misplaced-mixin rule that admits a class tg:mixinFor does not name (or leaves one out).
    "mixin admitted elsewhere": ('    sh:targetClass tg:ToolUse ;\n    sh:class tg:Analysis .',
                                 '    sh:targetClass tg:ToolUse ;\n    sh:or ( tgsh:IsAnalysis tgsh:IsObservation ) .',
                                 "K012", 'tgsh:tool-use-misplaced a sh:NodeShape'),
}


@pytest.mark.parametrize("case", sorted(MALFORMED_RULES))
def test_a_malformed_rule_is_a_finding_with_its_code_file_and_line(tmp_path, case):
    before, after, code, marker = MALFORMED_RULES[case]
    folder = tmp_path / "shapes"
    shutil.copytree(ROOT / "shapes", folder)
    path = folder / "agent.ttl"
    text = path.read_text()
    assert text.count(before) == 1, case
    path.write_text(text.replace(before, after))
    line = next(n for n, ln in enumerate(path.read_text().splitlines(), 1) if marker in ln)
    check = run("check", "--no-reasoner", "--format", "json", env={"TG_TRACE_SHAPES": str(folder)})
    assert check.returncode == 1, check.stderr
    findings = json.loads(check.stdout)["findings"]
    assert [(f["rule"], f["file"], f["line"]) for f in findings] == [(code, str(path), line)], findings
