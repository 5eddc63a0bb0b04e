"""The findings on the examples, the mutation suite, the rules' faults and the benchmark corpora
equal their snapshots (tests/snapshots/findings/, written by tests/findings_snapshots.py): a change
of behaviour shows up in the snapshot's diff, and is made on purpose."""

from __future__ import annotations

import pytest
from findings_snapshots import SNAPSHOTS, UPDATE, all_cases, read

pytest.importorskip("trustgraph.provenance", reason="the corpus is built by the real emitter (trustgraph-base)")

CASES = [(file, name) for file, name, _ in all_cases(None)]  # corpus cases get their folder at run time
STORED = {str(path.relative_to(SNAPSHOTS)): read(path) for path in SNAPSHOTS.rglob("*.txt")}


@pytest.fixture(scope="module")
def corpora(tmp_path_factory):
    return tmp_path_factory.mktemp("corpora")


def test_every_case_has_its_snapshot():
    stored = sorted((file, name) for file, cases in STORED.items() for name in cases)
    assert stored == sorted(CASES), f"a case is new or gone: {UPDATE} writes the snapshots again"


def test_every_rule_with_a_fault_has_its_file():
    from tgtrace.rules import all_rules

    missing = [code for code, rule in all_rules().items() if rule.faults and f"rules/{code}.txt" not in STORED]
    assert not missing, f"no snapshot of the rules {missing}: {UPDATE}"


@pytest.mark.parametrize(("file", "name"), CASES, ids=[f"{file}:{name}" for file, name in CASES])
def test_findings_equal_the_snapshot(file, name, corpora):
    run = next(run for f, n, run in all_cases(corpora) if (f, n) == (file, name))
    found = run()
    assert found == STORED.get(file, {}).get(name), f"{file}, {name}: the findings changed; {UPDATE} and review the diff"
