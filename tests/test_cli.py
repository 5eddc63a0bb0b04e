"""The lint command as a person meets it: output lines, exit codes, bad input, safety."""

import hashlib
import json
import re
import subprocess
import sys

import pytest
from conftest import EXAMPLES


def run(*args, stdin=None, cwd=None):
    return subprocess.run([sys.executable, "-m", "tgtrace.cli", *args], input=stdin, capture_output=True,
                          text=True, cwd=cwd)


def faulty_copy(tmp_path, name="orchestrator-react-multi-iteration.nq"):
    text = (EXAMPLES / name).read_text()
    lines = [ln for ln in text.splitlines() if not ("/final>" in ln and "ns/Answer>" in ln)]
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return path, lines


def test_text_lines_name_file_line_code_and_focus(tmp_path):
    path, lines = faulty_copy(tmp_path)
    result = run("lint", str(path), "--no-config")
    assert result.returncode == 1
    finding = [ln for ln in result.stdout.splitlines() if " M001 " in ln]
    assert len(finding) == 1
    match = re.fullmatch(r"\s*(\S+):(\d+): M001 error (.+) \((\S+)\)", finding[0])
    assert match, finding[0]
    file, line, _, focus = match.groups()
    assert file == str(path) and focus.endswith("/final")
    # The line is that of a triple of the focus node (the tg:Answer type is gone).
    assert f"<{focus}>" in lines[int(line) - 1]
    assert "1 error" in result.stdout.splitlines()[-1]


def test_fail_on_select_and_ignore():
    legacy = str(EXAMPLES / "legacy-react-one-shot.nq")
    assert run("lint", legacy, "--no-config").returncode == 0  # a warning only
    assert run("lint", legacy, "--fail-on", "warning", "--no-config").returncode == 1
    assert run("lint", legacy, "--fail-on", "warning", "--ignore", "T004", "--no-config").returncode == 0
    assert run("lint", legacy, "--fail-on", "warning", "--select", "chain,mixin", "--no-config").returncode == 0
    result = run("lint", legacy, "--select", "Q123", "--no-config")
    assert result.returncode == 2 and result.stderr.strip() == (
        "tg-trace: --select: unknown rule code 'Q123'; 'tg-trace rules' lists them")


def test_standard_input():
    data = (EXAMPLES / "graph-rag.json").read_text()
    result = run("lint", "-", "--format", "json", "--no-config", stdin=data)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["summary"]["traces"] == 1


