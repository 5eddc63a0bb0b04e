"""Locate the ontology and shape files, installed or in a source checkout, and read Turtle."""

from __future__ import annotations

import os
from collections.abc import Iterable
from functools import cache
from pathlib import Path

import pyoxigraph as ox
import rdflib

from .errors import TgTraceError
from .graph import to_rdflib
from .guarded import SHAPES_LIMIT, GuardedReadError, read_guarded
from .locations import syntax_message

# The package's own folder: a wheel carries the files under tgtrace/data, a checkout beside validators/.
_PACKAGE = Path(__file__).resolve().parents[1]
_PACKAGED = _PACKAGE / "data"
_SOURCE_TREE = _PACKAGE.parents[1]


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


def examples_dir() -> Path | None:
    """The example traces of a checkout (the rules' faults are recipes applied to them); None
    where they are not installed (a wheel carries the ontology and shapes only)."""
    try:
        return _root("examples")
    except FileNotFoundError:
        return None


# A folder of shapes to use instead of the packaged ones (a contributor trying a new rule).
SHAPES_ENV = "TG_TRACE_SHAPES"


def shapes_dir() -> Path:
    override = os.environ.get(SHAPES_ENV)
    return Path(override) if override else _root("shapes")


def shapes_paths() -> list[Path]:
    """The shapes files; a folder that is none or holds none is an error, never a run without rules
    (which would pass everything)."""
    folder = shapes_dir()
    if not folder.is_dir():
        raise TurtleError(folder, None, f"is not a folder of shapes ({SHAPES_ENV})")
    found = sorted(folder.glob("*.ttl"))
    if not found:
        raise TurtleError(folder, None, f"holds no shapes file (*.ttl) ({SHAPES_ENV})")
    return found


class TurtleError(TgTraceError, ValueError):
    """A Turtle file that does not parse: where, and what is wrong."""

    def __init__(self, path: Path, line: int | None, problem: str) -> None:
        self.path, self.line, self.problem = Path(path), line, problem
        super().__init__(f"{path}:{line}: {problem}" if line else f"{path}: {problem}")


def read_turtle(paths: Iterable[Path | str]) -> rdflib.Graph:
    """Turtle files as one rdflib graph (the form pySHACL and the shape reader take), with the
    files' prefixes bound. pyoxigraph parses them: rdflib's pure-Python Turtle parser took most
    of the start-up of a small lint. Blank nodes are renamed per file, as rdflib's parser does,
    and relative IRIs resolve against the file's own. Raises TurtleError, FileNotFoundError."""
    graph = rdflib.Graph()
    add = graph.add
    for path in paths:
        path = Path(path)
        try:
            data = read_guarded(path, SHAPES_LIMIT)
        except GuardedReadError as exc:
            raise TurtleError(path, None, str(exc)) from None
        parser = ox.parse(data, format=ox.RdfFormat.TURTLE, base_iri=path.absolute().as_uri(),
                          rename_blank_nodes=True)
        try:
            for s, p, o, _ in parser:
                add((to_rdflib(s), to_rdflib(p), to_rdflib(o)))
        except SyntaxError as exc:
            raise TurtleError(path, exc.lineno, syntax_message(exc)) from None
        except UnicodeDecodeError as exc:
            raise TurtleError(path, None, f"not UTF-8 ({exc.reason})") from None
        for prefix, namespace in parser.prefixes.items():
            graph.bind(prefix, namespace, override=True, replace=True)
    return graph


@cache
def ontology_graph() -> rdflib.Graph:
    return read_turtle([ontology_path()])


@cache
def shapes_graph() -> rdflib.Graph:
    return read_turtle(shapes_paths())
