"""The SHACL Core constraint components, one module per section of the SHACL specification
(4.1 value type, 4.2 cardinality, 4.3 value range, 4.4 string-based, 4.5 property pair,
4.6 logical, 4.7 shape-based, 4.8 other), as pySHACL groups them, and ``CORE``, their table:
what an engine that runs SHACL Core is given (sh:property is the engine's own, walking into the
nested shape).
"""

from ..component import ComponentTable, table
from . import cardinality, logical, other, property_pair, shape_based, string_based, value_range, value_type

CORE: ComponentTable = table(*value_type.COMPONENTS, *cardinality.COMPONENTS, *value_range.COMPONENTS,
                             *string_based.COMPONENTS, *property_pair.COMPONENTS, *logical.COMPONENTS,
                             *shape_based.COMPONENTS, *other.COMPONENTS)

__all__ = ["CORE"]
