"""Prometheus metrics of tg-trace watch: findings per rule and severity, traces linted, the
behaviours the traces show (loops, answers without evidence, the iteration limit, failed
sub-agents) per rule, served over HTTP for a deployment's Prometheus to scrape (and Grafana to
chart, Alertmanager to alert on: an agent that loops is a rising tgtrace_behaviour_traces_total
with rule="B001").

prometheus_client writes the exposition format and serves it; it is an optional dependency
(``pip install 'trustgraph-ontology[metrics]'``), imported only by a watch that serves metrics.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..ground.errors import TgTraceError
from ..ground.model import Finding
from ..rules.registry import BEHAVIOUR_FAMILY


class MetricsError(TgTraceError, ValueError):
    """--metrics cannot be served: the library is missing, or the address is unusable."""


class Metrics:
    """Counters of one watch, on a registry of their own (no other process metrics)."""

    def __init__(self) -> None:
        try:
            from prometheus_client import CollectorRegistry, Counter
        except ImportError:
            raise MetricsError("--metrics needs prometheus-client: "
                               "pip install 'trustgraph-ontology[metrics]'") from None
        self.registry = CollectorRegistry()
        self.findings = Counter("tgtrace_findings", "Findings of the traces linted, per rule and severity",
                                ["rule", "severity"], registry=self.registry)
        self.traces = Counter("tgtrace_traces", "Traces linted: clean, with findings, or never completed",
                              ["outcome"], registry=self.registry)
        self.frames = Counter("tgtrace_frames", "Frames received from the flow's export", registry=self.registry)
        self.behaviours = Counter("tgtrace_behaviours", "Behaviour findings (rule family behaviour: a loop, an answer "
                                  "without evidence, the iteration limit, a failed sub-agent) of the traces linted, per rule",
                                  ["rule"], registry=self.registry)
        self.behaviour_traces = Counter("tgtrace_behaviour_traces", "Traces linted that show a behaviour, per rule "
                                        "(a trace counts once per rule however many findings it has)",
                                        ["rule"], registry=self.registry)
        self._server: Any = None

    def serve(self, address: str) -> None:
        """Serve /metrics at ``[HOST:]PORT`` (host 127.0.0.1 unless given)."""
        from prometheus_client import start_http_server
        host, _, port = address.rpartition(":")
        try:
            number = int(port)
        except ValueError:
            raise MetricsError(f"--metrics {address!r}: expected [HOST:]PORT, e.g. 9464 or 0.0.0.0:9464") from None
        try:
            self._server, _ = start_http_server(number, addr=host.strip("[]") or "127.0.0.1", registry=self.registry)
        except OSError as exc:
            raise MetricsError(f"--metrics {address}: cannot listen ({exc.strerror or exc})") from None

    def finding(self, finding: Finding) -> None:
        self.findings.labels(rule=finding.rule, severity=str(finding.severity)).inc()
        if finding.family == BEHAVIOUR_FAMILY:
            self.behaviours.labels(rule=finding.rule).inc()

    def trace(self, clean: bool, complete: bool, findings: Iterable[Finding] = ()) -> None:
        """One trace linted, with its findings (each behaviour rule it shows counts the trace once)."""
        self.traces.labels(outcome="never-completed" if not complete else "clean" if clean else "findings").inc()
        for rule in sorted({f.rule for f in findings if f.family == BEHAVIOUR_FAMILY}):
            self.behaviour_traces.labels(rule=rule).inc()

    def frame(self) -> None:
        self.frames.inc()

    def close(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server = None
