"""Hostile nesting: a documented depth bound (``--max-depth``, 64 by default, at most 100), reached
with one line and exit 2 before a parser sees the input, in every syntax and on every command;
never a segfault (pyoxigraph's parsers overflowed their stack), a RecursionError (exit 3) or
quadratic time. Each run is a process of its own under a 4 GB address-space limit
(tests/hostile_support.py)."""

from __future__ import annotations

import gzip
import json
import sys

import pytest
from hostile_support import (
    ROOT,
    assert_linear,
    assert_refused,
    assert_survived,
    json_ld,
    nested_term,
    rdf_xml,
    reference_chain,
    run,
    sub_agents,
    triple_terms,
    wire_triple_terms,
    write,
)

# Slow: each case a process of its own, nesting thousands deep on every command (`python -m pytest -m "not slow"` leaves it out; CI runs it).
pytestmark = pytest.mark.slow

MATRIX = ROOT / "tests" / "hostile_matrix.py"


def matrix(path, *extra: str, cwd) -> list[dict]:
    """Every command on ``path`` in one process (tests/hostile_matrix.py): what each did."""
    return _results(run(str(MATRIX), str(path), *extra, python=True, cwd=cwd))


def runs(folder, *runs_: tuple) -> list[dict]:
    """Several runs (arguments, and a file for standard input or None) in one process."""
    listed = folder / "runs.json"
    listed.write_text(json.dumps([{"args": list(args), "stdin": str(stdin) if stdin else None}
                                  for args, stdin in runs_]))
    return _results(run(str(MATRIX), "--runs", str(listed), python=True, cwd=folder))


def _results(ran) -> list[dict]:
    assert_survived(ran)
    assert ran.status == 0, ran.err[-2000:]
    return [json.loads(line) for line in ran.stdout.decode().splitlines()]


def assert_every_command_refuses(results: list[dict], name: str, words: str) -> None:
    for result in results:
        lines = result["stderr"].strip().splitlines()
        assert result["status"] == 2 and len(lines) == 1, result
        assert name in lines[0] and words in lines[0], result


def assert_no_command_fails(results: list[dict]) -> None:
    for result in results:
        assert result["status"] in (0, 1), result
        assert "internal error" not in result["stderr"], result


# ---------------------------------------------------------------- 2: no segfault


@pytest.mark.parametrize("name,content", [
    ("deep.jsonld", json_ld(4000)),  # 40 KB: a segfault with nothing on standard error
    ("deep.nq", "\n".join(triple_terms(25_000)).encode()),  # 609 KB: the parser's stack overflowed
    ("deep.ttl", b"<urn:a> <urn:b> " + nested_term(25_000).encode() + b" .\n"),
    ("deep.trig", b"<urn:g> { <urn:a> <urn:b> " + nested_term(25_000).encode() + b" . }\n"),
    ("deep.rdf", rdf_xml(40_000)),
])
def test_deep_nesting_is_refused_before_the_parser_sees_it(tmp_path, name, content):
    path = tmp_path / name
    path.write_bytes(content)
    packed = tmp_path / (name + ".gz")
    packed.write_bytes(gzip.compress(content))
    fmt = {".jsonld": "jsonld", ".nq": "nquads", ".ttl": "turtle", ".trig": "trig", ".rdf": "rdfxml"}[path.suffix]
    # As a file, as standard input, compressed and through diff.
    done = runs(tmp_path, (("lint", str(path)), None), (("lint", "--input-format", fmt, "-"), path),
                (("lint", str(packed)), None), (("diff", str(path), str(path)), None))
    for result, named in zip(done, (name, "<stdin>", packed.name, name)):
        assert_every_command_refuses([result], named, "nests more than 64 deep")
        assert "raise --max-depth" in result["stderr"]


def test_json_ld_is_measured_named_json_too(tmp_path):
    # Named .json, 4,000 deep was "JSON nested too deeply" while .jsonld crashed; 500 deep passes
    # Python's JSON reader and reached the JSON-LD parser unmeasured.
    for depth, words in ((4000, "nested too deeply"), (500, "nests more than 64 deep (JSON-LD")):
        path = tmp_path / f"deep{depth}.json"
        path.write_bytes(json_ld(depth))
        assert_refused(run("lint", str(path)), path.name, words)


def test_triple_terms_of_every_reader_are_bounded(tmp_path):
    wire = tmp_path / "deep.json"
    wire.write_bytes(wire_triple_terms(300))  # 600 deep in JSON: Python reads it, the term reader recursed
    assert_refused(run("lint", str(wire)), "deep.json", "nests more than 64 deep (triple terms")
    stream = tmp_path / "deep.jsonl"
    stream.write_text(json.dumps({"message_type": "explain", "explain_graph": "urn:graph:retrieval",
                                  "explain_triples": json.loads(wire_triple_terms(300))}) + "\n")
    assert_refused(run("lint", str(stream)), "deep.jsonl:1", "nests more than 64 deep (triple terms")
    # Python objects: the API's wire dicts.
    probe = ("import json, sys\nimport tgtrace\nfrom tgtrace.inputs.loaders import InputError\n"
             "try:\n    tgtrace.lint(json.loads(open(sys.argv[1]).read()))\nexcept InputError as exc:\n"
             "    print(exc)\n")
    ran = run("-c", probe, str(wire), python=True)
    assert ran.status == 0 and "nests more than 64 deep" in ran.stdout.decode(), ran.err


