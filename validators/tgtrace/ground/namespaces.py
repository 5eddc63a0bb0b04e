"""IRIs the package refers to by name."""

import sys

TG = "https://trustgraph.ai/ns/"
PROV = "http://www.w3.org/ns/prov#"
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
XSD = "http://www.w3.org/2001/XMLSchema#"
OWL = "http://www.w3.org/2002/07/owl#"
SH = "http://www.w3.org/ns/shacl#"
SKOS = "http://www.w3.org/2004/02/skos/core#"
DCTERMS = "http://purl.org/dc/terms/"
DC = "http://purl.org/dc/elements/1.1/"
# Shape IRIs, and the vocabulary that annotates shapes with rule metadata. Kept
# outside TG's namespace so they can never be mistaken for trace vocabulary.
TGSH = "https://trustgraph.ai/shapes#"
TGL = "https://trustgraph.ai/lint#"

# Interned: the trace graph's keys compare by identity where they can.
RDF_TYPE = sys.intern(RDF + "type")
XSD_STRING = XSD + "string"
