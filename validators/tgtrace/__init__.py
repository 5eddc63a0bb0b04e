"""tgtrace: the ontology, SHACL shapes and linter for TrustGraph explainability traces."""

from typing import Any

from .ground.model import Finding, Report, Severity

__all__ = ["Finding", "Report", "Severity", "lint"]
__version__ = "3.0.0"


def lint(*sources: object, **options: Any) -> Report:
    """Lint traces; see :func:`tgtrace.api.lint`."""
    from .run.lint import lint as _lint

    return _lint(*sources, **options)
