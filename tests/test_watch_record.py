"""tg-trace watch --record, guarded as an output is: never through a symbolic link, into a device
or a FIFO, or onto a file that is not an explain stream; written with the project's escaping; and a
write that fails (a full disk, a file size limit) ends the watch with its summary and exit 2,
leaving the recording a whole explain stream."""

from __future__ import annotations

import asyncio
import json
import os
import resource
import signal
import subprocess
import sys
import time

import pytest
from conftest import EXAMPLES, ROOT
from hostile_gateway import TG, HostileGateway, literal, triple
from test_gateway_hostile import SECRET, UNSAFE, Watching, flow_ok_only, graph_rag_triples, one_line, tg_trace
from tgtrace import api


def refused(*args) -> str:
    with HostileGateway(socket=flow_ok_only) as gateway:
        return one_line(tg_trace("watch", "-u", gateway.url, *args))


def test_a_symbolic_link_is_refused(tmp_path):
    target = tmp_path / "elsewhere.jsonl"
    target.write_text("")
    link = tmp_path / "seen.jsonl"
    link.symlink_to(target)
    assert "is a symbolic link" in refused("--record", str(link))
    assert target.read_text() == ""


def test_devices_and_fifos_are_refused(tmp_path):
    assert "is a device" in refused("--record", "/dev/zero")
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    assert "is a FIFO" in refused("--record", str(fifo))


@pytest.mark.parametrize("content, words", [
    (b"not an explain stream\n", "is not an explain stream"),
    (b'{"s": {"t": "i", "i": "urn:x"}}\n', "is not an explain stream"),
    (b'{"message_type": "explain", "explain_id": "x", "explain_triples": []}\n\xff\xfe\n', "not UTF-8"),
    (b'{"message_type": "explain", "explain_id": "x", "explain_triples": []}', "ends in a cut line"),
])
def test_an_existing_file_that_is_not_an_explain_stream_is_refused_before_appending(tmp_path, content, words):
    record = tmp_path / "seen.jsonl"
    record.write_bytes(content)
    assert words in refused("--record", str(record))
    assert record.read_bytes() == content


def test_an_earlier_recording_is_appended_to(tmp_path):
    record = tmp_path / "seen.jsonl"
    record.write_text((EXAMPLES / "services" / "graph-rag.jsonl").read_text())
    before = record.read_text()

    async def export(session):
        await session.send({"metadata": {"id": "e1", "collection": "c"},
                            "triples": graph_rag_triples() + [triple("urn:trustgraph:question:q1", TG + "query",
                                                                     literal(f"what{UNSAFE}?"))]})

    with HostileGateway(socket=flow_ok_only, export=export) as gateway:
        watch = Watching("-u", gateway.url, "--record", str(record), "--quiet-period", "0.1",
                         "--trace-timeout", "0.5")
        watch.wait_for("never completed")
        status, _, _ = watch.stop()
    text = record.read_text()
    assert text.startswith(before)
    added = text[len(before):]
    # The project's escaping: no raw C1, bidi or separator; the value reads back exactly.
    assert not [c for c in UNSAFE if c in added]
    (event,) = [json.loads(line) for line in added.splitlines()]
    assert any(t["o"].get("v") == f"what{UNSAFE}?" for t in event["explain_triples"])
    assert api.lint(str(record), fail_on="never").traces  # still an explain stream


def test_a_write_that_fails_ends_the_watch_with_its_summary_and_exit_2(tmp_path):
    """A file size limit (EFBIG), as a full disk would: the line is taken back."""
    record = tmp_path / "seen.jsonl"

    async def export(session):
        for n in range(50):
            await session.send({"metadata": {"id": f"e{n}", "collection": "c"},
                                "triples": graph_rag_triples(f"urn:trustgraph:question:{n}") + [
                                    triple(f"urn:trustgraph:question:{n}", TG + "query", literal("q" * 300))]})
            await asyncio.sleep(0.02)

    def limited():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (4000, 4000))

    with HostileGateway(socket=flow_ok_only, export=export) as gateway:
        watch = Watching("-u", gateway.url, "--record", str(record), preexec_fn=limited)
        status = watch.process.wait(60)
        _, _, err = watch.stop()
    lines = err.splitlines()
    assert status == 2, err
    assert "--record cannot be written (File too large)" in lines[-2]
    assert lines[-1].startswith("tg-trace: watched ")
    text = record.read_text()
    assert text.endswith("\n") and len(text) <= 4000
    assert all(json.loads(line)["message_type"] == "explain" for line in text.splitlines())
    assert SECRET not in err


def test_the_recording_lints_as_what_was_sent(tmp_path):
    """The watch's recording, escaped, is an explain stream whose findings are the trace's."""
    record = tmp_path / "seen.jsonl"
    sent = json.loads((EXAMPLES / "graph-rag.json").read_text())

    async def export(session):
        await session.send({"metadata": {"id": "e1", "collection": "c"}, "triples": sent})

    with HostileGateway(socket=flow_ok_only, export=export) as gateway:
        watch = Watching("-u", gateway.url, "--record", str(record), "--quiet-period", "0.1")
        watch.wait_for("watching flow")
        for _ in range(100):
            if record.exists() and record.read_text().endswith("\n"):
                break
            time.sleep(0.1)
        watch.stop()
    assert sorted((f.rule, f.focus) for f in api.lint(str(record)).findings) == sorted(
        (f.rule, f.focus) for f in api.lint(str(EXAMPLES / "graph-rag.json")).findings)


def test_the_one_line_of_an_unwritable_folder(tmp_path):
    result = subprocess.run([sys.executable, "-m", "tgtrace.cli", "watch", "--record", str(tmp_path / "no" / "x")],
                            capture_output=True, text=True, timeout=60,
                            env={**os.environ, "PYTHONPATH": str(ROOT / "validators")})
    assert result.returncode == 2 and len(result.stderr.splitlines()) == 1, result.stderr
