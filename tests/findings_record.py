"""The findings the linter gives on a fixed body of traces, recorded so that a
restructuring of the code can be checked to change none of them.

    python tests/findings_record.py              # rewrite tests/data/findings-record.json.gz
    python tests/findings_record.py --new-rules  # add the rules the record lacks, changing nothing recorded

The body: every example file, every mutation of the mutation suite, every
rule's fault, and the benchmark corpora of 10k and 100k triples (seed 7).
``tests/test_findings_record.py`` recomputes them and compares with the file;
a rule the record lacks fails it until ``--new-rules`` adds the rule's fault
case and its findings on every other case.
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


# The corpora are those recorded: their faults are drawn from these rules' recipes (the rules the
# record first held), so a rule added later does not change the corpora; it is recorded by its own
# fault and by its findings on every case.
CORPUS_FAULT_CODES = (
    "C001", "C002", "C003", "C004", "C010", "C011", "C012", "C013", "C014", "C015", "C016", "C017", "C018",
    "C019", "C020", "C021", "C022", "C023", "C024", "D001", "D002", "D003", "D004", "D005", "D006", "D007",
    "M001", "M002", "M003", "M004", "M005", "M006", "M007", "M008", "M009", "S001", "S002", "S003", "S004",
    "S005", "S006", "S007", "S008", "S009", "S010", "S011", "S012", "S013", "S014", "S015", "S016", "S017",
    "S018", "S019", "T001", "T002", "T003", "T004", "V001", "V002", "V003",
)


def read_record() -> dict[str, list]:
    with gzip.open(RECORD, "rt", encoding="utf-8") as handle:
        return json.load(handle)


def write_record(record: dict[str, list]) -> None:
    RECORD.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(RECORD, "wt", encoding="utf-8") as handle:
        json.dump(record, handle, sort_keys=True, separators=(",", ":"))
    print(f"{RECORD}: {len(record)} cases, {sum(map(len, record.values()))} findings")


def missing_rules(record: dict[str, list]) -> list[str]:
    """The rules of the registry the record lacks (it holds each rule's fault case; a code no
    shape carries, a self-check's or an input notice's, has none)."""
    from tgtrace.rules import all_rules

    return [code for code, rule in all_rules().items() if rule.faults and f"fault:{code}" not in record]


def as_of_record(row: list) -> list:
    """Findings that a trace's age explains (rules with tgl:since, on a trace whose model predates
    them) are info with the release named; the record holds them at the rule's own severity."""
    from tgtrace.rules import all_rules

    file, line, rule, severity, focus, trace, path, value, message = row
    if " (written so by TrustGraph " in message:
        message = message.split(" (written so by TrustGraph ")[0]
        severity = str(all_rules()[rule].severity)
    return [file, line, rule, severity, focus, trace, path, value, message]


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


def fault_cases():
    import tgtrace
    from conftest import EXAMPLES
    from tgtrace.rules import all_rules

    for code, rule in all_rules().items():
        for index, fault in enumerate(rule.faults):
            def run(rule=rule, fault=fault):
                data = fault.apply(EXAMPLES)
                with tempfile.TemporaryDirectory() as folder:
                    path = Path(folder) / fault.trace
                    path.write_bytes(data)
                    # The rules that run by default and the rule itself (an opt-in one runs only so).
                    return rows(tgtrace.lint(str(path), fail_on="never", select=["ALL", rule.code]))
            yield f"fault:{code}" + (f":{index + 1}" if index else ""), run


def corpus_path(size: int, folder: Path) -> Path:
    path = folder / f"corpus-{size}.nq"
    if not path.exists():
        subprocess.run([sys.executable, str(ROOT / "benchmarks" / "generate_corpus.py"), "--triples", str(size),
                        "--out", str(path), "--faults", "0.01", "--seed", "7"]
                       + ["--fault-codes", ",".join(CORPUS_FAULT_CODES)], check=True,
                       stdout=subprocess.DEVNULL)
    return path


def corpus_cases(folder: Path):
    import tgtrace

    for size in CORPUS_SIZES:
        yield f"corpus:{size}", lambda size=size: rows(tgtrace.lint(str(corpus_path(size, folder)), fail_on="never"))


def all_cases(folder: Path):
    """Every case, by name, with the function that computes its findings."""
    yield from example_cases()
    yield from mutation_cases()
    yield from fault_cases()
    yield from corpus_cases(folder)


def add_new_rules(record: dict[str, list]) -> dict[str, list]:
    """The record with every rule it lacks added: the rule's fault case whole, and the rule's
    findings on every other case. No finding already recorded changes."""
    new = set(missing_rules(record))
    if not new:
        return record
    with tempfile.TemporaryDirectory() as folder:
        for name, run in all_cases(Path(folder)):
            if name not in record:
                record[name] = [as_of_record(row) for row in run()]
            else:
                added = [as_of_record(row) for row in run() if row[2] in new]
                record[name] = sorted(record[name] + added, key=lambda r: [str(x) for x in r])
    return record


def main() -> None:
    if sys.argv[1:] == ["--new-rules"]:
        write_record(add_new_rules(read_record()))
        return
    with tempfile.TemporaryDirectory() as folder:
        write_record({name: [as_of_record(row) for row in run()] for name, run in all_cases(Path(folder))})


if __name__ == "__main__":
    main()
