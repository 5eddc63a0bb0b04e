"""What a set of rules costs: ``tg-trace lint`` on the benchmark corpus with every rule, against
the same run without them: the behaviour family by default (``shapes/behaviour.ttl`` left out,
``TG_TRACE_SHAPES``), or the rules ``--rules`` names (left out with ``--ignore``; e.g. the rules
a change added, against the tree before it).

The two runs alternate (A B A B ...), so that a drift of the machine's speed falls on both; each
run's CPU time (user + system, children included) and peak memory are the operating system's
accounting of the finished process. The median of each and the ratio of the medians are printed;
nothing is asserted (speed is reported, not asserted)::

    python benchmarks/rule_cost.py                    # the behaviour rules, 1M triples, 5 runs of each
    python benchmarks/rule_cost.py --sizes 100000 --runs 3
    python benchmarks/rule_cost.py --rules G001,G002,S022,S024,S025 --faults 0.02
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import run as bench  # noqa: E402  (the corpus and its cache, as the main benchmark makes them)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000000", help="corpus sizes in triples (default 1M)")
    parser.add_argument("--runs", type=int, default=5, help="runs of each, alternating (default 5)")
    parser.add_argument("--faults", type=float, default=0.01, help="share of faulty traces (default 0.01)")
    parser.add_argument("--seed", default="0", help="corpus seed (default 0)")
    parser.add_argument("--rules", default=None,
                        help="rule codes or families to measure, comma-separated (default: the behaviour family's shapes)")
    parser.add_argument("--corpora", type=Path, default=bench.DEFAULT_CORPORA, help="where corpora are cached")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        without = Path(scratch) / "shapes"
        shutil.copytree(ROOT / "shapes", without)
        (without / "behaviour.ttl").unlink()
        tool = [*bench.tg_trace_command(), "lint", "--no-config", "--format", "json"]
        report = Path(scratch) / "report.json"
        for size in (int(s.replace("_", "")) for s in args.sizes.split(",") if s.strip()):
            path = bench.corpus(size, args.faults, args.seed, args.corpora, 0)
            if args.rules is None:
                name = "the behaviour rules"
                kinds = {"with them": ([], dict(os.environ)),
                         "without them": ([], {**os.environ, "TG_TRACE_SHAPES": str(without)})}
            else:
                name = args.rules
                kinds = {"with them": ([], dict(os.environ)),
                         "without them": (["--ignore", args.rules], dict(os.environ))}
            found: dict[str, list[tuple[float, float]]] = {kind: [] for kind in kinds}
            for _ in range(args.runs + 1):  # the first round warms the caches and is not counted
                for kind, (options, environment) in kinds.items():
                    _, memory, cpu = bench.run_measured([*tool, *options, str(path)], report, env=environment)
                    found[kind].append((cpu, memory))
            medians = {kind: (statistics.median(c for c, _ in runs[1:]), statistics.median(m for _, m in runs[1:]))
                       for kind, runs in found.items()}
            print(f"{size:,} triples ({path.name}), {name}, median of {args.runs} alternating runs:")
            for kind, (cpu, memory) in medians.items():
                print(f"  {kind}: {cpu:.2f} s CPU, peak {memory:,.0f} MB")
            (with_cpu, with_memory), (without_cpu, without_memory) = medians.values()
            print(f"  their cost: CPU {with_cpu / without_cpu:.3f}x, peak memory {with_memory / without_memory:.3f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
