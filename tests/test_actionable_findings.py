"""A finding a person can act on without opening the docs: real example traces broken by hand in
each family, linted through the command line; the text output shows the value quoted, the
accepted values (or the nearest one), the source line with the term at fault marked, the fix and
the rule's page. The concise format keeps one line per finding."""

from __future__ import annotations

import json
import re
import shutil

import pytest
from formats_support import EXAMPLES, REACT, cli, drop_type
from tgtrace.ground.namespaces import PROV, TG
from tgtrace.rules import DOCS_BASE, all_rules

TERMINATIONS = '"final-answer", "plan-complete", "subagents-complete", "max-iterations", "error"'


def _replace_once(path, old: str, new: str) -> None:
    text = path.read_text()
    assert text.count(old) >= 1, f"{old!r} not in {path.name}"
    path.write_text(text.replace(old, new, 1))


def _retype_step_number(path) -> None:
    """The first tg:stepNumber written as a word."""
    text = path.read_text()
    new, count = re.subn(rf'(<{TG}stepNumber> )"[0-9]+"', r'\1"one"', text, count=1)
    assert count == 1
    path.write_text(new)


def _dangle_link(path) -> None:
    """The first prov:wasDerivedFrom that points at an observation now points at one that is not there."""
    text = path.read_text()
    new, count = re.subn(rf'(<{PROV}wasDerivedFrom> <[^>]*/observation)>', r'\1-lost>', text, count=1)
    assert count == 1
    path.write_text(new)


# (family, code, how the trace is broken, the value as shown, the token marked on the source line,
#  what the finding offers instead: the accepted values or the nearest one)
CASES = [
    ("termination", "T001", lambda p: _replace_once(p, '"final-answer"', '"final-answr"'),
     '"final-answr"', '"final-answr"', [f"expected one of {TERMINATIONS}", 'did you mean "final-answer"?']),
    ("structure", "S012", lambda p: _replace_once(p, f'<{TG}pattern> "react"', f'<{TG}pattern> "loop"'),
     None, '"loop"', ['found "loop"; expected one of "react", "plan-then-execute", "supervisor"']),
    ("datatype", "D001", _retype_step_number, '"one"', '"one"', []),
    ("vocabulary", "V002", lambda p: _replace_once(p, f"<{TG}terminationReason>", f"<{TG}terminationReasn>"),
     "tg:terminationReasn", f"<{TG}terminationReasn>", ["did you mean tg:terminationReason?"]),
    ("chain", "C002", _dangle_link, "/observation-lost>", "/observation-lost>", []),
    ("mixin", "M001", lambda p: drop_type(p, "/final", "Answer"), None, "/final>", []),
]


@pytest.fixture
def broken(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)

    def make(breaks, suffix=".nq"):
        path = tmp_path / f"broken{suffix}"
        shutil.copy(EXAMPLES / f"{REACT}{suffix}", path)
        breaks(path)
        return path
    return make


