"""tg-trace list and show as a person meets them, on the real examples."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner
from conftest import EXAMPLES
from tgtrace.cli import main

# Example -> (pattern, termination, answered) of its one top-level trace.
EXPECTED = {
    "graph-rag": ("graphrag", None, True),
    "document-rag": ("docrag", None, True),
    "document-rag-reranked": ("docrag", None, True),
    "orchestrator-react-one-shot": ("react", "final-answer", True),
    "orchestrator-react-multi-iteration": ("react", "final-answer", True),
    "orchestrator-react-no-pattern-decision": ("react", "final-answer", True),
    "orchestrator-react-tool-error": ("react", "final-answer", True),
    "orchestrator-react-parse-error": ("react", "final-answer", True),
    "orchestrator-react-max-iterations": ("react", None, False),
    "orchestrator-react-graphrag-tool": ("react", "final-answer", True),
    "legacy-react-one-shot": ("react", None, True),
    "legacy-react-multi-iteration": ("react", None, True),
    "plan-then-execute": ("plan-then-execute", "plan-complete", True),
    "supervisor": ("supervisor", "subagents-complete", True),
    "extraction": ("extraction", None, None),
}
QUERY = re.compile(r'^<([^>]+)> <https://trustgraph.ai/ns/query> "((?:[^"\\]|\\.)*)"', re.M)


def invoke(*args):
    return CliRunner().invoke(main, [*args, "--no-config"])


def rows(*paths, extra=()):
    result = invoke("list", *map(str, paths), "--format", "json", *extra)
    assert result.exit_code in (0, 1), result.output + result.stderr
    return json.loads(result.stdout)


def faulty_copy(tmp_path, name="orchestrator-react-multi-iteration.nq"):
    """The example with the tg:Answer mixin of its Conclusion dropped: M001 on /final."""
    text = (EXAMPLES / name).read_text()
    lines = [ln for ln in text.splitlines() if not ("/final>" in ln and "ns/Answer>" in ln)]
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return path


def test_list_gives_one_row_per_top_level_trace_with_its_facts():
    found = rows(*sorted(EXAMPLES.glob("*.nq")))
    assert len(found) == len(EXPECTED)
    by_file = {row["file"].rsplit("/", 1)[-1].removesuffix(".nq"): row for row in found}
    assert set(by_file) == set(EXPECTED)
    for name, (pattern, termination, answered) in EXPECTED.items():
        row = by_file[name]
        assert (row["pattern"], row["termination"], row["answered"]) == (pattern, termination, answered), name
        text = (EXAMPLES / f"{name}.nq").read_text()
        queries = dict(QUERY.findall(text))
        if pattern == "extraction":
            assert row["question"] is None and row["trace"].startswith("https://trustgraph.ai/doc/")
        else:
            # The question is the root's own tg:query, whole IRI in JSON.
            assert json.loads(f'"{queries[row["trace"]]}"') == row["question"], name
            assert row["started"] and row["trace_model"]
        assert row["steps"] > 0
        assert set(row["findings"]) == {"error", "warning", "info"}


def test_sub_agents_and_tool_sub_traces_are_nested_not_listed():
    (row,) = rows(EXAMPLES / "supervisor.nq")
    subs = row["subtraces"]
    assert sorted(s["pattern"] for s in subs) == ["graphrag", "react", "react"]
    assert all(s["parent_step"].endswith("/decompose") for s in subs if s["pattern"] == "react")
    (graphrag,) = [s for s in subs if s["pattern"] == "graphrag"]
    assert graphrag["parent_step"].endswith("/i1")
    # Tokens and time of the sub-agents count in the supervisor's row.
    assert row["tokens_in"] > 5000 and row["llm_ms"] > 4000 and row["models"] == ["gpt-4o-mini"]
    (tool,) = rows(EXAMPLES / "orchestrator-react-graphrag-tool.nq")
    assert [s["pattern"] for s in tool["subtraces"]] == ["graphrag"]


def test_an_explain_stream_lists_each_session():
    found = rows(EXAMPLES / "explain-stream.jsonl")
    assert sorted(r["pattern"] for r in found) == ["graphrag", "react"]


def test_filters_and_sorting():
    paths = sorted(EXAMPLES.glob("*.nq"))
    assert {r["pattern"] for r in rows(*paths, extra=("--pattern", "graphrag"))} == {"graphrag"}
    flagged = rows(*paths, extra=("--has-findings",))
    assert flagged and all(sum(r["findings"].values()) for r in flagged)
    late = rows(*paths, extra=("--since", "2026-08-05T09:50"))
    assert late and all(r["started"] >= "2026-08-05T09:50" for r in late)
    by_steps = rows(*paths, extra=("--sort", "steps", "--reverse"))
    assert [r["steps"] for r in by_steps] == sorted((r["steps"] for r in by_steps), reverse=True)
    bad = invoke("list", str(paths[0]), "--since", "last tuesday")
    assert bad.exit_code == 2 and len(bad.stderr.splitlines()) == 1 and "--since" in bad.stderr


def test_list_text_is_a_table_and_exit_status_follows_findings(tmp_path):
    result = invoke("list", str(EXAMPLES / "graph-rag.nq"), str(EXAMPLES / "supervisor.nq"))
    assert result.exit_code == 0
    assert "pattern" in result.stdout.splitlines()[0]
    assert "supervisor" in result.stdout and "agent:c5d169e8" in result.stdout
    assert "2 files, 2 traces." in result.stdout
    faulty = invoke("list", str(faulty_copy(tmp_path)))
    assert faulty.exit_code == 1 and "1E" in faulty.stdout


def test_show_nests_sub_agents_under_the_step_that_started_them():
    result = invoke("show", str(EXAMPLES / "supervisor.nq"), "--format", "json")
    assert result.exit_code == 0
    (tree,) = json.loads(result.stdout)
    decompose = next(s for s in tree["steps"] if s["kind"] == "Decomposition")
    agents = decompose["subtraces"]
    assert sorted(a["question"] for a in agents) == sorted(decompose["details"]["subagentGoal"])
    knowledge = next(a for a in agents if any(s.get("action") == "knowledge-query" for s in a["steps"]))
    analysis = next(s for s in knowledge["steps"] if s.get("action") == "knowledge-query")
    (graphrag,) = analysis["subtraces"]
    assert graphrag["pattern"] == "graphrag"
    focus = next(s for s in graphrag["steps"] if s["kind"] == "Focus")
    assert len(focus["edges"]) == 3 and all(e["score"] for e in focus["edges"])
    # The Observation that took the tool's answer belongs to the sub-agent, not to GraphRAG.
    assert [s["kind"] for s in knowledge["steps"]][-2:] == ["Observation", "Conclusion"]
    assert analysis["arguments"] == {"question": "Find the elements Marie Curie discovered"}
    # The supervisor's own chain goes on after its sub-agents.
    assert [s["kind"] for s in tree["steps"]][-3:] == ["Finding", "Finding", "Synthesis"]

    text = invoke("show", str(EXAMPLES / "supervisor.nq")).stdout
    lines = text.splitlines()
    depth = {name: next(len(ln) - len(ln.lstrip("│├└─ ")) for ln in lines if name in ln)
             for name in ("Decomposition", "[react] Find the elements", "[graphrag]")}
    assert depth["Decomposition"] < depth["[react] Find the elements"] < depth["[graphrag]"]


def test_show_puts_a_finding_on_the_faulty_step(tmp_path):
    path = faulty_copy(tmp_path)
    result = invoke("show", str(path), "--format", "json")
    assert result.exit_code == 1
    (tree,) = json.loads(result.stdout)
    flagged = [s for s in tree["steps"] if s["findings"]]
    assert [s["node"].rsplit("/", 1)[-1] for s in flagged] == ["final"]
    assert flagged[0]["findings"][0]["rule"] == "M001"
    lines = invoke("show", str(path)).stdout.splitlines()
    at = next(i for i, ln in enumerate(lines) if "M001 error" in ln)
    indent = lambda ln: len(ln) - len(ln.lstrip("│├└─ "))  # noqa: E731
    # The finding hangs from the nearest line above it that is less indented: its step.
    owner = next(ln for ln in reversed(lines[:at]) if indent(ln) < indent(lines[at]))
    assert "Conclusion" in owner and owner.rstrip().endswith("/final")


def test_show_shows_tool_errors_thoughts_and_librarian_content():
    text = invoke("show", str(EXAMPLES / "orchestrator-react-tool-error.nq")).stdout
    assert "tool error: MCP tool nobel-registry failed: connection refused" in text
    assert "in the librarian (tg:document)" in text
    # TrustGraph up to 2.1.16 wrote thoughts and observations inline, chained with prov:wasGeneratedBy.
    old = invoke("show", str(EXAMPLES / "releases" / "2.1.16" / "react.nq"), "--format", "json")
    (tree,) = json.loads(old.stdout)
    assert tree["answered"] is True and tree["trace_model"] == "2.1.x to 2.1.16"
    analyses = [s for s in tree["steps"] if s["kind"] == "Analysis"]
    assert analyses and all(s["thought"] and s["observation"] for s in analyses)
    assert tree["steps"][-1]["answer"]


def test_show_picks_a_trace_by_prefix_or_uuid_and_refuses_an_unknown_one():
    stream = str(EXAMPLES / "explain-stream.jsonl")
    both = json.loads(invoke("show", stream, "--format", "json").stdout)
    assert len(both) == 2
    for tree in both:
        uuid = re.search(r"[0-9a-f]{8}-[0-9a-f-]{27}", tree["trace"]).group(0)
        for key in (tree["trace"], uuid, uuid[:8]):
            (one,) = json.loads(invoke("show", stream, "--trace", key, "--format", "json").stdout)
            assert one["trace"] == tree["trace"]
    missing = invoke("show", stream, "--trace", "nothing-like-it")
    assert missing.exit_code == 2 and missing.stdout == ""
    (line,) = missing.stderr.splitlines()
    assert line.startswith("tg-trace: ") and "no trace matches" in line


@pytest.mark.parametrize("command", ["list", "show"])
def test_unreadable_input_is_one_line_exit_2(tmp_path, command):
    bad = tmp_path / "bad.nq"
    bad.write_text("<a> <b> .\n")
    result = invoke(command, str(bad))
    assert result.exit_code == 2
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"tg-trace: {bad}")


@pytest.mark.parametrize("columns", [80, 120])
def test_list_fits_the_terminal_width(columns):
    """The table honours $COLUMNS: columns that give way drop out, the question is cut with an
    ellipsis, no line is wider than the terminal."""
    paths = [str(EXAMPLES / name) for name in ("graph-rag.nq", "supervisor.nq", "releases/2.1.16")]
    result = CliRunner().invoke(main, ["list", "--no-config", *paths], env={"COLUMNS": str(columns)})
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert all(len(line) <= columns for line in lines), max(lines, key=len)
    header = lines[0].split()
    assert header[0] == "trace" and "question" in header and header[-1] == "findings"
    assert any("…" in line for line in lines[1:])  # a question too long for its column
    assert "supervisor" in result.stdout and "agent:c5d169e8" in result.stdout


def test_list_drops_empty_columns_and_names_the_file_of_a_repeated_trace():
    # The same extraction trace, as wire JSON and as N-Quads: no timings, tokens or models.
    paths = [str(EXAMPLES / "extraction.json"), str(EXAMPLES / "extraction.nq")]
    result = CliRunner().invoke(main, ["list", "--no-config", *paths], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    header, *rows = result.stdout.splitlines()[:3]
    assert header.split() == ["trace", "file", "pattern", "question", "steps", "findings"]
    assert "extraction.json" in rows[0] and "extraction.nq" in rows[1]
    assert rows[0].split()[0] == rows[1].split()[0]  # one trace id, two files
    # One file per trace: no file column.
    single = CliRunner().invoke(main, ["list", "--no-config", str(EXAMPLES / "graph-rag.nq")], env={"COLUMNS": "200"})
    assert "file" not in single.stdout.splitlines()[0].split()


def test_show_counts_its_findings_in_words(tmp_path):
    """show's last line counts the findings as the lint summary does: "2 errors", "1 warning"."""
    path = faulty_copy(tmp_path)
    text = path.read_text()
    assert '"final-answer"' in text
    path.write_text(text.replace('"final-answer"', '"final-answr"', 1))  # a second error, T001
    assert invoke("show", str(path)).stdout.splitlines()[-1].endswith("findings: 2 errors.")
    legacy = invoke("show", str(EXAMPLES / "legacy-react-one-shot.nq")).stdout
    assert legacy.splitlines()[-1].endswith("findings: 1 warning.")
