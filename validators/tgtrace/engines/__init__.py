"""Rule engines: each checks a trace graph and yields a Hit per finding.

``fast`` (the default) evaluates the shapes by constraint components over the
trace graph; ``shacl`` runs pySHACL on the same shapes, as the reference.

The project's own components (``trustgraph``) register here, with the
package: the generic engine (``fast``, ``component``, ``core``) knows them
only as entries of the component registry.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Hit:
    """One rule that fired: its code, the focus node, the predicate and value at fault (graph keys)."""

    rule: str
    focus: object
    path: str | None
    value: object


from . import trustgraph  # noqa: E402  (registers the project's components; it needs nothing above)

__all__ = ["Hit", "trustgraph"]
