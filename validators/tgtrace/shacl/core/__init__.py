"""The SHACL Core constraint components, one module per section of the SHACL specification
(4.1 value type, 4.2 cardinality, 4.3 value range, 4.4 string-based, 4.5 property pair,
4.6 logical, 4.7 shape-based, 4.8 other), as pySHACL groups them. Importing the package
registers them all in ``engines.component.COMPONENTS``.
"""

from . import cardinality, logical, other, property_pair, shape_based, string_based, value_range, value_type

__all__ = ["cardinality", "logical", "other", "property_pair", "shape_based", "string_based", "value_range",
           "value_type"]
