"""Faults a real gateway does not produce on demand, against a small websockets server that
speaks the gateway's protocol: a connection dropped in the middle of a pull's answer, a frame
that is not JSON, and a gateway that accepts a connection but never answers. Everything else is
tested against the real gateway (tests/test_gateway.py)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from websockets.asyncio.server import serve

ROOT = Path(__file__).resolve().parents[1]
SECRET = "tg_secret-that-must-not-show"
TRIPLE = {"s": {"t": "i", "i": "urn:trustgraph:question:1"},
          "p": {"t": "i", "i": "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"},
          "o": {"t": "i", "i": "https://trustgraph.ai/ns/Question"}, "g": "urn:graph:retrieval"}


class FaultyGateway:
    """Authenticates, answers a triples query with one batch and then drops the connection;
    the export sends one frame that is not JSON."""

    def __init__(self) -> None:
        self.ready = threading.Event()
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_until_complete, args=(self._main(),), daemon=True)
        self.thread.start()
        assert self.ready.wait(10)

    async def _main(self) -> None:
        self.stop = asyncio.Event()
        async with serve(self._handle, "127.0.0.1", 0) as server:
            self.port = server.sockets[0].getsockname()[1]
            self.ready.set()
            await self.stop.wait()

    async def _handle(self, socket) -> None:
        if socket.request.path.startswith("/api/v1/flow/"):
            await socket.send("{not json")
            await socket.wait_closed()
            return
        async for raw in socket:
            message = json.loads(raw)
            if message.get("type") == "auth":
                await socket.send(json.dumps({"type": "auth-ok", "default_workspace": "default"}))
                continue
            body = message["request"]
            if body.get("s"):  # the flow check: an empty, complete answer
                await socket.send(json.dumps({"id": message["id"], "response": {"response": []}, "complete": True}))
                continue
            await socket.send(json.dumps({"id": message["id"], "response": {"response": [TRIPLE]},
                                          "complete": False}))
            await socket.close()
            return

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.stop.set)
        self.thread.join(10)


@pytest.fixture
def faulty():
    server = FaultyGateway()
    yield server
    server.close()


def _tg_trace(*args, timeout=30):
    env = {**os.environ, "TRUSTGRAPH_TOKEN": SECRET, "PYTHONPATH": str(ROOT / "validators")}
    return subprocess.run([sys.executable, "-m", "tgtrace.cli", *args], capture_output=True, text=True,
                          env=env, timeout=timeout)


def test_a_pull_cut_off_mid_answer_writes_nothing_and_exits_2(faulty, tmp_path):
    target = tmp_path / "traces.nq"
    target.write_text("kept\n")
    result = _tg_trace("pull", "-u", f"http://127.0.0.1:{faulty.port}/", "-C", "c1", "-o", str(target))
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and "closed the connection while reading collection 'c1'" in lines[0], result.stderr
    assert target.read_text() == "kept\n"  # the partial answer is not written as if complete
    assert SECRET not in result.stderr


def test_a_malformed_export_frame_ends_watch_with_one_line(faulty):
    result = _tg_trace("watch", "-u", f"http://127.0.0.1:{faulty.port}/")
    assert result.returncode == 2
    problems = [line for line in result.stderr.splitlines() if "watching flow" not in line]
    assert problems == [f"tg-trace: http://127.0.0.1:{faulty.port}/: sent a malformed frame while exporting: "
                        'not JSON ("{not json")'], result.stderr
    assert SECRET not in result.stderr + result.stdout


def test_watch_stops_on_sigterm_while_the_gateway_does_not_answer():
    """A supervisor (systemd, Kubernetes) waits a few seconds after SIGTERM: a watch stuck in a
    connection attempt (a gateway that accepts but never answers) still stops, with its summary."""
    import signal
    import socket
    import time

    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(5)
        port = silent.getsockname()[1]
        env = {**os.environ, "TRUSTGRAPH_TOKEN": SECRET, "PYTHONPATH": str(ROOT / "validators")}
        watch = subprocess.Popen([sys.executable, "-m", "tgtrace.cli", "watch", "-u", f"http://127.0.0.1:{port}/"],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        try:
            time.sleep(2)
            watch.send_signal(signal.SIGTERM)
            _, stderr = watch.communicate(timeout=10)
        finally:
            if watch.poll() is None:
                watch.kill()
                watch.wait()
    assert watch.returncode == 0
    assert stderr.splitlines()[-1].startswith("tg-trace: watched 0 frames: 0 traces linted"), stderr
