"""TrustGraph's trace model: what a trace is (its root, the links that make it, the sub-entities its
steps own), its answers and patterns and the chain each pattern writes, the named graphs, the
trace models of older releases, the ontology as data, and TrustGraph's own trace reader, emulated.
Everything TrustGraph-specific the other floors read lives here."""
