"""The bounds of the commands that talk to a running TrustGraph (pull, lint -C, watch): each
default written once, here. The gateway client, the watch and the command line's options read
them; docs/deployment.md ("Limits and failure modes") says what happens when each is reached,
and a test holds its table to this module.

A long-running command stays bounded whatever its peer sends: in time (an idle timeout and an
overall deadline on every conversation), in the size of what one message may be, and, for a
watch, in the triples it holds.
"""

from __future__ import annotations

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
# are, with a notice, until it holds less.
MAX_HELD_TRIPLES = 1_000_000

# Triples of the traces an explain stream's reader (lint of a JSONL stream, watch) has released
# that it remembers, so that a late or repeated event is judged against its trace; past it the
# oldest are forgotten, and an event for one of them is judged as a trace of its own.
STREAM_MEMORY = 200_000

# option -> default, for the docs' table and the options' help.
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
