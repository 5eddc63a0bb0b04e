#!/usr/bin/env python3
"""Build a benchmark corpus: real-emitter traces of a given size, as N-Quads.

    python benchmarks/generate_corpus.py --triples 1000000 --out corpus.nq
    python benchmarks/generate_corpus.py --triples 10000 --out small.nq --faults 0.01 --seed 7

Every trace comes from TrustGraph 2.11.1's own triple builders, through the
builders of ``examples/generate.py`` (so ``trustgraph-base`` must be
installed, as for the examples). The mix is roughly what a deployment
captures: mostly GraphRAG, Document RAG and orchestrator ReAct, some
plan-then-execute and supervisor runs, some extraction provenance, a few
traces of the older ReAct service. Sizes vary from trace to trace (edges,
chunks, iterations, pages), every trace has its own ids (the builders derive
them from a per-trace seed), and about one pair of traces in eight is
interleaved event by event, as two concurrent sessions reach a capture.

About ``--faults`` of the traces carry one fault each: a copy of the example
trace named by a rule's own fault recipe (``tgl:fault`` in the shapes), its
ids renamed to fresh ones, with the recipe's SPARQL update applied. The
rules are used in turn, in an order shuffled by the seed. The faults
injected, with the node each rule must report, are written beside the corpus
as ``FILE.nq.faults.json``.

With ``--shards K`` the same traces are also written as K files in
``FILE.nq.shards/`` (whole traces, an interleaved pair kept together, dealt
out in turn), for measuring ``tg-trace lint -j``: each trace is complete in
its file, so the findings are those of the single file.

Output is deterministic for a given seed, size and fault rate.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import uuid
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

try:
    import pyoxigraph as ox
    from tgtrace.rules import UPDATE_PREFIXES, all_rules
    from tgtrace.run.settings import chosen_codes

    from examples import generate as gen
except ImportError as exc:  # pragma: no cover - exercised by hand
    print(f"error: {exc}; the corpus needs pyoxigraph, the tgtrace package and the "
          "emitter ('pip install --no-deps trustgraph-base==2.11.1')", file=sys.stderr)
    sys.exit(2)

# Bump when the mix or the fault scheme changes: cached corpora carry it in their name.
GENERATOR_VERSION = 2

CORPUS_NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "https://trustgraph.ai/ns/benchmark-corpus")
UUID_RE = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
INTERLEAVE_SHARE = 0.125

# Share of each kind of trace; a deployment answers far more questions than it ingests documents.
MIX = (
    ("graph-rag", 0.28),
    ("document-rag", 0.20),
    ("orchestrator-react", 0.26),
    ("legacy-react", 0.04),
    ("plan-then-execute", 0.08),
    ("supervisor", 0.05),
    ("extraction", 0.09),
)

GRAPH_RAG_TOOL = dict(
    action="knowledge-query",
    thought="The knowledge graph should answer this.",
    observation="Marie Curie discovered polonium and radium, both in 1898.",
    llm_duration_ms=1702, tool_duration_ms=6113, in_token=1088, out_token=79,
)
TOOL_ERROR = "MCP tool nobel-registry failed: connection refused"
PARSE_ERROR = "LLM parse error: no Action or Final Answer found"
EXTRA_GOAL = "Find where Marie Curie was born"


# ---------------------------------------------------------------------------
# One trace: a list of emissions, each a list of quads
# ---------------------------------------------------------------------------

def _emissions_to_quads(emissions) -> list[list]:
    """Quads per emission, each quad kept once per trace (first emission wins)."""
    seen: set = set()
    out = []
    for emission in emissions:
        quads = []
        for quad in gen.to_quads(emission.triples):
            if quad not in seen:
                seen.add(quad)
                quads.append(quad)
        out.append(quads)
    return out


def _react_steps(rng: random.Random, n: int, kind: str) -> list:
    steps = gen._react_steps(n) if n else []
    if kind == "graph-rag-tool" and steps:
        at = rng.randrange(len(steps))
        steps[at] = gen.ReactStep(
            arguments={"question": "Which elements did Marie Curie discover?"},
            graph_rag={"concepts": ("Marie Curie", "discovered elements"),
                       "n_edges": rng.randint(2, 8)},
            **GRAPH_RAG_TOOL)
    elif kind == "tool-error" and steps:
        base = steps[0]
        steps.insert(0, gen.ReactStep(
            base.action, dict(base.arguments), base.thought, f"Error: {TOOL_ERROR}",
            tool_error=TOOL_ERROR, tool_duration_ms=5004))
    elif kind == "parse-error" and steps:
        steps.insert(0, gen.ReactStep(
            "__parse_error__", {}, "", f"Error: {PARSE_ERROR}", tool_error=PARSE_ERROR,
            tool_duration_ms=0, out_token=143))
    return steps


def build_trace(kind: str, seed: str, rng: random.Random, start) -> list[list]:
    """One real-emitter trace of this kind, sized by the random generator."""
    if kind == "graph-rag":
        ems = gen.graphrag_emissions(seed=seed, n_edges=rng.randint(2, 25), start=start)
    elif kind == "document-rag":
        ems = gen.docrag_emissions(seed=seed, doc_limit=rng.randint(2, 8),
                                   reranker=rng.random() < 0.4, start=start)
    elif kind == "orchestrator-react":
        variant = rng.choices(
            ("plain", "graph-rag-tool", "tool-error", "parse-error", "max-iterations"),
            (0.78, 0.10, 0.06, 0.03, 0.03))[0]
        n = rng.choice((0, 1, 1, 2, 2, 3, 3, 4, 5, 6))
        if variant != "plain":
            n = max(n, 1)
        ems = gen.orchestrator_react_emissions(
            seed=seed, steps=_react_steps(rng, n, variant),
            concluded=variant != "max-iterations",
            pattern_decision=rng.random() < 0.85, start=start)
    elif kind == "legacy-react":
        ems = gen.legacy_react_emissions(seed=seed, n_iterations=rng.randint(0, 4), start=start)
    elif kind == "plan-then-execute":
        ems = gen.plan_then_execute_emissions(
            seed=seed, n_steps=rng.randint(2, 5), pattern_decision=rng.random() < 0.85,
            start=start)
    elif kind == "supervisor":
        goals = gen.SUBAGENT_GOALS + ((EXTRA_GOAL,) if rng.random() < 0.4 else ())
        ems = gen.supervisor_emissions(seed=seed, goals=goals, start=start)
    elif kind == "extraction":
        ems = gen.extraction_emissions(
            seed=seed, n_pages=rng.randint(1, 3), chunks_per_page=rng.randint(1, 4),
            n_facts=rng.randint(4, 20), start=start)
    else:
        raise ValueError(f"unknown trace kind {kind!r}")
    return _emissions_to_quads(ems)


# ---------------------------------------------------------------------------
# Faults: a rule's own recipe, on a renamed copy of its example trace
# ---------------------------------------------------------------------------

def _renamer(trace_seed: str):
    """Maps every uuid in a text to a fresh one, the same way each time for this trace."""
    cache: dict[str, str] = {}

    def fresh(match: re.Match) -> str:
        old = match.group(0)
        if old not in cache:
            cache[old] = str(uuid.uuid5(CORPUS_NAMESPACE, f"{trace_seed}/{old}"))
        return cache[old]

    def text(value: str) -> str:
        return UUID_RE.sub(fresh, value)

    def term(t):
        if isinstance(t, ox.NamedNode):
            return ox.NamedNode(text(t.value))
        if isinstance(t, ox.Literal):
            if t.language:
                return ox.Literal(text(t.value), language=t.language)
            return ox.Literal(text(t.value), datatype=t.datatype)
        if isinstance(t, ox.Triple):
            return ox.Triple(term(t.subject), term(t.predicate), term(t.object))
        return t  # blank nodes and the default graph

    def quad(q):
        return ox.Quad(term(q.subject), term(q.predicate), term(q.object), term(q.graph_name))

    return text, quad


_EXAMPLE_EMISSIONS: dict[str, list[list]] = {}


def _example(name: str) -> list[list]:
    if name not in _EXAMPLE_EMISSIONS:
        _EXAMPLE_EMISSIONS[name] = _emissions_to_quads(gen.EXAMPLES[name]())
    return _EXAMPLE_EMISSIONS[name]


def faulty_trace(code: str, trace_seed: str) -> tuple[list[list], str]:
    """The rule's fault example with fresh ids and the fault applied; and the focus to report."""
    fault = all_rules()[code].fault
    text, rename = _renamer(trace_seed)
    emissions = [[rename(q) for q in quads] for quads in _example(fault.trace.removesuffix(".nq"))]
    focus = text(fault.focus)

    store = ox.Store()
    store.extend(q for quads in emissions for q in quads)
    before = set(store)
    store.update(UPDATE_PREFIXES + text(fault.update).replace("$this", f"<{focus}>"))
    after = set(store)
    removed, added = before - after, after - before

    # Keep emission order: drop deleted quads in place, put each inserted quad
    # after the last emission that speaks of its subject.
    emissions = [[q for q in quads if q not in removed] for quads in emissions]
    for q in sorted(added, key=str):
        home = len(emissions) - 1
        for i, quads in enumerate(emissions):
            if any(x.subject == q.subject for x in quads):
                home = i
        emissions[home].append(q)
    return emissions, focus


