"""SHACL: the one reader of shapes graphs and the engines that run them (the default engine, its
constraint components, SHACL Core's by the specification's sections, paths and SHACL-SPARQL, and
the pySHACL reference). Nothing here knows TrustGraph."""
