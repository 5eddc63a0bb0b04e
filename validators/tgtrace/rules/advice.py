"""What a person needs beside a finding to act on it: the value at fault quoted (and shortened),
the values the rule accepts or the nearest one, the fix and the rule's page.

All of it comes from the rule registry (the shapes: ``sh:in``, ``tgl:fix``, the rule's page), the
ontology (its declared terms, for a misspelt class or predicate; ``dcterms:isReplacedBy``, for a
deprecated one) and, for the findings the trace graph says more about, what the capture holds:
:func:`capture_notes` reads it while the graph is at hand (an answer that exists but no link
reaches, the step a missing link should come from), in the words of the trace model
(``tracemodel.traces``) and of the derivation rules of the shapes. ``sh:message`` stays the
standard SHACL template. Every output format that has room shows the same advice.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from functools import cache

from ..ground.errors import TgTraceError
from ..ground.graph import DERIVED, Node, TraceGraph
from ..ground.model import Finding, Hit
from ..ground.namespaces import RDF_TYPE, SH, TG, TGL
from ..tracemodel import naming
from ..tracemodel.behaviour import iterations, repeated_call_groups
from ..tracemodel.naming import curie, shorten
from ..tracemodel.traces import ANSWERS, CHAIN, MIXINS, leaves
from ..tracemodel.vocabulary import ontology_terms, replacements
from . import Rule, all_rules

# Longer values are cut in the middle: a question or an observation can be pages long.
MAX_VALUE = 60
# A value that reads as an IRI (a scheme, no spaces) is shown as one, anything else as text.
_IRI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:\S*$")


def quoted(value: str | None) -> str:
    """A value as a finding shows it: an IRI in its short form, text in double quotes, both shortened."""
    if value is None:
        return "(none)"
    if _IRI.match(value):
        shown = curie(value)
        return shown if shown != value else f"<{shorten(value, MAX_VALUE)}>"
    return '"' + shorten(value, MAX_VALUE).replace('"', '\\"') + '"'


def sentence(text: str) -> str:
    """``text`` as a sentence: capitalised, and ending in one stop (a question keeps its own mark)."""
    text = text.strip()
    if not text:
        return text
    text = text[0].upper() + text[1:]
    return text if text[-1] in ".?!…" else text + "."


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
    # The term the ontology replaces a deprecated one with (its dcterms:isReplacedBy), as a CURIE.
    replacement: str | None = None
    # What the capture shows beside the finding (Finding.notes).
    context: tuple[str, ...] = ()

    @property
    def notes(self) -> list[str]:
        """The value found, when the message does not say it, and what the rule accepts instead:
        its closed set, the nearest value or declared term, the ontology's replacement; then what
        the capture shows beside the finding."""
        notes = [] if self.value_in_message or self.value is None else [f"found {self.value}"]
        if self.allowed:
            notes.append(f"expected one of {', '.join(self.allowed)}")
        if self.replacement:
            notes.append(f"the ontology replaces it with {self.replacement} (dcterms:isReplacedBy)")
        elif self.suggestion:
            notes.append(f"did you mean {self.suggestion}?")
        notes.extend(self.context)
        return notes

    @property
    def sentences(self) -> list[str]:
        """The notes as sentences, for formats that run them together in one paragraph."""
        return [sentence(note) for note in self.notes]

    @property
    def help(self) -> str:
        """The fix and the rule's page, as one line."""
        return " ".join(part for part in (sentence(self.fix), f"See {self.url}") if part)

    def lines(self) -> list[str]:
        """The advice as the lines under a finding (``note:`` and ``help:``): what the value should
        be on one line, each thing the capture shows on its own."""
        own = self.notes[:len(self.notes) - len(self.context)]
        return ([f"note: {'; '.join(own)}"] if own else []) + [f"note: {note}" for note in self.context] \
            + [f"help: {self.help}"]


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
    try:
        rules = all_rules()
    except TgTraceError:  # shapes that do not read or define a code twice (check reports it): no advice
        return None
    rule = rules.get(finding.rule)
    if rule is None:
        return None
    deprecated, replaced = _replacement(rule, finding)
    # A deprecated term is declared: the nearest spelling would be another term altogether.
    candidates, term = ((), None) if deprecated else _candidates(rule, finding)
    nearest = _nearest(term, candidates)
    # A long closed set (the ontology's terms) is not listed: the nearest term and the rule's page are.
    allowed = tuple(quoted(v) for v in rule.allowed)
    at_fault = finding.value if finding.value != finding.focus else None
    return Advice(message=message_of(finding, rule), value=quoted(at_fault) if at_fault else None,
                  allowed=allowed, suggestion=quoted(nearest) if nearest and nearest != term else None,
                  fix=" ".join(rule.fix.split()), url=rule.help_uri,
                  value_in_message="{?value}" in rule.message and not (finding.path or "").startswith(TGL),
                  replacement=curie(replaced) if replaced else None, context=finding.notes)


