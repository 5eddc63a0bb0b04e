"""Rule help: human-readable explanations of rules (named so, not "explain", in a project about
explainability traces).

``tg-trace rule CODE``, ``tg-trace rules``, the SARIF help text and the docs
site's rule reference all print what these functions return, so a rule reads
the same wherever a user meets it.
"""

from __future__ import annotations

import re

from .namespaces import DCTERMS, OWL, PROV, RDF, RDFS, SH, SKOS, TG, TGL, TGSH, XSD
from .rules import Rule, all_rules

# Prefixes used when an IRI is shown to a person; the longest namespace wins so
# that the shapes namespace is not mistaken for a term of another one.
PREFIXES = {
    "tg": TG,
    "prov": PROV,
    "rdf": RDF,
    "rdfs": RDFS,
    "xsd": XSD,
    "owl": OWL,
    "sh": SH,
    "skos": SKOS,
    "dcterms": DCTERMS,
    "tgsh": TGSH,
    "tgl": TGL,
}


def curie(iri: str | None) -> str:
    """``https://trustgraph.ai/ns/Question`` -> ``tg:Question``; other IRIs unchanged."""
    if not iri:
        return ""
    best = None
    for prefix, namespace in PREFIXES.items():
        if iri.startswith(namespace) and (best is None or len(namespace) > len(best[1])):
            best = (prefix, namespace)
    if best is None:
        return iri
    local = iri[len(best[1]) :]
    # A local name with characters Turtle would need escaped is clearer in full.
    if not local or any(c in local for c in "/#?:"):
        return iri
    return f"{best[0]}:{local}"


def _paragraph(text: str) -> str:
    # Shapes keep long literals on indented continuation lines; collapse that
    # layout but keep blank-line paragraph breaks.
    paragraphs = [" ".join(part.split()) for part in text.strip().split("\n\n")]
    return "\n\n".join(p for p in paragraphs if p)


def readable_message(template: str) -> str:
    """A message template with its SHACL placeholders as a reader reads them: {?value} as ‹value›."""
    return re.sub(r"\{[?$](\w+)\}", lambda m: f"‹{m.group(1)}›", template)


def explain_rule(rule: Rule) -> str:
    """The full explanation of one rule, as Markdown."""
    lines = [f"# {rule.code} {rule.name}".rstrip(), ""]
    facts = [
        ("Family", rule.family),
        ("Severity", str(rule.severity)),
        ("Applies to", ", ".join(curie(t) for t in rule.targets)),
        ("Predicate", curie(rule.path) if rule.path else ""),
        ("Defined by", curie(rule.shape)),
        ("Message", readable_message(rule.message)),
        ("Accepted values", ", ".join(f'"{v}"' for v in rule.allowed)),
        ("Since", f"TrustGraph {rule.since}. On a trace of an older release its findings are info, "
                  f"not {rule.severity}; they are errors when the trace is also older than --target-version"
                  if rule.since else ""),
    ]
    lines += [f"- **{label}:** {value}" for label, value in facts if value]
    sections = [
        ("What it checks", rule.description),
        ("Why it matters", rule.rationale),
        ("How to fix", rule.fix),
    ]
    for title, body in sections:
        if body.strip():
            lines += ["", f"## {title}", "", _paragraph(body)]
    if rule.fault is not None:
        fault = rule.fault
        lines += [
            "",
            "## Example",
            "",
            f"Applying this SPARQL Update to the example trace `examples/{fault.trace}`:",
            "",
            "```sparql",
            fault.sparql.strip(),
            "```",
            "",
            f"makes {rule.code} report `{curie(fault.focus)}`.",
        ]
    lines += ["", f"Documentation: {rule.help_uri}"]
    return "\n".join(lines) + "\n"


def list_rules(rules: dict[str, Rule] | None = None) -> str:
    """One line per rule: code, severity, family and name, aligned in columns."""
    rules = all_rules() if rules is None else rules
    rows = [(r.code, str(r.severity), r.family, r.name) for r in rules.values()]
    header = ("code", "severity", "family", "name")
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(3)]
    out = []
    for row in [header, *rows]:
        cells = [row[i].ljust(widths[i]) for i in range(3)] + [row[3]]
        out.append("  ".join(cells).rstrip())
    out.append(f"\n{len(rows)} rules; 'tg-trace rule CODE' explains one.")
    return "\n".join(out) + "\n"
