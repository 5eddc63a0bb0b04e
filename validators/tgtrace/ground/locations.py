"""Where a trace graph's statements came from: the source lines of its triples.

Each loader gives the graph its own :class:`Locator`, which finds the line of a
triple of the input when a finding asks for it (nothing is indexed while the
graph is built); the parts of one capture read into one graph keep one each
(:class:`Parts`, :class:`StatementPlaces`). What a parse error says, without
the position it prefixes, is here too: the loaders print positions their way.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pyoxigraph as ox


# The name of an input of Python objects (a list of wire triples, Triples, explain events): its
# "lines" are its items, numbered from 1, and a place in it is shown as the list's index.
OBJECTS = "<objects>"


def place(file: str, line: int | None) -> str:
    """FILE:LINE as every report names a place, FILE alone for none, and ``<objects>[INDEX]`` for
    the item of a list of Python objects (its index, as the list is written in the test)."""
    if not line:
        return file
    return f"{file}[{line - 1}]" if file == OBJECTS else f"{file}:{line}"


def syntax_message(exc: SyntaxError) -> str:
    """What a pyoxigraph parse error says, without the position it prefixes (callers print the
    line their own way)."""
    message = str(exc.msg if hasattr(exc, "msg") else exc)
    if message.startswith("Parser error") and ": " in message:
        message = message.split(": ", 1)[1]
    return message



class Locator:
    """Finds the line of a triple of the input; each loader gives the graph its own.

    ``line(subject, predicate, object, runs, statements)`` gets pyoxigraph terms
    (predicate and object None for "the subject's first line"), the statement
    numbers that start the runs of the subject's triples and how many
    statements were read. The default knows nothing.
    """

    # Whether the graph holds several files (the parts of one capture).
    spans_parts = False

    def lines(self, wanted: set[tuple], runs: dict, statements: int) -> dict:
        return {}

    def places(self, wanted: set[tuple], runs: dict, statements: int, name: str) -> dict[tuple, tuple[str, int]]:
        """(file, line) of each wanted triple: the graph's own file, unless the graph spans parts."""
        return {k: (name, line) for k, line in self.lines(wanted, runs, statements).items()}


class KnownLines(Locator):
    """Lines recorded while the input was read (formats parsed here: wire JSON, JSONL)."""

    def __init__(self, lines: dict[tuple, int | None] | None = None) -> None:
        self.known: dict[tuple, int | None] = lines if lines is not None else {}

    def lines(self, wanted: set[tuple], runs: dict, statements: int) -> dict:
        found = {k: self.known[k] for k in wanted if k in self.known}
        subjects = {k[0] for k in wanted if k[1] is None}
        if subjects:
            first: dict = {}
            for (s, _, _), line in self.known.items():
                if s in subjects and line is not None and (s not in first or line < first[s]):
                    first[s] = line
            found.update({(s, None, None): line for s, line in first.items()})
        return found


class Parts(Locator):
    """The parts of one capture read into one graph, one after the other: each part's
    statements are numbered on from the last part's, and each part keeps its own locator.
    A triple's place is the first part (in input order) that finds it, at its line there."""

    spans_parts = True

    def __init__(self) -> None:
        self.parts: list[tuple[str, Locator, int, int]] = []  # name, locator, first statement - 1, count

    def add(self, name: str, locator: Locator, start: int, count: int) -> None:
        self.parts.append((name, locator, start, count))

    def places(self, wanted: set[tuple], runs: dict, statements: int, name: str) -> dict[tuple, tuple[str, int]]:
        found: dict = {}
        for part, locator, start, count in self.parts:
            # Only the runs that start inside this part, renumbered as the part's own statements.
            own = {s: [n - start for n in numbers if start < n <= start + count] for s, numbers in runs.items()}
            asked = {k for k in wanted if k not in found and own.get(k[0])}
            if asked:
                for k, line in locator.lines(asked, own, count).items():
                    found.setdefault(k, (part, line))
        return found


_LAST = 1 << 62


def run_end(starts: Sequence[int], start: int, statements: int) -> int:
    """The number of the last statement of the run of a subject's statements that starts at
    ``start``: a run lasts until the next one starts (``starts``, every run's start in order) or
    the statements end."""
    after = bisect_right(starts, start)
    return starts[after] - 1 if after < len(starts) else statements


class StatementPlaces(Locator):
    """(part, line) of each statement, recorded while the parts were read (the traces a cluster
    lints): the graph's n-th statement is ``quads[n - 1]``, read at ``places[n - 1]`` (part
    index, line). Nothing is indexed while the graph is built: only the runs of the subjects a
    finding names are read again, as the line formats' locator does. A triple's place is its
    first in input order; a subject's is its earliest known line. ``starts`` holds where every
    run of the graph's statements starts (in order): a subject's place is read from the places of
    its runs alone, no statement read again."""

    spans_parts = True

    def __init__(self, names: list[str], quads: Sequence[ox.Quad], places: Sequence[tuple[int, int | None]],
                 starts: Sequence[int]) -> None:
        self.names, self.quads, self.places_of, self.starts = names, quads, places, starts

    def places(self, wanted: set[tuple], runs: dict, statements: int, name: str) -> dict[tuple, tuple[str, int]]:
        quads, places, starts = self.quads, self.places_of, self.starts
        found: dict = {}
        for k in wanted:
            subject, predicate, obj = k
            best = None  # (rank, place): the earliest statement first among equals
            for start in runs.get(subject, ()):
                n = start - 1
                if predicate is None:
                    for m in range(n, run_end(starts, start, statements)):
                        part, line = place = places[m]
                        rank = (part, line or _LAST)
                        if best is None or rank < best[0]:
                            best = (rank, place)
                    continue
                while n < len(quads) and quads[n].subject == subject:
                    quad = quads[n]
                    if predicate is None or (quad.predicate == predicate and quad.object == obj):
                        part, line = places[n]
                        # Statements come in input order, where an unknown line sorts first; a
                        # subject's place is its earliest known line (an unknown one last).
                        rank = (part, (line or 0) if predicate is not None else (line or _LAST))
                        if best is None or rank < best[0]:
                            best = (rank, places[n])
                    n += 1
            if best is not None:
                found[k] = (self.names[best[1][0]], best[1][1])
        return found
