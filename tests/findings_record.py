"""The findings the linter gives on a fixed body of traces, recorded so that a
restructuring of the code can be checked to change none of them.

    python tests/findings_record.py          # rewrite tests/data/findings-record.json.gz

The body: every example file, every mutation of the mutation suite, every
rule's fault, and the benchmark corpora of 10k and 100k triples (seed 7).
``tests/test_findings_record.py`` recomputes them and compares with the file.
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RECORD = HERE / "data" / "findings-record.json.gz"
CORPUS_SIZES = (10_000, 100_000)

sys.path.insert(0, str(HERE))


def recorded_fault_codes() -> list[str] | None:
    """The rules whose faults the record holds (None: no record yet). A rule added later is
    tested by its own fault (tests/test_rules.py); the record's corpora are built from these
    rules' faults only, so they stay the corpora that were recorded."""
    if not RECORD.exists():
        return None
    with gzip.open(RECORD, "rt", encoding="utf-8") as handle:
        return sorted(name[len("fault:"):] for name in json.load(handle) if name.startswith("fault:"))


def rows(report) -> list[list]:
    """Each finding as a plain list; files by name only, so the record does not depend on paths."""
    out = []
    for f in report.findings:
        name = Path(f.file).name if f.file and not f.file.startswith("<") else f.file
        out.append([name, f.line, f.rule, str(f.severity), f.focus, f.trace, f.path, f.value, f.message])
    return sorted(out, key=lambda r: [str(x) for x in r])


def example_cases():
    import tgtrace
    from conftest import EXAMPLES

    for path in sorted(EXAMPLES.iterdir()):
        if path.suffix in (".nq", ".json", ".jsonl"):
            yield f"example:{path.name}", lambda path=path: rows(tgtrace.lint(str(path), fail_on="never"))


def mutation_cases():
    import tgtrace
    from test_mutations import MUTATIONS

    # Mutation ids are not unique (one kind of fault on one node can be made two ways): number them.
    for number, m in enumerate(MUTATIONS):
        yield f"mutation:{number}:{m.id}", lambda m=m: rows(tgtrace.lint(m.quads, fail_on="never"))


def fault_cases(codes: list[str] | None = None):
    import tgtrace
    from conftest import EXAMPLES
    from tgtrace.rules import all_rules

    for code, rule in all_rules().items():
        if rule.fault is not None and (codes is None or code in codes):
            def run(rule=rule):
                data = rule.fault.apply(EXAMPLES)
                with tempfile.TemporaryDirectory() as folder:
                    path = Path(folder) / rule.fault.trace
                    path.write_bytes(data)
                    return rows(tgtrace.lint(str(path), fail_on="never"))
            yield f"fault:{code}", run


def corpus_path(size: int, folder: Path, codes: list[str] | None = None) -> Path:
    path = folder / f"corpus-{size}.nq"
    if not path.exists():
        subprocess.run([sys.executable, str(ROOT / "benchmarks" / "generate_corpus.py"), "--triples", str(size),
                        "--out", str(path), "--faults", "0.01", "--seed", "7"]
                       + (["--fault-codes", ",".join(codes)] if codes else []), check=True,
                       stdout=subprocess.DEVNULL)
    return path


def corpus_cases(folder: Path, codes: list[str] | None = None):
    import tgtrace

    for size in CORPUS_SIZES:
        yield f"corpus:{size}", lambda size=size: rows(
            tgtrace.lint(str(corpus_path(size, folder, codes)), fail_on="never"))


def all_cases(folder: Path, codes: list[str] | None = None):
    """Every case; ``codes`` limits the faults (and the corpora's faults) to those rules."""
    yield from example_cases()
    yield from mutation_cases()
    yield from fault_cases(codes)
    yield from corpus_cases(folder, codes)


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        record = {name: run() for name, run in all_cases(Path(folder))}
    RECORD.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(RECORD, "wt", encoding="utf-8") as handle:
        json.dump(record, handle, sort_keys=True, separators=(",", ":"))
    print(f"{RECORD}: {len(record)} cases, {sum(map(len, record.values()))} findings")


if __name__ == "__main__":
    main()
