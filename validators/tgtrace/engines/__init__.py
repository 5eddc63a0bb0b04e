"""Rule engines. Each returns raw hits; lint.py turns them into Findings.

A hit is (rule code, focus node, path IRI or None, value node or None), with
pyoxigraph terms for nodes, so both engines report in the same terms.
"""

ENGINES = ("fast", "shacl")
