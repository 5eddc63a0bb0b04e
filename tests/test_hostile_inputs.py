"""What a careless or hostile user feeds the gate: every case ends in exit 2 with one line
naming the input and what is wrong (never a traceback, never exit 1, never a silent pass),
leaves the input as it was, opens no network connection, and stays bounded in time."""

from __future__ import annotations

import hashlib
import json
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from conftest import EXAMPLES

# Slow: each case a process of its own under a memory limit (`python -m pytest -m "not slow"` leaves it out; CI runs it).
pytestmark = pytest.mark.slow

TG = "https://trustgraph.ai/ns/"
TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
DERIVED = "http://www.w3.org/ns/prov#wasDerivedFrom"


def tg_trace(*args, stdin: bytes | None = None, timeout: int = 120, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tgtrace.cli", *args], input=stdin, capture_output=True,
                          timeout=timeout, cwd=cwd)


def assert_input_error(result: subprocess.CompletedProcess, name: str, words: str) -> None:
    err = result.stderr.decode("utf-8", "replace")
    assert result.returncode == 2, (result.returncode, err, result.stdout[-500:])
    assert "Traceback" not in err, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, lines
    assert name in lines[0] and words in lines[0], lines[0]


WIRE_TRIPLE = {"s": {"t": "i", "i": "urn:a"}, "p": {"t": "i", "i": "urn:p"}, "o": {"t": "l", "v": "x"}}

# name, content, what the one line must say
CASES = [
    ("empty.nq", b"", "holds no triples"),
    ("empty.json", b"", "holds no triples"),
    ("empty.ttl", b"\n\n", "holds no triples"),
    ("comments.nq", b"# nothing here\n", "holds no triples"),
    ("error-page.json", b'{"error": "upstream timeout"}', "neither TrustGraph wire JSON"),
    ("strings.json", b'["s", "p", "o"]', "neither TrustGraph wire JSON"),
    ("empty-list.json", b"[]", "holds no triples"),
    ("missing-o.json", json.dumps([{k: v for k, v in WIRE_TRIPLE.items() if k != "o"}]).encode(), "missing o"),
    ("no-events.jsonl", b'{"message_type": "chunk", "text": "hi"}\n', "holds no triples"),
    ("empty-events.jsonl", b'{"message_type": "explain", "explain_triples": []}\n', "holds no triples"),
    ("ln-number.json", json.dumps([{**WIRE_TRIPLE, "o": {"t": "l", "v": "x", "ln": 5}}]).encode(), "'ln' must be a string"),
    ("dt-object.json", json.dumps([{**WIRE_TRIPLE, "o": {"t": "l", "v": "x", "dt": {}}}]).encode(), "'dt' must be a string"),
    # A quoted triple as subject is a finding (D008, tests/test_invalid_terms.py); alone in a
    # file it leaves no trace to lint.
    ("quoted-subject.json", json.dumps([{**WIRE_TRIPLE, "s": {"t": "t", "tr": WIRE_TRIPLE}}]).encode(),
     "holds no TrustGraph trace"),
    ("big-int.json", b"[" + b"7" * 5000 + b"]", "invalid JSON"),
    ("deep.json", b"[" * 100_000, "nested too deeply"),
    ("truncated.rdf", b'<?xml version="1.0"?>\n<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\n'
                      b'<rdf:Description rdf:about="urn:a">', "truncated.rdf"),
    ("laughs.rdf", b'<?xml version="1.0"?>\n<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;">]>\n'
                   b'<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description '
                   b'rdf:about="urn:a"><rdf:value>&lol2;</rdf:value></rdf:Description></rdf:RDF>', "declares a DTD"),
]


@pytest.mark.parametrize("name,content,words", CASES, ids=[c[0] for c in CASES])
def test_bad_file_is_one_line_and_exit_2(tmp_path, name, content, words):
    path = tmp_path / name
    path.write_bytes(content)
    before = hashlib.sha256(content).hexdigest()
    assert_input_error(tg_trace("lint", str(path)), name, words)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before  # input never modified


def test_empty_standard_input():
    assert_input_error(tg_trace("lint", "-", stdin=b""), "<stdin>", "holds no triples")


def test_devices_fifos_and_link_loops_are_named(tmp_path):
    assert_input_error(tg_trace("lint", "/dev/null"), "/dev/null", "is a device")
    assert_input_error(tg_trace("lint", "/dev/zero", timeout=30), "/dev/zero", "is a device")
    fifo = tmp_path / "capture.nq"
    os.mkfifo(fifo)
    assert_input_error(tg_trace("lint", str(fifo), timeout=30), "capture.nq", "is a FIFO")
    (tmp_path / "a.nq").symlink_to(tmp_path / "b.nq")
    (tmp_path / "b.nq").symlink_to(tmp_path / "a.nq")
    assert_input_error(tg_trace("lint", str(tmp_path / "a.nq")), "a.nq", "symbolic link loop")


def test_byte_order_mark_is_read(tmp_path):
    source = EXAMPLES / "graph-rag.nq"
    for suffix in (".nq", ".json"):
        text = (EXAMPLES / ("graph-rag" + suffix)).read_bytes()
        path = tmp_path / ("bom" + suffix)
        path.write_bytes(b"\xef\xbb\xbf" + text)
        result = tg_trace("lint", str(path))
        assert result.returncode == 0, result.stderr
    assert source.exists()


