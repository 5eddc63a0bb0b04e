"""tg-trace pull, lint -C and watch against a real TrustGraph 2.11.1 gateway (``gateway_rig``):
the example traces are written the way TrustGraph's services write explainability, then read
back through the gateway as a user would."""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
import uuid
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import EXAMPLES
from gateway_rig import group_events
from tgtrace import api
from tgtrace.cli import main

# Slow: starts the real TrustGraph deployment on RabbitMQ (`python -m pytest -m "not slow"` leaves it out; CI runs it).
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
ANSWER = "https://trustgraph.ai/ns/Answer"
# Every example of the bundle, the captures of TrustGraph's own services (their explain events as
# sent) and the traces of older releases, each written as TrustGraph writes it.
EXAMPLE_NAMES = sorted(str(p.relative_to(EXAMPLES)) for p in (
    *EXAMPLES.glob("*.json"), *EXAMPLES.glob("services/*.jsonl"), *EXAMPLES.glob("releases/*/*.nq"))
    if not p.name.endswith(".events.json"))


def faulty_trace() -> list[dict]:
    """A ReAct trace whose Conclusion is not typed tg:Answer (M001), with fresh IRIs each time
    so that two tests never share a trace."""
    fresh = uuid.uuid4()
    text = (EXAMPLES / "orchestrator-react-one-shot.json").read_text()
    triples = json.loads(text.replace("ce3416ed-11d7-525f-adf1-8f83153e5791", str(fresh)))
    return [t for t in triples if not (t["p"]["i"].endswith("#type") and t["o"].get("i") == ANSWER)]


def clean_trace() -> list[dict]:
    fresh = uuid.uuid4()
    text = (EXAMPLES / "graph-rag.json").read_text()
    found = json.loads(text)
    root = next(t["s"]["i"] for t in found if t["p"]["i"].endswith("#type")
                and t["o"].get("i") == "https://trustgraph.ai/ns/Question")
    return json.loads(text.replace(root.rsplit(":", 1)[1], str(fresh)))


def collection() -> str:
    return f"c{uuid.uuid4().hex[:12]}"


def findings(report) -> list[tuple]:
    return sorted((f.rule, f.severity.name, f.focus, f.path, f.value) for f in report.findings)


