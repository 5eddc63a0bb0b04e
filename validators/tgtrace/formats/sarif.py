"""SARIF 2.1.0, the format code-scanning services (GitHub and others) ingest.

Every result names the file and line of the offending triple when the input
format has lines, so code scanning can show it in place; the focus node is
always given as a logical location, and is the only location for input that
had no file (an in-memory graph, standard input).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from urllib.parse import quote

from .. import __version__
from ..baseline import fingerprint
from ..model import Finding, Report, Severity
from ..rules import DOCS_BASE, Rule
from .github import relative_path

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
# partialFingerprints key: versioned, so a change of the fingerprint recipe is
# seen by code scanning as a new kind of fingerprint rather than new alerts.
FINGERPRINT_KEY = "tgTraceFinding/v1"


def _file_uri(path: str) -> str:
    # A URI reference: percent-encode what a URI cannot hold, keep the slashes.
    return quote(path, safe="/")


def _descriptor(rule: Rule) -> dict:
    from ..explain import explain_rule

    short = rule.name or rule.code
    full = " ".join((rule.description or rule.message or short).split())
    help_markdown = explain_rule(rule)
    help_text = "\n\n".join(
        part for part in (" ".join(rule.rationale.split()), " ".join(rule.fix.split())) if part
    ) or full
    descriptor = {
        "id": rule.code,
        "name": rule.name or rule.code,
        "shortDescription": {"text": short},
        "fullDescription": {"text": full},
        "help": {"text": help_text, "markdown": help_markdown},
        "helpUri": rule.help_uri,
        "defaultConfiguration": {"level": LEVELS[rule.severity]},
        "properties": {"tags": [rule.family] if rule.family else []},
    }
    if rule.message:
        descriptor["messageStrings"] = {"default": {"text": rule.message}}
    return descriptor


def _unknown_descriptor(code: str, finding: Finding) -> dict:
    # A finding from a rule the registry does not know (a custom shape, say)
    # still needs a descriptor for ruleIndex to point at.
    return {
        "id": code,
        "shortDescription": {"text": code},
        "defaultConfiguration": {"level": LEVELS[finding.severity]},
        "properties": {"tags": [finding.family] if finding.family else []},
    }


def _location(finding: Finding) -> dict:
    location: dict = {}
    path = relative_path(finding.file)
    if path is not None:
        if Path(path).is_absolute():
            # Outside the working tree: an absolute file URI, as the spec asks.
            physical: dict = {"artifactLocation": {"uri": Path(path).as_uri()}}
        else:
            physical = {"artifactLocation": {"uri": _file_uri(path), "uriBaseId": "%SRCROOT%"}}
        if finding.line:
            physical["region"] = {"startLine": finding.line}
        location["physicalLocation"] = physical
    name = finding.focus.rsplit("/", 1)[-1].rsplit("#", 1)[-1] or finding.focus
    location["logicalLocations"] = [{"name": name, "fullyQualifiedName": finding.focus, "kind": "resource"}]
    return location


def _result(finding: Finding, index: int) -> dict:
    properties = {"focus": finding.focus, "family": finding.family}
    for key in ("trace", "path", "value"):
        value = getattr(finding, key)
        if value is not None:
            properties[key] = value
    return {
        "ruleId": finding.rule,
        "ruleIndex": index,
        "level": LEVELS[finding.severity],
        "message": {"text": f"{finding.message} ({finding.focus})"},
        "locations": [_location(finding)],
        "partialFingerprints": {FINGERPRINT_KEY: fingerprint(finding)},
        "properties": properties,
    }


def to_sarif(report: Report, rules: dict[str, Rule] | None = None, root: str | None = None) -> dict:
    """The SARIF log as a dict. ``rules`` defaults to the full registry."""
    if rules is None:
        from ..rules import all_rules

        rules = all_rules()
    descriptors = [_descriptor(rule) for rule in rules.values()]
    index = {rule.code: i for i, rule in enumerate(rules.values())}
    results = []
    for finding in report.findings:
        if finding.rule not in index:
            index[finding.rule] = len(descriptors)
            descriptors.append(_unknown_descriptor(finding.rule, finding))
        results.append(_result(finding, index[finding.rule]))
    root_uri = Path(root or os.getcwd()).resolve().as_uri().rstrip("/") + "/"
    run = {
        "tool": {
            "driver": {
                "name": "tg-trace",
                "fullName": "tg-trace, the TrustGraph explainability trace linter",
                "version": __version__,
                "semanticVersion": __version__,
                "informationUri": DOCS_BASE,
                "rules": descriptors,
            }
        },
        "originalUriBaseIds": {"%SRCROOT%": {"uri": root_uri}},
        "invocations": [{"executionSuccessful": True}],
        "results": results,
        "properties": {"summary": report.summary()},
    }
    return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}


def render(report: Report, rules: dict[str, Rule] | None = None, root: str | None = None, **_options) -> str:
    return json.dumps(to_sarif(report, rules=rules, root=root), indent=2, ensure_ascii=False) + "\n"
