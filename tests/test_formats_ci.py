"""The CI output formats (SARIF, JUnit, GitHub, Markdown summary), statistics,
coverage and rule explanations: on reports built here, and through the
command line on the real example traces with and without faults."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from junitparser import Failure, JUnitXml
from rfc3986_validator import validate_rfc3986

from tgtrace.coverage import coverage, ontology_terms, statistics
from tgtrace.explain import curie, explain_rule, list_rules
from tgtrace.formats import FORMATS, render
from tgtrace.formats import github as github_format
from tgtrace.model import Finding, Report, Severity
from tgtrace.namespaces import TG
from tgtrace.rules import all_rules

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
SCHEMA = json.loads((Path(__file__).parent / "data" / "sarif-schema-2.1.0.json").read_text())

AGENT = "urn:trustgraph:agent:0b6f"
CONCLUSION = AGENT + "/final"


def sarif_validator():
    # Without a URI checker (rfc3986-validator) "format": "uri" would pass unchecked.
    assert "uri" in jsonschema.Draft4Validator.FORMAT_CHECKER.checkers
    return jsonschema.Draft4Validator(SCHEMA, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER)


def finding(rule="M001", file="traces/react.nq", line=12, severity=Severity.ERROR, focus=CONCLUSION, trace=AGENT, **kw):
    return Finding(
        file=file,
        line=line,
        rule=rule,
        severity=severity,
        family=all_rules()[rule].family if rule in all_rules() else "structure",
        message=kw.pop("message", "answer does not assert the tg:Answer mixin"),
        focus=focus,
        trace=trace,
        **kw,
    )


@pytest.fixture
def report():
    """Two files: one trace with an error and a warning, one clean trace."""
    findings = [
        finding(),
        finding(rule="M008", severity=Severity.WARNING, line=3, focus=AGENT + "/i1/thought",
                message="trace entity does not assert prov:Entity"),
    ]
    return Report(
        findings=findings,
        traces={AGENT: "traces/react.nq", "urn:trustgraph:question:77": "traces/graph-rag.nq"},
        files=["traces/react.nq", "traces/graph-rag.nq"],
        triples=120,
    )


# ------------------------------------------------------------------- SARIF


def test_formats_registered():
    for name in ("sarif", "junit", "github", "markdown"):
        assert name in FORMATS


def test_sarif_validates_against_official_schema(report):
    log = json.loads(render(report, "sarif"))
    errors = sorted(sarif_validator().iter_errors(log), key=str)
    assert not errors, errors[0]
    assert log["version"] == "2.1.0"


def test_sarif_rule_metadata_and_locations(report):
    log = json.loads(render(report, "sarif"))
    run = log["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == list(all_rules())
    m001 = all_rules()["M001"]
    descriptor = rules[run["results"][0]["ruleIndex"]]
    assert descriptor["id"] == "M001"
    assert descriptor["name"] == m001.name
    assert descriptor["helpUri"] == m001.help_uri
    assert descriptor["help"]["markdown"] == explain_rule(m001)
    assert descriptor["defaultConfiguration"]["level"] == "error"

    first, second = run["results"]
    assert first["ruleId"] == "M001" and first["level"] == "error"
    assert second["level"] == "warning"
    location = first["locations"][0]
    assert location["physicalLocation"]["artifactLocation"] == {"uri": "traces/react.nq", "uriBaseId": "%SRCROOT%"}
    assert location["physicalLocation"]["region"] == {"startLine": 12}
    assert location["logicalLocations"][0]["fullyQualifiedName"] == CONCLUSION
    assert first["properties"]["trace"] == AGENT
    # Fingerprints ignore the line, so code scanning keeps an alert open across reformatting.
    moved = Report(findings=[finding(line=99)])
    assert json.loads(render(moved, "sarif"))["runs"][0]["results"][0]["partialFingerprints"] == first[
        "partialFingerprints"
    ]


def test_sarif_without_lines_has_logical_location_only():
    report = Report(findings=[finding(file=None, line=None), finding(file="traces/a.json", line=None)])
    log = json.loads(render(report, "sarif"))
    assert not list(sarif_validator().iter_errors(log))
    no_file, no_line = (r["locations"][0] for r in log["runs"][0]["results"])
    assert "physicalLocation" not in no_file
    assert no_file["logicalLocations"][0]["fullyQualifiedName"] == CONCLUSION
    assert "region" not in no_line["physicalLocation"]


def test_sarif_paths_are_uri_references(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    inside = tmp_path / "my traces" / "ä.nq"
    outside = "/elsewhere/t.nq"
    report = Report(findings=[finding(file=str(inside)), finding(file=outside)])
    log = json.loads(render(report, "sarif"))
    assert not list(sarif_validator().iter_errors(log))
    first, second = (r["locations"][0]["physicalLocation"]["artifactLocation"] for r in log["runs"][0]["results"])
    assert first == {"uri": "my%20traces/%C3%A4.nq", "uriBaseId": "%SRCROOT%"}
    assert validate_rfc3986(first["uri"], rule="URI_reference")
    assert second == {"uri": "file:///elsewhere/t.nq"}
    assert log["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]["uri"] == tmp_path.resolve().as_uri() + "/"


def test_sarif_unknown_rule_gets_a_descriptor():
    report = Report(findings=[finding(rule="X900", message="custom")])
    run = json.loads(render(report, "sarif"))["runs"][0]
    assert run["tool"]["driver"]["rules"][run["results"][0]["ruleIndex"]]["id"] == "X900"


# ------------------------------------------------------------------- JUnit


def parse_junit(text: str, tmp_path: Path) -> JUnitXml:
    path = tmp_path / "junit.xml"
    path.write_text(text)
    return JUnitXml.fromfile(str(path))


def test_junit_suite_per_file_case_per_trace(report, tmp_path):
    xml = parse_junit(render(report, "junit"), tmp_path)
    suites = {suite.name: suite for suite in xml}
    assert set(suites) == {"traces/react.nq", "traces/graph-rag.nq"}
    react = suites["traces/react.nq"]
    cases = list(react)
    assert [c.name for c in cases] == [AGENT]
    (failure,) = cases[0].result
    assert isinstance(failure, Failure)
    assert failure.type == "M001"
    # Every finding of the trace is listed, the warning too.
    assert "M001" in failure.text and "M008" in failure.text and "line 12" in failure.text
    clean = list(suites["traces/graph-rag.nq"])
    assert [c.name for c in clean] == ["urn:trustgraph:question:77"] and clean[0].is_passed
    assert react.failures == 1 and react.tests == 1


def test_junit_warnings_pass_unless_fail_on_warning(report, tmp_path):
    report.findings = [f for f in report.findings if f.severity == Severity.WARNING]
    react = [s for s in parse_junit(render(report, "junit"), tmp_path) if s.name == "traces/react.nq"][0]
    (case,) = list(react)
    assert case.is_passed and "M008" in case.system_out
    report.fail_on = Severity.WARNING
    react = [s for s in parse_junit(render(report, "junit"), tmp_path) if s.name == "traces/react.nq"][0]
    assert not list(react)[0].is_passed


def test_junit_findings_outside_traces_and_files(tmp_path):
    report = Report(findings=[finding(file=None, line=None, trace=None)], files=[], traces={})
    (suite,) = list(parse_junit(render(report, "junit"), tmp_path))
    (case,) = list(suite)
    assert suite.name == "<input>" and case.name == "(outside any trace)" and not case.is_passed


# ------------------------------------------------------------------ GitHub

GITHUB_LINE = re.compile(r"^::(error|warning|notice) (?:file=([^,]+),line=(\d+),)?title=([A-Z]\d{3})::(.*)$")


def test_github_workflow_commands(report):
    lines = render(report, "github").splitlines()
    assert len(lines) == 2
    match = GITHUB_LINE.match(lines[0])
    assert match.groups() == ("error", "traces/react.nq", "12", "M001",
                              f"M001 answer does not assert the tg:Answer mixin ({CONCLUSION})")
    assert GITHUB_LINE.match(lines[1]).group(1) == "warning"


def test_github_escapes_properties_and_data():
    f = finding(file="a,b:c.nq", message="50% bad\nsecond line", severity=Severity.INFO)
    line = github_format.annotation(f)
    assert line.startswith("::notice file=a%2Cb%3Ac.nq,line=12,title=M001::")
    assert "50%25 bad%0Asecond line" in line and "\n" not in line


def test_github_without_file():
    assert github_format.annotation(finding(file=None, line=None)).startswith("::error title=M001::")


# ----------------------------------------------------------------- summary


def test_markdown_summary(report):
    cover = coverage(Report(terms_used={TG + "Conclusion": 1, TG + "query": 1}))
    text = render(report, "markdown", coverage=cover, baselined=2)
    assert text.startswith("## :x: tg-trace failed")
    assert "| error | 1 |" in text and "| warning | 1 |" in text
    assert f"| [M001]({all_rules()['M001'].help_uri}) | answer-mixin | error | 1 |" in text
    assert "2 known findings were accepted by the baseline." in text
    assert "### Ontology coverage:" in text and "tg:Grounding" in text


# ------------------------------------------------------ statistics, coverage


def test_statistics_counts_per_rule(report):
    report.findings.append(finding(focus=AGENT + "/synthesis"))
    rows = statistics(report)
    assert [(r["code"], r["count"]) for r in rows] == [("M001", 2), ("M008", 1)]
    assert rows[0]["name"] == "answer-mixin" and rows[0]["severity"] == "error"


def test_coverage_of_terms_and_mixins():
    terms = ontology_terms()
    assert TG + "Observation" in terms.classes and TG + "toolError" in terms.predicates
    assert (TG + "Observation", TG + "Error") in terms.mixins
    # Enumerations and deprecated terms are not expected of a trace.
    assert TG + "TerminationReason" not in terms.classes
    assert TG + "permitsTerminationReason" not in terms.predicates
    assert TG + "answer" not in terms.predicates and TG + "answer" in terms.deprecated

    report = Report(terms_used={TG + "Observation": 2, TG + "toolError": 1, TG + "answer": 1, TG + "Conclusoin": 1})
    report.type_sets = {f"{TG}Observation": 1, f"{TG}Error {TG}Observation": 1, f"{TG}Analysis": 1}
    cover = coverage(report)
    assert cover.classes[TG + "Observation"] == 2 and cover.classes[TG + "Error"] == 0
    assert cover.combinations[(TG + "Observation", TG + "Error")] == 1
    assert cover.combinations[(TG + "Analysis", TG + "ToolUse")] == 0
    assert cover.undeclared == {TG + "Conclusoin": 1} and cover.deprecated == {TG + "answer": 1}
    assert cover.exercised == 2 and cover.total == len(terms.classes) + len(terms.predicates)
    data = cover.to_dict()
    assert "tg:Observation + tg:Error" not in data["mixins"]["never"]
    assert f"{TG}Analysis + {TG}ToolUse" in data["mixins"]["never"]


def test_coverage_without_type_sets_omits_mixins():
    cover = coverage(Report(terms_used={}))
    assert cover.combinations is None and "mixins" not in cover.to_dict()
    assert cover.percent == 0.0


def test_explain_rule_text():
    for rule in all_rules().values():
        text = explain_rule(rule)
        assert text.startswith(f"# {rule.code} {rule.name}\n")
        assert rule.help_uri in text
        assert f"**Severity:** {rule.severity}" in text
        if rule.fault is not None:
            assert rule.fault.update.strip() in text
    listing = list_rules()
    assert all(re.search(rf"^{code}\s", listing, re.M) for code in all_rules())


def test_curie():
    assert curie(TG + "Question") == "tg:Question"
    assert curie("https://trustgraph.ai/shapes#answer-mixin") == "tgsh:answer-mixin"
    assert curie("urn:x:y") == "urn:x:y"


# ------------------------------------------------- through the command line

from click.testing import CliRunner  # noqa: E402

from tgtrace.cli import main  # noqa: E402

RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
REACT = "orchestrator-react-multi-iteration"


def drop_type(path: Path, subject_suffix: str, cls: str) -> int:
    """Delete ``<...subject_suffix> rdf:type tg:cls`` from an example copy (.nq or wire .json)."""
    if path.suffix == ".nq":
        lines = path.read_text().splitlines(keepends=True)
        kept = [
            line for line in lines
            if not (line.split(" ")[0].endswith(subject_suffix + ">") and f"<{RDF_TYPE}> <{TG}{cls}> " in line)
        ]
        path.write_text("".join(kept))
        return len(lines) - len(kept)
    triples = json.loads(path.read_text())
    kept = [
        t for t in triples
        if not (t["s"].get("i", "").endswith(subject_suffix) and t["p"]["i"] == RDF_TYPE and t["o"].get("i") == TG + cls)
    ]
    # One triple a line, as the examples are written, so findings have lines to point at.
    path.write_text("[\n" + ",\n".join(json.dumps(t) for t in kept) + "\n]\n")
    return len(triples) - len(kept)


@pytest.fixture
def traces(tmp_path, monkeypatch):
    """A working directory with a clean trace and a copy whose Conclusion lost tg:Answer, as .nq and .json."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    (tmp_path / "traces").mkdir()
    for suffix in (".nq", ".json"):
        shutil.copy(EXAMPLES / f"graph-rag{suffix}", tmp_path / "traces" / f"graph-rag{suffix}")
        broken = tmp_path / "traces" / f"broken{suffix}"
        shutil.copy(EXAMPLES / f"{REACT}{suffix}", broken)
        assert drop_type(broken, "/final", "Answer") == 1
    return tmp_path


