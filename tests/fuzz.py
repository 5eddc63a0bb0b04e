"""A seeded mutation fuzzer over the real example traces.

Each case takes one example file (wire JSON, N-Quads, an explain stream),
applies a few random mutations (bytes flipped, dropped, duplicated or cut;
JSON values swapped for values of other types; lines shuffled), and lints
the result in this process. The only acceptable outcomes are a report or an
InputError: any other exception is a crash a user would see as a traceback.

    python tests/fuzz.py --cases 100000 --seed 1     # a long run, for contributors

The test suite runs a few thousand cases with a fixed seed
(tests/test_fuzz.py); every crash found becomes a regression test there.
"""

from __future__ import annotations

import argparse
import io
import json
import random
import sys
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
EXAMPLES = HERE.parent / "examples"
SOURCES = sorted(p for p in EXAMPLES.iterdir() if p.suffix in (".json", ".nq", ".jsonl"))
ODD_VALUES = [None, True, 0, -1, 1.5, 10 ** 30, "", "x", "\x1b]0;title\x07", [], {}, [[]], {"t": "t"},
              {"t": "i", "i": "Quantum Computing"}, {"t": "l", "v": 5}, {"t": "q"}, "urn:x", "doc/c1"]


def _mutate_json(rng: random.Random, value):
    """Replace one value somewhere in a JSON document by a value of another shape."""
    if isinstance(value, dict) and value:
        key = rng.choice(sorted(value))
        if rng.random() < 0.5:
            value[key] = _mutate_json(rng, value[key])
        elif rng.random() < 0.5:
            del value[key]
        else:
            value[key] = rng.choice(ODD_VALUES)
        return value
    if isinstance(value, list) and value:
        i = rng.randrange(len(value))
        choice = rng.random()
        if choice < 0.6:
            value[i] = _mutate_json(rng, value[i])
        elif choice < 0.8:
            del value[i]
        else:
            value.insert(i, rng.choice(ODD_VALUES))
        return value
    return rng.choice(ODD_VALUES)


def _mutate_bytes(rng: random.Random, data: bytes) -> bytes:
    data = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        if not data:
            break
        i = rng.randrange(len(data))
        kind = rng.random()
        if kind < 0.25:
            data[i] = rng.randrange(256)
        elif kind < 0.45:
            del data[i:i + rng.randint(1, 40)]
        elif kind < 0.6:
            data[i:i] = data[i:i + rng.randint(1, 40)]
        elif kind < 0.7:
            del data[i:]
        elif kind < 0.85:
            data[i:i] = rng.choice([b"<", b">", b'"', b"\\", b"{", b"}", b"[", b"]", b"\n", b"\x00", b"_:", b"<<("])
        else:
            lines = bytes(data).split(b"\n")
            rng.shuffle(lines)
            data = bytearray(b"\n".join(lines))
    return bytes(data)


def case(seed: int) -> tuple[str, bytes]:
    """The file name and content of case number ``seed`` (deterministic)."""
    rng = random.Random(seed)
    source = rng.choice(SOURCES)
    data = source.read_bytes()
    if source.suffix == ".json" and rng.random() < 0.6:
        document = json.loads(data)
        for _ in range(rng.randint(1, 3)):
            document = _mutate_json(rng, document)
        data = json.dumps(document).encode()
    elif source.suffix == ".jsonl" and rng.random() < 0.6:
        lines = data.decode().splitlines()
        i = rng.randrange(len(lines))
        lines[i] = json.dumps(_mutate_json(rng, json.loads(lines[i])))
        data = "\n".join(lines).encode()
    else:
        data = _mutate_bytes(rng, data)
    return source.name, data


def run(seed: int) -> str | None:
    """None when the case ends in a report or an InputError, else the traceback."""
    import tgtrace
    from tgtrace.loaders import InputError

    name, data = case(seed)
    stream = io.BytesIO(data)
    stream.name = name  # the loader picks the format by the name, as it does for a file
    try:
        tgtrace.lint(stream, fail_on="never")
    except InputError:
        return None
    except Exception:  # anything else is a crash: report it with the case that made it
        return f"case {seed} ({name}):\n{traceback.format_exc()}"
    return None


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0, help="the first case number")
    args = parser.parse_args(argv)
    crashes = [c for c in (run(s) for s in range(args.seed, args.seed + args.cases)) if c]
    for crash in crashes:
        print(crash, file=sys.stderr)
    print(f"{args.cases} cases, {len(crashes)} crashes")
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
