"""What a trace says cannot forge what tg-trace writes: every output format (the registry's,
so a new format is covered), `show`, `list`, `graph` and standard error get the same hostile
trace under the same hostile file name. No raw control, bidi or other unsafe character reaches
any of them, nothing fails to encode, and each output still parses with its consumer."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import EXAMPLES
from fuzz import output_problem
from tgtrace.formats import DIFF_FORMATS, FORMATS

# Slow: each case a process of its own under a memory limit (`python -m pytest -m "not slow"` leaves it out; CI runs it).
pytestmark = pytest.mark.slow

TG = "https://trustgraph.ai/ns/"
# Terminal escapes (retitle, bell), a forged GitHub workflow command on a new line, a carriage
# return, bidi overrides and isolates, NUL, a C1 control, what XML 1.0 forbids, a line separator.
HOSTILE = ("\x1b]0;pwned\x07\n::error file=src/app.py,line=1::FORGED\r\u202eevil\u2066\u200f\x00\x85"
           "\ufffe\uffff\u2028")
# The same in a file name, with a byte that is not UTF-8; it starts like a workflow command.
HOSTILE_NAME = os.fsdecode(b"::error::evil\x1b]0;t\x07\xe2\x80\xae\n::warning::x\xff.json")
SESSION = "urn:trustgraph:agent:ce3416ed-11d7-525f-adf1-8f83153e5791"


def tg_trace(*args, cwd) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("GITHUB_STEP_SUMMARY", "GITHUB_ACTIONS")}
    return subprocess.run([sys.executable, "-m", "tgtrace.cli", *args], capture_output=True, timeout=120, cwd=cwd,
                          env=env)


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    """A real ReAct trace (the emitter's) whose question and termination reason are hostile
    literals, whose IRIs carry bidi controls and a line separator, and whose decision carries a
    hostile tg:action longer than Graphviz takes in one label; under a hostile file name."""
    folder = tmp_path_factory.mktemp("hostile")
    # The session's IRI as `list` shortens it starts like a workflow command too.
    hostile_session = SESSION.replace("urn:trustgraph:", "urn:trustgraph:::error::") + "\\u202e\\u2028"
    text = (EXAMPLES / "orchestrator-react-one-shot.json").read_text().replace(SESSION, hostile_session)
    triples = json.loads(text)
    for triple in triples:
        if triple["p"]["i"] in (TG + "terminationReason", TG + "query"):
            triple["o"]["v"] = HOSTILE
        elif triple["p"]["i"] == "http://www.w3.org/ns/prov#startedAtTime":
            triple["o"].update(v=HOSTILE, dt="http://www.w3.org/2001/XMLSchema#dateTime")
    decision = next(t for t in triples if t["p"]["i"] == TG + "pattern")
    triples.append({**decision, "p": {"t": "i", "i": TG + "action"}, "o": {"t": "l", "v": HOSTILE + "A" * 20_000}})
    (folder / HOSTILE_NAME).write_text(json.dumps(triples))
    return folder


def safe_text(data: bytes, where: str, fmt: str = "text") -> str:
    """The output as UTF-8 (strictly: a file name that is not UTF-8 must not leak a raw byte),
    holding no unsafe character and read by its consumer (tests/fuzz.py says how)."""
    text = data.decode("utf-8")
    problem = output_problem(fmt, text)
    assert problem is None, f"{where}: {problem}"
    return text


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_every_format_shows_a_hostile_trace_safely(hostile, fmt):
    to_stdout = tg_trace("lint", "--no-config", "--no-summary", "--format", fmt, HOSTILE_NAME, cwd=hostile)
    out_file = hostile / f"report-{fmt}.out"
    to_file = tg_trace("lint", "--no-config", "--no-summary", "--format", fmt, "-o", str(out_file), HOSTILE_NAME,
                       cwd=hostile)
    for result, where in ((to_stdout, "stdout"), (to_file, "-o")):
        assert result.returncode == 1, (fmt, where, result.stderr)
        safe_text(result.stderr, f"{fmt} {where} stderr")
    safe_text(to_stdout.stdout, f"{fmt} stdout", fmt)
    safe_text(out_file.read_bytes(), f"{fmt} -o", fmt)
    # Statistics are text, or JSON for json (github's are its annotations, then the text's).
    if FORMATS[fmt].statistics and fmt != "github":
        statistics = tg_trace("lint", "--no-config", "--no-summary", "--format", fmt, "--statistics", HOSTILE_NAME,
                              cwd=hostile)
        assert statistics.returncode == 1, statistics.stderr
        safe_text(statistics.stdout, f"{fmt} --statistics", fmt)


def test_the_hostile_text_is_still_there_escaped(hostile):
    # Escaped, not dropped: the reader sees what the trace said.
    text = tg_trace("lint", "--no-config", "--no-summary", "--format", "text", HOSTILE_NAME, cwd=hostile).stdout.decode()
    assert "\\x1b]0;pwned\\x07\\n::error file=src/app.py" in text and "\\u202eevil\\u2066" in text
    assert "evil\\x1b]0;t\\x07\\u202e\\n::warning::x\\xff.json:" in text
    # JSON keeps the exact values; the bytes hold escapes only.
    document = json.loads(tg_trace("lint", "--no-config", "--format", "json", HOSTILE_NAME, cwd=hostile).stdout)
    assert {f["value"] for f in document["findings"]} >= {HOSTILE}
    assert {f["file"] for f in document["findings"]} == {HOSTILE_NAME}


def test_the_reference_engine_writes_nothing_but_the_report(hostile):
    # rdflib logged each literal that does not fit its datatype, with a traceback, on stderr.
    result = tg_trace("lint", "--no-config", "--engine", "shacl", "--format", "json", HOSTILE_NAME, cwd=hostile)
    assert result.returncode == 1 and result.stderr == b"", result.stderr[-2000:]
    safe_text(result.stdout, "shacl json", "json")
    assert "D003" in {finding["rule"] for finding in json.loads(result.stdout)["findings"]}


def test_baseline_and_summary_files_are_safe(hostile):
    # A baseline is reviewed in diffs; the summary lands on the run's page.
    baseline, summary = hostile / f"{HOSTILE_NAME}.baseline.json", hostile / "summary.md"
    recorded = tg_trace("lint", "--no-config", "--write-baseline", baseline.name, HOSTILE_NAME, cwd=hostile)
    assert recorded.returncode == 0, recorded.stderr
    assert "recorded" in safe_text(recorded.stderr, "--write-baseline stderr")
    safe_text(baseline.read_bytes(), "baseline", "json")
    result = tg_trace("lint", "--no-config", "--baseline", baseline.name, "--summary", summary.name, HOSTILE_NAME,
                      cwd=hostile)
    assert result.returncode == 0, result.stderr
    assert "accepted by the baseline" in safe_text(result.stderr, "--baseline stderr")
    safe_text(summary.read_bytes(), "summary", "markdown")


def test_github_file_property_is_escaped(hostile):
    text = tg_trace("lint", "--no-config", "--format", "github", HOSTILE_NAME, cwd=hostile).stdout.decode()
    lines = text.splitlines()
    escaped = "::error file=%3A%3Aerror%3A%3Aevil\\x1b]0;t\\x07\\u202e%0A%3A%3Awarning%3A%3Ax\\xff.json,line=1,"
    assert lines and all(line.startswith(escaped) for line in lines), lines


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_show_and_list_show_a_hostile_trace_safely(hostile, fmt):
    for command in ("show", "list"):
        result = tg_trace(command, "--no-config", "--format", fmt, HOSTILE_NAME, cwd=hostile)
        assert result.returncode == 1, result.stderr
        safe_text(result.stderr, f"{command} stderr")
        safe_text(result.stdout, f"{command} {fmt}", "json" if fmt == "json" else "markdown")


@pytest.mark.parametrize("fmt", list(DIFF_FORMATS))
def test_diff_shows_a_hostile_trace_safely(hostile, fmt):
    # The termination reason is a value of the contract: the diff shows it, escaped; the tg:action
    # added to the decision too (20,000 characters: cut in text and Markdown, whole in JSON).
    example = str(EXAMPLES / "orchestrator-react-one-shot.json")
    syntax = "json" if DIFF_FORMATS[fmt].syntax == "json" else "markdown"
    for old, new in ((example, HOSTILE_NAME), (HOSTILE_NAME, example)):
        result = tg_trace("diff", "--format", fmt, old, new, cwd=hostile)
        assert result.returncode == 1, result.stderr
        assert result.stderr == b""
        text = safe_text(result.stdout, f"diff {fmt}", syntax)
        if syntax == "json":
            values = [v.get("value") for g in json.loads(text)["groups"] for e in g["changes"]
                      for c in e.get("changes", ()) for v in c.get("old", []) + c.get("new", []) if isinstance(v, dict)]
            assert HOSTILE in values and HOSTILE + "A" * 20_000 in values
        else:
            assert "\\x1b]0;pwned\\x07\\n::error file=src/app.py" in text and "AAAA…" in text
            assert len(text) < 10_000
    written = hostile / f"diff.{fmt}"
    assert tg_trace("diff", "--format", fmt, "-o", str(written), HOSTILE_NAME, example, cwd=hostile).returncode == 1
    safe_text(written.read_bytes(), f"diff {fmt} -o", syntax)


def test_diff_names_a_hostile_file_escaped(hostile, tmp_path):
    (tmp_path / "empty.nq").write_text("")
    result = tg_trace("diff", HOSTILE_NAME, str(tmp_path / "empty.nq"), cwd=hostile)
    assert result.returncode == 2
    (line,) = safe_text(result.stderr, "diff stderr").splitlines()
    assert line.endswith("empty.nq: is empty: holds no triples")
    text = safe_text(tg_trace("diff", HOSTILE_NAME, HOSTILE_NAME, cwd=hostile).stdout, "diff", "markdown")
    assert "--- ./::error::evil\\x1b]0;t\\x07\\u202e\\n::warning::x\\xff.json" in text


def test_graph_draws_a_hostile_trace(hostile):
    # A NUL, a control character or an unbroken label over 16 KiB made dot fail or the SVG
    # ill-formed; on a terminal, `graph -o -` wrote the escapes raw.
    for target in ("-", "drawing.svg", "drawing.dot"):
        result = tg_trace("graph", "--no-config", "-o", target, HOSTILE_NAME, cwd=hostile)
        assert result.returncode == 1, result.stderr
        safe_text(result.stderr, f"graph {target} stderr")
        data = result.stdout if target == "-" else (hostile / target).read_bytes()
        text = safe_text(data, f"graph {target}", "markdown" if target == "drawing.dot" else "svg")
        assert "\\x1b]0;pwned" in text and "AAAA" in text


# Unreadable input whose parser's message quotes the hostile text: one escaped line, exit 2.
UNREADABLE = [
    ("context.jsonld", json.dumps({"@context": HOSTILE, "@id": "urn:a"}).encode()),
    ("type.jsonld", json.dumps({"@id": "urn:a", "@type": HOSTILE}).encode()),
    ("base.jsonld", json.dumps({"@context": {"@base": HOSTILE}, "@id": "urn:a"}).encode()),
    ("import.jsonld", json.dumps({"@context": {"@import": HOSTILE}, "@id": "urn:a"}).encode()),
    ("literal.ttl", f'<urn:a> <urn:p> "{HOSTILE}\n.'.encode()),
    ("about.rdf", ('<?xml version="1.0"?>\n<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
                   f'<rdf:Description rdf:about="urn:a{HOSTILE.replace(chr(0), "")}"><rdf:value>x</rdf:value>'
                   "</rdf:Description></rdf:RDF>").encode()),
    ("iri.nq", f"<urn:a{HOSTILE}> <urn:p> <urn:o> .\n".encode()),
    ("empty-named.nq", b""),
]


@pytest.mark.parametrize("name,content", UNREADABLE, ids=[case[0] for case in UNREADABLE])
def test_parser_messages_reach_stderr_escaped(tmp_path, name, content):
    path = tmp_path / (HOSTILE_NAME.removesuffix(".json") + name)
    path.write_bytes(content)
    for fmt in ("github", "text"):
        result = tg_trace("lint", "--no-config", "--format", fmt, path.name, cwd=tmp_path)
        assert result.returncode == 2, result.stderr
        assert result.stdout == b""
        err = safe_text(result.stderr, name)
        (line,) = err.splitlines()
        assert line.startswith("tg-trace: ::error::evil\\x1b]0;t\\x07\\u202e\\n::warning::x\\xff"), line


def test_the_progress_bar_names_a_file_escaped():
    # The bar (on standard error, in a terminal) showed the name raw and read it as rich markup.
    bar = ("import sys\nfrom tgtrace.cli import ProgressBar\nbar = ProgressBar()\nbar.DELAY = 0\n"
           "bar.update(sys.argv[1], 5, 10)\nbar.close()\n")
    result = subprocess.run([sys.executable, "-c", bar, HOSTILE_NAME + "[bold]"], capture_output=True, timeout=60,
                            env={**os.environ, "FORCE_COLOR": "1", "TTY_INTERACTIVE": "1"})
    err = result.stderr.decode("utf-8")
    assert result.returncode == 0, err
    assert "::error::evil\\x1b]0;t\\x07\\u202e\\n::warning::x\\xff.json[bold]" in err
    assert "\x1b]0;t" not in err and "\u202e" not in err