def run(*args, env=None):
    result = CliRunner().invoke(main, list(args), env=env, catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def connection(rig) -> list[str]:
    return ["-u", rig.url, "-t", rig.token]


@pytest.fixture(scope="module")
def published(trustgraph):
    """Every example in a collection of its own; the faulty trace in one more."""
    collections = {}
    for name in EXAMPLE_NAMES:
        collections[name] = collection()
        trustgraph.publish_capture(EXAMPLES / name, collections[name])
    faulty = faulty_trace()
    collections["faulty"] = collection()
    trustgraph.publish(group_events(faulty), collections["faulty"])
    return collections, faulty


@pytest.mark.parametrize("name", EXAMPLE_NAMES)
def test_a_pull_lints_as_the_example_does(trustgraph, published, name, tmp_path):
    collections, _ = published
    target = tmp_path / "pulled.nq"
    status, _, stderr = run("pull", *connection(trustgraph), "-C", collections[name], "-o", str(target),
                            "--no-progress")
    assert status == 0, stderr
    assert findings(api.lint(str(target), allow_empty=True)) == findings(api.lint(str(EXAMPLES / name)))


@pytest.mark.parametrize("name", ["supervisor.json", "extraction.json", "graph-rag.json"])
def test_a_pull_holds_what_trustgraphs_own_client_reads_of_each_graph(trustgraph, published, name, tmp_path):
    """TrustGraph's tg-query-graph (its own client code) as the oracle of what the store holds."""
    import contextlib
    import io

    import pyoxigraph as ox
    from tgtrace.inputs.wire import triples_to_quads
    from trustgraph.cli.query_graph import query_graph

    collections, _ = published
    status, stdout, stderr = run("pull", *connection(trustgraph), "-C", collections[name])
    assert status == 0, stderr
    pulled = set(ox.parse(stdout.encode(), format=ox.RdfFormat.N_QUADS))
    for graph in ("urn:graph:retrieval", "urn:graph:source", ""):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            query_graph(trustgraph.url, trustgraph.flow, collections[name], 100000, 20, graph=graph,
                        output_format="jsonl", token=trustgraph.token, workspace=trustgraph.workspace)
        theirs = set(triples_to_quads([json.loads(line) for line in out.getvalue().splitlines()]))
        ours = {q for q in pulled if (q.graph_name.value if isinstance(q.graph_name, ox.NamedNode) else "") == graph}
        if graph:
            assert ours == theirs, graph  # every explainability triple, nothing else
        else:  # of the default graph, only the documents the traces derive from
            assert ours <= theirs
            assert (ours and ours != theirs) if name == "extraction.json" else not theirs


def test_a_pull_of_a_faulty_trace_finds_its_fault_on_stdout_with_the_environments_connection(
        trustgraph, published, tmp_path):
    collections, faulty = published
    env = {"TRUSTGRAPH_URL": trustgraph.url, "TRUSTGRAPH_TOKEN": trustgraph.token,
           "TRUSTGRAPH_WORKSPACE": trustgraph.workspace}
    status, stdout, stderr = run("pull", "-C", collections["faulty"], env=env)
    assert status == 0, stderr
    assert trustgraph.token not in stdout + stderr
    pulled = tmp_path / "pulled.nq"
    pulled.write_text(stdout)
    found = findings(api.lint(str(pulled)))
    assert found == findings(api.lint(faulty))
    assert [f[0] for f in found] == ["M001"]
    # The same pull to a file is the same N-Quads.
    again = tmp_path / "again.nq"
    assert run("pull", "-C", collections["faulty"], "-o", str(again), env=env)[0] == 0
    assert again.read_text() == stdout


def test_lint_reads_a_collection_directly(trustgraph, published):
    collections, faulty = published
    status, stdout, stderr = run("lint", *connection(trustgraph), "-C", collections["faulty"], "--format", "json")
    assert status == 1, stderr
    reported = json.loads(stdout)["findings"]
    assert [(f["rule"], f["focus"]) for f in reported] == [(f.rule, f.focus) for f in api.lint(faulty).findings]
    assert reported[0]["file"] == f"default/{collections['faulty']}.nq" and reported[0]["line"]
    status, _, stderr = run("lint", *connection(trustgraph), "-C", collections["supervisor.json"])
    assert status == 0, stderr


def test_a_collections_audit_is_the_one_its_capture_gives(trustgraph, published):
    """lint -C opens with the same audit as the example it was published from (its file aside)."""
    collections, _ = published
    status, stdout, stderr = run("lint", *connection(trustgraph), "-C", collections["supervisor.json"],
                                 "--format", "json")
    assert status == 0, stderr
    pulled = json.loads(stdout)["audit"]
    status, stdout, _ = run("lint", str(EXAMPLES / "supervisor.json"), "--format", "json", "--no-config")
    local = json.loads(stdout)["audit"]
    assert pulled["traces"] == local["traces"] == 1 and pulled["slowest"][0]["duration_ms"]

    def unfiled(audit: dict) -> str:
        return json.dumps({**audit, "slowest": [{**r, "file": None} for r in audit["slowest"]],
                           "longest": [{**r, "file": None} for r in audit["longest"]]}, sort_keys=True)
    assert unfiled(pulled) == unfiled(local)



def test_the_html_report_of_a_collection_is_the_report_of_its_pull(trustgraph, published, tmp_path):
    """lint -C, a pull piped into lint and the pull's file give one HTML report: the same traces,
    diagrams and source excerpts (the run keeps what it read; nothing is read again)."""
    collections, _ = published
    pulled = tmp_path / "pulled.nq"
    assert run("pull", *connection(trustgraph), "-C", collections["faulty"], "-o", str(pulled))[0] == 0
    pages = {}
    for name, args, stdin in (("file", [str(pulled)], None), ("stdin", ["-"], pulled.read_bytes()),
                              ("collection", [*connection(trustgraph), "-C", collections["faulty"]], None)):
        out = tmp_path / f"{name}.html"
        result = CliRunner().invoke(main, ["lint", "--format", "html", "-o", str(out), *args], input=stdin,
                                    catch_exceptions=False)
        assert result.exit_code == 1, result.output
        pages[name] = out.read_text()
    assert pages["file"].count('<pre class="source">') > 0 and pages["file"].count("<svg") > 0
    # The same page but for the input's name: the file's, <stdin>, the collection's.
    named = re.compile("|".join(map(re.escape, (str(pulled), "&lt;stdin&gt;", "<stdin>")))
                       + r"|[\w.-]+/" + re.escape(collections["faulty"]) + r"\.nq")
    assert named.sub("F", pages["stdin"]) == named.sub("F", pages["file"])
    assert named.sub("F", pages["collection"]) == named.sub("F", pages["file"])

def one_line(status, stdout, stderr):
    assert status == 2
    assert stdout == ""
    lines = stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("tg-trace: "), stderr
    return lines[0]


def test_a_wrong_token_is_one_line_exit_2(trustgraph, published):
    collections, _ = published
    line = one_line(*run("pull", "-u", trustgraph.url, "-t", "wrong", "-C", collections["faulty"]))
    assert "refused the token (HTTP 401)" in line and "wrong" not in line
    line = one_line(*run("lint", "-u", trustgraph.url, "-t", "wrong", "-C", collections["faulty"]))
    assert "401" in line
    line = one_line(*run("watch", "-u", trustgraph.url, "-t", "wrong"))
    assert "refused the token (HTTP 401)" in line


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_wrong_url_is_one_line_exit_2(trustgraph):
    port = free_port()
    line = one_line(*run("pull", "-u", f"http://127.0.0.1:{port}/", "-t", trustgraph.token))
    assert line == f"tg-trace: http://127.0.0.1:{port}/: cannot reach the gateway (connection refused)"


def test_a_limit_that_would_cut_the_pull_is_one_line_exit_2(trustgraph, published, tmp_path):
    collections, _ = published
    target = tmp_path / "cut.nq"
    line = one_line(*run("pull", *connection(trustgraph), "-C", collections["supervisor.json"], "--limit", "50",
                         "-o", str(target)))
    assert "holds more than 50 triples" in line and "raise --limit" in line
    assert not target.exists()


def test_unknown_workspace_flow_and_collection_are_one_line_exit_2(trustgraph, published):
    line = one_line(*run("pull", *connection(trustgraph), "-w", "nowhere"))
    assert "knows no workspace 'nowhere'" in line
    line = one_line(*run("pull", *connection(trustgraph), "-f", "nosuch"))
    assert "knows no flow 'nosuch'" in line
    line = one_line(*run("watch", *connection(trustgraph), "-f", "nosuch"))
    assert "knows no flow 'nosuch'" in line
    line = one_line(*run("watch", *connection(trustgraph), "-w", "nowhere"))
    assert "knows no workspace 'nowhere'" in line
    line = one_line(*run("pull", *connection(trustgraph), "-C", "never-written"))
    assert "collection 'never-written'" in line and "holds no explainability triples" in line


class Watch:
    """tg-trace watch in its own process, its output read line by line as it comes."""

    def __init__(self, rig, *args):
        env = {**os.environ, "PYTHONPATH": str(ROOT / "validators"), "TRUSTGRAPH_URL": rig.url,
               "TRUSTGRAPH_TOKEN": rig.token}
        self.process = subprocess.Popen([sys.executable, "-m", "tgtrace.cli", "watch", *args],
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        self.out: queue.Queue = queue.Queue()
        self.err: queue.Queue = queue.Queue()
        self.seen_out: list[str] = []
        self.seen_err: list[str] = []
        for stream, lines in ((self.process.stdout, self.out), (self.process.stderr, self.err)):
            threading.Thread(target=lambda s=stream, q=lines: [q.put(line.rstrip("\n")) for line in s],
                             daemon=True).start()

    def wait_for(self, lines: queue.Queue, seen: list, text: str, timeout: float = 30.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = lines.get(timeout=0.2)
            except queue.Empty:
                assert self.process.poll() is None, f"watch exited {self.process.returncode}: {self.seen_err}"
                continue
            seen.append(line)
            if text in line:
                return line
        raise AssertionError(f"watch never printed {text!r}; stdout {self.seen_out}, stderr {self.seen_err}")

    def finding(self, text: str, timeout: float = 30.0) -> dict:
        return json.loads(self.wait_for(self.out, self.seen_out, text, timeout))

    def notice(self, text: str, timeout: float = 30.0) -> str:
        return self.wait_for(self.err, self.seen_err, text, timeout)

    def stop(self, sent=signal.SIGINT) -> tuple[int, list[str], list[str]]:
        self.process.send_signal(sent)
        status = self.process.wait(20)
        time.sleep(0.2)  # the reader threads drain the pipes
        while not self.out.empty():
            self.seen_out.append(self.out.get())
        while not self.err.empty():
            self.seen_err.append(self.err.get())
        return status, self.seen_out, self.seen_err

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


# The export binds its queue about a second after the socket opens; what is written before is not seen.
BINDING = 2.0


def scrape(port: int) -> dict:
    """The samples tg-trace serves to Prometheus, read with Prometheus' own parser."""
    from prometheus_client.parser import text_string_to_metric_families

    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as answer:
        text = answer.read().decode()
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def _scraped_until(port: int, key: tuple, timeout: float = 30.0) -> dict:
    """The metrics once ``key`` is among them (the trace is linted after its quiet period)."""
    deadline = time.monotonic() + timeout
    while True:
        samples = scrape(port)
        if key in samples or time.monotonic() > deadline:
            return samples
        time.sleep(0.5)


def test_watch_reports_a_faulty_trace_stays_quiet_on_a_clean_one_and_exits_1_on_sigint(trustgraph):
    watched = collection()
    port = free_port()
    watch = Watch(trustgraph, "-C", watched, "--format", "jsonl", "--quiet-period", "1", "--trace-timeout", "4",
                  "--metrics", str(port))
    try:
        watch.notice("watching flow")
        time.sleep(BINDING)
        trustgraph.publish(group_events(clean_trace()), watched)
        trustgraph.publish_capture(EXAMPLES / "services" / "supervisor.jsonl", watched)  # as its service sent it
        trustgraph.publish(group_events(faulty_trace()), collection())  # another collection: filtered out
        faulty = faulty_trace()
        trustgraph.publish(group_events(faulty), watched)
        reported = watch.finding('"M001"')
        expected = api.lint(faulty).findings[0]
        assert (reported["rule"], reported["focus"], reported["severity"]) == (expected.rule, expected.focus, "error")
        samples = scrape(port)
        assert samples[("tgtrace_findings_total", (("rule", "M001"), ("severity", "error")))] == 1
        assert samples[("tgtrace_traces_total", (("outcome", "clean"),))] == 2
        assert samples[("tgtrace_traces_total", (("outcome", "findings"),))] == 1
        # An agent that called the same tool with equal arguments three times (the real builders'
        # trace): a behaviour, counted per rule and per trace for an operator to alert on.
        trustgraph.publish_capture(EXAMPLES / "behaviours" / "react-same-call-three-times.json", watched)
        samples = _scraped_until(port, ("tgtrace_behaviour_traces_total", (("rule", "B001"),)))
        assert samples[("tgtrace_behaviour_traces_total", (("rule", "B001"),))] == 1
        assert samples[("tgtrace_behaviours_total", (("rule", "B001"),))] == 1
        assert samples[("tgtrace_findings_total", (("rule", "B001"), ("severity", "info")))] == 1
        assert not any(name.startswith("tgtrace_behaviour") and labels != (("rule", "B001"),)
                       for name, labels in samples), "the clean traces show no behaviour"
        # An agent that hit its iteration limit: no Conclusion ever comes.
        trustgraph.publish_capture(EXAMPLES / "orchestrator-react-max-iterations.json", watched)
        assert "never completed" in watch.notice("urn:trustgraph:agent:")
        assert watch.finding('"S004"')["severity"] == "warning"  # linted as it is
        status, stdout, stderr = watch.stop()
    finally:
        watch.kill()
    assert status == 1
    # The clean traces and the other collection's printed nothing; the loop and the iteration limit
    # are behaviours (info), printed as jsonl writes every finding.
    assert sorted(json.loads(line)["rule"] for line in stdout) == ["B001", "B004", "M001", "S004"]
    assert "5 traces linted (2 clean, 1 never completed), 0 still open" in stderr[-1], stderr
    assert "1 error" in stderr[-1]
    assert trustgraph.token not in "\n".join(stdout + stderr)


def test_watch_reconnects_when_the_gateway_restarts_reports_the_next_faulty_trace_and_stops_on_sigterm(
        trustgraph, tmp_path):
    watched = collection()
    record = tmp_path / "seen.jsonl"
    record.write_text((EXAMPLES / "services" / "graph-rag.jsonl").read_text())  # an earlier watch's recording
    watch = Watch(trustgraph, "-C", watched, "--format", "jsonl", "--quiet-period", "1", "--record", str(record))
    try:
        watch.notice("watching flow")
        trustgraph.stop_gateway()
        watch.notice("reconnecting")
        trustgraph.start_gateway()
        watch.notice("reconnected", timeout=60)
        time.sleep(BINDING)
        faulty = faulty_trace()
        trustgraph.publish(group_events(faulty), watched)
        reported = watch.finding('"M001"')
        status, stdout, stderr = watch.stop(signal.SIGTERM)
    finally:
        watch.kill()
        trustgraph.start_gateway()
    assert status == 1
    assert sum("reconnecting" in line for line in stderr) == 1  # said once, however many attempts
    # The recording is an explain stream that lints to the same finding, at the line it names.
    assert reported["file"] == str(record)
    assert reported["focus"] in record.read_text().splitlines()[reported["line"] - 1]
    assert findings(api.lint(str(record))) == findings(api.lint(faulty))
    assert trustgraph.token not in record.read_text()