def _finding_block(out: str, code: str) -> list[str]:
    """The lines of the first finding of ``code``: its line and the lines under it."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if re.search(rf":\d+: {code} ", line))
    block = [lines[start]]
    for line in lines[start + 1:]:
        if not line.startswith("    "):
            break
        block.append(line)
    return block


def _marked(block: list[str]) -> str:
    """The text the ^ marker stands under, on the source line above it."""
    marker = next(i for i, line in enumerate(block) if re.fullmatch(r"\s+\d*\s*\|\s+\^+", line))
    source, carets = block[marker - 1], block[marker]
    start = carets.index("^")
    return source[start:start + carets.count("^")]


@pytest.mark.parametrize("family, code, breaks, value, token, offered", CASES, ids=[c[1] for c in CASES])
def test_a_finding_says_what_is_wrong_where_and_how_to_fix_it(broken, family, code, breaks, value, token, offered):
    path = broken(breaks)
    assert all_rules()[code].family == family
    exit_code, out, _ = cli("lint", "--no-config", "--select", code, path.name)
    assert exit_code == 1
    block = _finding_block(out, code)
    head = block[0]
    if value is not None:
        assert value in head, head
    line = int(re.search(rf"broken\.nq:(\d+): {code}", head).group(1))
    source = path.read_text().splitlines()[line - 1]
    # The source line, numbered, then the marker under the term at fault.
    numbered = next(b for b in block if re.match(rf"\s+{line} \| ", b))
    assert numbered.split(" | ", 1)[1].strip("…") in source
    marked = _marked(block)
    assert token in marked or marked in token, (marked, token)
    for text in offered:
        assert any(text in b for b in block), (text, block)
    help_line = next(b for b in block if "= help: " in b)
    rule = all_rules()[code]
    assert " ".join(rule.fix.split()) in help_line
    assert help_line.endswith(f"{DOCS_BASE}rules/{code}/")


def test_wire_json_broken_by_hand_marks_the_json_string(broken):
    path = broken(lambda p: _replace_once(p, '"final-answer"', '"done"'), ".json")
    # Pretty-printed, as a person may save it: a triple over several lines.
    path.write_text(json.dumps(json.loads(path.read_text()), indent=2))
    exit_code, out, _ = cli("lint", "--no-config", "--select", "T001", path.name)
    assert exit_code == 1
    block = _finding_block(out, "T001")
    assert '"done" is not a known termination reason' in block[0]
    assert _marked(block) == '"done"'
    assert any(f"expected one of {TERMINATIONS}" in b for b in block)
    # The line the triple opens on, then the lines up to the one with the value.
    first = int(re.search(r"broken\.json:(\d+): T001", block[0]).group(1))
    numbered = [(int(m.group(1)), m.group(2)) for b in block if (m := re.match(r"\s+(\d+) \| (.*)", b))]
    assert numbered[0] == (first, "  {")
    lines = path.read_text().splitlines()
    assert all(lines[number - 1] == text for number, text in numbered)
    assert numbered[-1][1].strip() == '"v": "done"'


def test_concise_is_one_line_per_finding(broken):
    path = broken(lambda p: _replace_once(p, '"final-answer"', '"done"'))
    exit_code, out, _ = cli("lint", "--no-config", "--select", "T001", "--format", "concise", path.name)
    assert exit_code == 1
    lines = out.splitlines()
    assert len(lines) == 3  # the trace, its finding, the summary
    assert re.fullmatch(r'  broken\.nq:\d+: T001 error "done" is not a known termination reason \(.*/final\)',
                        lines[1])


def test_a_long_value_is_shortened_and_control_characters_escaped(broken):
    long = "x" * 200 + "\\u001b[31m"
    path = broken(lambda p: _replace_once(p, '"final-answer"', f'"{long}"'))
    _, out, _ = cli("lint", "--no-config", "--select", "T001", path.name)
    head = _finding_block(out, "T001")[0]
    assert "…" in head and "x" * 100 not in head
    assert "\x1b" not in out and "\\x1b" in out


def test_the_other_formats_carry_the_same_advice(broken, tmp_path):
    """SARIF, JUnit and GitLab Code Quality show what the text format shows, where they have room."""
    from formats_support import sarif_validator
    from junitparser import JUnitXml

    path = broken(lambda p: _replace_once(p, '"final-answer"', '"final-answr"'))
    line = next(n for n, text in enumerate(path.read_text().splitlines(), 1) if '"final-answr"' in text)
    column = path.read_text().splitlines()[line - 1].index('"final-answr"') + 1
    url = f"{DOCS_BASE}rules/T001/"

    _, out, _ = cli("lint", "--no-config", "--select", "T001", "--format", "sarif", path.name)
    log = json.loads(out)
    assert not list(sarif_validator().iter_errors(log))
    result = log["runs"][0]["results"][0]
    text = result["message"]["text"]
    assert '"final-answr" is not a known termination reason' in text
    assert f"Expected one of {TERMINATIONS}." in text and 'Did you mean "final-answer"?' in text
    assert text.endswith(f"See {url}")
    region = result["locations"][0]["physicalLocation"]["region"]
    assert region["startLine"] == line and region["startColumn"] == column
    assert region["endColumn"] == column + len('"final-answr"')
    assert '"final-answr"' in region["snippet"]["text"]
    descriptor = log["runs"][0]["tool"]["driver"]["rules"][result["ruleIndex"]]
    assert descriptor["helpUri"] == url and url in descriptor["help"]["text"]
    assert "'final-answer'" in descriptor["help"]["text"]

    _, out, _ = cli("lint", "--no-config", "--select", "T001", "--format", "junit", path.name)
    (tmp_path / "junit.xml").write_text(out)
    suites = JUnitXml.fromfile(str(tmp_path / "junit.xml"))
    failure = next(result for suite in suites for case in suite for result in case.result)
    assert '"final-answr" is not a known termination reason' in failure.text
    assert f"{line} | " in failure.text and "^" * len('"final-answr"') in failure.text
    assert 'did you mean "final-answer"?' in failure.text and url in failure.text

    _, out, _ = cli("lint", "--no-config", "--select", "T001", "--format", "gitlab", path.name)
    issue = json.loads(out)[0]
    assert '"final-answr" is not a known termination reason' in issue["description"]
    body = issue["content"]["body"]
    assert f"expected one of {TERMINATIONS}" in body and f"({url})" in body


def test_a_binary_input_has_no_excerpt():
    """A knowledge core (msgpack) numbers its records, not text lines: its findings carry the
    help line but no source excerpt."""
    core = EXAMPLES.parent / "tests" / "data" / "trustgraph-formats" / "legacy-react-one-shot.msgpack"
    exit_code, out, _ = cli("lint", "--no-config", "--select", "T004", "--fail-on", "never", str(core))
    assert exit_code == 0
    block = _finding_block(out, "T004")
    assert not any(" | " in line for line in block)
    assert block[-1].endswith(f"{DOCS_BASE}rules/T004/")


# Formats that by design show less of a finding: concise is the first line of text's (flake8's
# form: the code names the rule); markdown is a run's summary, a row per rule linked to its page.
_LESS = {"concise": slice(0), "markdown": slice(-1, None)}


def _human_text(name: str, out: str) -> str:
    """Every piece of text a format's output shows a person, decoded from its syntax, in lower case."""
    from html import unescape

    import rdflib
    from tgtrace.formats import FORMATS

    syntax = FORMATS[name].syntax
    if syntax == "json":
        strings: list[str] = []

        def walk(value) -> None:
            if isinstance(value, str):
                strings.append(value)
            elif isinstance(value, dict):
                for item in value.values():
                    walk(item)
            elif isinstance(value, list):
                for item in value:
                    walk(item)
        walk(json.loads(out))
        return "\n".join(strings).lower()
    if syntax == "turtle":
        graph = rdflib.Graph().parse(data=out, format="turtle")
        return "\n".join(str(o) for o in graph.objects()).lower()
    return unescape(out).lower()


