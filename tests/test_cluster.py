"""--cluster: one capture linted on a Dask cluster gives exactly the findings of one process,
(rule, focus, file, line), whatever the cut of its parts, a lost worker or where the inputs are;
tg-trace list --cluster gives the rows of one process."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from types import SimpleNamespace

import pyoxigraph as ox
import pytest
import tgtrace
from capture_support import corpus, cut, moved, rows
from click.testing import CliRunner
from conftest import EXAMPLES, shapes_with_rule
from tgtrace.cli import main
from tgtrace.cluster import lint as cluster
from tgtrace.ground.graph import TraceGraph, key
from tgtrace.inputs.loaders import InputError
from tgtrace.run.settings import Settings
from tgtrace.tracemodel.traces import TRUSTGRAPH
from tgtrace.views import traces as traceviews

# Slow: starts a Dask cluster (`python -m pytest -m "not slow"` leaves it out; CI runs it).
pytestmark = pytest.mark.slow

dask = pytest.importorskip("dask")
distributed = pytest.importorskip("distributed")
fsspec = pytest.importorskip("fsspec")

ONE_CAPTURE = Settings(one_capture=True, fail_on=None)
# Small ranges, so that ranges cut traces (and lines of entities) everywhere in small examples.
CHUNK = 1500


@pytest.fixture(scope="module")
def client():
    """Workers started apart from this process (spawned), as a remote cluster's are: each hashes
    text with its own salt, and the ranges' nodes are hashed with blake2b."""
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as local, distributed.Client(local) as connected:
        assert cluster._salt(connected) is None
        yield connected


@pytest.fixture(scope="module")
def forked():
    """Workers forked from this process, as --cluster local:N starts them on Linux: they share its
    salt, and the ranges' nodes are hashed with the interpreter's own hash."""
    if "fork" not in multiprocessing.get_all_start_methods():
        pytest.skip("no fork here")
    with dask.config.set({"distributed.worker.multiprocessing-method": "fork"}), \
            distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                     dashboard_address=":0") as local, distributed.Client(local) as connected:
        assert cluster._salt(connected) == hash(cluster.PROBE)
        yield connected


# Both ways of hashing a range's nodes, each on its own cluster.
HASHINGS = ["client", "forked"]


CASES = [EXAMPLES / "releases" / "2.1.16" / "react.nq", EXAMPLES / "releases" / "2.2.12" / "supervisor.nq",
         EXAMPLES / "legacy-react-multi-iteration.nq", EXAMPLES / "supervisor.nq", EXAMPLES / "explain-stream.jsonl"]


@pytest.mark.parametrize("hashing", HASHINGS)
@pytest.mark.parametrize("source", CASES, ids=lambda p: str(p.relative_to(EXAMPLES)))
def test_cut_example_gives_the_findings_of_one_process(source: Path, tmp_path: Path, hashing: str, request):
    client = request.getfixturevalue(hashing)
    parts = cut(source, tmp_path, parts=4, seed=5)
    whole = tgtrace.lint(str(source), fail_on="never", allow_empty=True)
    report = cluster.lint(*(str(p) for p, _ in parts), settings=ONE_CAPTURE, client=client, chunk=CHUNK)
    assert rows(report) == moved(whole, parts)
    assert report.traces.keys() == whole.traces.keys()
    assert report.triples == whole.triples
    assert report.terms_used == whole.terms_used


@pytest.mark.parametrize("hashing", HASHINGS)
def test_corpus_cut_in_eight_parts(tmp_path: Path, hashing: str, request):
    client = request.getfixturevalue(hashing)
    source = corpus(100_000, tmp_path)
    parts = cut(source, tmp_path, parts=8, seed=11)
    names = [str(p) for p, _ in parts]
    whole = tgtrace.lint(str(source), fail_on="never")
    stats: dict = {}
    report = cluster.lint(*names, settings=ONE_CAPTURE, client=client, chunk=400_000, stats=stats)
    assert whole.findings
    assert rows(report) == moved(whole, parts) == rows(tgtrace.lint(*names, one_capture=True, fail_on="never"))
    assert report.traces.keys() == whole.traces.keys()
    assert stats["ranges"] > len(parts)


