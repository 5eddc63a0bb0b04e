#!/usr/bin/env python3
"""Benchmark tg-trace lint against pySHACL and pyoxigraph's bare parse.

    python benchmarks/run.py                          # 10k, 100k and 1M triples
    python benchmarks/run.py --sizes 10000 --skip-pyshacl-above 10000 --markdown

For each size, a corpus of real-emitter traces is built once
(``generate_corpus.py``, cached under ``benchmarks/.corpora/``), then each
tool runs in a fresh process so that its wall time and peak RSS are its own:

- ``bare parse``: pyoxigraph parsing the file strictly and counting quads, nothing else (tg-trace
  parses leniently and checks each distinct term once, refusing what this parse refuses);
- ``parse, quads unpacked``: the same, each quad unpacked into its four terms in
  Python: the least any linter written in Python over pyoxigraph's parser pays;
- ``tg-trace lint``: the real command, fast engine, JSON output;
- ``tg-trace lint -j N``: the same in N processes, when the command has ``-j``;
- ``pySHACL``: the same command with ``--engine shacl``, i.e. pySHACL running
  the project's shapes (the reference the fast engine must agree with);
- with ``--explore``: ``tg-trace list`` (every trace's row, linted) and
  ``tg-trace show --trace`` of one trace (only that trace linted);
- on a findings-heavy corpus (``--heavy-faults``, 2% of traces faulty by default) beside each
  corpus: ``tg-trace lint`` again, and the cost of a finding: the CPU time the extra findings
  add, per finding;
- with ``--chains 250,2000``, instead of all this: one ReAct agent loop of each number of
  iterations from the real emitter, linted by both engines, and each engine's CPU time per triple
  at each length (the reference engine must stay linear in a chain's length: target ≤ 1.5x
  per triple from the shortest to the longest);
- with ``--watch N``, instead of all this: ``tg-trace watch`` on a compressed day of N traces
  replayed by a local server speaking the gateway's protocol, its throughput (traces/s) and its
  memory at the start and the end (``watch_bench.py``);
- with ``--capture-parts K``: the corpus cut into K parts linted as one capture
  in one process (``--one-capture``) and on a local Dask cluster of 1 and of 2
  workers, each cluster row with its CPU time against one process (the work
  inflation), each process's peak memory and the bytes moved between tasks.

The (rule, focus) sets of the fast engine and pySHACL are compared on every
size where pySHACL ran, and the faults the generator injected must all be
reported. Exit status 1 when any of that fails; timings are reported, never
asserted.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import itertools
import json
import os
import platform
import random
import re
import shutil
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
GENERATOR = HERE / "generate_corpus.py"
DEFAULT_CORPORA = HERE / ".corpora"

# The targets of the benchmark, set for captures of 1M triples (below that the
# start-up of about 0.2 s dominates): reported against, never asserted.
TARGET_SIZE = 1_000_000
TARGET_VS_PYSHACL = 25.0  # pySHACL wall / tg-trace wall, at least
TARGET_VS_PARSE = 1.5     # tg-trace wall / bare parse wall, at most
TARGET_RSS_MB = 400.0     # peak RSS of tg-trace lint, at most
TARGET_LIST_VS_LINT = 2.0  # tg-trace list wall / tg-trace lint wall, at most
LIST = "tg-trace list"
SHOW_ONE = "tg-trace show --trace (one trace)"

BARE_PARSE = """\
import sys
import pyoxigraph as ox
count = 0
for _ in ox.parse(path=sys.argv[1], format=ox.RdfFormat.N_QUADS):
    count += 1
print(count)
"""

PARSE_UNPACKED = """\
import sys
import pyoxigraph as ox
count = 0
for subject, predicate, object_, graph in ox.parse(path=sys.argv[1], format=ox.RdfFormat.N_QUADS):
    count += 1
print(count)
"""
UNPACKED = "parse, quads unpacked"

# The cluster rows: the capture linted on a local cluster of N workers through the API the CLI
# calls, so that the run's statistics (bytes shipped, each worker's peak memory) come out with
# its findings. Its CPU time is the whole tree's: the workers are children the run waits for.
CLUSTER_RUN = """\
import json, sys
from tgtrace.cluster.lint import lint as cluster
from tgtrace.run.settings import Settings
if __name__ == "__main__":
    stats = {}
    report = cluster.lint(*sys.argv[2:], settings=Settings(one_capture=True, fail_on=None, cluster=sys.argv[1]),
                          stats=stats)
    stats["client_peak_bytes"] = cluster.peak_memory()
    json.dump({"findings": [{"rule": f.rule, "focus": f.focus} for f in report.findings], "cluster": stats},
              sys.stdout)
"""
CLUSTER_WORKERS = (1, 2)
HEAVY = "findings-heavy corpus: tg-trace lint"
# The tg-trace of another tree (``--against``), from the tree's own sources.
RUN_TREE = ("import sys; sys.path.insert(0, sys.argv.pop(1)); sys.argv[0] = 'tg-trace'; "
            "from tgtrace.cli import main; main()")


def against_name(revision: str) -> str:
    return f"{HEAVY} at {revision}"


def heavy_tools(heavy: Path, lint: list[str], common: list[str], against: str | None, folder: Path) -> list:
    """The lint of the findings-heavy corpus, and the same by revision ``against``'s tg-trace."""
    tools = [Tool(HEAVY, lint + [str(heavy)] + common)]
    if against:
        tools.append(Tool(against_name(against), [sys.executable, "-c", RUN_TREE,
                          str(tree_at(against, folder) / "validators"), "lint", str(heavy)] + common, parse=False))
    return tools


