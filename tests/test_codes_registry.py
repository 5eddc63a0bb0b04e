"""Every code a finding can carry is a rule of one registry: the shapes' rules, what `tg-trace check`
finds (K...) and what a run says of its input (I001). Each face treats them alike: `rule` and
`rules` explain and list them, --select and --ignore take them, SARIF and GitLab describe them from
the registry, and the docs give each its page."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys

import pytest
import tgtrace
from conftest import ROOT
from tgtrace.formats.sarif import to_sarif
from tgtrace.rules import all_rules, families, get_rule

TGX = ROOT / "tests" / "data" / "trustgraph-formats" / "graph-rag.tgx"


def tg_trace(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tgtrace.cli", *args], capture_output=True, text=True, timeout=300)


def test_check_codes_and_input_notices_are_rules_of_the_registry():
    rules = all_rules()
    assert {"K001", "K010", "K030", "I001"} <= set(rules)
    assert {rules["K030"].family, rules["I001"].family} <= set(families())
    assert get_rule("k030").severity == tgtrace.Severity.WARNING


@pytest.mark.parametrize("code", ["I001", "K030", "K012"])
def test_rule_explains_every_code(code):
    result = tg_trace("rule", code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"# {code} {all_rules()[code].name}")


def test_rules_lists_every_code():
    listed = tg_trace("rules").stdout
    assert "I001" in listed and "K030" in listed and "M010" in listed


def test_an_input_notice_is_ignored_like_any_rule():
    noticed = tgtrace.lint(TGX, fail_on="never")
    assert any(f.rule == "I001" for f in noticed)
    ignored = tgtrace.lint(TGX, fail_on="never", ignore=["I001"])
    assert not any(f.rule == "I001" for f in ignored)
    by_family = tgtrace.lint(TGX, fail_on="never", ignore=["input"])
    assert not any(f.rule == "I001" for f in by_family)
    result = tg_trace("lint", "--ignore", "I001", "--format", "json", str(TGX))
    assert result.returncode in (0, 1), result.stderr
    assert not any(f["rule"] == "I001" for f in json.loads(result.stdout)["findings"])


def test_sarif_describes_an_input_notice_and_a_check_from_the_registry():
    report = tgtrace.lint(TGX, fail_on="never")
    log = to_sarif(report)
    descriptors = {d["id"]: d for d in log["runs"][0]["tool"]["driver"]["rules"]}
    for code in ("I001", "K030"):
        assert descriptors[code]["name"] == all_rules()[code].name
        assert descriptors[code]["helpUri"].endswith(f"/rules/{code}/")
        assert descriptors[code]["fullDescription"]["text"]


def test_a_severity_override_applies_to_a_check_code(tmp_path):
    config = tmp_path / "tg-trace.toml"
    config.write_text('[severity]\nK030 = "error"\n')
    result = tg_trace("check", "--no-reasoner", "--config", str(config), "--format", "json")
    findings = json.loads(result.stdout)["findings"] if result.stdout.strip() else []
    assert all(f["severity"] == "error" for f in findings if f["rule"] == "K030")


_CODE = re.compile(r"[A-Z][0-9]{3}")


def _literal_codes() -> dict[str, set[str]]:
    """Every string literal of the package that is a code (``"K012"``, ``"S023"``) -> where it is."""
    found: dict[str, set[str]] = {}
    for path in sorted((ROOT / "validators" / "tgtrace").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and _CODE.fullmatch(node.value):
                found.setdefault(node.value, set()).add(f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


def test_every_code_the_package_writes_is_in_the_registry():
    """A code in the code (a check's K-code, a run's notice, the code a run raises) that the registry
    lacks would reach a report with no page, no description and no way to select it."""
    literal = _literal_codes()
    assert {"K012", "K019", "I001", "S023"} <= set(literal)  # the scan sees the codes it is about
    unknown = {code: sorted(where) for code, where in literal.items() if code not in all_rules()}
    assert not unknown, unknown