def test_a_worker_killed_mid_run_loses_and_duplicates_nothing(tmp_path: Path, client, monkeypatch):
    source = corpus(100_000, tmp_path)
    parts = cut(source, tmp_path, parts=8, seed=13)
    whole = tgtrace.lint(str(source), fail_on="never")
    deal = cluster._deal
    killed = []

    def kill_then_deal(*args):
        # Every range is parsed and held by the workers: one of them dies with its share.
        pid = sorted(client.run(os.getpid).values())[0]
        os.kill(pid, signal.SIGKILL)
        killed.append(pid)
        return deal(*args)

    monkeypatch.setattr(cluster, "_deal", kill_then_deal)
    report = cluster.lint(*(str(p) for p, _ in parts), settings=ONE_CAPTURE, client=client, chunk=400_000)
    assert killed
    assert rows(report) == moved(whole, parts)
    assert len(report.findings) == len(whole.findings)


def test_a_worker_that_hashes_text_unlike_the_others_stops_the_run(tmp_path: Path):
    # Forked workers hash a range's nodes with the salt of the process they were forked from: a
    # worker started apart that joined mid-run would hash them otherwise, and its ranges would
    # meet no other range's. It stops the run with one line (exit 2), never a wrong report.
    source = EXAMPLES / "supervisor.nq"
    r = cluster.ranges.Range(str(source), 0, 0, source.stat().st_size, "nquads")
    with pytest.raises(cluster.SettingsError, match="hashes text unlike the others"):
        cluster._parse(r, [str(source)], ONE_CAPTURE, False, 2, hash(cluster.PROBE) + 1)
    salted = cluster._parse(r, [str(source)], ONE_CAPTURE, False, 2, hash(cluster.PROBE))
    plain = cluster._parse(r, [str(source)], ONE_CAPTURE, False, 2, None)
    assert [p.size for p in salted.pieces] == [p.size for p in plain.pieces]
    assert [list(p.subjects) for p in salted.pieces] != [list(p.subjects) for p in plain.pieces]


def test_memory_urls_and_globs():
    source = EXAMPLES / "releases" / "2.1.22" / "react.nq"
    lines = source.read_bytes().splitlines(keepends=True)
    fs = fsspec.filesystem("memory")
    third = len(lines) // 3
    for number, (start, end) in enumerate([(0, third), (third, 2 * third), (2 * third, len(lines))]):
        fs.pipe(f"/capture/part-{number}.nq", b"".join(lines[start:end]))
    whole = tgtrace.lint(str(source), fail_on="never")
    # memory:// lives in one process: workers as threads of this one read it.
    with distributed.LocalCluster(n_workers=1, processes=False, dashboard_address=":0") as local, \
            distributed.Client(local) as threads:
        report = cluster.lint("memory://capture/part-*.nq", settings=ONE_CAPTURE, client=threads, chunk=CHUNK)
    names = [f"memory:///capture/part-{n}.nq" for n in range(3)]
    assert report.files == names
    assert rows(report) == moved(whole, [(name, start) for name, start in zip(names, (0, third, 2 * third))])


def test_input_error_names_its_part_and_line(tmp_path: Path, client):
    parts = cut(EXAMPLES / "graph-rag.nq", tmp_path, parts=3, seed=2)
    bad = max((p for p, _ in parts[1:]), key=lambda p: p.stat().st_size)  # past the first part, ranges inside
    lines = bad.read_bytes().splitlines(keepends=True)
    lines[1] = b"<urn:x> <urn:p> \"unterminated .\n"
    bad.write_bytes(b"".join(lines))
    names = [str(p) for p, _ in parts]
    with pytest.raises(InputError) as one_process:
        tgtrace.lint(*names, one_capture=True)
    with pytest.raises(InputError) as on_cluster:
        cluster.lint(*names, settings=ONE_CAPTURE, client=client, chunk=CHUNK)
    assert str(on_cluster.value) == str(one_process.value)
    assert str(on_cluster.value).startswith(f"{bad}:2: ")


@pytest.mark.parametrize("method", ["fork", "forkserver"])
def test_cli_on_a_local_cluster(tmp_path: Path, monkeypatch, method: str):
    # Workers forked from this process where it is small, else from a fork server: the same findings.
    if method not in multiprocessing.get_all_start_methods():
        pytest.skip(f"no {method} here")
    monkeypatch.setattr(cluster, "_start_method", lambda workers: method)
    source = EXAMPLES / "releases" / "2.1.16" / "graph-rag.nq"
    parts = [str(p) for p, _ in cut(source, tmp_path, parts=3, seed=7)]
    runner = CliRunner()
    args = ["lint", "--no-config", "--fail-on", "info", "--format", "json"]
    alone = runner.invoke(main, [*args, "--one-capture", *parts])
    spread = runner.invoke(main, [*args, "--cluster", "local:2", *parts])
    assert alone.exit_code == spread.exit_code == 1
    assert json.loads(spread.output)["findings"] == json.loads(alone.output)["findings"]


