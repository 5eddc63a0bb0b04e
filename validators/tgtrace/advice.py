"""What a person needs beside a finding to act on it: the value at fault quoted (and shortened),
the values the rule accepts or the nearest one, the fix and the rule's page.

All of it comes from the rule registry (the shapes: ``sh:in``, ``tgl:fix``, the rule's page) and
the ontology (its declared terms, for a misspelt class or predicate); ``sh:message`` stays the
standard SHACL template. Every output format that has room shows the same advice.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from .model import Finding
from .namespaces import RDF_TYPE, TG, TGL
from .rulehelp import curie
from .rules import Rule, all_rules
from .vocabulary import ontology_terms

# Longer values are cut in the middle: a question or an observation can be pages long.
MAX_VALUE = 60
# A value that reads as an IRI (a scheme, no spaces) is shown as one, anything else as text.
_IRI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:\S*$")


def shorten(text: str, limit: int = MAX_VALUE) -> str:
    """``text`` cut to ``limit`` characters with an ellipsis in the middle."""
    if len(text) <= limit:
        return text
    head = (limit - 1) * 2 // 3
    return text[:head] + "…" + text[len(text) - (limit - 1 - head):]


_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def short_iri(iri: str, limit: int = 20) -> str:
    """An IRI as a person reads it in a table: its CURIE, else its last segments with any UUID
    cut to its first 8 digits (``…/i3/observation``, ``…agent:33a7dbc8…``). Where it is shown,
    the full IRI goes with it (a tooltip, the copied text)."""
    shown = curie(iri)
    if shown != iri:
        return shown
    segments = re.split(r"(?<=[/#:])", _UUID.sub(lambda m: m.group(0)[:8] + "…", iri))
    tail, kept = "", 0
    for segment in reversed(segments):
        if tail and len(segment) + len(tail) > limit:
            break
        tail, kept = segment + tail, kept + 1
    if kept == len(segments):
        return tail
    # "…/i3/observation": the separator before the tail says a path was cut.
    cut = segments[len(segments) - kept - 1]
    return "…" + (cut[-1] if cut[-1] in "/#" else "") + tail


def quoted(value: str | None) -> str:
    """A value as a finding shows it: an IRI in its short form, text in double quotes, both shortened."""
    if value is None:
        return "(none)"
    if _IRI.match(value):
        shown = curie(value)
        return shown if shown != value else f"<{shorten(value)}>"
    return '"' + shorten(value).replace('"', '\\"') + '"'


@dataclass(frozen=True)
class Advice:
    message: str  # the finding's message with the value quoted
    value: str | None  # the value at fault, quoted
    allowed: tuple[str, ...]  # the values the rule accepts, quoted
    suggestion: str | None  # the nearest accepted value (or declared term), quoted
    fix: str
    url: str

    # Whether the message already quotes the value (its template has {?value}).
    value_in_message: bool = True

    @property
    def notes(self) -> list[str]:
        """The value found, when the message does not say it, and what the rule accepts instead:
        its closed set, the nearest value or declared term."""
        notes = [] if self.value_in_message or self.value is None else [f"found {self.value}"]
        if self.allowed:
            notes.append(f"expected one of {', '.join(self.allowed)}")
        if self.suggestion:
            notes.append(f"did you mean {self.suggestion}?")
        return notes

    @property
    def help(self) -> str:
        """The fix and the rule's page, as one line."""
        return " ".join(part for part in (self.fix, f"See {self.url}") if part)

    def lines(self) -> list[str]:
        """The advice as the lines under a finding (``note:`` and ``help:``)."""
        return ([f"note: {'; '.join(self.notes)}"] if self.notes else []) + [f"help: {self.help}"]


def _candidates(rule: Rule, finding: Finding) -> tuple[tuple[str, ...], str | None]:
    """The closed set the value at fault was checked against, and the term to match against it."""
    if rule.allowed:
        return rule.allowed, finding.value
    if rule.family != "vocabulary":
        return (), None
    # A misspelt tg: class or predicate: the ontology's declared terms are the closed set.
    terms = ontology_terms()
    if finding.path == RDF_TYPE:
        if finding.value and finding.value.startswith(TG) and finding.value not in terms.classes:
            return tuple(sorted(terms.classes)), finding.value
        return (), None
    if finding.path and finding.path.startswith(TG) and finding.path not in terms.predicates:
        return tuple(sorted(terms.predicates)), finding.path
    return (), None


def _nearest(term: str | None, candidates: tuple[str, ...]) -> str | None:
    if not term or not candidates:
        return None
    if term.startswith(TG):
        # Compared by local name: the namespace they share would make every term look close.
        names = {c[len(TG):]: c for c in candidates if c.startswith(TG)}
        match = difflib.get_close_matches(term[len(TG):], list(names), n=1, cutoff=0.6)
        return names[match[0]] if match else None
    lowered = {c.lower(): c for c in candidates}
    match = difflib.get_close_matches(term.lower(), list(lowered), n=1, cutoff=0.6)
    return lowered[match[0]] if match else None


def message_of(finding: Finding, rule: Rule | None) -> str:
    """The finding's message with its value quoted and shortened, as the template placed it.
    (A value of the linter's own predicates, tgl:, describes the fault and is shown as it is.)"""
    if rule is None or ("{?value}" not in rule.message and "{?path}" not in rule.message) \
            or (finding.path or "").startswith(TGL):
        return finding.message
    value, path = finding.value or "(none)", finding.path or "(none)"
    plain = rule.message.replace("{?value}", value).replace("{?path}", path)
    if not finding.message.startswith(plain):
        return finding.message  # a message the run rewrote: shown as it is
    shown = rule.message.replace("{?value}", quoted(finding.value)).replace(
        "{?path}", quoted(finding.path) if finding.path else "(none)")
    return shown + finding.message[len(plain):]


def advise(finding: Finding) -> Advice | None:
    """The advice for a finding of a known rule (None for self-check findings and unknown codes)."""
    rule = all_rules().get(finding.rule)
    if rule is None:
        return None
    candidates, term = _candidates(rule, finding)
    nearest = _nearest(term, candidates)
    # A long closed set (the ontology's terms) is not listed: the nearest term and the rule's page are.
    allowed = tuple(quoted(v) for v in rule.allowed)
    at_fault = finding.value if finding.value != finding.focus else None
    return Advice(message=message_of(finding, rule), value=quoted(at_fault) if at_fault else None,
                  allowed=allowed, suggestion=quoted(nearest) if nearest and nearest != term else None,
                  fix=" ".join(rule.fix.split()), url=rule.help_uri,
                  value_in_message="{?value}" in rule.message and not (finding.path or "").startswith(TGL))
