"""A finding about no one line (the notice that a lossy input cannot be fully judged) is placed at
its file alone, FILE and not FILE:0, in every output format: the exit contract's FILE[:LINE]."""

from __future__ import annotations

import json
import re
import shutil

import pytest
import tgtrace
from formats_support import ROOT, cli
from tgtrace.formats import FORMATS

# A workspace export: TrustGraph's tg-export-workspace loses datatypes and blank nodes, so
# reading it yields the I001 notice, which belongs to the whole file.
LOSSY = ROOT / "tests" / "data" / "trustgraph-formats" / "graph-rag.tgx"


@pytest.fixture
def lossy(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    shutil.copy(LOSSY, tmp_path / "export.tgx")
    return "export.tgx"


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_no_format_places_a_notice_at_line_0(lossy, fmt):
    code, out, err = cli("lint", "--fail-on", "never", "--show", "info", "--format", fmt, lossy)
    assert code == 0, err
    assert "I001" in out
    assert not re.search(r"export\.tgx:0\b", out)
    assert '"startLine": 0' not in out and "line=0" not in out and '"begin": 0' not in out


@pytest.mark.parametrize("fmt", ["text", "concise"])
def test_the_text_formats_name_the_file_alone(lossy, fmt):
    _, out, _ = cli("lint", "--fail-on", "never", "--show", "info", "--format", fmt, lossy)
    notice = next(line for line in out.splitlines() if "I001" in line)
    assert notice.strip().startswith("export.tgx: I001 info ")


def test_sarif_gives_a_notice_no_region(lossy):
    _, out, _ = cli("lint", "--fail-on", "never", "--format", "sarif", lossy)
    (notice,) = [r for r in json.loads(out)["runs"][0]["results"] if r["ruleId"] == "I001"]
    physical = notice["locations"][0]["physicalLocation"]
    assert physical["artifactLocation"]["uri"] == "export.tgx"
    assert "region" not in physical


def test_github_annotates_the_file_without_a_line(lossy):
    _, out, _ = cli("lint", "--fail-on", "never", "--format", "github", lossy)
    (notice,) = [line for line in out.splitlines() if "title=I001" in line]
    assert notice.startswith("::notice file=export.tgx,title=I001::")


def test_gitlab_places_a_notice_on_the_first_line(lossy):
    """GitLab's Code Quality report requires location.lines.begin; a file-wide issue is given line 1."""
    _, out, _ = cli("lint", "--fail-on", "never", "--format", "gitlab", lossy)
    (notice,) = [issue for issue in json.loads(out) if issue["check_name"] == "I001"]
    assert notice["location"] == {"path": "export.tgx", "lines": {"begin": 1}}


def test_html_shows_the_file_alone(lossy):
    _, out, _ = cli("lint", "--fail-on", "never", "--format", "html", lossy)
    assert "<td>export.tgx</td>" in out


def test_a_finding_printed_from_python_names_the_file_alone(lossy):
    (notice,) = [f for f in tgtrace.lint(lossy, fail_on="never").findings if f.rule == "I001"]
    assert notice.line is None
    assert str(notice).startswith("export.tgx: I001 info ")