@pytest.mark.parametrize("name,content,expected", [
    ("broken.nq", '<urn:a> <urn:b> <urn:c> <urn:g> .\n<urn:a> <urn:b> "unterminated\n', r"broken\.nq:2: "),
    ("broken.ttl", "@prefix tg: <https://trustgraph.ai/ns/> .\n\ntg:a tg:b .\n", r"broken\.ttl:3: "),
    ("broken.json", '[{"s": {"t": "i", "i": "urn:a"},\n  "p": {"t": "i", "i": "urn:b"},\n  "o": {"t": "x"}}]',
     r"broken\.json:1: item 1: unknown term type 'x'"),
    ("broken.jsonl", '{"message_type": "explain", "explain_triples": []}\n{not json\n', r"broken\.jsonl:2: invalid JSON"),
    ("empty-dir", None, r"empty-dir: directory holds no trace files"),
    ("missing.nq", False, r"missing\.nq: no such file or directory"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, name, content, expected):
    path = tmp_path / name
    if content is None:
        path.mkdir()
    elif content is not False:
        path.write_text(content)
    result = run("lint", str(path), "--no-config")
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert re.search(expected, result.stderr), result.stderr


@pytest.mark.parametrize("name,document", [
    ("remote.jsonld", '{"@context": "https://schema.org/", "@id": "urn:a", "name": "x"}'),
    ("remote.json", '{"@context": ["https://schema.org/", {"a": "urn:a"}], "@id": "urn:a", "name": "x"}'),
    ("imported.jsonld", '{"@context": {"@import": "https://schema.org/"}, "@id": "urn:a", "name": "x"}'),
])
def test_json_ld_never_fetches_a_remote_context(tmp_path, name, document):
    # The one line says why (nothing is fetched while parsing) and what to do, not the library's
    # "No LoadDocumentCallback has been set to load remote contexts".
    path = tmp_path / name
    path.write_text(document)
    for result in (run("lint", str(path), "--no-config"), run("diff", str(path), str(path))):
        assert result.returncode == 2
        (line,) = result.stderr.strip().splitlines()
        assert line.startswith(f"tg-trace: {path}: names a remote context"), line
        assert "fetches nothing while parsing" in line and "inline the context" in line, line
        assert "LoadDocumentCallback" not in line


def test_xml_entities_are_not_expanded(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET")
    path = tmp_path / "entity.rdf"
    path.write_text(f"""<?xml version="1.0"?>
<!DOCTYPE rdf:RDF [<!ENTITY leak SYSTEM "file://{secret}">]>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:tg="https://trustgraph.ai/ns/">
  <rdf:Description rdf:about="urn:q"><tg:query>&leak;</tg:query></rdf:Description>
</rdf:RDF>""")
    result = run("lint", str(path), "--format", "json", "--no-config")
    assert "TOP-SECRET" not in result.stdout + result.stderr


def test_inputs_are_never_modified(tmp_path):
    def fingerprint():
        return {p.name: (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns)
                for p in sorted(EXAMPLES.iterdir()) if p.is_file()}

    # The files fingerprinted, not the folders below (the reference engine is slow on all of them).
    traces = [str(p) for p in sorted(EXAMPLES.iterdir()) if p.suffix in (".nq", ".json", ".jsonl")]
    before = fingerprint()
    assert run("lint", *traces, "--no-config").returncode == 0
    assert run("lint", *traces, "--engine", "shacl", "--no-config").returncode == 0
    assert fingerprint() == before


def test_parallel_jobs_give_the_same_report(tmp_path):
    serial = json.loads(run("lint", str(EXAMPLES), "--format", "json", "--no-config").stdout)
    parallel = json.loads(run("lint", str(EXAMPLES), "-j", "2", "--format", "json", "--no-config").stdout)
    assert serial == parallel


def test_progress_bar_only_for_terminals_and_long_runs(monkeypatch):
    from tgtrace.cli import ProgressBar

    bar = ProgressBar()
    bar.update("a.nq", 10, 100)  # within the first second: nothing is shown
    assert bar._progress is None
    bar._started -= ProgressBar.DELAY
    bar.update("a.nq", 50, 100)
    assert bar._progress is not None and bar._progress.tasks[0].completed == 50
    bar.close()
    # Not a terminal (as under subprocess here): no bar characters on stderr.
    result = run("lint", str(EXAMPLES / "graph-rag.nq"), "--no-config")
    assert result.stderr == ""


def test_check_command():
    result = run("check")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "all checks passed" in result.stdout


def test_color_is_forced_or_off():
    legacy = str(EXAMPLES / "legacy-react-one-shot.nq")
    assert "\x1b[" in run("lint", legacy, "--color", "--no-config").stdout
    plain = run("lint", legacy, "--no-config").stdout  # not a terminal: no colour
    assert "\x1b[" not in plain and " T004 warning " in plain


def _reason_lines(lines):
    return [n for n, ln in enumerate(lines, start=1) if "/final> <https://trustgraph.ai/ns/terminationReason>" in ln]


@pytest.mark.parametrize("layout", ["as emitted", "comment and blank lines", "entity split", "last line unterminated",
                                    "standard input"])
def test_finding_names_the_line_of_its_triple(tmp_path, layout):
    # T001 names the triple holding the unknown reason; its line is found however the file is laid out.
    lines = (EXAMPLES / "orchestrator-react-multi-iteration.nq").read_text().splitlines()
    [at] = _reason_lines(lines)
    lines[at - 1] = re.sub(r'"[^"]*" <urn:graph', '"done" <urn:graph', lines[at - 1])
    if layout == "comment and blank lines":
        lines = ["# captured from a test deployment", ""] + lines
    elif layout == "entity split":
        # One of the entity's other triples comes first in the file, far from the rest.
        other = next(n for n, ln in enumerate(lines) if ln.startswith(lines[at - 1].split()[0]) and n != at - 1)
        lines.insert(0, lines.pop(other))
    elif layout == "last line unterminated":
        # The triple's run ends the file, and the file's last line has no newline.
        lines.append(lines.pop(at - 1))
    path = tmp_path / "trace.nq"
    path.write_text("\n".join(lines) + ("" if layout == "last line unterminated" else "\n"))
    if layout == "standard input":
        result = run("lint", "-", "--format", "json", "--no-config", stdin=path.read_text())
    else:
        result = run("lint", str(path), "--format", "json", "--no-config")
    [finding] = [f for f in json.loads(result.stdout)["findings"] if f["rule"] == "T001"]
    assert finding["line"] == _reason_lines(lines)[0]
    assert finding["value"] == "done"