def test_one_bad_file_among_good_ones_with_jobs(tmp_path):
    bad = tmp_path / "bad.nq"
    bad.write_bytes(b"<urn:a> <urn:p> .\n")
    result = tg_trace("lint", "-j", "2", str(EXAMPLES / "graph-rag.nq"), str(bad), str(EXAMPLES / "supervisor.nq"))
    assert_input_error(result, "bad.nq", "bad.nq:1")


def test_control_characters_in_a_file_name_are_escaped(tmp_path):
    path = tmp_path / "evil\x1b]0;pwned\x07.nq"
    path.write_bytes(b"")
    result = tg_trace("lint", str(path))
    err = result.stderr.decode()
    assert result.returncode == 2 and "\x1b" not in err and "\\x1b" in err, err


RDF_XML_HEAD = b'<?xml version="1.0"?>\n'
RDF_XML_BODY = (b'<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="urn:a">'
                b"<rdf:value>&a;&a;</rdf:value></rdf:Description></rdf:RDF>\n")
ENTITIES = b'<!DOCTYPE x [<!ENTITY a "AAAAAAAAAA">]>\n'


@pytest.mark.parametrize("name,content,line", [
    # After a 70 KB comment: once past the first 64 KiB, the entities were expanded.
    ("late.rdf", RDF_XML_HEAD + b"<!--" + b"x" * 70_000 + b"-->\n" + ENTITIES + RDF_XML_BODY, 3),
    # The XML reader takes a DOCTYPE in lower case, and inside the root element.
    ("inside.rdf", RDF_XML_HEAD + RDF_XML_BODY.replace(b'#">', b'#">\n' + ENTITIES.lower(), 1), 3),
    # Past the first megabyte read (the scan goes a chunk at a time), and named by content alone.
    ("far.json", RDF_XML_HEAD + b"<!--\n" + b"x" * 2_000_000 + b"\n-->\n" + ENTITIES + RDF_XML_BODY, 5),
])
def test_a_dtd_anywhere_in_rdf_xml_is_refused(tmp_path, name, content, line):
    path = tmp_path / name
    path.write_bytes(content)
    assert_input_error(tg_trace("lint", str(path)), f"{name}:{line}", "declares a DTD")
    assert_input_error(tg_trace("lint", "--input-format", "rdfxml", "-", stdin=content), f"<stdin>:{line}",
                       "declares a DTD")


def test_a_json_error_keeps_its_position(tmp_path):
    # "Unterminated string starting at" said nothing of where.
    path = tmp_path / "cut.json"
    path.write_bytes(b'[{"s": {"t": "i", "i": "urn:a}}]')
    assert_input_error(tg_trace("lint", str(path)), "cut.json:1", "Unterminated string starting at: column 24")


def test_no_network_connection_while_parsing(tmp_path):
    # A JSON-LD @context and an RDF/XML base pointing at a listener here: nothing may connect.
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.settimeout(0.2)
    port = server.getsockname()[1]
    connections = []

    def accept():
        while not stop.is_set():
            try:
                connections.append(server.accept())
            except OSError:
                pass

    stop = threading.Event()
    listener = threading.Thread(target=accept)
    listener.start()
    try:
        doc = tmp_path / "remote.jsonld"
        doc.write_text(json.dumps({"@context": f"http://127.0.0.1:{port}/context.jsonld",
                                   "@id": "urn:a", "name": "x"}))
        tg_trace("lint", str(doc))
        turtle = tmp_path / "remote.ttl"
        turtle.write_text(f"@prefix ex: <http://127.0.0.1:{port}/> .\n<urn:a> ex:p <http://127.0.0.1:{port}/x> .\n")
        tg_trace("lint", str(turtle))
    finally:
        stop.set()
        listener.join()
        server.close()
    assert connections == []


def _write_nq(path: Path, lines) -> Path:
    with open(path, "w", encoding="utf-8") as handle:
        for line in lines:
            handle.write(line + "\n")
    return path


def test_long_cycles_and_question_chains_stay_linear(tmp_path):
    # Each took over a minute when the trace of every finding was searched for anew.
    n = 10_000
    cycle = _write_nq(tmp_path / "cycle.nq", (
        line for i in range(n) for line in (f"<urn:e:{i}> <{TYPE}> <{TG}Focus> .",
                                            f"<urn:e:{i}> <{DERIVED}> <urn:e:{(i + 1) % n}> .")))
    chain = _write_nq(tmp_path / "chain.nq", (
        line for i in range(n) for line in (f"<urn:q:{i}> <{TYPE}> <{TG}Question> .",
                                            f"<urn:q:{i}> <{TYPE}> <{TG}AgentQuestion> .")
        + ((f"<urn:q:{i}> <{DERIVED}> <urn:q:{i - 1}> .",) if i else ())))
    for path in (cycle, chain):
        result = tg_trace("lint", "--statistics", str(path), timeout=60)
        assert result.returncode == 1, result.stderr
        assert b"Traceback" not in result.stderr
    report = json.loads(tg_trace("lint", "--format", "json", "--select", "C003", str(cycle), timeout=60).stdout)
    assert len(report["findings"]) == n