def tree_at(revision: str, folder: Path) -> Path:
    """The sources of git revision ``revision`` of this repository, unpacked under ``folder``
    (once per commit): an archive, so that the repository's own worktrees are left as they are."""
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--verify", f"{revision}^{{commit}}"],
                            capture_output=True, text=True)
    if commit.returncode != 0:
        raise SystemExit(f"--against: {revision!r} is no commit of {ROOT}")
    tree = folder / "trees" / commit.stdout.strip()[:12]
    if not (tree / "validators" / "tgtrace").is_dir():
        tree.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit.stdout.strip()], capture_output=True,
                                 check=True)
        subprocess.run(["tar", "-x", "-C", str(tree)], input=archive.stdout, check=True)
    return tree
TARGET_CHAIN_PER_TRIPLE = 1.5  # CPU per triple of the longest chain / of the shortest, at most
TARGET_CLUSTER_CPU = 1.3   # CPU of the cluster (every process) / CPU of one process, at most
TARGET_CLUSTER_WALL = 1.0  # wall of --cluster local:2 / wall of one process, at most


def cluster_tool(workers: int, parts: int) -> str:
    return f"tg-trace lint --cluster local:{workers}, {parts} parts"


@dataclass
class Measure:
    tool: str
    size: int
    wall: float
    rss_mb: float
    cpu: float
    findings: set | None = None
    runs: list = field(default_factory=list)
    note: str = ""
    cluster: dict | None = None  # a cluster row's statistics (its last run; peaks the largest of any run)


# ---------------------------------------------------------------------------
# Running one command in a fresh process
# ---------------------------------------------------------------------------

def _tree_sample(root: int, cpu: dict[int, float]) -> int:
    """Resident memory (KB) of a process and all its descendants, from /proc; records the CPU
    seconds (user + system) each of them has used so far in ``cpu``, by pid."""
    parents: dict[int, int] = {}
    rss: dict[int, int] = {}
    used: dict[int, float] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as handle:
                stat = handle.read()
            fields = stat[stat.rindex(b")") + 2:].split()
            pid = int(entry.name)
            parents[pid] = int(fields[1])
            rss[pid] = int(fields[21]) * PAGE // 1024
            used[pid] = (int(fields[11]) + int(fields[12])) / TICKS
        except (OSError, ValueError, IndexError):
            continue
    tree, frontier = {root}, [root]
    while frontier:
        parent = frontier.pop()
        for pid, ppid in parents.items():
            if ppid == parent and pid not in tree:
                tree.add(pid)
                frontier.append(pid)
    cpu.update((pid, used[pid]) for pid in tree if pid in used)
    return sum(rss.get(pid, 0) for pid in tree)


PAGE = os.sysconf("SC_PAGE_SIZE")
TICKS = os.sysconf("SC_CLK_TCK")


def run_measured(cmd: list[str], stdout_path: Path, sample_tree: bool = False,
                 cwd: Path | None = None, env: dict | None = None) -> tuple[float, float, float]:
    """Wall seconds, peak RSS in MB and CPU seconds (user + system) of one command.

    Peak RSS is the kernel's figure for the process (wait4), which for a
    command that forks covers its largest single process; with
    ``sample_tree`` it is instead the largest sum over the whole process
    tree, sampled every 50 ms, as parallel workers are alive at once.
    CPU time is the kernel's figure for the command and the children it
    waited for (wait4); with ``sample_tree``, the whole tree's sampled CPU
    time when that is larger: a process the command never waits for (a
    fork server, and the workers it forked and reaped) is missing from
    wait4's figure, and the samples miss at most each process's last 50 ms.
    """
    with open(stdout_path, "wb") as out:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.PIPE, cwd=cwd, env=env)
        peak_tree = [0]
        tree_cpu: dict[int, float] = {}
        done = threading.Event()
        sampler = None
        if sample_tree:
            def sample():
                while not done.wait(0.05):
                    peak_tree[0] = max(peak_tree[0], _tree_sample(proc.pid, tree_cpu))
            sampler = threading.Thread(target=sample, daemon=True)
            sampler.start()
        err = proc.stderr.read()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        done.set()
        if sampler is not None:
            sampler.join()
        proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode}: "
                           f"{err.decode(errors='replace').strip()[-2000:]}")
    rss_kb = max(usage.ru_maxrss, peak_tree[0]) if sample_tree else usage.ru_maxrss
    # CPU time covers the workers a parallel run waited for; it is less sensitive
    # than wall time to other load on the machine.
    cpu = usage.ru_utime + usage.ru_stime
    return wall, rss_kb / 1024, max(cpu, sum(tree_cpu.values()))


def tg_trace_command() -> list[str]:
    beside = Path(sys.executable).parent / "tg-trace"
    if beside.exists():
        return [str(beside)]
    found = shutil.which("tg-trace")
    return [found] if found else [sys.executable, "-m", "tgtrace.cli"]


def lint_jobs_option() -> str | None:
    """The parallel option of tg-trace lint (-j/--jobs), if the installed command has one."""
    help_text = subprocess.run(tg_trace_command() + ["lint", "--help"], capture_output=True,
                               text=True).stdout
    if "--jobs" in help_text:
        return "--jobs"
    if "-j " in help_text or "-j," in help_text:
        return "-j"
    return None


