"""The examples of docs/deployment.md ("Linting a deployment") are commands tg-trace has: every
tg-trace command line of the page (shell, the systemd unit, the Kubernetes Deployment) names a
command and options that exist, and the unit and the manifest parse."""

from __future__ import annotations

import configparser
import re
import shlex
from pathlib import Path

import pytest
import yaml
from tgtrace.cli import main

# Slow: runs the deployment page's commands against the real deployment (`python -m pytest -m "not slow"` leaves it out; CI runs it).
pytestmark = pytest.mark.slow

PAGE = Path(__file__).resolve().parents[1] / "docs" / "deployment.md"


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", PAGE.read_text(), flags=re.S)


def command_lines() -> list[list[str]]:
    text = "\n".join(blocks("sh") + blocks("ini") + blocks("yaml"))
    found = []
    for match in re.finditer(r"tg-trace ([^\n\"#&]*)", text):
        words = shlex.split(match.group(1))
        if words and words[0] in main.commands:
            found.append(words)
    return found


def test_every_command_line_names_options_the_command_has():
    lines = command_lines()
    assert {words[0] for words in lines} >= {"lint", "pull", "watch"}
    for words in lines:
        command = main.commands[words[0]]
        declared = {flag for param in command.params for flag in getattr(param, "opts", [])}
        for word in words[1:]:
            if word.startswith("-"):
                assert word.split("=")[0] in declared, f"tg-trace {words[0]} has no option {word}"


def test_the_systemd_unit_runs_watch_and_accepts_its_exit_status_1():
    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.optionxform = str
    (text,) = blocks("ini")
    unit.read_string(text)
    assert " watch " in unit["Service"]["ExecStart"]
    assert unit["Service"]["SuccessExitStatus"] == "1"
    assert "TRUSTGRAPH_TOKEN" not in text.replace("token.env", "")  # the token stays in its file


def test_the_kubernetes_deployment_runs_watch_with_the_token_from_a_secret():
    (text,) = blocks("yaml")
    manifest = yaml.safe_load(text)
    assert manifest["kind"] == "Deployment"
    (container,) = manifest["spec"]["template"]["spec"]["containers"]
    assert "tg-trace watch" in " ".join(container["command"])
    env = {item["name"]: item for item in container["env"]}
    assert "secretKeyRef" in env["TRUSTGRAPH_TOKEN"]["valueFrom"]
    assert env["TRUSTGRAPH_URL"]["value"].startswith("http")


def test_the_limits_table_names_every_bound_with_its_option_and_default():
    """docs/deployment.md's "Limits and failure modes" holds every bound of tgtrace.ground.limits, with the
    default the option has, and every option it names exists."""
    from tgtrace.ground import limits

    text = PAGE.read_text()
    section = text.split("## Limits and failure modes", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 5 and cells[1].startswith("`--"):
            rows[cells[1].strip("`")] = cells[2]
    assert set(limits.BOUNDS) <= set(rows), sorted(set(limits.BOUNDS) - set(rows))
    for option, default in limits.BOUNDS.items():
        assert float(rows[option].split()[0]) == default, (option, rows[option], default)
    options = {flag for name in ("pull", "watch", "lint") for param in main.commands[name].params
               for flag in getattr(param, "opts", [])}
    assert set(rows) <= options
    watch = {param.opts[-1]: param.default for param in main.commands["watch"].params if param.opts}
    for option in ("--trace-max-age", "--trace-max-triples", "--max-held-triples"):
        assert watch[option] == limits.BOUNDS[option]
