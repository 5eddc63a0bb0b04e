"""tg-trace watch through a compressed day against the real TrustGraph 2.11.1 gateway
(``gateway_rig``): tens of thousands of explain events of traces of every pattern, interleaved,
some never completing, some sent twice, written to the flow's queue as TrustGraph's services
write them. Its memory (resident set, sampled through the run) must level off: the peak at the
end within 10% of the peak after the warm-up. Slow (minutes): ``-m 'not slow'`` leaves it out.

``TG_TRACE_SOAK_TRACES`` sets the number of traces (default 3000, about three minutes here; the
figures in docs/deployment.md come from a longer run). The figures are printed, and written to
``$TG_TRACE_ARTIFACTS/watch-soak.json`` when that is set.
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
import uuid
from pathlib import Path

import pytest
from test_gateway import BINDING, Watch, free_port, scrape
from tgtrace.ground.limits import STREAM_MEMORY
from watch_traffic import traffic

psutil = pytest.importorskip("psutil")

TRACES = int(os.environ.get("TG_TRACE_SOAK_TRACES", "3000"))
ROUNDS = 10
WARM_UP = 2  # rounds
# Traces under way at once: their events interleave, each trace's spread over about a second.
IN_FLIGHT = 25
# The compressed day's trace timeout: a trace that lost its last event is given up this long after it.
TIMEOUT = 5.0


class Sampler:
    """The resident set of a process, sampled every quarter second, with the round it fell in."""

    def __init__(self, pid: int) -> None:
        self.process = psutil.Process(pid)
        self.round = 0
        self.samples: list[tuple[float, int, int]] = []
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.stopped.wait(0.25):
            try:
                self.samples.append((time.monotonic(), self.round, self.process.memory_info().rss))
            except psutil.Error:
                return

    def stop(self) -> None:
        self.stopped.set()
        self.thread.join(5)

    def peak(self, rounds: range) -> int:
        return max(rss for _, number, rss in self.samples if number in rounds)


@pytest.mark.slow
def test_watch_memory_levels_off_through_a_compressed_day(trustgraph):
    day = traffic(TRACES, seed=1, in_flight=IN_FLIGHT)
    collection = f"soak{uuid.uuid4().hex[:8]}"
    port = free_port()
    # The traces a watch remembers grow until --stream-memory holds: the day's 210,000 triples would
    # reach the default (200,000) only at its end, a tenth of it is reached in the warm-up.
    watch = Watch(trustgraph, "-C", collection, "--format", "jsonl", "--quiet-period", "1",
                  "--trace-timeout", str(TIMEOUT), "--metrics", str(port), "--stream-memory", str(STREAM_MEMORY // 10))
    sampler = None
    try:
        watch.notice("watching flow")
        time.sleep(BINDING)
        sampler = Sampler(watch.process.pid)
        started = time.monotonic()
        share = -(-len(day.events) // ROUNDS)
        for number in range(ROUNDS):
            sampler.round = number
            trustgraph.send(day.events[number * share:(number + 1) * share], collection)
            assert watch.process.poll() is None, watch.seen_err[-5:]
        sent = time.monotonic() - started
        sampler.round = ROUNDS  # the last frames read, the last traces quieting down and timing out
        deadline = time.monotonic() + 300
        while scrape(port)[("tgtrace_frames_total", ())] < len(day.events) and time.monotonic() < deadline:
            time.sleep(1)
        read = time.monotonic() - started
        time.sleep(TIMEOUT + 3)
        sampler.stop()
        status, stdout, stderr = watch.stop()
        assert status in (0, 1), stderr[-3:]
    finally:
        if sampler is not None:
            sampler.stop()
        watch.kill()
    summary = stderr[-1]
    found = re.search(r"watched (\d+) frames?: (\d+) traces? linted \((\d+) clean, (\d+) never completed"
                      r"(?:, (\d+) at a bound)?\), (\d+) still open", summary)
    assert found, stderr[-5:]
    frames, linted, clean, never, bounded, still_open = (int(g or 0) for g in found.groups())
    after_warm_up = sampler.peak(range(WARM_UP))
    peak = sampler.peak(range(ROUNDS + 1))
    figures = {"traces": TRACES, "events": len(day.events), "incomplete": day.incomplete, "repeated": day.repeated,
               "seconds_sending": round(sent, 1), "seconds_reading": round(read, 1), "frames": frames, "linted": linted, "never_completed": never,
               "at_a_bound": bounded, "still_open": still_open,
               "rss_mib_after_warm_up": round(after_warm_up / 2**20, 1),
               "rss_mib_peak": round(peak / 2**20, 1),
               "rss_mib_by_round": [round(sampler.peak(range(n, n + 1)) / 2**20, 1) for n in range(ROUNDS + 1)]}
    print(json.dumps(figures))
    if os.environ.get("TG_TRACE_ARTIFACTS"):
        folder = Path(os.environ["TG_TRACE_ARTIFACTS"])
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "watch-soak.json").write_text(json.dumps(figures, indent=2) + "\n")
    assert frames >= len(day.events), figures
    # Every trace linted (extraction's vocabulary labels are a group of their own), none left behind.
    assert linted >= TRACES and still_open == 0, figures
    assert never >= day.incomplete // 2, figures
    assert peak <= 1.10 * after_warm_up, figures
    assert trustgraph.token not in "\n".join(stdout + stderr)