def cli(*args, env=None):
    result = CliRunner().invoke(main, list(args), env=env, catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def conclusion_iri() -> str:
    text = (EXAMPLES / f"{REACT}.nq").read_text()
    return re.search(r"<(urn:trustgraph:agent:[^/>]+/final)>", text).group(1)


def nq_line(path: Path, subject: str, predicate: str) -> int:
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if line.startswith(f"<{subject}> <{predicate}> "):
            return number
    raise AssertionError(f"no {predicate} on {subject} in {path}")


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "junit", "github", "markdown"])
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
    # Both copies of the trace are the same finding to code scanning.
    fingerprints = {json.dumps(r["partialFingerprints"]) for r in results}
    assert len(fingerprints) == 1


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
    assert message.endswith(f"({conclusion_iri()})")
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
    assert code == 0 and "recorded 1 findings" in err
    # Old findings pass, in the same file or in the same trace written as JSON.
    assert cli("lint", "--baseline", "baseline.json", "traces/broken.nq")[0] == 0
    assert cli("lint", "--baseline", "baseline.json", "traces/broken.json")[0] == 0
    # A new fault in the same trace fails, and only it is reported.
    assert drop_type(traces / "traces" / "broken.nq", "/i2", "ToolUse") == 1
    code, out, err = cli("lint", "--format", "json", "--baseline", "baseline.json", "traces/broken.nq")
    assert code == 1 and "1 known findings accepted" in err
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
    assert re.search(r"^1  M001  \[error\]  answer-mixin$", out, re.M)
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
    assert code == 2 and "--statistics prints text or json" in err


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
