"""The bounds of what tg-trace reads, each default written once, here: those of every input
(how far a compressed input may expand, how deep its structures may nest), and those of the
commands that talk to a running TrustGraph (pull, lint -C, watch). The loaders, the views, the
gateway client, the watch and the command line's options read them; docs/linting.md ("Limits")
and docs/deployment.md ("Limits and failure modes") say what happens when each is reached, and
tests hold both tables to this module.

A long-running command stays bounded whatever its peer sends: in time (an idle timeout and an
overall deadline on every conversation), in the size of what one message may be, and, for a
watch, in the triples it holds.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import TgTraceError

# ---------------------------------------------------------------- every input

# A compressed input may expand to this many times the compressed bytes read of it so far, counted
# on the bytes decompressed as they are made (a small input may still make 12.5 MiB): a bomb is
# refused once it has made this many times what was read of it, a few megabytes into it, not after
# expanding to this many times its whole size. Traces compress 15 to 40 times (a million triples of
# N-Quads: gzip 20, bzip2 32, xz 36).
MAX_EXPANSION = 200
# How deep an input's structures may nest: JSON-LD's objects and arrays, RDF/XML's elements, triple
# terms within triple terms (in every syntax, the wire's included), and sub-traces within sub-traces
# (what list, show, graph, diff and the HTML report walk). A trace nests three or four deep; the
# parsers crash (pyoxigraph's, by stack overflow) or go quadratic thousands deep. Checked before the
# parser sees the input, in time linear in it. It may be raised to DEPTH_CEILING, not beyond: the
# views and the JSON reports nest as deep as the trace does, within Python's recursion limit.
MAX_DEPTH = 64
DEPTH_CEILING = 100


class TooDeep(TgTraceError, ValueError):
    """An input whose traces nest past the reading's depth, found once it is read (sub-traces
    within sub-traces): one line naming the input."""

    def __init__(self, name: str, bound: int, what: str, where: str) -> None:
        super().__init__(f"{name}: {what} nest more than {bound} deep (at {where}): refused; raise --max-depth "
                         "if it is genuine")


@dataclass(frozen=True)
class InputBounds:
    """The bounds a reading of inputs keeps (``--max-depth``, ``--max-expansion``)."""

    depth: int = MAX_DEPTH
    expansion: int = MAX_EXPANSION


DEFAULT_BOUNDS = InputBounds()

# ---------------------------------------------------------------- pull, lint -C and watch

# Seconds a conversation with the gateway may go without progress (an answer to what was asked)
# before it is given up: a frame for another request, an empty batch or a stray message is none.
IDLE_TIMEOUT = 60.0
# Seconds a whole conversation may take (a pull; a watch's start and each reconnection), whatever
# the gateway keeps sending.
DEADLINE = 1800.0
# Bytes one frame of the gateway may hold. TrustGraph's gateway accepts frames of up to 50 MB; an
# export frame is one message of the flow's queue.
MAX_FRAME = 64 << 20
# Triples a pull may hold, every graph and linked node included. The gateway's query cannot page:
# a larger collection fails rather than being cut.
PULL_LIMIT = 1_000_000
# A trace a watch holds is linted as it is, and released, once its first event is this many
# seconds old or it holds this many triples, however much more keeps arriving for it.
TRACE_MAX_AGE = 3600.0
TRACE_MAX_TRIPLES = 100_000
# Seconds a complete trace a watch holds stays quiet (nothing more arrives for it) before it is
# linted; and seconds after its last event that an incomplete one is linted as it is, reported as
# never completed.
QUIET_PERIOD = 5.0
TRACE_TIMEOUT = 600.0
# Triples a watch holds over every trace in flight; past it the oldest traces are linted as they
# are, together, with a notice, until it holds less. A triple held costs about 1.7 KB at the most (a
# burst of triples of distinct subjects, each a group of its own; a trace's triples about a third
# of that): 250,000 keep a watch within about one large frame's worth of memory (four 61 MB frames
# of 290,000 triples each: 0.7 GB at its peak, the frames included), where a million took it past
# 2 GB.
MAX_HELD_TRIPLES = 250_000

# Traces the HTML report draws a diagram of: those with the most severe findings first, then those
# the audit lists (slowest, longest), then the others in order; every other trace keeps its section,
# saying so. A diagram is some 20 KB of SVG and a second of dot's: drawn for each of the 8,700
# traces of the 1M-triple benchmark capture, the report was 168 MB, more than its input.
MAX_DIAGRAMS = 200

# Triples of the traces an explain stream's reader (lint of a JSONL stream, watch) has released
# that it remembers, so that a late or repeated event is judged against its trace; past it the
# oldest are forgotten, and an event for one of them is judged as a trace of its own. Remembered,
# a trace is packed (compressed N-Quads) with a digest of each triple: about 80 bytes a triple,
# 16 MB at this bound.
STREAM_MEMORY = 200_000

# option -> default of every input's bounds, for docs/linting.md's table and the options' help.
INPUT_BOUNDS = {
    "--max-depth": MAX_DEPTH,
    "--max-expansion": MAX_EXPANSION,
}
# option -> default of pull's and watch's, for docs/deployment.md's table and the options' help.
BOUNDS = {
    "--idle-timeout": IDLE_TIMEOUT,
    "--deadline": DEADLINE,
    "--max-frame": MAX_FRAME,
    "--limit": PULL_LIMIT,
    "--quiet-period": QUIET_PERIOD,
    "--trace-timeout": TRACE_TIMEOUT,
    "--trace-max-age": TRACE_MAX_AGE,
    "--trace-max-triples": TRACE_MAX_TRIPLES,
    "--max-held-triples": MAX_HELD_TRIPLES,
    "--stream-memory": STREAM_MEMORY,
}
