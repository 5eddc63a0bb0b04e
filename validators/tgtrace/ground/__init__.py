"""The ground floor: terms and the trace graph, where a statement came from, findings and reports,
errors, the one rule for escaping input text, and the packaged ontology and shapes read safely.
Nothing here knows TrustGraph's terms, an input format or an output format."""
