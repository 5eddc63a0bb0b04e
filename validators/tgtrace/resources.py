"""Locate the ontology and shape files, installed or in a source checkout."""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path

import rdflib

_PACKAGED = Path(__file__).parent / "data"
_SOURCE_TREE = Path(__file__).resolve().parents[2]


def _root(name: str) -> Path:
    # A wheel carries the files under tgtrace/data; an editable install reads
    # them from the checkout, so both layouts are tried, packaged first.
    packaged = _PACKAGED / name
    if packaged.is_dir():
        return packaged
    source = _SOURCE_TREE / name
    if source.is_dir():
        return source
    raise FileNotFoundError(f"tgtrace: the {name}/ files are missing from this installation")


def ontology_path() -> Path:
    return _root("ontology") / "trustgraph.ttl"


# A folder of shapes to use instead of the packaged ones (a contributor trying a new rule).
SHAPES_ENV = "TG_TRACE_SHAPES"


def shapes_dir() -> Path:
    override = os.environ.get(SHAPES_ENV)
    return Path(override) if override else _root("shapes")


def shapes_paths() -> list[Path]:
    return sorted(shapes_dir().glob("*.ttl"))


@cache
def ontology_graph():
    graph = rdflib.Graph()
    graph.parse(ontology_path(), format="turtle")
    return graph


@cache
def shapes_graph():
    graph = rdflib.Graph()
    for path in shapes_paths():
        graph.parse(path, format="turtle")
    return graph
