"""A compressed day of a deployment's explainability traffic, for watch's soak test and benchmark:
many traces of every pattern (the examples, as TrustGraph's services emit them, each with fresh
IRIs), their explain events interleaved, some never completing, some sent twice."""

from __future__ import annotations

import json
import random
import re
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from gateway_rig import capture_events

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def templates() -> list[tuple[str, str]]:
    """(name, the JSON of its explain events) of every pattern: the examples and the services' captures."""
    paths = [p for p in sorted(EXAMPLES.glob("*.json")) if not p.name.endswith(".events.json")]
    paths += sorted((EXAMPLES / "services").glob("*.jsonl"))
    return [(p.name, json.dumps(capture_events(p))) for p in paths]


@dataclass
class Traffic:
    events: list[dict]  # {"id", "triples"} in the order they are sent
    traces: int
    incomplete: int  # traces whose last event is never sent
    repeated: int  # events sent twice


# Most of a deployment's traces are queries: the retrieval patterns come four times as often.
COMMON = ("graph-rag", "document-rag")


def traffic(traces: int, seed: int = 0, in_flight: int = 200, incomplete: float = 0.05,
            repeated: float = 0.05) -> Traffic:
    """``traces`` traces of every pattern, ``in_flight`` at once, their events interleaved at random;
    a share ``incomplete`` without their last event, a share ``repeated`` with an event sent twice."""
    rng = random.Random(seed)
    kinds = [kind for kind in templates() for _ in range(4 if kind[0].startswith(COMMON) else 1)]
    pending: list[Iterator[dict]] = []
    events: list[dict] = []
    started = cut = twice = 0

    def fresh(number: int) -> Iterator[dict]:
        nonlocal cut, twice
        _, text = kinds[number % len(kinds)]
        renamed = _UUID.sub(lambda m: str(uuid.uuid5(uuid.NAMESPACE_URL, f"{m.group()}/{seed}/{number}")), text)
        found = json.loads(renamed)
        if rng.random() < incomplete and len(found) > 1:
            found = found[:-1]
            cut += 1
        if rng.random() < repeated and len(found) > 1:
            at = rng.randrange(len(found) - 1)
            found.insert(at + 1, found[at])
            twice += 1
        return iter(found)

    while started < traces or pending:
        while started < traces and len(pending) < in_flight:
            pending.append(fresh(started))
            started += 1
        index = rng.randrange(len(pending))
        event = next(pending[index], None)
        if event is None:
            pending[index] = pending[-1]
            pending.pop()
            continue
        events.append(event)
    return Traffic(events, traces, cut, twice)
