"""What the small commands tell a person: `rules` has the summary its help promises, `check` says
what it skipped, `-o` says where it wrote (one line on standard error), and `rule` reads as
rendered text on a terminal and plain Markdown in a pipe, its example the faulty trace a user
would recognise (the rule's fault recipe applied to its example trace, shown as Turtle)."""

from __future__ import annotations

import os
import pty
import re
import subprocess
import sys

import pyoxigraph as ox
import pytest
from click.testing import CliRunner
from conftest import EXAMPLES, ROOT
from tgtrace.cli import main
from tgtrace.rules import all_rules
from tgtrace.rules.help import explain_rule, fault_example


def cli(*args, cwd=None):
    with pytest.MonkeyPatch.context() as patch:
        if cwd is not None:
            patch.chdir(cwd)
        patch.delenv("GITHUB_ACTIONS", raising=False)
        return CliRunner().invoke(main, list(args))


def test_rules_lists_the_summary_its_help_promises():
    assert "summary" in cli("rules", "--help").output
    listed = cli("rules").output.splitlines()
    assert listed[0].split() == ["code", "severity", "family", "name", "summary"]
    for rule in all_rules().values():
        (line,) = [line for line in listed if line.startswith(f"{rule.code} ")]
        assert line.endswith(rule.title), line


def test_check_says_the_reasoner_was_skipped_and_where_it_wrote(tmp_path):
    result = cli("check", "--no-reasoner", "-o", str(tmp_path / "check.txt"))
    assert result.exit_code == 0, result.output
    assert (tmp_path / "check.txt").read_text().strip() == "ontology and shapes: all checks passed."
    assert not result.stdout
    assert result.stderr.splitlines() == [
        f"tg-trace: wrote the text report to {tmp_path / 'check.txt'}",
        "tg-trace: the reasoner was skipped (--no-reasoner): the ontology was not proved consistent",
    ]


@pytest.mark.parametrize("args, said", [
    (["lint", "--no-config", "trace.nq", "-o", "report.sarif", "--format", "sarif"],
     "wrote the sarif report to report.sarif"),
    (["lint", "--no-config", "trace.nq", "-o", "report.txt"], "wrote the text report to report.txt"),
    (["convert", "trace.nq", "--to", "trig", "-o", "trace.trig"], "wrote 69 triples as TriG to trace.trig"),
    (["graph", "trace.nq", "-o", "trace.dot", "--no-config"], "wrote the DOT drawing to trace.dot"),
    (["diff", "trace.nq", "trace.nq", "-o", "diff.txt"], "wrote the diff to diff.txt"),
])
def test_an_output_file_is_named_on_standard_error(tmp_path, args, said):
    (tmp_path / "trace.nq").write_bytes((EXAMPLES / "orchestrator-react-parse-error.nq").read_bytes())
    result = cli(*args, cwd=tmp_path)
    assert result.exit_code == 0, result.output
    assert not result.stdout
    assert result.stderr.splitlines() == [f"tg-trace: {said}"]
    assert (tmp_path / args[args.index("-o") + 1]).stat().st_size


def test_rule_is_plain_markdown_in_a_pipe_with_the_faulty_trace():
    text = subprocess.run([sys.executable, "-m", "tgtrace.cli", "rule", "T001"], capture_output=True, text=True,
                          check=True).stdout
    assert text == explain_rule(all_rules()["T001"])
    assert "```turtle\n" in text and "sparql" not in text.lower()
    assert 'tg:terminationReason "done" .  # <- the fault' in text


def test_rule_is_rendered_on_a_terminal():
    leader, follower = pty.openpty()
    environment = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "TERM")}
    process = subprocess.Popen([sys.executable, "-m", "tgtrace.cli", "rule", "T001"], stdout=follower,
                               stderr=subprocess.PIPE, env={**environment, "COLUMNS": "200", "TERM": "xterm"},
                               cwd=ROOT)
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 1 << 16)
        except OSError:  # the terminal closed: the command ended
            break
        if not chunk:
            break
        chunks.append(chunk)
    assert process.wait() == 0, process.stderr.read() if process.stderr else ""
    os.close(leader)
    shown = re.sub(r"\x1b\[[0-9;]*m", "", b"".join(chunks).decode())
    assert "T001 termination-unknown" in shown
    # Rendered: no Markdown syntax left, the faulty trace still shown.
    assert not re.search(r"^\s*(#{1,6} |```)", shown, re.M), shown
    assert "**" not in shown
    assert 'tg:terminationReason "done" .  # <- the fault' in shown


@pytest.mark.parametrize("rule", [r for r in all_rules().values() if r.faults], ids=lambda r: r.code)
def test_every_rule_example_is_the_faulty_trace_as_turtle(rule):
    text = explain_rule(rule)
    blocks = re.findall(r"^```turtle\n(.*?)^```", text, re.M | re.S)
    assert len(blocks) == len(rule.faults), "every fault is shown as the trace it breaks"
    for fault, block in zip(rule.faults, blocks):
        example = fault_example(fault, EXAMPLES)
        # The snippet is Turtle (its marks are comments) holding what the fault added and none of what
        # it removed, of the nodes it changed.
        shown = set(ox.parse(block.encode(), format=ox.RdfFormat.TURTLE))
        shown_triples = {(t.subject, t.predicate, t.object) for t in shown}
        assert {(q.subject, q.predicate, q.object) for q in example.added} <= shown_triples
        # A statement the fault writes in another named graph is the same triple, said in a comment.
        moved = {q.triple for q in example.added}
        assert not {(q.subject, q.predicate, q.object) for q in example.removed if q.triple not in moved} & shown_triples
        if any(q.triple in moved for q in example.removed):
            assert "of these statements (marked) in the" in block
        assert ("# <- the fault" in block) == bool(example.added)
        assert ("# the fault removed" in block) or example.added


def test_without_the_example_traces_a_rule_shows_its_recipe(monkeypatch):
    """A wheel carries the ontology and shapes, not the example traces: the example is then the
    fault's SPARQL Update, runnable on a checkout's copy."""
    from tgtrace.rules import help as rule_help

    monkeypatch.setattr(rule_help, "examples_dir", lambda: None)
    text = explain_rule(all_rules()["T001"])
    assert "```sparql\n" in text and all_rules()["T001"].fault.sparql.strip() in text and "```turtle" not in text
