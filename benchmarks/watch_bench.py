"""tg-trace watch's throughput and memory (``benchmarks/run.py --watch N``).

A local server on 127.0.0.1 speaks the gateway's protocol (the request socket answers the
flow check; the export sends frames) and replays a compressed day of traffic
(``tests/watch_traffic.py``: N traces of every pattern, interleaved, some never completing,
some events sent twice) as fast as watch reads it. Reported: the traces and frames linted per
second (from the first frame to the last trace linted, the trace timeout of the last stragglers
included), and watch's resident memory at the start (subscribed, nothing read), at the end
(everything linted) and at its peak. The real gateway's own pace (about 250 messages a second
on this kind of machine) is the soak test's (``tests/test_watch_soak.py``), not watch's.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
QUIET, TIMEOUT = 0.2, 1.0


def _scrape(port: int) -> dict:
    from prometheus_client.parser import text_string_to_metric_families

    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as answer:
        text = answer.read().decode()
    found: dict = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name in ("tgtrace_frames_total", "tgtrace_traces_total"):
                found[sample.name] = found.get(sample.name, 0) + sample.value
    return found


def _rss(pid: int) -> tuple[float, float]:
    """(resident, peak resident) MiB of a process (Linux's VmRSS and VmHWM)."""
    fields = {}
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            key, _, value = line.partition(":")
            fields[key] = value.split()
    return int(fields["VmRSS"][0]) / 1024, int(fields["VmHWM"][0]) / 1024


class _Replay:
    """The gateway's protocol on 127.0.0.1: the flow check answered, the export replaying ``frames``."""

    def __init__(self, frames: list[str]) -> None:
        self.frames = frames
        self.go = threading.Event()
        self.started = 0.0
        self.ready = threading.Event()
        self.loop = asyncio.new_event_loop()
        threading.Thread(target=self.loop.run_until_complete, args=(self._main(),), daemon=True).start()
        assert self.ready.wait(10)

    async def _main(self) -> None:
        from websockets.asyncio.server import serve

        self.stop = asyncio.Event()
        async with serve(self._handle, "127.0.0.1", 0, compression=None, max_size=None) as server:
            self.port = server.sockets[0].getsockname()[1]
            self.ready.set()
            await self.stop.wait()

    async def _handle(self, socket) -> None:
        if socket.request.path.startswith("/api/v1/flow/"):
            await asyncio.get_running_loop().run_in_executor(None, self.go.wait)
            self.started = time.perf_counter()
            for frame in self.frames:
                await socket.send(frame)
            await socket.wait_closed()
            return
        async for raw in socket:
            message = json.loads(raw)
            if message.get("type") == "auth":
                await socket.send(json.dumps({"type": "auth-ok", "default_workspace": "default"}))
            else:
                await socket.send(json.dumps({"id": message["id"], "response": {"response": []}, "complete": True}))


def measure(traces: int, seed: int = 0, tg_trace: list[str] | None = None) -> dict:
    sys.path.insert(0, str(ROOT / "tests"))
    from watch_traffic import traffic

    day = traffic(traces, seed=seed, in_flight=25)
    frames = [json.dumps({"metadata": {"id": e["id"], "root": "", "collection": "bench"}, "triples": e["triples"]})
              for e in day.events]
    replay = _Replay(frames)
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        metrics_port = probe.getsockname()[1]
    command = (tg_trace or [sys.executable, "-m", "tgtrace.cli"]) + [
        "watch", "-u", f"http://127.0.0.1:{replay.port}/", "-t", "tg_benchmark", "--format", "jsonl",
        "--quiet-period", str(QUIET), "--trace-timeout", str(TIMEOUT), "--metrics", str(metrics_port)]
    watch = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                             env={**os.environ, "PYTHONPATH": str(ROOT / "validators")})
    try:
        line = watch.stderr.readline()
        if "watching flow" not in line:
            raise RuntimeError(f"watch did not start: {line}{watch.stderr.read()[-2000:]}")
        # Its notices (traces never completed) are read as they come: a full pipe would stop it.
        notices: list[str] = []
        reader = threading.Thread(target=lambda: notices.extend(watch.stderr), daemon=True)
        reader.start()
        time.sleep(0.5)
        start_rss, _ = _rss(watch.pid)
        replay.go.set()
        last, changed = None, time.perf_counter()
        while True:
            time.sleep(0.1)
            seen = _scrape(metrics_port)
            now = (seen.get("tgtrace_frames_total", 0), seen.get("tgtrace_traces_total", 0))
            if now != last:
                last, changed = now, time.perf_counter()
            elif now[0] >= len(frames) and time.perf_counter() - changed > 3 * TIMEOUT:
                break
        end_rss, peak_rss = _rss(watch.pid)
        seconds = changed - replay.started
        watch.send_signal(2)
        watch.wait(30)
        reader.join(10)
        summary = notices[-1].strip() if notices else ""
    finally:
        if watch.poll() is None:
            watch.kill()
        replay.loop.call_soon_threadsafe(replay.stop.set)
    return {"traces": traces, "frames": len(frames), "linted": int(last[1]), "seconds": round(seconds, 2),
            "traces_per_s": round(traces / seconds, 1), "frames_per_s": round(len(frames) / seconds, 1),
            "rss_mib_start": round(start_rss, 1), "rss_mib_end": round(end_rss, 1),
            "rss_mib_peak": round(peak_rss, 1), "summary": summary}


def lines(result: dict) -> list[str]:
    return [f"tg-trace watch: {result['traces']:,} traces ({result['frames']:,} frames, {result['linted']:,} "
            f"linted) in {result['seconds']} s: {result['traces_per_s']:,} traces/s, {result['frames_per_s']:,} "
            "frames/s",
            f"tg-trace watch memory: {result['rss_mib_start']} MiB at the start, {result['rss_mib_end']} MiB at "
            f"the end, {result['rss_mib_peak']} MiB at its peak"]
