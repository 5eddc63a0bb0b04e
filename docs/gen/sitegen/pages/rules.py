"""The rule reference: an index of every rule by family, one page per rule at a stable address
(rules/T001/, as the linter's help links name it) with its explanation and a failing example; and
the rule lists of the concept pages."""

from __future__ import annotations

import re

from tgtrace.ground import resources
from tgtrace.rules import all_rules, families
from tgtrace.rules.help import explain_rule

from .. import faults
from ..context import Context

SRC = "rules/index.md"


def rule_src(code: str) -> str:
    """The rule's own page: rules/T001/index.md, served as rules/T001/ (``Rule.page``)."""
    return f"rules/{code}/index.md"


def page_list() -> list[str]:
    """Every rule's page, in code order (the nav lists them under the index)."""
    return [rule_src(code) for code in all_rules()]


def check(context: Context) -> list[str]:
    """What stops the build: a family the reference could not introduce."""
    return [f"rule family {name!r} has no rdfs:comment in the shapes" for name, family in families().items()
            if not family.description]


def explain_body(rule) -> list[str]:
    """The rule's explanation from ``tgtrace.rules.help``, as part of a longer page.

    The title, the short example and the documentation link are left out: the
    entry has its own heading, a fuller example, and is the documentation.
    """
    out, skipping = [], False
    for line in explain_rule(rule).splitlines():
        if line.startswith("# "):
            continue
        if line.startswith("## "):
            skipping = line[3:].strip().lower() in ("example", "examples")
            if not skipping:
                out.append("#### " + line[3:].strip())
            continue
        if skipping or line.startswith("Documentation: "):
            continue
        out.append(line)
    while out and not out[-1].strip():
        out.pop()
    while out and not out[0].strip():
        out.pop(0)
    return out


def rule_body(context: Context, rule, src: str) -> str:
    """The explanation, saying what a rule of a value shape applies to."""
    body = context.linkify("\n".join(explain_body(rule)), src)
    scope = context.vocab.rule_scopes.get(rule.code, [])
    if scope and not rule.targets:
        # Rules of value shapes (sh:targetSubjectsOf) apply by predicate, not class: say so
        # where the entry says what the rule checks.
        subjects = [context.link(p, src) for kind, p in scope if kind == "subject"]
        objects = [context.link(p, src) for kind, p in scope if kind == "object"]
        parts = []
        if subjects:
            parts.append("every node that has " + ", ".join(subjects))
        if objects:
            parts.append("every value of " + ", ".join(objects))
        line = "It checks " + "; ".join(parts) + ", whatever its type.\n\n"
        marker = "#### Why it matters"
        body = body.replace(marker, line + marker, 1) if marker in body else body + "\n\n" + line
    return body


def pages(context: Context, lint=None, render=None) -> dict[str, str]:
    """The rule index and a page per rule; ``lint`` and ``render`` (the linter's) show what it
    prints for each failing example."""
    rules = all_rules()
    sections = []
    out = {}
    for name, family in families().items():
        members = [r for r in rules.values() if r.family == name]
        sections.append((name, family, members))
        for rule in members:
            src = rule_src(rule.code)
            examples = [faults.build_example(rule, context.examples_dir, lint=lint, render=render, fault=fault)
                        for fault in rule.faults]
            # On its own page a rule's sections are the page's own: level 2.
            body = re.sub(r"(?m)^#### ", "## ", rule_body(context, rule, src))
            out[src] = context.render("rule.md.j2", src, rule=rule, body=body,
                                      example=examples[0] if examples else None, further=examples[1:],
                                      family_description=family.description)
    out[SRC] = context.render("rules-index.md.j2", SRC, rules=rules.values(), sections=sections,
                              shapes_files=[path.name for path in resources.shapes_paths()])
    return out


def families_directive(context: Context, args, options, src: str) -> str:
    """<!-- tgdocs:families -->: each rule family, what it checks and its rules."""
    rules = all_rules().values()
    listed = [(name, family, [r.code for r in rules if r.family == name]) for name, family in families().items()]
    return context.render("directives/families.md.j2", src, families=listed).removesuffix("\n")


def rules_directive(context: Context, args, options, src: str) -> str:
    """<!-- tgdocs:rules [family=NAME] -->: the rules (of one family), each with its message."""
    family = options.get("family")
    chosen = [r for r in all_rules().values() if family is None or r.family == family]
    return context.render("directives/rules.md.j2", src, rules=chosen).removesuffix("\n")


DIRECTIVES = {
    "families": families_directive,
    "rules": rules_directive,
}