def _replacement(rule: Rule, finding: Finding) -> tuple[bool, str | None]:
    """Whether a vocabulary finding names a deprecated term, and the term the ontology replaces
    it with (dcterms:isReplacedBy), if it names one."""
    if rule.family != "vocabulary":
        return False, None
    term = (finding.value if finding.path == RDF_TYPE else finding.path) or ""
    found = replacements()
    return term in found, found.get(term)


# ---------------------------------------------------------------------------
# What the capture shows beside a finding, read while the trace graph is at hand.
# ---------------------------------------------------------------------------

_TERMINAL_ANSWER_REQUIRED = TGL + "TerminalAnswerRequiredConstraintComponent"
_MIN_COUNT = SH + "MinCountConstraintComponent"
_REPEATED_CALL = TGL + "RepeatedCallConstraintComponent"
_STOPPED_LOOP = TGL + "StoppedLoopTarget"
# The part of a derivation rule's message that says what its entities derive from ("a Focus
# derives from its Exploration"), before what the finding found instead.
_DERIVES_FROM = re.compile(r"^(.*\bderives (?:only )?from .*?),? not \{\?value\}$")


def capture_notes(graph: TraceGraph, hit: Hit) -> tuple[str, ...]:
    """What the capture shows beside a hit that its rule's message cannot say: for a trace that
    reaches no answer, the answer that exists but that no link reaches, and the link it lacks; for
    an entity without a derivation, what the trace model derives it from and the step of its trace
    that nothing follows. Empty for every other hit (nothing is read for them)."""
    if hit.component == _TERMINAL_ANSWER_REQUIRED:
        return _unlinked_answers(graph, hit.focus)  # type: ignore[arg-type]  # a hit's focus is a node of the graph
    if hit.component == _MIN_COUNT and hit.path == DERIVED:
        return _expected_predecessor(graph, hit.focus)  # type: ignore[arg-type]  # a hit's focus is a node of the graph
    if hit.component == _REPEATED_CALL:
        return _repeated(graph, hit)
    if _targets(hit, _STOPPED_LOOP):
        count = iterations(graph, hit.focus)  # type: ignore[arg-type]  # a hit's focus is a node of the graph
        return (f"the loop ran {count} iteration{'' if count == 1 else 's'} before it stopped",)
    return ()


def _targets(hit: Hit, target_type: str) -> bool:
    """Whether the hit's shape selects its focus nodes with the target type ``target_type``."""
    return any(t.kind == "custom" and t.value[0] == target_type for t in getattr(hit.shape, "targets", ()))


_SHOWN_CALLS = 5  # calls a note names before it says how many more


def _repeated(graph: TraceGraph, hit: Hit) -> tuple[str, ...]:
    """Each tool the trace calls with equal arguments as often as the rule counts, its arguments
    and its calls (the Analyses), in order."""
    constraint = next((c for c in getattr(hit.shape, "constraints", ()) if c.component == _REPEATED_CALL), None)
    at_least = constraint.params.get(TGL + "repeatedCalls") if constraint is not None else None
    if at_least is None:
        return ()
    notes = []
    for tool, arguments, calls in repeated_call_groups(graph, hit.focus, int(at_least)):  # type: ignore[arg-type]  # a node
        shown = ", ".join(f"<{call}>" for call in calls[:_SHOWN_CALLS])
        more = f" and {len(calls) - _SHOWN_CALLS} more" if len(calls) > _SHOWN_CALLS else ""
        text = arguments if len(arguments) <= 80 else arguments[:79] + "…"
        notes.append(f"{quoted(tool)} called {len(calls)} times with the arguments {text}: {shown}{more}")
    return tuple(notes)




