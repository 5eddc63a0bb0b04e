"""The rules: what the shapes and the ontology say, and every code a finding can carry.

``registry`` is the registry of codes, families and faults; ``components`` TrustGraph's own
constraint components; ``help`` and ``advice`` what a person reads of a rule and beside a finding;
``bundle`` the published one-file shapes. The registry's names are this package's public API.
"""

from __future__ import annotations

from .registry import (
    DOCS_BASE,
    MESSAGE_VARIABLES,
    PLACEHOLDER,
    UPDATE_PREFIXES,
    Family,
    Fault,
    Rule,
    UnknownRule,
    all_rules,
    families,
    fill_message,
    get_rule,
    model,
    model_for,
)

__all__ = ["DOCS_BASE", "MESSAGE_VARIABLES", "PLACEHOLDER", "UPDATE_PREFIXES", "Fault", "Family", "Rule",
           "UnknownRule", "all_rules", "families", "fill_message", "get_rule", "model", "model_for"]