def findings_of(json_path: Path) -> tuple[set[tuple[str, str]], dict | None]:
    """The (rule, focus) pairs of a JSON report, and a cluster row's statistics."""
    document = json.loads(json_path.read_text(encoding="utf-8"))
    return {(f["rule"], f["focus"]) for f in document["findings"]}, document.get("cluster")


@dataclass
class Tool:
    """A command measured on a corpus: its findings are parsed from its JSON report when
    ``parse``; ``tree``: a parallel run, whose processes are sampled for their memory."""

    name: str
    cmd: list[str]
    parse: bool = True
    tree: bool = False


def measure(tools: list[Tool], size: int, work: Path, repeat: int) -> dict[str, Measure]:
    """Each tool run ``repeat`` times, in rounds (every tool once, then again): a ratio between
    two tools compares runs made under the same load, where a machine shared with others slows
    down for a while. Wall and CPU time are the median of the runs, peak memory the largest."""
    runs: dict[str, list] = {tool.name: [] for tool in tools}
    findings: dict[str, set | None] = {tool.name: None for tool in tools}
    stats: dict[str, dict | None] = {tool.name: None for tool in tools}
    for i in range(repeat):
        for tool in tools:
            out = work / f"{tool.name.replace(' ', '_')}-{size}-{i}.out"
            runs[tool.name].append(run_measured(tool.cmd, out, sample_tree=tool.tree, cwd=work))
            if tool.parse:
                got, more = findings_of(out)
                before = stats[tool.name]
                if more is not None:
                    if before is not None:  # peaks: the largest of any run
                        more["client_peak_bytes"] = max(more["client_peak_bytes"], before["client_peak_bytes"])
                        more["worker_peak_bytes"] = [max(a, b) for a, b in zip(more["worker_peak_bytes"],
                                                                               before["worker_peak_bytes"])]
                    stats[tool.name] = more
                if findings[tool.name] is not None and got != findings[tool.name]:
                    raise RuntimeError(f"{tool.name} reported different findings on two runs")
                findings[tool.name] = got
            out.unlink()
    measured = {}
    for tool in tools:
        done = runs[tool.name]
        measured[tool.name] = Measure(tool.name, size, statistics.median(w for w, _, _ in done),
                                      max(r for _, r, _ in done), statistics.median(c for _, _, c in done),
                                      findings[tool.name], done, cluster=stats[tool.name])
    return measured

def _canonical(graph, skip: set[str] = frozenset()) -> bytes:
    """A graph's triples in a form that survives blank node renaming and reordering."""
    from rdflib.compare import to_canonical_graph

    lines = sorted(f"{s.n3()} {p.n3()} {o.n3()}" for s, p, o in to_canonical_graph(graph)
                   if str(p) not in skip)
    return "\n".join(lines).encode()


# Documentation on the shapes: it changes what a finding says, never which ones are found.
DOC_PREDICATES = {
    "http://www.w3.org/ns/shacl#message", "http://www.w3.org/ns/shacl#description",
    "http://www.w3.org/ns/shacl#name", "http://www.w3.org/2000/01/rdf-schema#label",
    "http://www.w3.org/2000/01/rdf-schema#comment", "https://trustgraph.ai/lint#rationale",
    "https://trustgraph.ai/lint#fix", "https://trustgraph.ai/lint#name",
}


def corpus_inputs_digest() -> str:
    """What a corpus depends on: the generator's version, the example builders
    and the rules' fault recipes."""
    from tgtrace.rules import all_rules

    version = re.search(r"^GENERATOR_VERSION = (\d+)", GENERATOR.read_text(), re.M)
    digest = hashlib.sha256(f"generator {version.group(1) if version else '?'}".encode())
    digest.update((ROOT / "examples" / "generate.py").read_bytes())
    for code, rule in sorted(all_rules().items()):
        if rule.fault is not None:
            digest.update(f"{code}|{rule.fault.trace}|{rule.fault.update}|{rule.fault.focus}".encode())
    return digest.hexdigest()[:10]


def corpus(size: int, faults: float, seed: str, folder: Path, shards: int) -> Path:
    """The corpus file of this size (generated once), and its traces split into ``shards`` files."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"corpus-{size}-f{faults:g}-s{seed}-{corpus_inputs_digest()}.nq"
    manifest = Path(str(path) + ".faults.json")
    have_shards = manifest.exists() and json.loads(manifest.read_text()).get("shards", 0) == shards
    if not path.exists() or not have_shards:
        print(f"generating {path.name} ...", file=sys.stderr, flush=True)
        subprocess.run([sys.executable, str(GENERATOR), "--triples", str(size), "--out", str(path),
                        "--faults", str(faults), "--seed", seed, "--shards", str(shards)], check=True)
    return path


def cut_into_parts(path: Path, count: int, folder: Path) -> list[str]:
    """The corpus cut into ``count`` files at lines chosen at random (seeded): traces are cut across parts.
    Streamed: the processes measured next are forked from this one, and Linux reports a child's
    peak RSS as at least its parent's at the fork."""
    with open(path, "rb") as source:
        total = sum(1 for _ in source)
    cuts = sorted(random.Random(count).sample(range(1, total), count - 1))
    bounds = [*cuts, total]
    parts = []
    with open(path, "rb") as source:
        for number, end in enumerate(bounds):
            part = folder / f"{path.stem}.part{number}.nq"
            with open(part, "wb") as out:
                out.writelines(itertools.islice(source, end - (bounds[number - 1] if number else 0)))
            parts.append(str(part))
    return parts