@pytest.mark.parametrize("name", sorted(__import__("tgtrace.formats", fromlist=["FORMATS"]).FORMATS))
def test_every_report_format_carries_the_advice_text_carries(broken, name):
    """What the text format prints under a finding (the accepted values, the nearest one, the fix
    and the rule's page) is in every format's output, decoded from the format's own syntax."""
    path = broken(lambda p: _replace_once(p, '"final-answer"', '"final-answr"'))
    rule = all_rules()["T001"]
    _, text_out, _ = cli("lint", "--no-config", "--select", "T001", path.name)
    block = "\n".join(_finding_block(text_out, "T001"))
    advice = [f"expected one of {TERMINATIONS}", 'did you mean "final-answer"?', " ".join(rule.fix.split()),
              f"{DOCS_BASE}rules/T001/"]
    assert all(part in block for part in advice), block
    exit_code, out, _ = cli("lint", "--no-config", "--select", "T001", "--format", name, path.name)
    assert exit_code == 1
    shown = _human_text(name, out)
    expected = advice[_LESS.get(name, slice(None))]
    for part in expected:
        assert part.lower() in shown, (name, part)


AGENT = "urn:trustgraph:agent:33a7dbc8-ce5b-58b6-91c6-ff32961e9c7d"


def _drop_derivation(node: str):
    """Breaks a trace by removing ``node``'s prov:wasDerivedFrom: the rest of the trace stays."""
    def breaks(path) -> None:
        lines = path.read_text().splitlines(keepends=True)
        kept = [line for line in lines if not line.startswith(f"<{node}> <{PROV}wasDerivedFrom> ")]
        assert len(kept) == len(lines) - 1
        path.write_text("".join(kept))
    return breaks


