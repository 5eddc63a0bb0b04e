"""Hostile configuration and baselines: what a repository's files can hold that Python's own
readers choke on (nesting thousands deep, integers of thousands of digits, a NUL, a lone
surrogate, entries of the wrong shape) is each one line naming the file and exit 2, never an
internal error. Each run is a process of its own under a 4 GB address-space limit."""

from __future__ import annotations

import json

import pytest
from conftest import EXAMPLES
from hostile_support import assert_refused, run

# Slow: each case a process of its own under a memory limit (`python -m pytest -m "not slow"` leaves it out; CI runs it).
pytestmark = pytest.mark.slow

TRACE = str(EXAMPLES / "graph-rag.nq")

CONFIGURATIONS = [
    ("arrays.toml", "select = " + "[" * 3000 + "]" * 3000 + "\n", "tg-trace.toml:1: invalid TOML: arrays or inline"),
    ("tables.toml", "severity = " + "{a = " * 3000 + "1" + "}" * 3000 + "\n", "nest more than 64 deep"),
    ("digits.toml", "min-coverage = " + "7" * 5000 + "\n", "invalid TOML: Exceeds the limit (4300 digits)"),
    ("nul.toml", 'baseline = "a\\u0000b"\n', "baseline: a file path cannot hold a NUL character"),
    # Brackets inside strings and comments are no nesting: read, the file names a baseline not there.
    ("strings.toml", 'select = ["C001"] # ' + "[" * 100 + '\nbaseline = "' + "{" * 100 + '"\n',
     "{" * 100 + ": baseline file not found"),
]


@pytest.mark.parametrize("name,text,words", CONFIGURATIONS, ids=[c[0] for c in CONFIGURATIONS])
def test_a_hostile_configuration_is_one_line(tmp_path, name, text, words):
    (tmp_path / "tg-trace.toml").write_text(text)
    named = "" if name == "strings.toml" else "tg-trace.toml"
    assert_refused(run("lint", TRACE, cwd=tmp_path), named, words)


def _baseline(findings, version=1) -> str:
    return json.dumps({"tool": "tg-trace", "version": version, "findings": findings})


BIG = "7" * 5000
BASELINES = [
    ("deep.json", "[" * 5000 + "]" * 5000, "not a baseline file: nested more than 64 deep"),
    ("count.json", _baseline([{"rule": "C001", "focus": "urn:a", "count": 1}]).replace('"count": 1', f'"count": {BIG}'),
     "not a baseline file: Exceeds the limit (4300 digits)"),
    ("version.json", _baseline([]).replace('"version": 1', f'"version": {BIG}'), "Exceeds the limit (4300 digits)"),
    ("surrogate.json", _baseline([{"rule": "C001", "focus": "\ud800"}]), "entry 1 has a 'focus' holding a lone surrogate"),
    ("list.json", _baseline([["C001", "urn:a"]]), "entry 1 is a list, not an object with 'rule' and 'focus'"),
    ("number.json", _baseline([5]), "entry 1 is a number, not an object"),
    ("trace-list.json", _baseline([{"rule": "C001", "focus": "urn:a", "trace": [1]}]),
     "entry 1 has a 'trace' that is not text (list)"),
    ("rule-number.json", _baseline([{"rule": 5, "focus": "urn:a"}]), "entry 1 has a 'rule' that is not text (int)"),
    ("huge-count.json", _baseline([{"rule": "C001", "focus": "urn:a", "count": 10 ** 30}]), "entry 1 has a bad count"),
]


@pytest.mark.parametrize("name,text,words", BASELINES, ids=[b[0] for b in BASELINES])
def test_a_hostile_baseline_is_one_line(tmp_path, name, text, words):
    path = tmp_path / name
    path.write_text(text)
    assert_refused(run("lint", "--no-config", "--baseline", str(path), TRACE, cwd=tmp_path), name, words)