def file_digest(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def reference_digest(corpus_path: Path) -> str:
    """What pySHACL's result on a corpus depends on: the corpus's content, the shapes (less
    their documentation), the ontology's declarations it is given, the reference
    engine and the pySHACL, rdflib and pyoxigraph versions."""
    from tgtrace.ground.resources import shapes_graph
    from tgtrace.tracemodel.vocabulary import declarations_graph

    digest = hashlib.sha256(file_digest(corpus_path).encode())
    digest.update(_canonical(shapes_graph(), DOC_PREDICATES))
    digest.update(_canonical(declarations_graph()))
    digest.update((ROOT / "validators" / "tgtrace" / "shacl" / "reference.py").read_bytes())
    for dist in ("pyshacl", "rdflib", "pyoxigraph"):
        digest.update(metadata.version(dist).encode())
    return digest.hexdigest()[:16]


def cached_reference(corpus_path: Path, folder: Path) -> tuple[Measure | None, Path]:
    path = folder / "pyshacl" / f"{reference_digest(corpus_path)}.json"
    if not path.exists():
        return None, path
    data = json.loads(path.read_text())
    m = Measure("pySHACL", data["triples"], data["wall_s"], data["peak_rss_mb"], data["cpu_s"],
                {tuple(k) for k in data["findings"]}, data["runs"])
    m.note = f"measured {data['date']}"
    return m, path


def store_reference(m: Measure, path: Path, commit: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d"),
        "commit": commit,
        "triples": m.size, "wall_s": m.wall, "peak_rss_mb": m.rss_mb, "cpu_s": m.cpu,
        "runs": m.runs, "findings": sorted(m.findings),
    }) + "\n")


def chain(iterations: int, folder: Path) -> Path:
    """One orchestrator ReAct trace of ``iterations`` iterations from the real emitter (cached)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"react-loop-{iterations}-{corpus_inputs_digest()}.nq"
    if not path.exists():
        if str(ROOT) not in sys.path:
            sys.path.insert(0, str(ROOT))
        from examples import generate

        path.write_bytes(generate.to_nquads(generate.build_orchestrator_react(
            seed=f"loop{iterations}", n_iterations=iterations)))
    return path


def chain_lines(iterations: list[int], folder: Path, repeat: int, lint: list[str],
                common: list[str]) -> tuple[list[str], bool]:
    """Both engines on ReAct loops of each length: CPU per triple, and the reference engine's
    growth from the shortest loop to the longest (it must stay linear in a chain's length)."""
    lines, ok, per = [], True, {}
    for n in iterations:
        path = chain(n, folder)
        triples = path.read_bytes().count(b"\n")
        print(f"measuring a ReAct loop of {n:,} iterations ({triples:,} triples) ...", file=sys.stderr, flush=True)
        fast = measure([Tool("tg-trace lint", lint + [str(path)] + common)], triples, folder / "runs", repeat)
        shacl = measure([Tool("pySHACL", lint + [str(path), "--engine", "shacl"] + common)],
                        triples, folder / "runs", 1)
        f, s = fast["tg-trace lint"], shacl["pySHACL"]
        per[n] = (f.cpu / triples * 1e6, s.cpu / triples * 1e6)
        same = f.findings == s.findings
        ok &= same
        lines.append(f"ReAct loop of {n:,} iterations ({triples:,} triples): tg-trace {f.cpu:.2f} s CPU "
                     f"({per[n][0]:.1f} µs/triple), --engine shacl {s.cpu:.2f} s CPU ({per[n][1]:.1f} µs/triple); "
                     f"findings {'identical' if same else 'DIFFER'} ({len(f.findings):,} pairs)")
    if len(per) > 1:
        short, long_ = min(per), max(per)
        for engine, i in (("tg-trace", 0), ("--engine shacl", 1)):
            r = per[long_][i] / per[short][i]
            lines.append(f"{engine} CPU per triple at {long_:,} iterations ÷ at {short:,}: {r:.2f}x"
                         + (f" (target ≤ {TARGET_CHAIN_PER_TRIPLE:g}x: "
                            f"{'met' if r <= TARGET_CHAIN_PER_TRIPLE else 'MISSED'})" if i else ""))
    return lines, ok


def heavy_lines(results: dict[int, dict[str, Measure]], heavy_sizes: dict[int, int],
                injected: dict[int, set], rate: float, against: str | None = None) -> tuple[list[str], bool]:
    """The findings-heavy corpus beside each corpus: what a finding costs; whether it reported
    every fault injected into it; and, ``against`` another revision, both trees' peak memory and CPU."""
    lines, ok = [], True
    for size, by_tool in results.items():
        heavy = by_tool.get(HEAVY)
        if heavy is None:
            continue
        fast = by_tool["tg-trace lint"]
        extra = len(heavy.findings) - len(fast.findings)
        # Per triple, so that the two corpora's slightly different sizes cancel out.
        per_triple = heavy.cpu / heavy_sizes[size] - fast.cpu / size
        line = (f"{size:,} triples: findings-heavy corpus ({rate * 100:g}% of traces faulty, {heavy_sizes[size]:,} "
                f"triples): {len(heavy.findings):,} findings against {len(fast.findings):,}, CPU {heavy.cpu:.2f} s "
                f"against {fast.cpu:.2f} s")
        if extra > 0:
            line += f"; cost per finding {per_triple * size / extra * 1e3:.2f} ms of CPU"
        missing = injected[size] - heavy.findings
        if missing:
            ok = False
            line += f"; {len(missing)} of {len(injected[size])} injected faults NOT reported"
        lines.append(line)
        other = by_tool.get(against_name(against)) if against else None
        if other is not None:
            lines.append(f"{size:,} triples: findings-heavy corpus, this tree against {against}: peak RSS "
                         f"{heavy.rss_mb:.0f} MB against {other.rss_mb:.0f} MB ({heavy.rss_mb / other.rss_mb:.2f}x), "
                         f"CPU {heavy.cpu:.2f} s against {other.cpu:.2f} s ({heavy.cpu / other.cpu:.2f}x)")
    return lines, ok


# ---------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------

def environment() -> dict:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass

    def version(dist: str) -> str:
        try:
            return metadata.version(dist)
        except metadata.PackageNotFoundError:
            return "not installed"

    commit = subprocess.run(["git", "-C", str(ROOT), "describe", "--always", "--dirty"],
                            capture_output=True, text=True).stdout.strip()
    return {
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "load_average": round(os.getloadavg()[0], 2),
        "cpu": cpu,
        "cores": len(os.sched_getaffinity(0)),
        "memory_gb": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1),
        "python": platform.python_version(),
        "trustgraph-ontology": version("trustgraph-ontology"),
        "commit": commit or "unknown",
        "pyoxigraph": version("pyoxigraph"),
        "pyshacl": version("pyshacl"),
        "rdflib": version("rdflib"),
        "trustgraph-base": version("trustgraph-base"),
    }