# ---------------------------------------------------------------------------
# The corpus
# ---------------------------------------------------------------------------

def plan_corpus(triples: int, faults: float, seed: str,
                fault_codes: list[str] | None = None) -> tuple[list[dict], int]:
    """Decide every trace (kind, seed, fault, interleaving) until the size is reached."""
    rng = random.Random(f"{seed}/plan")
    kinds, weights = zip(*MIX)
    specs: list[dict] = []

    def fill() -> int:
        total = sum(s["size"] for s in specs)
        while total < triples:
            i = len(specs)
            spec = {"kind": rng.choices(kinds, weights)[0], "seed": f"corpus-{seed}/{i}",
                    "start": i * 7}
            spec["size"] = sum(map(len, _materialise(spec)))
            specs.append(spec)
            total += spec["size"]
        return total

    fill()
    # By default the rules a default run evaluates: an opt-in family's fault would go unreported.
    default = chosen_codes(None, None)
    codes = sorted(fault_codes or (c for c, r in all_rules().items() if r.fault is not None and c in default))
    rng.shuffle(codes)
    count = max(1, round(len(specs) * faults)) if faults > 0 else 0
    for n, i in enumerate(sorted(rng.sample(range(len(specs)), min(count, len(specs))))):
        specs[i]["fault"] = codes[n % len(codes)]
        specs[i]["size"] = sum(map(len, faulty_trace(specs[i]["fault"], specs[i]["seed"])[0]))
    # A faulty trace is a copy of an example, not the trace it replaces: top the size up again.
    total = fill()
    for i in range(0, len(specs) - 1):
        if rng.random() < INTERLEAVE_SHARE and not specs[i].get("paired"):
            specs[i]["interleave"] = True
            specs[i + 1]["paired"] = True
    return specs, total