def test_cli_without_the_extra(monkeypatch, tmp_path: Path):
    monkeypatch.setattr(cluster, "Client", None)
    result = CliRunner().invoke(main, ["lint", "--no-config", "--cluster", "local:2", str(EXAMPLES / "graph-rag.nq")])
    assert result.exit_code == 2
    assert result.output == "tg-trace: --cluster needs Dask and fsspec: pip install 'trustgraph-ontology[cluster]'\n"


def test_a_large_process_starts_its_workers_from_a_fork_server(monkeypatch):
    # A worker forked from a process counts the memory it shares with it as its own, which Dask's
    # memory limits act on: a process large beside a worker's share of the memory does not fork.
    if not sys.platform.startswith("linux"):
        pytest.skip("workers are forked from the client on Linux only")
    monkeypatch.setattr(cluster.threading, "active_count", lambda: 1)  # as the command line runs
    for rss, method in [(100 << 20, "fork"), (cluster.MEMORY_LIMIT // 8, "forkserver")]:
        monkeypatch.setattr(cluster.psutil.Process, "memory_info", lambda self, rss=rss: SimpleNamespace(rss=rss))
        assert cluster._start_method(2) == method


def test_a_process_running_other_threads_starts_its_workers_from_a_fork_server(monkeypatch):
    # A thread of the caller's may hold a lock at the fork, which a forked worker would wait on forever.
    if not sys.platform.startswith("linux"):
        pytest.skip("workers are forked from the client on Linux only")
    monkeypatch.setattr(cluster.psutil.Process, "memory_info", lambda self: SimpleNamespace(rss=100 << 20))
    release = threading.Event()
    other = threading.Thread(target=release.wait, name="caller's own")
    other.start()
    try:
        assert cluster._start_method(2) == "forkserver"
    finally:
        release.set()
        other.join()


def test_an_input_rewritten_while_it_is_linted_is_an_input_error(tmp_path: Path, monkeypatch):
    # What travels from a range is read again from its input once every range is read: an input
    # rewritten in between no longer holds what was linted, and the run stops with exit 2 and
    # one line naming it, never with the seams of another capture.
    parts = [str(p) for p, _ in cut(EXAMPLES / "releases" / "2.11.1" / "orchestrator-react.nq", tmp_path, parts=3,
                                    seed=5)]
    deal = cluster._deal

    def rewrite_then_deal(*args):
        for part in parts:
            Path(part).write_bytes(Path(part).read_bytes().replace(b"urn:trustgraph:", b"urn:trustgraph:x"))
        return deal(*args)

    monkeypatch.setattr(cluster, "_deal", rewrite_then_deal)
    result = CliRunner().invoke(main, ["lint", "--no-config", "--cluster", "local:2", *parts])
    assert result.exit_code == 2, result.output
    assert len(result.output.strip().splitlines()) == 1
    assert any(f"{part}: changed while it was being linted" in result.output for part in parts)


def test_cli_bad_address():
    result = CliRunner().invoke(main, ["lint", "--no-config", "--cluster", "local:none", str(EXAMPLES / "graph-rag.nq")])
    assert result.exit_code == 2
    assert len(result.output.strip().splitlines()) == 1


# ---------------------------------------------------------------- tg-trace list --cluster

def listed(rows, parts=None) -> list[dict]:
    """The rows as `list --format json` gives them; with ``parts``, each row's file checked to be
    one of them and left out (the uncut file names none of them)."""
    found = [dict(r.summary()) for r in rows]
    if parts is not None:
        assert {row.pop("file") for row in found} <= {str(p) for p, _ in parts} | {None}
    return found


@pytest.mark.parametrize("source", CASES, ids=lambda p: str(p.relative_to(EXAMPLES)))
def test_list_rows_of_a_cut_example_are_those_of_one_process(source: Path, tmp_path: Path, client):
    parts = cut(source, tmp_path, parts=4, seed=5)
    names = [str(p) for p, _ in parts]
    alone = traceviews.listing(*names, settings=ONE_CAPTURE).rows
    spread = cluster.listing(*names, settings=ONE_CAPTURE, client=client, chunk=CHUNK).rows
    assert listed(spread) == listed(alone)
    # The uncut file read as one capture too: its rows in a capture's order (an explain stream's
    # alone come in the order its traces complete).
    whole = traceviews.listing(str(source), settings=ONE_CAPTURE).rows
    assert listed(spread, parts) == listed(whole, [(source, 0)])


def test_list_rows_of_the_corpus_cut_in_eight_parts(tmp_path: Path, client):
    source = corpus(100_000, tmp_path)
    parts = cut(source, tmp_path, parts=8, seed=11)
    names = [str(p) for p, _ in parts]
    spread = cluster.listing(*names, settings=ONE_CAPTURE, client=client, chunk=400_000).rows
    assert any(any(r.counts().values()) for r in spread)
    assert listed(spread) == listed(traceviews.listing(*names, settings=ONE_CAPTURE).rows)
    assert listed(spread, parts) == listed(traceviews.listing(str(source), settings=ONE_CAPTURE).rows, [(source, 0)])


def test_cli_list_on_a_local_cluster(tmp_path: Path):
    source = EXAMPLES / "supervisor.nq"
    parts = [str(p) for p, _ in cut(source, tmp_path, parts=3, seed=7)]
    more = [str(p) for p, _ in cut(EXAMPLES / "orchestrator-react-tool-error.nq", tmp_path, parts=2, seed=7)]
    runner = CliRunner()
    args = ["list", "--no-config", "--format", "json", "--sort", "steps", "--reverse", "--pattern", "supervisor",
            "--pattern", "react", *parts, *more]
    alone = runner.invoke(main, [*args, "--one-capture"])
    spread = runner.invoke(main, [*args, "--cluster", "local:2"])
    assert alone.exit_code == spread.exit_code
    assert json.loads(spread.output) == json.loads(alone.output)
    assert [row["pattern"] for row in json.loads(alone.output)] == ["supervisor", "react"]


def test_cli_list_without_the_extra(monkeypatch):
    monkeypatch.setattr(cluster, "Client", None)
    result = CliRunner().invoke(main, ["list", "--no-config", "--cluster", "local:2", str(EXAMPLES / "graph-rag.nq")])
    assert result.exit_code == 2
    assert result.output == "tg-trace: --cluster needs Dask and fsspec: pip install 'trustgraph-ontology[cluster]'\n"


# ---------------------------------------------------------------- seams inside every pattern's traces

PATTERN_EXAMPLES = [*sorted((EXAMPLES / "releases" / "2.11.1").glob("*.nq")), EXAMPLES / "extraction.nq"]


def trace_cuts(source: Path) -> list[int]:
    """Lines (counted from 1) at which to cut ``source`` inside each of its traces and sub-traces:
    the middle line among those that describe the trace's nodes (a file without a Question is cut
    in its middle, as one extraction trace)."""
    lines = source.read_bytes().splitlines()
    subjects = {number: ox.parse(line, format=ox.RdfFormat.N_QUADS).__next__().subject
                for number, line in enumerate(lines, start=1) if line.strip() and not line.startswith(b"#")}
    graph = TraceGraph(str(source), model=TRUSTGRAPH)
    graph.add_quads(ox.parse(source.read_bytes(), format=ox.RdfFormat.N_QUADS))
    cuts = set()
    for question in graph.heads or [None]:
        members = {question, *graph.descendants(question)} if question is not None else None
        inside = [n for n, s in subjects.items() if members is None or key(s) in members]
        cuts.add(inside[len(inside) // 2])
    return sorted(cuts)


def test_cuts_inside_a_trace_of_every_pattern(tmp_path: Path, client):
    # One capture of a trace of every pattern, written by the emitter, with sub-traces (the
    # supervisor's), cut in the middle of every trace and sub-trace; the last example is copied
    # whole into one part again with other IRIs, so that some traces are linted where they lie.
    lines, cuts = [], []
    for source in PATTERN_EXAMPLES:
        cuts.extend(len(lines) + n - 1 for n in trace_cuts(source))
        lines.extend(source.read_bytes().splitlines(keepends=True))
    renamed = [line.replace(b"urn:trustgraph:", b"urn:trustgraph:copy:") for line in lines]
    capture = tmp_path / "capture.nq"
    capture.write_bytes(b"".join(lines + renamed))
    bounds = [0, *sorted(set(cuts)), len(lines) + len(renamed)]
    parts = []
    for number, (start, end) in enumerate(zip(bounds, bounds[1:])):
        part = tmp_path / f"capture.part{number}.nq"
        part.write_bytes(b"".join((lines + renamed)[start:end]))
        parts.append((part, start))
    assert len(parts) > len(PATTERN_EXAMPLES) + 2  # the supervisor's sub-traces are cut too
    names = [str(p) for p, _ in parts]
    whole = tgtrace.lint(str(capture), fail_on="never", allow_empty=True)
    stats: dict = {}
    # Ranges are the parts: every trace of the capture's first half is cut, those of the copy are not.
    report = cluster.lint(*names, settings=ONE_CAPTURE, client=client, chunk=1 << 30, stats=stats)
    assert stats["seam_triples"] and stats["interior_triples"]
    assert whole.findings
    assert rows(report) == moved(whole, parts) == rows(tgtrace.lint(*names, one_capture=True, fail_on="never"))
    assert report.traces.keys() == whole.traces.keys()
    assert report.triples == whole.triples
    # The statistics too: a range's seams lie in the graph its interior is linted in, set aside.
    assert report.trace_models == whole.trace_models
    assert report.terms_used == whole.terms_used and report.type_sets == whole.type_sets
    spread = cluster.listing(*names, settings=ONE_CAPTURE, client=client, chunk=1 << 30).rows
    assert listed(spread) == listed(traceviews.listing(*names, settings=ONE_CAPTURE).rows)


def test_a_node_a_seam_names_but_its_range_does_not_describe_is_judged_with_its_statements(tmp_path: Path, client):
    # A Thought cut from the step that owns it: the owner's range names it but holds none of its
    # statements, and a whole trace shares that range, so the range's graph is linted with the
    # nameless Thought in it: it is set aside there, and judged where its statements meet its owner.
    releases = EXAMPLES / "releases" / "2.11.1"
    lines = (releases / "orchestrator-react.nq").read_bytes().splitlines(keepends=True)
    cut_at = next(n for n, line in enumerate(lines, start=1) if b"/ns/thought>" in line)
    copy = [line.replace(b"urn:trustgraph:", b"urn:trustgraph:copy:")
            for line in (releases / "react.nq").read_bytes().splitlines(keepends=True)]
    first, second = tmp_path / "first.nq", tmp_path / "second.nq"
    first.write_bytes(b"".join(copy + lines[:cut_at]))
    second.write_bytes(b"".join(lines[cut_at:]))
    capture = tmp_path / "capture.nq"
    capture.write_bytes(first.read_bytes() + second.read_bytes())
    # With the opt-in rule that judges every Thought (R001: the reader never loads one).
    selected = ("ALL", "reader")
    whole = tgtrace.lint(str(capture), fail_on="never", allow_empty=True, select=selected)
    assert any(f.rule == "R001" and f.focus.endswith("/thought") for f in whole.findings)
    stats: dict = {}
    report = cluster.lint(str(first), str(second), settings=Settings(one_capture=True, fail_on=None, select=selected),
                          client=client, chunk=1 << 30, stats=stats)
    assert stats["seam_triples"] and stats["interior_triples"]
    assert rows(report) == moved(whole, [(first, 0), (second, len(copy) + cut_at)])
    assert report.triples == whole.triples and report.terms_used == whole.terms_used


# A contributor's rule that judges the node a link names, not the linking subject: the node's
# own description decides it, so a range that holds the link but not the description must not
# judge it.
LINKED_THOUGHT_RULE = '''
tgsh:LinkedThoughtShape a sh:NodeShape ;
    rdfs:label "Linked Thought" ;
    sh:targetObjectsOf tg:thought ;
    sh:property tgsh:linked-thought-typed .

tgsh:linked-thought-typed a sh:PropertyShape ;
    tgl:code "S098" ; tgl:name "linked-thought-typed" ; tgl:family tgl:structure ;
    sh:severity sh:Violation ;
    sh:path rdf:type ;
    sh:hasValue tg:Thought ;
    sh:message "what tg:thought links to is not described as a tg:Thought" ;
    sh:description "The node an Analysis links with tg:thought is a tg:Thought the input describes." ;
    tgl:rationale "A Thought the input does not describe loses the step's reasoning." ;
    tgl:fix "Emit the Thought with its Analysis." .
'''


def lint_findings(shapes: Path, *args) -> list[tuple]:
    """(rule, focus, file, line) of each finding of `tg-trace lint` run with the shapes ``shapes``,
    in a process of its own (the shapes are read once per process, by the client and by every
    worker alike)."""
    env = {**os.environ, "TG_TRACE_SHAPES": str(shapes)}
    done = subprocess.run([sys.executable, "-m", "tgtrace.cli", "lint", "--no-config", "--fail-on", "never",
                           "--format", "json", *args], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)["findings"]
    return sorted(((f["rule"], f["focus"], f["file"], f["line"]) for f in found), key=repr)


@pytest.mark.parametrize(("shared", "later"), [(False, False), (True, False), (False, True)],
                         ids=["described-in-the-next-range", "described-nowhere", "whole-trace-in-the-last-part"])
def test_a_node_only_a_seam_links_to_in_a_range_is_judged_once_where_its_trace_is_whole(
        tmp_path: Path, shared: bool, later: bool):
    # The first range holds a whole trace (a copy of a ReAct trace whose first Thought the input
    # never describes) and the head of an orchestrator trace, cut just after its first Analysis
    # links its Thought: that Thought's statements lie in the second range. The rule judging what
    # tg:thought links to reaches, in the first range's graph, a node no statement there
    # describes, linked only by the seam: judged there it would be a second, wrong finding.
    # ``shared``: the seam links instead to the copy's Thought, which no range describes, so the
    # first range holds a link to it from its whole trace and from the seam: one finding all the same.
    # ``later``: the whole trace lies in the second range, so the finding on its Thought, which has
    # no line, is judged there and names the first part, as one process names it.
    shapes = shapes_with_rule(tmp_path / "shapes", LINKED_THOUGHT_RULE)
    releases = EXAMPLES / "releases" / "2.11.1"
    lines = (releases / "orchestrator-react.nq").read_bytes().splitlines(keepends=True)
    cut_at = next(n for n, line in enumerate(lines, start=1) if b"/ns/thought>" in line)
    copy = [line.replace(b"urn:trustgraph:", b"urn:trustgraph:copy:")
            for line in (releases / "react.nq").read_bytes().splitlines(keepends=True)]
    lost = next(line.split()[2] for line in copy if b"/ns/thought>" in line)
    copy = [line for line in copy if not line.startswith(lost + b" ")]
    head = lines[:cut_at]
    if shared:
        head[-1] = head[-1].replace(head[-1].split()[2], lost)
    first, second = tmp_path / "first.nq", tmp_path / "second.nq"
    first.write_bytes(b"".join(head if later else copy + head))
    second.write_bytes(b"".join(lines[cut_at:] + copy if later else lines[cut_at:]))
    one = lint_findings(shapes, "--one-capture", str(first), str(second))
    judged = [focus for rule, focus, _, _ in one if rule == "S098"]
    assert judged == [lost.decode().strip("<>")]  # the rule runs, on the Thought no range describes
    # Each file is one range: the cut is where the files meet.
    assert lint_findings(shapes, "--cluster", "local:2", str(first), str(second)) == one


def test_class_axioms_stated_in_one_part_are_read_by_the_traces_of_every_part(tmp_path: Path, client):
    # The Questions of an orchestrator capture are typed with a class of the capture's own, which
    # its last part declares a subclass of tg:Question: one process reads every trace through
    # that axiom. Nothing links a trace to it but its types, so a range linted without it would
    # see Analyses deriving from no Question.
    source = EXAMPLES / "releases" / "2.11.1" / "orchestrator-react.nq"
    question = b"<https://trustgraph.ai/ns/Question>"
    assert question in source.read_bytes()
    traces = tmp_path / "traces.nq"
    traces.write_bytes(source.read_bytes().replace(question, b"<urn:example:Question>"))
    axioms = tmp_path / "axioms.nq"
    axioms.write_bytes(b"<urn:example:Question> <http://www.w3.org/2000/01/rdf-schema#subClassOf> " + question + b" .\n")
    one = tgtrace.lint(str(traces), str(axioms), one_capture=True, fail_on="never")
    assert not any(f.rule == "C016" for f in one.findings)
    stats: dict = {}
    report = cluster.lint(str(traces), str(axioms), settings=ONE_CAPTURE, client=client, chunk=CHUNK, stats=stats)
    assert stats["ranges"] > 2
    assert rows(report) == rows(one)
    assert report.terms_used == one.terms_used and report.trace_models == one.trace_models


# ---------------------------------------------------------------- descriptions every range repeats

AGENT = b"<https://trustgraph.ai/agent/chunker>"
# A statement of the agent's with a misspelt tg: predicate: V002, the agent's own finding.
MISSPELT = AGENT + b' <https://trustgraph.ai/ns/labell> "chunker" .\n'


def _cut_and_linted_both_ways(lines: list[bytes], tmp_path: Path, client) -> tuple:
    """The capture of ``lines`` cut into 4 parts, linted as one capture by one process and on the
    cluster in small ranges: (capture, parts, one process's report, the cluster's, its statistics)."""
    capture = tmp_path / "capture.nq"
    capture.write_bytes(b"".join(lines))
    parts = cut(capture, tmp_path, parts=4, seed=17)
    names = [str(p) for p, _ in parts]
    stats: dict = {}
    report = cluster.lint(*names, settings=ONE_CAPTURE, client=client, chunk=200_000, stats=stats)
    return capture, parts, tgtrace.lint(*names, one_capture=True, fail_on="never"), report, stats


def _agent_findings(report) -> list[tuple]:
    agent = AGENT.decode().strip("<>")
    return [(f.rule, f.file, f.line) for f in report.findings if f.focus == agent]


def test_a_description_every_range_repeats_is_reported_and_counted_once(tmp_path: Path, client):
    # The emitter describes the extraction agents again in every extraction trace, so every range
    # holds their descriptions: they are broadcast to every range's traces, not joined into a seam.
    # One repetition, in the middle of the capture, uses a misspelt tg: predicate: its finding is
    # the agent's own, reported once at the agent's first line, whichever range holds the fault;
    # and the agent's statements are counted once, as one process counts them.
    lines = corpus(10_000, tmp_path).read_bytes().splitlines(keepends=True)
    described = [n for n, line in enumerate(lines) if line.startswith(AGENT + b" ")]
    assert len(described) > 8
    faulty = described[len(described) // 2] + 1
    lines.insert(faulty, MISSPELT)
    capture, parts, one, report, stats = _cut_and_linted_both_ways(lines, tmp_path, client)
    names = [str(p) for p, _ in parts]
    assert stats["ranges"] > len(parts) and stats["broadcast_subjects"] and stats["broadcast_triples"]
    assert [rule for rule, _, _ in _agent_findings(report)] == ["V002"]
    assert _agent_findings(report) == _agent_findings(one)
    assert rows(report) == rows(one) == moved(tgtrace.lint(str(capture), fail_on="never"), parts)
    assert report.triples == one.triples
    assert report.terms_used == one.terms_used and report.type_sets == one.type_sets
    assert report.trace_models == one.trace_models
    spread = cluster.listing(*names, settings=ONE_CAPTURE, client=client, chunk=200_000).rows
    assert listed(spread) == listed(traceviews.listing(*names, settings=ONE_CAPTURE).rows)


def test_a_description_with_a_statement_written_two_ways_is_read_whole(tmp_path: Path, client):
    # A range reads a repeated description only until it has met as many different statements
    # as the description has distinct triples, telling statements apart by how they are written.
    # Here the agent's first description writes its first statement twice, the second time spaced
    # differently (the same triple), and ends with a misspelt predicate no other repetition has:
    # the range must read on to it, and report it at its line, as one process does.
    lines = corpus(10_000, tmp_path).read_bytes().splitlines(keepends=True)
    first = next(n for n, line in enumerate(lines) if line.startswith(AGENT + b" "))
    end = next(n for n in range(first, len(lines)) if not lines[n].startswith(AGENT + b" "))
    respelt = lines[first].replace(b" ", b"   ", 2)
    assert respelt != lines[first] and list(ox.parse(respelt, format=ox.RdfFormat.N_QUADS)) == \
        list(ox.parse(lines[first], format=ox.RdfFormat.N_QUADS))
    lines.insert(end, MISSPELT)
    lines.insert(first + 1, respelt)
    _, _, one, report, stats = _cut_and_linted_both_ways(lines, tmp_path, client)
    assert stats["broadcast_subjects"]
    assert [rule for rule, _, _ in _agent_findings(report)] == ["V002"]
    assert _agent_findings(report) == _agent_findings(one)
    assert rows(report) == rows(one)
    assert report.triples == one.triples
    assert report.terms_used == one.terms_used and report.type_sets == one.type_sets


# A contributor's rule that reads a description forward from the traces that name it.
RETIRED = b"<https://example.org/retired>"
RETIRED_AGENT_RULE = '''
tgsh:RetiredAgentShape a sh:NodeShape ;
    rdfs:label "Retired agent" ;
    sh:targetSubjectsOf prov:wasAssociatedWith ;
    sh:property tgsh:no-retired-agent .

tgsh:no-retired-agent a sh:PropertyShape ;
    tgl:code "S097" ; tgl:name "no-retired-agent" ; tgl:family tgl:structure ;
    sh:severity sh:Violation ;
    sh:path ( prov:wasAssociatedWith <https://example.org/retired> ) ;
    sh:maxCount 0 ;
    sh:message "the activity's agent is described as retired" ;
    sh:description "An activity is associated with an agent still in service." ;
    tgl:rationale "A retired agent's output is not maintained." ;
    tgl:fix "Run the extraction with an agent in service." .
'''


def test_a_description_the_ranges_state_differently_is_read_whole_by_every_trace_naming_it(tmp_path: Path):
    # One repetition of the agent's description, in one part, states a triple no other does.
    # One process reads the agent with it from every activity associated with the agent, so the
    # rule fires on each of them. A range that linted its traces with only its own repetitions
    # of the agent would miss those of every other range: the traces that name a description
    # the ranges state differently are linted again, with all of it.
    shapes = shapes_with_rule(tmp_path / "shapes", RETIRED_AGENT_RULE)
    lines = corpus(10_000, tmp_path).read_bytes().splitlines(keepends=True)
    described = [n for n, line in enumerate(lines) if line.startswith(AGENT + b" ")]
    lines.insert(described[len(described) // 2] + 1, AGENT + b" " + RETIRED + b' "true" .\n')
    capture = tmp_path / "capture.nq"
    capture.write_bytes(b"".join(lines))
    names = [str(p) for p, _ in cut(capture, tmp_path, parts=4, seed=17)]
    one = lint_findings(shapes, "--one-capture", *names)
    assert len([rule for rule, *_ in one if rule == "S097"]) > 8
    assert lint_findings(shapes, "--cluster", "local:2", *names) == one


def test_an_ntriples_capture_with_comments_gives_the_findings_of_one_process(tmp_path: Path, client):
    # N-Triples, with comment lines, blank lines and indented statements: a range's statements
    # are not one a line, and the seams travel as their lines written in N-Triples.
    quads = ox.parse(corpus(10_000, tmp_path).read_bytes(), format=ox.RdfFormat.N_QUADS)
    written = ox.serialize([ox.Triple(q.subject, q.predicate, q.object) for q in quads],
                           format=ox.RdfFormat.N_TRIPLES).splitlines(keepends=True)
    lines = []
    for number, line in enumerate(written):
        if number % 37 == 0:
            lines.append(b"# a comment\n\n")
        lines.append(b"  " + line if number % 11 == 0 else line)
    source = tmp_path / "capture.nt"
    source.write_bytes(b"".join(lines))
    parts = cut(source, tmp_path, parts=4, seed=3)
    whole = tgtrace.lint(str(source), fail_on="never")
    stats: dict = {}
    report = cluster.lint(*(str(p) for p, _ in parts), settings=ONE_CAPTURE, client=client, chunk=20_000,
                          stats=stats)
    assert whole.findings and stats["seam_triples"] and stats["broadcast_triples"]
    assert rows(report) == moved(whole, parts)
    assert report.traces.keys() == whole.traces.keys()
    assert report.triples == whole.triples


def test_a_local_cluster_leaves_the_callers_environment_as_it_was():
    # Dask's nannies wrote their workers' settings into it (MALLOC_TRIM_THRESHOLD_ made every
    # process started after them three times slower, PYTHONHASHSEED fixed every later one's hash).
    before = dict(os.environ)
    result = CliRunner().invoke(main, ["lint", "--no-config", "--cluster", "local:1", str(EXAMPLES / "graph-rag.nq")])
    assert result.exit_code == 0, result.output
    assert dict(os.environ) == before