def first_trace(path: Path) -> str:
    """The IRI of the corpus's first Question: the trace `show --trace` picks."""
    question = re.compile(r"^<([^>]+)> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> "
                          r"<https://trustgraph.ai/ns/\w*Question>")
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            found = question.match(line)
            if found:
                return found.group(1)
    raise RuntimeError(f"{path} holds no Question")


def _ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a is not None and b else None


def table_rows(results: dict[int, dict[str, Measure]]) -> list[list[str]]:
    rows = []
    for size, by_tool in results.items():
        parse = by_tool.get("bare parse")
        shacl = by_tool.get("pySHACL")
        for tool, m in by_tool.items():
            vs_parse = _ratio(m.wall, parse.wall if parse else None)
            vs_shacl = _ratio(shacl.wall if shacl else None, m.wall) if tool.startswith("tg-trace") else None
            rows.append([
                f"{size:,}",
                tool + (f" ({m.note})" if m.note else ""),
                f"{m.wall:.2f}",
                f"{m.cpu:.2f}",
                f"{m.wall / size * 1e6:.2f}",
                f"{m.rss_mb:.0f}",
                "-" if m.findings is None else f"{len(m.findings):,}",
                "-" if vs_parse is None else f"{vs_parse:.2f}x",
                "-" if vs_shacl is None else f"{vs_shacl:.1f}x",
            ])
    return rows


HEADER = ["triples", "tool", "wall s", "CPU s", "µs/triple", "peak RSS MB", "findings",
          "÷ bare parse", "pySHACL ÷ tool"]


def render_table(rows: list[list[str]], markdown: bool) -> str:
    if markdown:
        lines = ["| " + " | ".join(HEADER) + " |",
                 "|" + "|".join("---:" if i != 1 else "---" for i in range(len(HEADER))) + "|"]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
        return "\n".join(lines)
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(HEADER)]
    fmt = lambda cells: "  ".join(c.ljust(w) if i == 1 else c.rjust(w)  # noqa: E731
                                  for i, (c, w) in enumerate(zip(cells, widths)))
    return "\n".join([fmt(HEADER), fmt(["-" * w for w in widths])] + [fmt(r) for r in rows])


def cluster_lines(results: dict[int, dict[str, Measure]], parts: int) -> list[str]:
    """What the cluster costs against one process on the whole file: wall time, CPU time of every
    process (the work inflation), each process's peak memory and the bytes moved between tasks."""
    lines = []
    for size, by_tool in results.items():
        one = by_tool["tg-trace lint"]
        head = f"{size:,} triples:"
        for workers in CLUSTER_WORKERS:
            m = by_tool.get(cluster_tool(workers, parts))
            if m is None or m.cluster is None:
                continue
            c = m.cluster
            mb = 1 << 20
            wall, cpu = m.wall / one.wall, m.cpu / one.cpu
            lines.append(f"{head} --cluster local:{workers}, {parts} parts: wall {m.wall:.2f} s = {wall:.2f}x one "
                         f"process" + (f" (target ≤ {TARGET_CLUSTER_WALL:g}x: "
                                       f"{'met' if wall <= TARGET_CLUSTER_WALL else 'MISSED'})" if workers == 2 else "")
                         + f"; CPU of every process {m.cpu:.2f} s = {cpu:.2f}x one process's {one.cpu:.2f} s "
                         f"(the work inflation; target ≤ {TARGET_CLUSTER_CPU:g}x: "
                         f"{'met' if cpu <= TARGET_CLUSTER_CPU else 'MISSED'})")
            seam = c["seam_triples"] / max(1, c["seam_triples"] + c["interior_triples"])
            lines.append(f"{head} --cluster local:{workers}: peak memory per process: client "
                         f"{c['client_peak_bytes'] / mb:.0f} MB, workers "
                         + ", ".join(f"{b / mb:.0f} MB" for b in c["worker_peak_bytes"])
                         + f"; moved between tasks: seam pieces {c['shuffled_bytes'] / mb:.1f} MB "
                         f"({seam:.1%} of the triples, {c['ranges']} ranges), hashes {c['keys_bytes'] / mb:.1f} MB; "
                         f"gathered by the client {c['summary_bytes'] / 1024:.0f} KB")
    return lines


