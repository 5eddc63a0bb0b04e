"""The rule registry: every rule the shapes define, with its documentation.

A rule is a named shape carrying ``tgl:code``; its family, severity, message,
documentation and a real-trace fault recipe live on the same node, so the
shapes are the only place a rule is defined. The registry is read from the
shapes by ``tgtrace.shacl.shapes`` and is what the linter, the formats, the docs
site and the tests list and explain.
"""

from __future__ import annotations

import difflib
import re
import tomllib
from collections.abc import Iterable
from functools import cache
from pathlib import Path

import rdflib

from ..ground.errors import TgTraceError
from ..ground.model import Severity
from ..ground.namespaces import SH
from ..ground.resources import shapes_graph

# The rule and fault types are what the shapes reader makes; they are this registry's public API.
from ..shacl.shapes import DOCS_BASE, UPDATE_PREFIXES, Family, Fault, Rule, ShapesModel

# The packaged rules use TrustGraph's own constraint components: whoever reads the rules can run them.
from . import components  # noqa: F401  (registers them with the engine's component registry)

__all__ = ["DOCS_BASE", "MESSAGE_VARIABLES", "PLACEHOLDER", "UPDATE_PREFIXES", "Fault", "Family", "Rule",
           "UnknownRule", "all_rules", "families", "fill_message", "get_rule", "model", "model_for"]

# The variables a rule's sh:message may name, as {?name} or {$name} (SHACL 1.0, 3.6.2): what a
# finding fills in. ``tg-trace check`` reports a placeholder naming anything else.
MESSAGE_VARIABLES = ("value", "path")
PLACEHOLDER = re.compile(r"\{([?$])([A-Za-z_][A-Za-z0-9_]*)\}")


def fill_message(message: str, variables: dict[str, str]) -> str:
    """The message with each placeholder of a known variable replaced by its text."""
    return PLACEHOLDER.sub(lambda m: variables.get(m.group(2), m.group(0)), message)


class UnknownRule(TgTraceError, KeyError):
    def __init__(self, code: str, known: Iterable[str] = ()) -> None:
        super().__init__(code)
        self.hint = difflib.get_close_matches(code.upper(), sorted(known), n=1)

    def __str__(self) -> str:
        suggestion = f" (did you mean {self.hint[0]}?)" if self.hint else ""
        return f"unknown rule code {self.args[0]!r}{suggestion}; 'tg-trace rules' lists them"


@cache
def model() -> ShapesModel:
    """The packaged (or TG_TRACE_SHAPES) shapes, read once."""
    return ShapesModel(shapes_graph())


@cache
def _activated(codes: frozenset[str]) -> ShapesModel:
    graph = rdflib.Graph()
    graph += shapes_graph()  # a copy: the packaged graph is shared
    for code in codes:
        graph.remove((rdflib.URIRef(model().rules[code].shape), rdflib.URIRef(SH + "deactivated"), None))
    return ShapesModel(graph)


def model_for(codes: frozenset[str] | None) -> ShapesModel:
    """The shapes as tg-trace runs them for the selected rules: the opt-in rules are published
    sh:deactivated true, so that any SHACL processor leaves them out by default, and run here
    when selected."""
    opt_in = {name for name, family in families().items() if family.opt_in}
    selected = frozenset(code for code, rule in model().rules.items()
                         if rule.family in opt_in and codes is not None and code in codes)
    return _activated(selected) if selected else model()


@cache
def all_rules() -> dict[str, Rule]:
    """Every code a finding can carry, by code, in code order: the shapes' rules, and those of
    ``codes.toml`` (what ``tg-trace check`` finds, what a run says of its input)."""
    return dict(sorted({**model().rules, **_other_codes()[1]}.items()))


@cache
def families() -> dict[str, Family]:
    """The rule families, by name, in order: the shapes' own, then those of ``codes.toml``."""
    found = {**model().families, **_other_codes()[0]}
    return dict(sorted(found.items(), key=lambda item: (item[1].order, item[0])))


CODES = Path(__file__).with_name("codes.toml")


@cache
def _other_codes() -> tuple[dict[str, Family], dict[str, Rule]]:
    """The families and rules ``codes.toml`` defines (no shape carries them: they have no fault)."""
    with CODES.open("rb") as handle:
        data = tomllib.load(handle)
    found_families = {name: Family(iri="", name=name, title=entry["title"], description=entry["description"],
                                   order=entry["order"]) for name, entry in data["families"].items()}
    rules = {code: Rule(code=code, name=entry["name"], family=entry["family"],
                        severity=Severity.parse(entry["severity"]), message=entry["message"],
                        description=entry["description"], rationale=entry["rationale"], fix=entry["fix"],
                        shape="", node_shapes=(), targets=(), path=None, components=(), faults=())
             for code, entry in data["codes"].items()}
    return found_families, rules


def get_rule(code: str) -> Rule:
    # A code of codes.toml is known without the shapes: tg-trace check names the shapes that do
    # not parse by one (K010).
    other = _other_codes()[1]
    if code.upper() in other:
        return other[code.upper()]
    rules = all_rules()
    try:
        return rules[code.upper()]
    except KeyError:
        raise UnknownRule(code, rules) from None
