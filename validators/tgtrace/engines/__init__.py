"""Rule engines: each checks a trace graph and yields a ``model.Hit`` per finding.

``fast`` (the default) evaluates the shapes by constraint components over the
trace graph; ``shacl`` runs pySHACL on the same shapes, as the reference.

The project's own components (``trustgraph``) register here, with the
package: the generic engine (``fast``, ``component``, ``core``) knows them
only as entries of the component registry.
"""

from __future__ import annotations

from . import trustgraph

__all__ = ["trustgraph"]