def _sessions(graph: TraceGraph) -> dict[str, list]:
    """Each session id (the UUID TrustGraph writes into every IRI of one trace) -> its answers and
    chain leaves: the only nodes advice names, so the other nodes of a large capture are not read."""
    wanted = set(leaves(graph))
    for (kinds, _), nodes in graph.kinds().items():
        if not kinds.isdisjoint(ANSWERS):
            wanted.update(nodes)
    found: dict[str, list] = {}
    types = graph.types
    for node in wanted:
        if type(node) is str and node in types and (match := naming.UUID.search(node)):
            found.setdefault(match.group(0), []).append(node)
    return found


def _session_of(graph: TraceGraph, node: Node) -> list:
    """The other answers and chain leaves written for the session ``node`` belongs to (by the UUID
    in their IRIs)."""
    match = naming.UUID.search(node) if type(node) is str else None
    if match is None:
        return []
    nodes = graph.fact("nodes by session", _sessions, for_rules=True).get(match.group(0), ())
    return [n for n in nodes if n != node]


def _kind(graph: TraceGraph, node: Node) -> str:
    kinds = sorted(curie(k) for k in graph.types_of(node) if k.startswith(TG) and k not in MIXINS)
    return ", ".join(kinds) or "an entity"


def _unlinked_answers(graph: TraceGraph, root: Node) -> tuple[str, ...]:
    """The answers of the root's session (ANSWERS) that its chain (CHAIN) does not reach, and
    where the chain above each one stops short of the root."""
    reached = graph.descendants(root)
    answers = sorted(n for n in _session_of(graph, root)
                     if n not in reached and not graph.types_of(n).isdisjoint(ANSWERS))
    notes: list[str] = []
    for answer in answers[:2]:
        head = f"{quoted(answer)} ({_kind(graph, answer)}) is this trace's answer, but no link reaches it"
        if not any(graph.values(answer, link) for link in CHAIN):
            notes.append(f"{head}: it has no {curie(CHAIN[0])}")
            notes.extend(_expected_predecessor(graph, answer))
            continue
        # Its chain goes up to a step that links to nothing of the trace: the link missing is there.
        tops = sorted(n for n in {answer} | graph.ancestors(answer)
                      if type(n) is str and not any(graph.values(n, link) for link in CHAIN))
        for top in tops[:1]:
            if not graph.types_of(top):
                notes.append(f"{head}: its chain leads to {quoted(top)}, which the input does not describe")
            elif top in graph.heads:
                notes.append(f"{head}: its chain leads to another Question, {quoted(top)}")
            else:
                notes.append(f"{head}: its chain stops at {quoted(top)} ({_kind(graph, top)}), which has no "
                             f"{curie(CHAIN[0])}")
                notes.extend(_expected_predecessor(graph, top))
    return tuple(notes)


@cache
def _derivation_rules() -> tuple[tuple[frozenset, str], ...]:
    """(the classes a derivation rule targets, what it says they derive from, with its code)."""
    found = []
    for rule in all_rules().values():
        match = _DERIVES_FROM.match(rule.message) if rule.path == DERIVED else None
        if match:
            found.append((frozenset(rule.targets), f"{match.group(1)} ({rule.code})"))
    return tuple(found)


def _expected_predecessor(graph: TraceGraph, node: Node) -> tuple[str, ...]:
    """What the trace model derives an entity of this kind from, in the words of the derivation
    rules of the shapes, and the one step of its trace that nothing follows, when there is one."""
    kinds = graph.types_of(node)
    said = [text for targets, text in _derivation_rules() if not kinds.isdisjoint(targets)]
    notes = ["; ".join(said)] if said else []
    below = graph.descendants(node)
    ends = [n for n in _session_of(graph, node) if n in leaves(graph) and n not in below
            and not graph.owners.get(n)]  # a Thought or a selection is owned, never a step
    if len(ends) == 1:
        notes.append(f"here that is {quoted(ends[0])} ({_kind(graph, ends[0])}), the step of this trace that "
                     "nothing follows")
    return tuple(notes)
