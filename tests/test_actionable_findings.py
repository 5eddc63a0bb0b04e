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
from tgtrace.namespaces import PROV, TG
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