def _notes(block: list[str]) -> list[str]:
    return [line.split("= note: ", 1)[1] for line in block if "= note: " in line]


def test_an_answer_no_link_reaches_is_named_with_the_link_it_lacks(broken):
    """The Conclusion is in the capture but lost its derivation: S004 says so rather than asking
    for a Conclusion, and C001 names what a Conclusion derives from and the step that is there."""
    path = broken(_drop_derivation(f"{AGENT}/final"))
    exit_code, out, _ = cli("lint", "--no-config", path.name)
    assert exit_code == 1
    s004 = _notes(_finding_block(out, "S004"))
    assert re.fullmatch(r"<urn:trustgraph:agent:\S+/final> \(tg:Conclusion\) is this trace's answer, but no link "
                        r"reaches it: it has no prov:wasDerivedFrom", s004[0]), s004
    expected = ["a Conclusion derives from the last Observation (or, with no iterations, the PatternDecision or "
                "the agent's Question) (C019)"]
    assert s004[1:2] == expected
    assert re.fullmatch(r"here that is <\S+/i3/observation> \(tg:Observation\), the step of this trace that "
                        "nothing follows", s004[2]), s004
    c001 = _notes(_finding_block(out, "C001"))
    assert c001 == s004[1:]


def test_a_chain_broken_above_the_answer_names_where_it_stops(broken):
    path = broken(_drop_derivation(f"{AGENT}/i3"))
    _, out, _ = cli("lint", "--no-config", "--format", "json", path.name)
    findings = json.loads(out)["findings"]
    s004 = next(f for f in findings if f["rule"] == "S004")["advice"]["notes"]
    assert s004[0].endswith(f"its chain stops at <{AGENT}/i3> (tg:Analysis), which has no prov:wasDerivedFrom")
    assert s004[1] == ("an Analysis derives from the PatternDecision, the agent's Question or the previous "
                       "Observation (C016)")
    assert re.search(r"<\S+/i2/observation> \(tg:Observation\)", s004[2])
    c001 = next(f for f in findings if f["rule"] == "C001")
    assert c001["focus"] == f"{AGENT}/i3" and c001["advice"]["notes"] == s004[1:]


def test_a_trace_without_an_answer_gets_no_note_of_one(broken):
    """The notes are read from the capture: with no Conclusion at all, S004 names none."""
    def drop_final(path) -> None:
        path.write_text("".join(line for line in path.read_text().splitlines(keepends=True)
                                if not line.startswith(f"<{AGENT}/final> ")))
    path = broken(drop_final)
    _, out, _ = cli("lint", "--no-config", path.name)
    block = _finding_block(out, "S004")
    assert _notes(block) == [] and "emit a Conclusion" in block[-1]


def test_a_deprecated_term_gets_the_ontologys_replacement(broken):
    """V003 on tg:content: the ontology says dcterms:isReplacedBy tg:document; the nearest spelling
    (tg:concept) is another term altogether."""
    path = broken(lambda p: _replace_once(p, f"<{TG}document>", f"<{TG}content>"))
    _, out, _ = cli("lint", "--no-config", "--select", "V003", path.name)
    block = _finding_block(out, "V003")
    assert _notes(block) == ["the ontology replaces it with tg:document (dcterms:isReplacedBy)"]
    assert "tg:concept" not in out and "did you mean" not in out
    _, out, _ = cli("lint", "--no-config", "--select", "V003", "--format", "json", path.name)
    advice = json.loads(out)["findings"][0]["advice"]
    assert advice["replacement"] == "tg:document" and advice["suggestion"] is None


def test_sarif_runs_its_sentences_together_without_stray_stops(broken):
    path = broken(lambda p: _replace_once(p, '"final-answer"', '"final-answr"'))
    _, out, _ = cli("lint", "--no-config", "--select", "T001", "--format", "sarif", path.name)
    text = json.loads(out)["runs"][0]["results"][0]["message"]["text"]
    assert 'Did you mean "final-answer"? ' in text and "?." not in text and ".." not in text.replace("…", "")
