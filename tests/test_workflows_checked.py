"""The workflows, the action and the CI templates, checked here since GitHub is not
reachable: against the schemas check-jsonschema ships (no download), and audited by
zizmor without its online audits."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

BIN = Path(sys.executable).parent
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
# File -> the built-in schema it must validate against.
SCHEMAS = {
    **{path: "vendor.github-workflows" for path in WORKFLOWS},
    ROOT / "action.yml": "vendor.github-actions",
    ROOT / ".github" / "dependabot.yml": "vendor.dependabot",
    ROOT / "ci-templates" / "gitlab" / "tg-trace.gitlab-ci.yml": "vendor.gitlab-ci",
}


def _offline_env() -> dict[str, str]:
    # No token: nothing may reach GitHub's API; a proxy that goes nowhere catches any other request.
    env = {k: v for k, v in os.environ.items() if k not in ("GH_TOKEN", "GITHUB_TOKEN", "ZIZMOR_GITHUB_TOKEN")}
    env.update(HTTPS_PROXY="http://127.0.0.1:9", HTTP_PROXY="http://127.0.0.1:9", NO_COLOR="1")
    return env


def test_there_are_workflows_to_check():
    assert {p.name for p in WORKFLOWS} >= {"ci.yml", "release.yml", "docs.yml"}


@pytest.mark.parametrize("path", list(SCHEMAS), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_validates_against_its_schema(path):
    result = subprocess.run([str(BIN / "check-jsonschema"), "--builtin-schema", SCHEMAS[path], str(path)],
                            capture_output=True, text=True, env=_offline_env(), timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr


def test_zizmor_finds_nothing():
    result = subprocess.run([str(BIN / "zizmor"), "--offline", "--format", "json", "--no-progress",
                             ".github/", "action.yml"],
                            capture_output=True, text=True, cwd=ROOT, env=_offline_env(), timeout=120)
    findings = json.loads(result.stdout or "[]")
    shown = [f"{f['ident']}: {f['desc']} ({f['locations'][0]['symbolic']['key']})" for f in findings]
    assert result.returncode == 0 and not findings, "\n".join(shown) or result.stderr
