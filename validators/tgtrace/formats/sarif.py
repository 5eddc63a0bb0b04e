"""SARIF 2.1.0, the format code-scanning services (GitHub and others) ingest.

Every result names the file and line of the offending triple when the input
format has lines, so code scanning can show it in place; the focus node is
always given as a logical location, and is the only location for input that
had no file (an in-memory graph, standard input).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from pathlib import Path
from urllib.parse import quote

from .. import __version__
from ..ground.escaping import printable
from ..ground.model import Finding, Report, Severity
from ..inputs.excerpt import Excerpt, excerpts
from ..rules import DOCS_BASE, Rule, all_rules
from ..rules.advice import advise
from ..rules.help import explain_rule
from ..run.settings import Output
from .common import relative_path, repository_root

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
# partialFingerprints key: versioned, so a change of the fingerprint recipe is
# seen by code scanning as a new kind of fingerprint rather than new alerts.
FINGERPRINT_KEY = "tgTraceFinding/v2"


def _file_uri(path: str) -> str:
    # A URI reference: percent-encode what a URI cannot hold, keep the slashes. From the name's
    # bytes, so that a file name that is not UTF-8 is its own bytes, percent-encoded.
    return quote(os.fsencode(path), safe="/")


def fingerprint(finding: Finding, path: str | None, occurrence: int) -> str:
    # The file is part of the identity (the same trace committed as .nq and .json is two
    # alerts, not one), and so are the predicate and value and, for exact repeats, their
    # count: code scanning merges results whose fingerprints are equal.
    parts = (finding.rule, finding.focus, finding.trace or "", path or "", finding.path or "",
             finding.value or "", str(occurrence))
    # surrogatepass: a file name that is not UTF-8 still has a fingerprint.
    return hashlib.sha256("\x1f".join(parts).encode("utf-8", "surrogatepass")).hexdigest()[:32]


def _descriptor(rule: Rule) -> dict:
    short = rule.title
    full = " ".join((rule.description or rule.message or short).split())
    help_markdown = explain_rule(rule)
    accepted = f"Accepted values: {', '.join(repr(v) for v in rule.allowed)}." if rule.allowed else ""
    help_text = "\n\n".join(
        part for part in (" ".join(rule.rationale.split()), " ".join(rule.fix.split()), accepted,
                          f"See {rule.help_uri}") if part
    )
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


def _location(finding: Finding, path: str | None, excerpt: Excerpt | None = None) -> dict:
    location: dict = {}
    if path is not None:
        if Path(path).is_absolute():
            # Outside the working tree: an absolute file URI, as the spec asks.
            physical: dict = {"artifactLocation": {"uri": Path(path).as_uri()}}
        else:
            physical = {"artifactLocation": {"uri": _file_uri(path), "uriBaseId": "%SRCROOT%"}}
        if finding.line:
            physical["region"] = {"startLine": finding.line}
            if excerpt is not None:
                # The lines from the triple's first to the term at fault, and where the term is.
                number, text = excerpt.lines[-1]
                region = physical["region"]
                region["snippet"] = {"text": "\n".join(line for _, line in excerpt.lines)}
                if excerpt.start is not None:
                    region.update(endLine=number, startColumn=excerpt.start + 1, endColumn=excerpt.end + 1)
                    if number != finding.line:
                        region["startColumn"] = 1  # the region runs from the triple's first line
        location["physicalLocation"] = physical
    name = finding.focus.rsplit("/", 1)[-1].rsplit("#", 1)[-1] or finding.focus
    location["logicalLocations"] = [{"name": name, "fullyQualifiedName": finding.focus, "kind": "resource"}]
    return location


def _result(finding: Finding, index: int, path: str | None, occurrence: int, trace_model: str | None,
            excerpt: Excerpt | None = None) -> dict:
    properties = {"focus": finding.focus, "family": finding.family}
    if trace_model:
        properties["traceModel"] = trace_model
    for key in ("trace", "path", "value"):
        value = getattr(finding, key)
        if value is not None:
            properties[key] = value
    advice = advise(finding)
    text = f"{finding.message} ({finding.focus})"
    if advice is not None:
        # The value quoted, what the rule accepts instead, the fix and the rule's page.
        text = " ".join([f"{advice.message} ({finding.focus}).", *advice.sentences,
                         advice.help])
    return {
        "ruleId": finding.rule,
        "ruleIndex": index,
        "level": LEVELS[finding.severity],
        # Shown to people as it is: made printable; the properties keep the exact values.
        "message": {"text": printable(text)},
        "locations": [_location(finding, path, excerpt)],
        "partialFingerprints": {FINGERPRINT_KEY: fingerprint(finding, path, occurrence)},
        "properties": properties,
    }


def to_sarif(report: Report, rules: dict[str, Rule] | None = None, root: str | None = None) -> dict:
    """The SARIF log as a dict. ``rules`` defaults to the full registry."""
    if rules is None:
        rules = all_rules()
    root_path = Path(root) if root is not None else repository_root()
    descriptors = [_descriptor(rule) for rule in rules.values()]
    index = {rule.code: i for i, rule in enumerate(rules.values())}
    results = []
    seen: Counter = Counter()
    sources = excerpts(report.findings, report.held)
    for finding in report.findings:
        if finding.rule not in index:
            index[finding.rule] = len(descriptors)
            descriptors.append(_unknown_descriptor(finding.rule, finding))
        path = relative_path(finding.file, root_path)
        identity = (finding.rule, finding.focus, finding.trace, path, finding.path, finding.value)
        seen[identity] += 1
        results.append(_result(finding, index[finding.rule], path, seen[identity],
                               report.trace_models.get(finding.trace or ""), sources.get(finding)))
    root_uri = root_path.absolute().as_uri().rstrip("/") + "/"
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
        "invocations": [{"executionSuccessful": True, **({"toolExecutionNotifications": [
            *([{"level": "warning", "message": {"text": report.gate_off}}] if report.gate_off else []),
            *({"level": "note", "message": {"text": note}} for note in report.notes)]}
            if report.gate_off or report.notes else {})}],
        "results": results,
        "properties": {"summary": report.summary()},
    }
    return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}


def render(report: Report, output: Output) -> str:
    return json.dumps(to_sarif(report, root=output.root), indent=2, ensure_ascii=False) + "\n"
