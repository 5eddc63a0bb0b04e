"""Inputs: only these modules know input formats (RDF syntaxes, TrustGraph's wire JSON, explain
streams, what TrustGraph itself writes) and the network (the gateway client)."""