def check_lines(results: dict[int, dict[str, Measure]], injected: dict[int, set],
                pairs: list[tuple[str, str]]) -> tuple[list[str], bool]:
    """One line per check and target; and whether every correctness check passed.

    ``pairs`` are (one process, parallel) rows whose speed-up is reported; every
    tg-trace row must find what one process finds on the single file."""
    lines, ok = [], True
    for size, by_tool in results.items():
        fast, parse, shacl = by_tool["tg-trace lint"], by_tool.get("bare parse"), by_tool.get("pySHACL")
        head = f"{size:,} triples:"

        def mark(good: bool, size=size) -> str:
            # A corpus ends on a whole trace, a little above the size asked for.
            if size < TARGET_SIZE * 0.99:
                return f"set for {TARGET_SIZE:,} triples"
            return "met" if good else "MISSED"
        if shacl is not None:
            if shacl.findings == fast.findings:
                lines.append(f"{head} findings identical to pySHACL ({len(fast.findings):,} (rule, focus) pairs)")
            else:
                ok = False
                only_fast = sorted(fast.findings - shacl.findings)
                only_shacl = sorted(shacl.findings - fast.findings)
                lines.append(f"{head} findings DIFFER from pySHACL: {len(only_fast)} only in tg-trace, "
                             f"{len(only_shacl)} only in pySHACL")
                lines += [f"    only tg-trace: {r} {f}" for r, f in only_fast[:20]]
                lines += [f"    only pySHACL:  {r} {f}" for r, f in only_shacl[:20]]
        else:
            lines.append(f"{head} findings not compared (pySHACL skipped at this size)")
        missing = injected[size] - fast.findings
        if missing:
            ok = False
            lines.append(f"{head} {len(missing)} of {len(injected[size])} injected faults NOT reported: "
                         + ", ".join(f"{r} {f}" for r, f in sorted(missing)[:10]))
        else:
            lines.append(f"{head} all {len(injected[size])} injected faults reported")
        for tool, m in by_tool.items():
            if tool.startswith("tg-trace lint") and tool != "tg-trace lint" and m.findings != fast.findings:
                ok = False
                lines.append(f"{head} {tool} findings DIFFER from one process on one file "
                             f"({len(m.findings ^ fast.findings)} pairs)")
        for one, many in pairs:
            if one in by_tool and many in by_tool:
                lines.append(f"{head} {many} speed-up over {one}: "
                             f"{by_tool[one].wall / by_tool[many].wall:.2f}x")
        if shacl is not None:
            r = shacl.wall / fast.wall
            lines.append(f"{head} pySHACL ÷ tg-trace = {r:.1f}x (target ≥ {TARGET_VS_PYSHACL:g}x: "
                         f"{mark(r >= TARGET_VS_PYSHACL)}; in CPU time {_ratio(shacl.cpu, fast.cpu) or 0:.1f}x)")
        if parse is not None:
            r = fast.wall / parse.wall
            lines.append(f"{head} tg-trace ÷ bare parse = {r:.2f}x (target ≤ {TARGET_VS_PARSE:g}x: "
                         f"{mark(r <= TARGET_VS_PARSE)}; in CPU time {_ratio(fast.cpu, parse.cpu) or 0:.2f}x)")
            unpacked = by_tool.get(UNPACKED)
            if unpacked is not None:
                lines.append(f"{head} {UNPACKED} ÷ bare parse = {unpacked.wall / parse.wall:.2f}x "
                             f"(Python's own cost of touching each quad once)")
        lines.append(f"{head} tg-trace peak RSS {fast.rss_mb:.0f} MB (target ≤ {TARGET_RSS_MB:g} MB: "
                     f"{mark(fast.rss_mb <= TARGET_RSS_MB)})")
        if LIST in by_tool:
            r = by_tool[LIST].wall / fast.wall
            lines.append(f"{head} {LIST} ÷ tg-trace lint = {r:.2f}x (target ≤ {TARGET_LIST_VS_LINT:g}x: "
                         f"{mark(r <= TARGET_LIST_VS_LINT)})")
        if SHOW_ONE in by_tool:
            lines.append(f"{head} {SHOW_ONE} ÷ tg-trace lint = {by_tool[SHOW_ONE].wall / fast.wall:.2f}x "
                         f"(the rules run on one trace; the file is still parsed whole)")
    if len(results) > 1:
        per = {size: by_tool["tg-trace lint"].wall / size * 1e6 for size, by_tool in results.items()}
        lines.append("tg-trace cost per triple by size: "
                     + ", ".join(f"{size:,}: {us:.2f} µs" for size, us in per.items()))
    return lines, ok


