"""The findings the linter gives on a fixed body of traces, kept as text files a reviewer reads in
a diff, so that a change of behaviour shows up on purpose:

    python tests/findings_snapshots.py          # rewrite tests/snapshots/findings/ from the linter

- ``rules/CODE.txt``: each rule's fault (its recipe applied to the example it names) and every
  finding the linter gives on it, as the text report prints them: the finding and its advice.
- ``examples.txt``, ``mutations.txt``, ``corpora.txt``: every example file, every mutation of the
  mutation suite and the benchmark corpora of 10k and 100k triples (seed 7), one finding a line
  under each case's heading.

``tests/test_findings_snapshots.py`` recomputes each case and compares it with its file.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SNAPSHOTS = HERE / "snapshots" / "findings"
CORPUS_SIZES = (10_000, 100_000)
UPDATE = "python tests/findings_snapshots.py"

sys.path.insert(0, str(HERE))

# The corpora's faults are drawn from these rules' recipes (the rules there were when the corpora
# were first recorded), so that a rule added later does not change the corpora.
CORPUS_FAULT_CODES = (
    "C001", "C002", "C003", "C004", "C010", "C011", "C012", "C013", "C014", "C015", "C016", "C017", "C018",
    "C019", "C020", "C021", "C022", "C023", "C024", "D001", "D002", "D003", "D004", "D005", "D006", "D007",
    "M001", "M002", "M003", "M004", "M005", "M006", "M007", "M008", "M009", "S001", "S002", "S003", "S004",
    "S005", "S006", "S007", "S008", "S009", "S010", "S011", "S012", "S013", "S014", "S015", "S016", "S017",
    "S018", "S019", "T001", "T002", "T003", "T004", "V001", "V002", "V003",
)

Case = tuple[str, str, Callable[[], list[str]]]  # (file, case name, its lines)


def finding_lines(report, root: Path | None = None, advice: bool = False) -> list[str]:
    """The report's findings as the text report prints them (files by name, relative to ``root``),
    each with its advice when asked; in a stable order."""
    from tgtrace.formats.text import detail_lines, finding_line
    from tgtrace.rules.advice import advise

    blocks = []
    for finding in report.findings:
        given = advise(finding)
        line = finding_line(finding, root=root, advice=given)
        if root is None and finding.file and not finding.file.startswith("<"):
            line = line.replace(finding.file, Path(finding.file).name, 1)
        blocks.append([line, *(detail_lines(finding, given, None) if advice else [])])
    return [line for block in sorted(blocks) for line in block]


def _lint(source: object, **options: object):
    import tgtrace

    return tgtrace.lint(source, fail_on="never", **options)


def example_cases() -> Iterator[Case]:
    from conftest import EXAMPLES

    for path in sorted(EXAMPLES.iterdir()):
        if path.suffix in (".nq", ".json", ".jsonl"):
            yield "examples.txt", path.name, lambda path=path: finding_lines(_lint(str(path)))


def mutation_cases() -> Iterator[Case]:
    from test_mutations import MUTATIONS

    # Mutation ids are not unique (one kind of fault on one node can be made two ways): numbered.
    for number, m in enumerate(MUTATIONS):
        yield "mutations.txt", f"{number}:{m.id}", lambda m=m: finding_lines(_lint(m.quads))


def fault_cases() -> Iterator[Case]:
    from conftest import EXAMPLES
    from tgtrace.rules import all_rules

    for code, rule in all_rules().items():
        for index, fault in enumerate(rule.faults):
            def run(rule=rule, fault=fault) -> list[str]:
                data = fault.apply(EXAMPLES)
                with tempfile.TemporaryDirectory() as folder:
                    path = Path(folder) / fault.trace
                    path.write_bytes(data)
                    # The rules that run by default and the rule itself (an opt-in one runs only so).
                    return finding_lines(_lint(str(path), select=["ALL", rule.code]), root=Path(folder), advice=True)
            yield f"rules/{code}.txt", f"fault {index + 1}: {fault.trace}", run


def corpus_path(size: int, folder: Path) -> Path:
    path = folder / f"corpus-{size}.nq"
    if not path.exists():
        subprocess.run([sys.executable, str(ROOT / "benchmarks" / "generate_corpus.py"), "--triples", str(size),
                        "--out", str(path), "--faults", "0.01", "--seed", "7"]
                       + ["--fault-codes", ",".join(CORPUS_FAULT_CODES)], check=True,
                       stdout=subprocess.DEVNULL)
    return path


def corpus_cases(folder: Path | None) -> Iterator[Case]:
    for size in CORPUS_SIZES:
        yield "corpora.txt", f"corpus of {size:,} triples", \
            lambda size=size: finding_lines(_lint(str(corpus_path(size, folder))))


def all_cases(folder: Path | None) -> Iterator[Case]:
    """Every case: (its file, its name, the function that computes its lines)."""
    yield from example_cases()
    yield from mutation_cases()
    yield from fault_cases()
    yield from corpus_cases(folder)


def render(cases: dict[str, list[str]]) -> str:
    """A snapshot file: each case's heading, then its lines (or "no findings")."""
    out = []
    for name, lines in cases.items():
        out += [f"## {name}", *(lines or ["no findings"]), ""]
    return "\n".join(out)


def read(path: Path) -> dict[str, list[str]]:
    """The cases of a snapshot file, by name."""
    cases: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            current = cases.setdefault(line[3:], [])
        elif current is not None and line:
            current.append(line)
    return {name: [] if lines == ["no findings"] else lines for name, lines in cases.items()}


def main() -> None:
    files: dict[str, dict[str, list[str]]] = {}
    with tempfile.TemporaryDirectory() as folder:
        for file, name, run in all_cases(Path(folder)):
            files.setdefault(file, {})[name] = run()
    for stale in SNAPSHOTS.rglob("*.txt"):
        if str(stale.relative_to(SNAPSHOTS)) not in files:
            stale.unlink()
    for file, cases in files.items():
        path = SNAPSHOTS / file
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(render(cases), encoding="utf-8")
    print(f"{SNAPSHOTS}: {len(files)} files, {sum(map(len, files.values()))} cases")


if __name__ == "__main__":
    main()