def test_the_depth_screen_is_linear(tmp_path):
    # Below the parser's crash, triple terms were quadratic: 2,000 deep 3.8 s, 8,000 deep 40 s.
    base = run("lint", str(write(tmp_path / "base.nq", triple_terms(1))))
    small = write(tmp_path / "small.nq", triple_terms(2000))
    large = write(tmp_path / "large.nq", triple_terms(8000))
    first = run("lint", str(small))
    assert_refused(first, "small.nq:5", "nests more than 64 deep")
    assert_linear(first, run("lint", str(large)), 4, base)
    # Nested RDF/XML: 0.4, 0.8, 1.6 and 3.2 MB took 2, 10, 41 and 67 s before "holds no trace".
    small = tmp_path / "small.rdf"
    small.write_bytes(rdf_xml(6000))
    large = tmp_path / "large.rdf"
    large.write_bytes(rdf_xml(48_000))
    first = run("lint", str(small))
    assert_refused(first, "small.rdf:3", "nests more than 64 deep (XML elements)")
    assert_linear(first, run("lint", str(large)), 8, base)


# ---------------------------------------------------------------- 4: no RecursionError on valid RDF


def test_a_long_chain_of_references_passes_every_command(tmp_path):
    # 400 entities each named by the one before lint, but diff raised RecursionError (exit 3).
    path = write(tmp_path / "chain.nq", reference_chain(400))
    assert_no_command_fails(matrix(path, cwd=tmp_path))


def test_a_snapshot_of_a_long_chain_matches_run_after_run(tmp_path):
    # Written on the first run, it raised RecursionError on every run after.
    path = write(tmp_path / "chain.nq", reference_chain(400))
    probe = ("import sys\nfrom tgtrace.testing import assert_trace_snapshot\n"
             "print(assert_trace_snapshot(sys.argv[1], sys.argv[2], ci=False))\n")
    for expected in ("written", "matched", "matched"):
        ran = run("-c", probe, str(path), str(tmp_path / "chain.trig"), python=True)
        assert_survived(ran)
        assert ran.stdout.decode().strip() == expected, ran.err[-1000:]


def test_sub_agents_nested_past_the_bound_are_one_line_on_every_view(tmp_path):
    # 600 deep crashed diff and show, 1,200 list and the HTML report (exit 3).
    path = write(tmp_path / "agents.nq", sub_agents(600))
    results = {tuple(r["args"][:3]): r for r in matrix(path, cwd=tmp_path)}
    views = [r for args, r in results.items() if args[0] in ("list", "show", "diff", "graph")]
    assert_every_command_refuses(views, "agents.nq", "sub-traces nest more than 64 deep")
    # lint walks no sub-trace: it judges the file, and its HTML report leaves the trace's view out.
    assert_no_command_fails([r for args, r in results.items() if args[0] in ("lint", "convert")])


def test_triple_terms_past_the_bound_are_one_line_on_every_command(tmp_path):
    # ~400 deep crashed diff, ~500 convert, ~1,000 --format shacl (exit 3).
    path = write(tmp_path / "terms.nq", triple_terms(1000))
    assert_every_command_refuses(matrix(path, cwd=tmp_path), "terms.nq:5", "nests more than 64 deep")


@pytest.mark.parametrize("writer", [sub_agents, triple_terms], ids=["sub-agents", "triple-terms"])
def test_the_deepest_bound_allowed_passes_every_command(tmp_path, writer):
    # --max-depth may be raised to 100: every command and format walks that deep without recursing
    # out of Python's stack.
    path = write(tmp_path / "deep.nq", writer(100))
    assert_no_command_fails(matrix(path, "--max-depth", "100", cwd=tmp_path))
    ran = run("lint", "--max-depth", "101", str(path))
    assert_refused(ran, "--max-depth", "101")


def test_the_bound_is_an_option(tmp_path):
    path = write(tmp_path / "terms.nq", triple_terms(70))
    assert_refused(run("lint", str(path)), "terms.nq:5", "nests more than 64 deep")
    assert run("lint", "--max-depth", "80", str(path)).status in (0, 1)
    assert_refused(run("lint", "--max-depth", "10", str(write(tmp_path / "t.nq", triple_terms(11)))), "t.nq",
                   "nests more than 10 deep")


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-n", "0"]))