def _materialise(spec: dict) -> list[list]:
    start = gen.START + timedelta(seconds=spec["start"])
    rng = random.Random(spec["seed"])
    return build_trace(spec["kind"], spec["seed"], rng, start)


def traces(specs: list[dict]) -> Iterator[tuple[list[list], dict]]:
    for spec in specs:
        if "fault" in spec:
            emissions, focus = faulty_trace(spec["fault"], spec["seed"])
            spec["focus"] = focus
        else:
            emissions = _materialise(spec)
        yield emissions, spec


def shards_dir(out: Path) -> Path:
    return out.with_name(out.name + ".shards")


def write_corpus(out: Path, triples: int, faults: float = 0.01, seed: str = "0", fault_codes: list[str] | None = None,
                 shards: int = 0) -> dict:
    specs, _ = plan_corpus(triples, faults, seed, fault_codes)
    written = 0
    interleaved = 0
    pending: list[list] | None = None
    units = 0
    tmp = out.with_name(out.name + ".part")
    shard_handles = []
    if shards:
        folder = shards_dir(out)
        folder.mkdir(exist_ok=True)
        for old in folder.glob("*.nq"):
            old.unlink()
        shard_handles = [open(folder / f"part-{i:02d}.nq", "wb") for i in range(shards)]
    with open(tmp, "wb") as handle:
        def emit(groups):
            nonlocal written, units
            quads = [q for group in groups for q in group]
            written += len(quads)
            data = ox.serialize(quads, format=ox.RdfFormat.N_QUADS)
            handle.write(data)
            if shard_handles:
                shard_handles[units % len(shard_handles)].write(data)
            units += 1

        for emissions, spec in traces(specs):
            if spec.get("interleave"):
                pending = emissions
                continue
            if pending is not None:
                # Two sessions at once: their explain events arrive alternately.
                emit(gen._interleave(pending, emissions))
                pending = None
                interleaved += 1
            else:
                emit(emissions)
        if pending is not None:
            emit(pending)
    for shard in shard_handles:
        shard.close()
    tmp.replace(out)

    injected = [{"rule": s["fault"], "focus": s["focus"], "trace": s["seed"]}
                for s in specs if "fault" in s]
    manifest = {
        "generator_version": GENERATOR_VERSION,
        "emitter": gen.EMITTER_VERSION,
        "seed": seed,
        "requested_triples": triples,
        "triples": written,
        "traces": len(specs),
        "kinds": {k: sum(1 for s in specs if s["kind"] == k and "fault" not in s) for k, _ in MIX},
        "interleaved_pairs": interleaved,
        "fault_rate": faults,
        "shards": shards,
        "faults": injected,
    }
    Path(str(out) + ".faults.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return manifest


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="generate_corpus.py",
        description="Build an N-Quads corpus of real-emitter traces for the benchmark.")
    parser.add_argument("--triples", type=int, required=True,
                        help="stop adding traces once the corpus holds at least this many")
    parser.add_argument("--out", type=Path, required=True, help="N-Quads file to write")
    parser.add_argument("--faults", type=float, default=0.01,
                        help="share of traces carrying one fault (default 0.01)")
    parser.add_argument("--seed", default="0", help="seed; same seed, same corpus (default 0)")
    parser.add_argument("--fault-codes", default=None, metavar="CODES",
                        help="the rules whose faults are used, comma-separated (default: every rule a default run "
                        "evaluates that has a fault); a fixed list keeps a corpus the same when rules are added")
    parser.add_argument("--shards", type=int, default=0, metavar="K",
                        help="also write the traces as K files in FILE.nq.shards/ (default: no)")
    args = parser.parse_args(argv)
    if args.triples < 1:
        parser.error("--triples must be positive")
    if not 0 <= args.faults <= 1:
        parser.error("--faults is a share between 0 and 1")

    if args.shards < 0:
        parser.error("--shards must not be negative")
    manifest = write_corpus(args.out, args.triples, args.faults, args.seed,
                            args.fault_codes.split(",") if args.fault_codes else None, shards=args.shards)
    print(f"{args.out}: {manifest['triples']} quads, {manifest['traces']} traces, "
          f"{len(manifest['faults'])} with a fault, {manifest['interleaved_pairs']} "
          f"interleaved pairs", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
