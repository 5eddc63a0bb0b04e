"""The CI output formats, statistics, coverage, configuration and baselines through
the command line, on the real example traces with and without faults."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys

import pytest
from click.testing import CliRunner
from formats_support import (
    GITHUB_LINE,
    RDF_TYPE,
    ROOT,
    cli,
    conclusion_iri,
    drop_type,
    nq_line,
    sarif_validator,
)
from junitparser import JUnitXml
from tgtrace.cli import main
from tgtrace.formats import FORMATS
from tgtrace.ground.namespaces import TG
from tgtrace.rules import all_rules
from tgtrace.rules.help import explain_rule, list_rules


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_every_format_on_clean_and_faulty_traces(traces, fmt):
    code, clean, _ = cli("lint", "--format", fmt, "traces/graph-rag.nq", "traces/graph-rag.json")
    assert code == 0
    code, faulty, _ = cli("lint", "--format", fmt, "traces/broken.nq", "traces/graph-rag.json")
    assert code == 1
    if fmt == "sarif":  # the rule descriptors name every rule: compare the results
        assert json.loads(clean)["runs"][0]["results"] == []
        assert [r["ruleId"] for r in json.loads(faulty)["runs"][0]["results"]] == ["M001"]
    else:
        assert "M001" not in clean and "M001" in faulty


def test_cli_sarif_on_faulty_traces(traces):
    code, out, _ = cli("lint", "--format", "sarif", "traces/broken.nq", "traces/broken.json", "traces/graph-rag.nq")
    assert code == 1
    log = json.loads(out)
    assert not list(sarif_validator().iter_errors(log))
    results = log["runs"][0]["results"]
    assert {r["ruleId"] for r in results} == {"M001"}
    focus = conclusion_iri()
    # The Conclusion's first triple is where the missing type belongs; each input has its own line.
    by_file = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]: r for r in results}
    assert set(by_file) == {"traces/broken.nq", "traces/broken.json"}
    nq = by_file["traces/broken.nq"]["locations"][0]
    assert nq["physicalLocation"]["region"]["startLine"] == nq_line(traces / "traces" / "broken.nq", focus, RDF_TYPE)
    assert nq["logicalLocations"][0]["fullyQualifiedName"] == focus
    json_lines = (traces / "traces" / "broken.json").read_text().splitlines()
    first = next(n for n, line in enumerate(json_lines, 1) if f'"i": "{focus}"}}, "p": {{"t": "i", "i": "{RDF_TYPE}"' in line)
    assert by_file["traces/broken.json"]["locations"][0]["physicalLocation"]["region"]["startLine"] == first
    # Each copy of the trace is its own alert to code scanning: fingerprints name the file.
    fingerprints = {json.dumps(r["partialFingerprints"]) for r in results}
    assert len(fingerprints) == len(results) == 2


def test_cli_sarif_from_stdin_has_logical_location_only(traces):
    text = (traces / "traces" / "broken.nq").read_text()
    result = CliRunner().invoke(main, ["lint", "--format", "sarif", "--input-format", "nquads", "-"], input=text)
    assert result.exit_code == 1
    log = json.loads(result.stdout)
    assert not list(sarif_validator().iter_errors(log))
    (only,) = log["runs"][0]["results"]
    assert "physicalLocation" not in only["locations"][0]
    assert only["locations"][0]["logicalLocations"][0]["fullyQualifiedName"] == conclusion_iri()


def test_cli_junit_parses_back(traces):
    code, out, _ = cli("lint", "--format", "junit", "-o", "report.xml", "traces/broken.nq", "traces/graph-rag.nq")
    assert code == 1 and out == ""
    xml = JUnitXml.fromfile(str(traces / "report.xml"))
    suites = {s.name: s for s in xml}
    assert set(suites) == {"traces/broken.nq", "traces/graph-rag.nq"}
    (broken,) = list(suites["traces/broken.nq"])
    (failure,) = broken.result
    assert broken.name == conclusion_iri().rsplit("/", 1)[0]
    assert failure.type == "M001" and conclusion_iri() in failure.text
    assert all(case.is_passed for case in suites["traces/graph-rag.nq"])
    assert (xml.tests, xml.failures, xml.errors) == (2, 1, 0)


def test_cli_github_lines_and_automatic_choice(traces):
    summary = traces / "summary.md"
    env = {"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary)}
    code, out, _ = cli("lint", "traces/broken.nq", "traces/graph-rag.nq", env=env)
    assert code == 1
    (line,) = out.splitlines()
    match = GITHUB_LINE.match(line)
    assert match, line
    level, file, number, title, message = match.groups()
    assert (level, file, title) == ("error", "traces/broken.nq", "M001")
    assert int(number) == nq_line(traces / "traces" / "broken.nq", conclusion_iri(), RDF_TYPE)
    assert message.split("%0A")[0].endswith(f"({conclusion_iri()})")
    assert message.split("%0A")[-1].endswith(all_rules()["M001"].help_uri)
    # The step summary was written without being asked for, and appends.
    first = summary.read_text()
    assert "## :x: tg-trace failed" in first and "| error | 1 |" in first and "[M001](" in first
    cli("lint", "traces/graph-rag.nq", env=env)
    assert summary.read_text().startswith(first) and ":white_check_mark: tg-trace passed" in summary.read_text()
    # An explicit format wins over the automatic choice.
    assert cli("lint", "--format", "text", "traces/broken.nq", env=env)[1].startswith("traces/broken.nq")


def test_cli_summary_option(traces):
    code, _, _ = cli("lint", "--summary", "s.md", "traces/graph-rag.nq")
    assert code == 0
    text = (traces / "s.md").read_text()
    assert "tg-trace passed" in text and "Ontology coverage" in text


def test_cli_config_precedence(traces):
    (traces / "tg-trace.toml").write_text('ignore = ["M001"]\n')
    assert cli("lint", "traces/broken.nq")[0] == 0
    # --no-config, or a flag for the same key, wins over the file.
    assert cli("lint", "--no-config", "traces/broken.nq")[0] == 1
    assert cli("lint", "--ignore", "M008", "traces/broken.nq")[0] == 1
    # Keys the command line does not set stay as the file has them.
    (traces / "tg-trace.toml").write_text('fail-on = "never"\n[severity]\nM001 = "warning"\n')
    code, out, _ = cli("lint", "--format", "json", "traces/broken.nq")
    assert code == 0 and '"severity": "warning"' in out
    assert cli("lint", "--fail-on", "warning", "traces/broken.nq")[0] == 1
    # Scoped ignores, by path and by IRI.
    (traces / "tg-trace.toml").write_text('[per-file-ignores]\n"traces/broken.*" = ["mixin"]\n')
    assert cli("lint", "traces/broken.nq", "traces/broken.json")[0] == 0
    (traces / "tg-trace.toml").write_text(f'[per-iri-ignores]\n"{conclusion_iri()}" = ["M001"]\n')
    assert cli("lint", "traces/broken.nq")[0] == 0
    # pyproject.toml in a parent directory, and --config naming a file.
    (traces / "tg-trace.toml").unlink()
    (traces / "pyproject.toml").write_text('[tool.tg-trace]\nselect = ["C"]\n')
    assert cli("lint", "traces/broken.nq")[0] == 0
    (traces / "strict.toml").write_text('select = ["M001"]\n')
    assert cli("lint", "--config", "strict.toml", "traces/broken.nq")[0] == 1


@pytest.mark.parametrize(
    "text, named",
    [('selct = ["M001"]', "unknown key 'selct'"), ('ignore = ["M099"]', "unknown rule code 'M099'")],
)
def test_cli_config_errors_exit_2(traces, text, named):
    (traces / "tg-trace.toml").write_text(text)
    code, out, err = cli("lint", "traces/graph-rag.nq")
    assert code == 2 and out == ""
    assert err.startswith("tg-trace: ") and "tg-trace.toml" in err and named in err
    assert len(err.strip().splitlines()) == 1


def test_cli_baseline_round_trip(traces):
    code, out, err = cli("lint", "--write-baseline", "baseline.json", "traces/broken.nq")
    assert code == 0 and "recorded 1 finding in" in err
    # Old findings pass, in the same file or in the same trace written as JSON.
    assert cli("lint", "--baseline", "baseline.json", "traces/broken.nq")[0] == 0
    assert cli("lint", "--baseline", "baseline.json", "traces/broken.json")[0] == 0
    # A new fault in the same trace fails, and only it is reported.
    assert drop_type(traces / "traces" / "broken.nq", "/i2", "ToolUse") == 1
    code, out, err = cli("lint", "--format", "json", "--baseline", "baseline.json", "traces/broken.nq")
    assert code == 1 and "1 known finding accepted" in err
    rules = [f["rule"] for f in json.loads(out)["findings"]]
    assert rules == ["M002"]
    # A baseline named in the config file works the same way.
    (traces / "tg-trace.toml").write_text('baseline = "baseline.json"\n')
    assert cli("lint", "traces/broken.json")[0] == 0
    code, _, err = cli("lint", "--baseline", "missing.json", "traces/broken.json")
    assert code == 2 and "missing.json: baseline file not found" in err


def test_cli_statistics_and_min_coverage(traces):
    code, out, _ = cli("lint", "--statistics", "traces/broken.nq", "traces/graph-rag.nq")
    assert code == 1
    assert re.search(r"^1  M001  \[error\] +answer-mixin$", out, re.M)
    assert "Ontology coverage:" in out and "Never exercised:" in out
    code, out, _ = cli("lint", "--statistics", "--format", "json", "traces/graph-rag.nq")
    data = json.loads(out)
    assert code == 0 and data["statistics"] == []
    assert TG + "Question" in data["coverage"]["classes"]["used"]
    assert TG + "Conclusion" in data["coverage"]["classes"]["never"]
    low = data["coverage"]["percent"]
    code, _, err = cli("lint", "--min-coverage", str(low + 1), "traces/graph-rag.nq")
    assert code == 1 and f"ontology coverage {low:.1f}% is below the minimum" in err
    assert cli("lint", "--min-coverage", str(low - 1), "traces/graph-rag.nq")[0] == 0
    code, _, err = cli("lint", "--statistics", "--format", "sarif", "traces/graph-rag.nq")
    assert code == 2 and "--statistics prints text, concise, json or github, not sarif" in err


def test_cli_rule_and_rules():
    code, out, _ = cli("rule", "m001")
    assert code == 0 and out.strip() == explain_rule(all_rules()["M001"]).strip()
    code, out, _ = cli("rules")
    assert code == 0 and out.strip() == list_rules().strip()
    code, _, err = cli("rule", "X999")
    assert code == 2 and "unknown rule code" in err


def test_entry_point_exit_codes(traces):
    """The installed command, as CI calls it: exit codes and no traceback."""
    command = shutil.which("tg-trace")
    base = [command] if command else [sys.executable, "-m", "tgtrace.cli"]
    env = dict(os.environ)
    env.pop("GITHUB_ACTIONS", None)
    env.pop("GITHUB_STEP_SUMMARY", None)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "validators"), env.get("PYTHONPATH")]))

    def run(*args):
        return subprocess.run([*base, *args], cwd=traces, env=env, capture_output=True, text=True)

    assert run("lint", "--format", "sarif", "traces/graph-rag.nq").returncode == 0
    assert run("lint", "--format", "junit", "traces/broken.nq").returncode == 1
    (traces / "bad.nq").write_text("<urn:a> <urn:b> .\n")
    bad = run("lint", "--format", "sarif", "bad.nq")
    assert bad.returncode == 2 and bad.stdout == "" and "Traceback" not in bad.stderr
    assert bad.stderr.startswith("tg-trace: bad.nq:1")
