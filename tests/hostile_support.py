"""What the hostile-input suite runs and measures: tg-trace in a process of its own under a 4 GB
address-space limit, its CPU time and peak memory read from the kernel (``os.wait4``), and the
hostile inputs themselves, written at any size so that a test can compare a large one with a
small one (a time limit linear in the input, never a bare wall-clock constant).

- ``run(*args)``: ``tg-trace ARGS`` (or ``python -c``/a script with ``python=...``), a
  :class:`Ran` with its exit status, the signal that killed it, its output, CPU seconds and
  peak resident memory.
- ``assert_refused(ran, name, words)``: exit 2, one line naming the input, no traceback.
- ``assert_linear(small, large, ratio, base)``: the large run's CPU time within a generous
  multiple of the small one's, scaled by how much larger its input is, start-up taken off.
- the writers: a trace of ``n`` sub-agents nested, a chain of ``n`` references, triple terms
  ``n`` deep (N-Quads, Turtle, wire JSON), JSON-LD and RDF/XML nested ``n`` deep, ``n`` values of
  one subject and predicate, ``n`` two-step derivation cycles.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MEMORY = 4 << 30  # the address space a hostile run may take: a run past it fails, never swaps
TG = "https://trustgraph.ai/ns/"
TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
DERIVED = "http://www.w3.org/ns/prov#wasDerivedFrom"
ENTITY = "http://www.w3.org/ns/prov#Entity"


@dataclass
class Ran:
    args: tuple
    status: int | None  # the exit status, None when a signal ended it
    killed: int | None  # the signal that ended it
    stdout: bytes
    stderr: bytes
    cpu: float  # user + system seconds
    peak: int  # peak resident memory, bytes

    @property
    def err(self) -> str:
        return self.stderr.decode("utf-8", "replace")


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def run(*args: str, stdin: bytes | None = None, timeout: float = 600, cwd: Path | None = None,
        python: bool = False, env: dict | None = None) -> Ran:
    """tg-trace ARGS (with ``python``: ``python ARGS``) in a process of its own under the memory
    limit; ``timeout`` only stops a run that hangs (the tests judge time by CPU, against a
    smaller run)."""
    command = [sys.executable, *args] if python else [sys.executable, "-m", "tgtrace.cli", *args]
    environment = {**os.environ, "PYTHONPATH": str(ROOT / "validators"), **(env or {})}
    for name in ("GITHUB_ACTIONS", "GITHUB_WORKSPACE"):
        environment.pop(name, None)
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, tempfile.TemporaryFile() as into:
        if stdin is not None:
            into.write(stdin)
            into.seek(0)
        process = subprocess.Popen(command, stdin=into if stdin is not None else subprocess.DEVNULL, stdout=out,
                                   stderr=err, cwd=cwd, env=environment, preexec_fn=_limited)
        timer = threading.Timer(timeout, lambda: process.kill())
        timer.start()
        try:
            _, status, usage = os.wait4(process.pid, 0)
        finally:
            timer.cancel()
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        killed = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
        return Ran(tuple(args), os.WEXITSTATUS(status) if os.WIFEXITED(status) else None, killed, out.read(),
                   err.read(), usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024)


def assert_survived(ran: Ran) -> None:
    """No signal (a segfault), no internal error (exit 3), no traceback."""
    assert ran.killed is None, f"{ran.args}: killed by {signal.Signals(ran.killed).name}: {ran.err[-500:]}"
    assert ran.status in (0, 1, 2), (ran.args, ran.status, ran.err[-1000:])
    assert "Traceback" not in ran.err, ran.err[-2000:]


def assert_refused(ran: Ran, name: str, words: str) -> str:
    """Exit 2 and one line naming the input and saying ``words``; the line."""
    assert_survived(ran)
    lines = ran.err.strip().splitlines()
    assert ran.status == 2, (ran.args, ran.status, ran.err[-1000:])
    assert len(lines) == 1, lines[:5]
    assert name in lines[0] and words in lines[0], lines[0]
    return lines[0]


def assert_linear(small: Ran, large: Ran, ratio: float, base: Ran | None = None, slack: float = 2.0) -> None:
    """The large run's CPU time within ``slack`` times the small one's scaled by ``ratio`` (how
    many times larger its input is): a quadratic cost is ``ratio`` times over that. ``base``, a run
    of the same command on a tiny input, is what both pay to start, taken off both (a small run's
    own work counted as at least a quarter of a second, so that the noise of a loaded machine, tenths
    of a second, cannot fail a linear run; the quadratic costs these tests guard were tens of seconds)."""
    start = base.cpu if base is not None else 0.0
    allowed = slack * ratio * max(small.cpu - start, 0.25)
    assert large.cpu - start <= allowed, (
        f"{large.args}: {large.cpu - start:.2f} s of CPU past start-up ({start:.2f} s), more than {slack:g} x "
        f"{ratio:g} x {small.cpu - start:.2f} s, the run on an input {ratio:g} times smaller")


# ---------------------------------------------------------------- the hostile inputs


def _triple(s: str, p: str, o: str) -> str:
    return f"<{s}> <{p}> {o} ."


def _iri(value: str) -> str:
    return f"<{value}>"


def _question(q: str, kind: str = "GraphRagQuestion") -> list[str]:
    return [_triple(q, TYPE, _iri(ENTITY)), _triple(q, TYPE, _iri(TG + "Question")),
            _triple(q, TYPE, _iri(TG + kind)), _triple(q, TG + "query", '"What is it?"')]


def write(path: Path, lines) -> Path:
    with open(path, "w", encoding="utf-8") as handle:
        for line in lines:
            handle.write(line + "\n")
    return path


def sub_agents(n: int) -> list[str]:
    """An agent whose step starts a sub-agent, whose step starts another, ``n`` deep."""
    lines: list[str] = []
    step = None
    for level in range(n):
        question, analysis = f"urn:trustgraph:agent:q{level}", f"urn:trustgraph:agent:q{level}/i1"
        lines += _question(question, "AgentQuestion")
        if step is not None:
            lines.append(_triple(question, DERIVED, _iri(step)))
        lines += [_triple(analysis, TYPE, _iri(ENTITY)), _triple(analysis, TYPE, _iri(TG + "Analysis")),
                  _triple(analysis, TYPE, _iri(TG + "ToolUse")), _triple(analysis, DERIVED, _iri(question)),
                  _triple(analysis, TG + "action", '"knowledge-query"')]
        step = analysis
    return lines


def reference_chain(n: int) -> list[str]:
    """A GraphRAG Question and ``n`` entities described in the graph, each named by the one before
    (what the places of an extraction's activities and agents are made of)."""
    question = "urn:trustgraph:question:chain"
    lines = _question(question)
    before = question
    for number in range(n):
        entity = f"urn:x:entity:{number}"
        lines += [_triple(before, TG + "document", _iri(entity)), _triple(entity, "urn:x:p", '"x"')]
        before = entity
    return lines


def nested_term(n: int, turtle: bool = False) -> str:
    """A triple term holding a triple term, ``n`` deep."""
    term = "<urn:a> <urn:b> <urn:c>"
    for _ in range(n):
        term = f"<<( <urn:a> <urn:b> {term} )>>" if term.startswith("<<") else f"<<( {term} )>>"
    return term


def triple_terms(n: int) -> list[str]:
    """A GraphRAG Question whose edge is a triple term ``n`` deep (N-Quads)."""
    question = "urn:trustgraph:question:deep"
    return [*_question(question), _triple(question, TG + "edge", nested_term(n))]


def wire_triple_terms(n: int) -> bytes:
    """The same as wire JSON."""
    term: dict = {"t": "i", "i": "urn:c"}
    for _ in range(n):
        term = {"t": "t", "tr": {"s": {"t": "i", "i": "urn:a"}, "p": {"t": "i", "i": "urn:b"}, "o": term}}
    triples = [{"s": {"t": "i", "i": "urn:trustgraph:question:deep"}, "p": {"t": "i", "i": TYPE},
                "o": {"t": "i", "i": TG + "Question"}},
               {"s": {"t": "i", "i": "urn:trustgraph:question:deep"}, "p": {"t": "i", "i": TG + "edge"}, "o": term}]
    return json.dumps(triples).encode()


def json_ld(n: int) -> bytes:
    """A JSON-LD node whose value is a node whose value is a node, ``n`` deep."""
    return ('{"@id": "urn:a", ' + '"urn:p": {' * n + '"urn:q": "x"' + "}" * n + "}").encode()


def rdf_xml(n: int) -> bytes:
    """RDF/XML of ``n`` rdf:Description elements, each inside the last."""
    head = ('<?xml version="1.0"?>\n<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" '
            'xmlns:ex="urn:ex#">\n')
    body = "".join(f'<rdf:Description rdf:about="urn:d{i}"><ex:p>' for i in range(n))
    return (head + body + "</ex:p></rdf:Description>" * n + "\n</rdf:RDF>\n").encode()


def fan_out(n: int) -> list[str]:
    """``n`` values of one subject and predicate."""
    question = "urn:trustgraph:question:wide"
    return [*_question(question), *(_triple(question, TG + "concept", f'"concept {i}"') for i in range(n))]


def cycles(n: int) -> list[str]:
    """A GraphRAG Question and ``n`` two-step derivation cycles under it."""
    question = "urn:trustgraph:question:cycles"
    lines = _question(question)
    for number in range(n):
        a, b = f"urn:trustgraph:a:{number}", f"urn:trustgraph:b:{number}"
        lines += [_triple(a, TYPE, _iri(TG + "Grounding")), _triple(a, DERIVED, _iri(question)),
                  _triple(a, DERIVED, _iri(b)), _triple(b, TYPE, _iri(TG + "Exploration")),
                  _triple(b, DERIVED, _iri(a))]
    return lines
