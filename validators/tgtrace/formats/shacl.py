"""Findings as a W3C SHACL validation report, in Turtle (SHACL 1.0, section 3.6).

One ``sh:ValidationReport`` whose ``sh:conforms`` is SHACL's (true when it holds no result), and
one ``sh:result`` per finding: its focus node, result path (the source shape's path, or the
predicate a node shape's result names), value, severity, source shape, source constraint
component and message, as a SHACL processor running the shapes writes them, plus the rule's code
(``tgl:code``) and the advice the text format prints under a finding (``tgl:note``, ``tgl:fix``
and the rule's page as ``rdfs:seeAlso``). So SHACL tooling and RDF pipelines read tg-trace's findings as they read any
engine's, and the report can be stored beside the traces it judges. The terms are written as the
trace holds them, RDF 1.2 triple terms included; every string and IRI is in Turtle's own escapes.

A finding no shape made (an input's notice, a self-check problem) is a result with its code,
severity and message, whose focus node is the text it names; it has no source shape.
"""

from __future__ import annotations

import hashlib
import re

import pyoxigraph as ox
import rdflib

from ..ground.escaping import turtle_iri, turtle_string
from ..ground.model import Finding, Report, Severity
from ..ground.namespaces import SH, TGL, XSD_STRING
from ..rules import model
from ..rules.advice import advise
from ..run.settings import Output
from ..shacl.shapes import Path

SEVERITIES = {Severity.ERROR: "sh:Violation", Severity.WARNING: "sh:Warning", Severity.INFO: "sh:Info"}
PREFIXES = f"@prefix sh: <{SH}> .\n@prefix tgl: <{TGL}> .\n@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
# A blank node label Turtle reads as it is; any other is written as one made from it.
_LABEL = re.compile(r"[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_-])?")
_LANGUAGE = re.compile(r"[A-Za-z]+(?:-[A-Za-z0-9]+)*")


def _term(node: object) -> str:
    """A node of the trace graph (an IRI or "_:" blank node as text, a pyoxigraph literal or
    triple term) in Turtle 1.2."""
    if isinstance(node, str):
        if node.startswith("_:"):
            label = node[2:]
            return node if _LABEL.fullmatch(label) else "_:b" + hashlib.sha1(label.encode("utf-8", "surrogatepass")).hexdigest()
        return turtle_iri(node)
    if isinstance(node, ox.NamedNode):
        return turtle_iri(node.value)
    if isinstance(node, ox.BlankNode):
        return _term("_:" + node.value)
    if isinstance(node, ox.Literal):
        if node.language and _LANGUAGE.fullmatch(node.language):
            return f"{turtle_string(node.value)}@{node.language}"
        if node.datatype.value == XSD_STRING:
            return turtle_string(node.value)
        return f"{turtle_string(node.value)}^^{turtle_iri(node.datatype.value)}"
    if isinstance(node, ox.Triple):
        return f"<<( {_term(node.subject)} {_term(node.predicate)} {_term(node.object)} )>>"
    return turtle_string(node)


def _path(path: Path) -> str:
    """A SHACL property path in Turtle."""
    kind, arg = path.kind, path.arg
    if kind == "pred":
        return turtle_iri(arg)
    if kind == "seq":
        return "( " + " ".join(_path(p) for p in arg) + " )"
    if kind == "alt":
        return "[ sh:alternativePath ( " + " ".join(_path(p) for p in arg) + " ) ]"
    return f"[ sh:{kind}Path {_path(arg)} ]"


def _result_path(finding: Finding) -> str | None:
    """The source shape's path, as SHACL names a property shape's result; else the predicate a
    node shape's result names (a SPARQL-based constraint's ?path)."""
    source = finding.source
    shape = model().shapes.get(rdflib.URIRef(source.shape)) if source is not None and source.shape else None
    if shape is not None and shape.path is not None:
        return _path(shape.path)
    return turtle_iri(finding.path) if finding.path else None


def _result(finding: Finding) -> str:
    source = finding.source
    properties = ["a sh:ValidationResult"]
    if source is not None:
        properties.append(f"sh:focusNode {_term(source.focus)}")
        path = _result_path(finding)
        if path is not None:
            properties.append(f"sh:resultPath {path}")
        if source.value is not None:
            properties.append(f"sh:value {_term(source.value)}")
    else:
        properties.append(f"sh:focusNode {turtle_string(finding.focus)}")
    properties.append(f"sh:resultSeverity {SEVERITIES[finding.severity]}")
    if source is not None and source.shape:
        properties.append(f"sh:sourceShape {turtle_iri(source.shape)}")
    if source is not None and source.component:
        properties.append(f"sh:sourceConstraintComponent {turtle_iri(source.component)}")
    properties.append(f"sh:resultMessage {turtle_string(finding.message)}")
    properties.append(f"tgl:code {turtle_string(finding.rule)}")
    advice = advise(finding)
    if advice is not None:
        properties += [f"tgl:note {turtle_string(note)}" for note in advice.notes]
        properties += [f"tgl:fix {turtle_string(advice.fix)}", f"rdfs:seeAlso {turtle_iri(advice.url)}"]
    return "[\n        " + " ;\n        ".join(properties) + "\n    ]"


def render(report: Report, output: Output) -> str:
    lines = [PREFIXES, "[] a sh:ValidationReport ;", f"    sh:conforms {'false' if report.findings or report.not_shown else 'true'}"]
    for comment in ([report.gate_off] if report.gate_off else []) + report.notes:
        lines[-1] += " ;"
        lines.append(f"    rdfs:comment {turtle_string(comment)}")
    if report.findings:
        lines[-1] += " ;"
        lines.append("    sh:result " + ", ".join(_result(finding) for finding in report.findings))
    return "\n".join(lines) + " .\n"
