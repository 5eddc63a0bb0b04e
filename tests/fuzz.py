"""A seeded mutation fuzzer over the real example traces.

Each case takes one example file (wire JSON, N-Quads, an explain stream),
applies a few random mutations (bytes flipped, dropped, duplicated or cut;
JSON values swapped for values of other types; lines shuffled; an object
nested in triple terms up to 300 deep, a line widened to 2,000 values), gives it a
file name that may hold control and bidi characters and bytes that are not
UTF-8, and lints the result in this process. The only acceptable outcomes
are a report or an InputError: any other exception is a crash a user would
see as a traceback. The report is then written in one output format (each
case its own, in turn through the format registry) and read back by that
format's consumer (a JSON parser, the SARIF schema, an XML parser); neither
it nor an InputError's line may hold a raw control or bidi character.

    python tests/fuzz.py --cases 100000 --seed 1     # a long run, for contributors

The test suite runs a few thousand cases with a fixed seed
(tests/test_fuzz.py); every crash found becomes a regression test there.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import re
import sys
import traceback
from functools import lru_cache
from pathlib import Path
from xml.etree import ElementTree as ET

import pyoxigraph as ox

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


def _nest_or_widen(rng: random.Random, data: bytes) -> bytes:
    """One line's object wrapped in triple terms up to 300 deep, or one line repeated with up to
    2,000 values: the nesting and the fan-out a hostile capture holds (line formats)."""
    lines = data.split(b"\n")
    candidates = [i for i, line in enumerate(lines) if line.count(b"<") >= 3 and line.rstrip().endswith(b".")]
    if not candidates:
        return data
    i = rng.choice(candidates)
    parts = lines[i].split(b" ", 2)
    if len(parts) < 3:
        return data
    subject, predicate, rest = parts
    if rng.random() < 0.5:
        depth = rng.choice([1, 2, 30, 64, 65, 100, 300])
        term, tail = rest.split(b" ", 1) if b" " in rest else (rest, b".")
        for _ in range(depth):
            term = b"<<( " + subject + b" " + predicate + b" " + term + b" )>>"
        lines[i] = b" ".join((subject, predicate, term, tail))
    else:
        width = rng.choice([16, 17, 100, 2000])
        lines[i:i + 1] = [b"%s %s \"value %d\" ." % (subject, predicate, n) for n in range(width)]
    return b"\n".join(lines)


def _mutate_bytes(rng: random.Random, data: bytes) -> bytes:
    if rng.random() < 0.1:
        data = _nest_or_widen(rng, data)
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


# Pieces a hostile file name is made of: terminal escapes, a forged workflow command, bidi
# controls, a line separator, GitHub's property separators, a byte that is not UTF-8.
NAME_PIECES = ["\x1b]0;title\x07", "\n::error file=a.py::forged", "\r", "\u202e", "\u2066", "\u2028", "\x85", ",",
               ":", "%0A", os.fsdecode(b"\xff"), os.fsdecode(b"\xc3"), "\u00e9", " "]
# What no output may hold raw: C0 controls but the layout's line feed and tab, DEL, C1, the bidi
# controls, the separators, lone surrogates (unencodable), U+FFFE and U+FFFF (not XML).
UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff"
                    "\ufffe\uffff]")


def hostile_name(seed: int, name: str) -> str:
    """The case's file name: half the cases keep the example's, the others get hostile pieces
    in its stem (the suffix stays: it picks the input format)."""
    rng = random.Random(f"name-{seed}")  # its own stream: the content of case N stays the same
    if rng.random() < 0.5:
        return name
    stem, suffix = os.path.splitext(name)
    pieces = [rng.choice(NAME_PIECES) for _ in range(rng.randint(1, 4))]
    # A name can also start like a workflow command: the text formats' lines start with it.
    start = rng.choice(["", "", "::error::", ":"])
    return start + stem + "".join(pieces) + suffix


@lru_cache(maxsize=1)
def _sarif_validator():
    import jsonschema

    schema = json.loads((HERE / "data" / "sarif-schema-2.1.0.json").read_text())
    return jsonschema.Draft4Validator(schema, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER)


def output_problem(fmt: str, text: str) -> str | None:
    """What is wrong with an output in format ``fmt`` (a registered format, or svg), or None:
    a raw unsafe character, or its consumer cannot read it."""
    from tgtrace.formats import FORMATS

    found = UNSAFE.search(text)
    if found:
        return f"raw {found.group()!r} at {found.start()}: {text[max(0, found.start() - 60):found.start() + 20]!r}"
    syntax = FORMATS[fmt].syntax if fmt in FORMATS else fmt
    lines = text.splitlines()
    try:
        if syntax == "json":
            document = json.loads(text)
            if fmt == "sarif":
                error = next(iter(_sarif_validator().iter_errors(document)), None)
                if error is not None:
                    return f"not SARIF 2.1.0: {error.message}"
        elif syntax == "turtle":
            list(ox.parse(text, format=ox.RdfFormat.TURTLE))  # Turtle 1.2, strictly
        elif fmt in ("junit", "svg"):
            ET.fromstring(text.encode("utf-8"))  # XML 1.0, strictly
        elif fmt == "html":
            if "No diagram" in text:
                return "a diagram failed"
            for svg in re.findall(r"<svg\b.*?</svg>", text, flags=re.S):
                ET.fromstring(svg.encode("utf-8"))
        elif fmt == "github":
            # One workflow command per finding: nothing in the input starts a line of its own.
            if not all(line.startswith(("::error ", "::warning ", "::notice ")) for line in lines):
                return "a line that is not an annotation"
        elif any(line.lstrip().startswith("::") for line in lines):
            return "a line a CI runner would read as a workflow command"
    except (ValueError, SyntaxError, ET.ParseError) as exc:
        return f"does not parse as {fmt}: {exc}"
    return None


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
    """None when the case ends in a report or an InputError, both safe to show, else what went
    wrong (the traceback of a crash)."""
    import tgtrace
    from tgtrace.formats import FORMATS, render
    from tgtrace.inputs.loaders import InputError

    name, data = case(seed)
    name = hostile_name(seed, name)
    formats = sorted(FORMATS)
    fmt = formats[seed % len(formats)]
    stream = io.BytesIO(data)
    stream.name = name  # the loader picks the format by the name, as it does for a file
    try:
        report = tgtrace.lint(stream, fail_on="never")
        problem = output_problem(fmt, render(report, fmt))
        where = f"its {fmt} output"
    except InputError as exc:
        # As the command shows it, on standard error.
        problem, where = output_problem("text", f"tg-trace: {exc}"), "its input error"
        if problem is None and "\n" in str(exc):
            problem = "more than one line"
    except Exception:  # anything else is a crash: report it with the case that made it
        return f"case {seed} ({name!r}, {fmt}):\n{traceback.format_exc()}"
    return None if problem is None else f"case {seed} ({name!r}): {where}: {problem}"


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
