"""The SARIF output format, on reports built here."""

from __future__ import annotations

import json

from formats_support import AGENT, CONCLUSION, finding, sarif_validator
from rfc3986_validator import validate_rfc3986
from tgtrace.formats import FORMATS, render
from tgtrace.ground.model import Report
from tgtrace.rules import all_rules
from tgtrace.rules.help import explain_rule


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