# The benchmark's steps in the order they run and report: a script read top to bottom.
def main(argv=None) -> int:  # noqa: PLR0915
    parser = argparse.ArgumentParser(prog="run.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,100000,1000000",
                        help="comma-separated corpus sizes in triples (default 10000,100000,1000000)")
    parser.add_argument("--skip-pyshacl-above", type=int, default=None, metavar="N",
                        help="do not run pySHACL for sizes above N triples")
    parser.add_argument("-j", "--jobs", type=int, default=2,
                        help="processes for the parallel tg-trace row (default 2; 0 or 1: no such row)")
    parser.add_argument("--files", type=int, default=4, metavar="K",
                        help="for the parallel rows, also lint the corpus split into K files "
                             "(default 4; 0: no such rows)")
    parser.add_argument("--repeat", type=int, default=3,
                        help="runs of each fast tool per size; the median wall time is reported "
                             "(pySHACL runs once) (default 3)")
    parser.add_argument("--faults", type=float, default=0.01, help="share of faulty traces (default 0.01)")
    parser.add_argument("--heavy-faults", type=float, default=0.02, metavar="RATE",
                        help="also lint a findings-heavy corpus of each size, this share of its traces faulty, and "
                             "print the cost of a finding (default 0.02; 0: none)")
    parser.add_argument("--against", default=None, metavar="REV",
                        help="also lint the findings-heavy corpus with the tg-trace of git revision REV of this "
                             "repository (its sources unpacked beside the corpora), in the same rounds: the peak "
                             "memory and CPU time of both trees on the same file")
    parser.add_argument("--chains", default="", metavar="ITERATIONS",
                        help="measure both engines on ReAct loops of these numbers of iterations instead "
                             "(comma-separated, e.g. 250,2000): CPU per triple at each length")
    parser.add_argument("--seed", default="0", help="corpus seed (default 0)")
    parser.add_argument("--corpora", type=Path, default=DEFAULT_CORPORA,
                        help="where corpora are cached (default benchmarks/.corpora)")
    parser.add_argument("--reuse-pyshacl", action="store_true",
                        help="reuse a pySHACL measurement stored by an earlier run when the corpus, shapes, "
                             "ontology, reference engine and pySHACL/rdflib versions are unchanged "
                             "(pySHACL needs minutes at 1M triples); the table marks it with its date")
    parser.add_argument("--capture-parts", type=int, default=0, metavar="K",
                        help="also lint the corpus cut into K parts at arbitrary lines as one capture, in one "
                        "process (--one-capture) and on local Dask clusters of 1 and 2 workers (--cluster local:N); "
                        "off by default: the cluster's start-up is slow for a smoke run")
    parser.add_argument("--explore", action="store_true",
                        help="also time tg-trace list and tg-trace show --trace of one trace on each corpus; "
                        "off by default, so the CI smoke run stays as it is")
    parser.add_argument("--watch", type=int, default=0, metavar="TRACES",
                        help="measure tg-trace watch instead: its throughput (traces/s) and memory at the start and "
                        "end on a compressed day of TRACES traces replayed by a local server speaking the gateway's "
                        "protocol (benchmarks/watch_bench.py)")
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    parser.add_argument("--json", type=Path, default=None, metavar="FILE", help="also write the raw results here")
    args = parser.parse_args(argv)
    if args.watch:
        sys.path.insert(0, str(HERE))
        import watch_bench

        result = watch_bench.measure(args.watch, tg_trace=tg_trace_command())
        for line in watch_bench.lines(result):
            print(("- " if args.markdown else "") + line)
        if args.json:
            args.json.write_text(json.dumps({"environment": environment(), "watch": result}, indent=2) + "\n")
        return 0
    if args.chains:
        try:
            iterations = [int(s.replace("_", "")) for s in args.chains.split(",") if s.strip()]
        except ValueError:
            parser.error(f"--chains takes integers, not {args.chains!r}")
        if not iterations or min(iterations) < 1:
            parser.error("--chains takes positive integers")
        (args.corpora / "runs").mkdir(parents=True, exist_ok=True)
        lines, ok = chain_lines(iterations, args.corpora, args.repeat, tg_trace_command() + ["lint"],
                                ["--format", "json", "--fail-on", "never", "--no-config"])
        for line in lines:
            print(("- " if args.markdown else "") + line)
        if args.json:
            args.json.write_text(json.dumps({"environment": environment(), "chains": lines, "ok": ok}, indent=2) + "\n")
        return 0 if ok else 1
    try:
        sizes = [int(s.replace("_", "")) for s in args.sizes.split(",") if s.strip()]
    except ValueError:
        parser.error(f"--sizes takes integers, not {args.sizes!r}")
    if not sizes or min(sizes) < 1:
        parser.error("--sizes takes positive integers")

    env = environment()
    lint = tg_trace_command() + ["lint"]
    common = ["--format", "json", "--fail-on", "never", "--no-config"]
    jobs_option = lint_jobs_option() if args.jobs > 1 else None
    jobs = f"-j {args.jobs}"
    shards = args.files if jobs_option else 0
    many = f"{shards} files"
    pairs = [("tg-trace lint", f"tg-trace lint {jobs}"),
             (f"tg-trace lint, {many}", f"tg-trace lint {jobs}, {many}")]
    work = args.corpora / "runs"
    work.mkdir(parents=True, exist_ok=True)

    results: dict[int, dict[str, Measure]] = {}
    injected: dict[int, set] = {}
    heavy_sizes: dict[int, int] = {}
    heavy_injected: dict[int, set] = {}
    for size in sizes:
        path = corpus(size, args.faults, args.seed, args.corpora, shards)
        manifest = json.loads(Path(str(path) + ".faults.json").read_text())
        triples = manifest["triples"]
        injected[triples] = {(f["rule"], f["focus"]) for f in manifest["faults"]}
        by_tool: dict[str, Measure] = {}

        tools = [Tool("bare parse", [sys.executable, "-c", BARE_PARSE, str(path)], parse=False),
                 Tool(UNPACKED, [sys.executable, "-c", PARSE_UNPACKED, str(path)], parse=False),
                 Tool("tg-trace lint", lint + [str(path)] + common)]
        if jobs_option:
            tools.append(Tool(f"tg-trace lint {jobs}", lint + [str(path), jobs_option, str(args.jobs)] + common,
                              tree=True))
        if shards:
            folder = str(path) + ".shards"
            tools.append(Tool(f"tg-trace lint, {many}", lint + [folder] + common))
            tools.append(Tool(f"tg-trace lint {jobs}, {many}", lint + [folder, jobs_option, str(args.jobs)] + common,
                              tree=True))
        if args.heavy_faults > 0:
            heavy = corpus(size, args.heavy_faults, args.seed, args.corpora, 0)
            heavy_manifest = json.loads(Path(str(heavy) + ".faults.json").read_text())
            heavy_sizes[triples] = heavy_manifest["triples"]
            heavy_injected[triples] = {(f["rule"], f["focus"]) for f in heavy_manifest["faults"]}
            tools += heavy_tools(heavy, lint, common, args.against, args.corpora)
        if args.capture_parts > 1:
            parts = cut_into_parts(path, args.capture_parts, work)
            tools.append(Tool(f"tg-trace lint --one-capture, {len(parts)} parts",
                              lint + ["--one-capture", *parts] + common))
            tools.extend(Tool(cluster_tool(workers, len(parts)),
                              [sys.executable, "-c", CLUSTER_RUN, f"local:{workers}", *parts], tree=True)
                         for workers in CLUSTER_WORKERS)
        if args.explore:
            explore_common = ["--format", "json", "--no-config"]
            tools.append(Tool(LIST, tg_trace_command() + ["list", str(path)] + explore_common, parse=False))
            tools.append(Tool(SHOW_ONE, tg_trace_command() + ["show", str(path), "--trace", first_trace(path)]
                              + explore_common, parse=False))

        print(f"measuring {triples:,} triples ...", file=sys.stderr, flush=True)
        by_tool.update(measure(tools, triples, work, args.repeat))
        # Compared with the size asked for: a corpus ends on a whole trace, a little above it.
        if args.skip_pyshacl_above is None or size <= args.skip_pyshacl_above:
            cached, cache_path = cached_reference(path, args.corpora)
            if cached is not None and args.reuse_pyshacl:
                by_tool["pySHACL"] = cached
            else:
                print(f"  pySHACL on {triples:,} triples (slow) ...", file=sys.stderr, flush=True)
                m = measure([Tool("pySHACL", lint + [str(path), "--engine", "shacl"] + common)],
                            triples, work, 1)["pySHACL"]
                store_reference(m, cache_path, env["commit"])
                by_tool["pySHACL"] = m
        results[triples] = by_tool

    env["load_average_after"] = round(os.getloadavg()[0], 2)
    bullet = "- " if args.markdown else ""
    header = [
        f"date: {env['date']}",
        f"machine: {env['cpu']}, {env['cores']} cores, {env['memory_gb']} GB RAM; 1-minute load "
        f"average {env['load_average']} before the run, {env['load_average_after']} after",
        f"software: Python {env['python']}, trustgraph-ontology {env['trustgraph-ontology']} "
        f"({env['commit']}), pyoxigraph {env['pyoxigraph']}, pyshacl {env['pyshacl']}, "
        f"rdflib {env['rdflib']}",
        f"corpus: real-emitter traces (trustgraph-base {env['trustgraph-base']}), "
        f"{args.faults * 100:g}% of traces faulty, seed {args.seed}",
        f"timing: median of {args.repeat} run(s) per tool, in rounds of one run of each tool; pySHACL one run; "
        f"peak RSS: the largest run"
        + (f", summed over the processes of a {jobs} row" if jobs_option else ""),
    ]
    if not jobs_option and args.jobs > 1:
        header.append("tg-trace lint has no -j option in this version: no parallel row")
    for line in header:
        print(bullet + line)
    print()
    print(render_table(table_rows(results), args.markdown))
    print()
    lines, ok = check_lines(results, injected, pairs)
    more, heavy_ok = heavy_lines(results, heavy_sizes, heavy_injected, args.heavy_faults, args.against)
    lines += more
    ok &= heavy_ok
    if args.capture_parts > 1:
        lines += cluster_lines(results, args.capture_parts)
    for line in lines:
        print(("- " if args.markdown else "") + line)

    if args.json:
        args.json.write_text(json.dumps({
            "environment": env,
            "results": [
                {"triples": size, "tool": m.tool, "wall_s": m.wall, "peak_rss_mb": m.rss_mb,
                 "runs": m.runs, "findings": None if m.findings is None else len(m.findings)}
                for size, by_tool in results.items() for m in by_tool.values()
            ],
            "checks": lines,
            "ok": ok,
        }, indent=2) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
