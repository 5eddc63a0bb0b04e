"""The README's commands work as written today: the install line from a clone (the package is not
on PyPI until it is published, and a line that says otherwise fails with "No matching
distribution"), and the docs commands as CONTRIBUTING.md and CI run them."""

import re
import subprocess
import sys

from conftest import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")
DISTRIBUTION = "trustgraph-ontology"


def section(title: str) -> str:
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", README, re.M | re.S)
    assert match, f"the README's section {title!r} is gone"
    return match.group(1)


def commands(text: str) -> list[str]:
    """The commands of a text's shell blocks, without their comments."""
    blocks = re.findall(r"^```(?:sh|bash)\n(.*?)^```", text, re.M | re.S)
    return [line.split("#", 1)[0].strip() for block in blocks for line in block.splitlines()
            if line.split("#", 1)[0].strip()]


def test_the_install_line_installs_from_the_clone_today():
    install = commands(section("Install (to lint traces)"))
    assert install, "the README's install section has no command"
    for command in install:
        # Until the package is published, a bare PyPI install fails: it belongs in the prose, marked.
        assert not re.search(rf"pip install\s+['\"]?{DISTRIBUTION}\b", command), \
            f"{command!r} installs from PyPI, where the package is not published yet"
    assert "pip install ." in install
    # The line works: pip builds the package from the clone (--dry-run: nothing is installed).
    argv = install[install.index("pip install .")].split()[1:]
    result = subprocess.run([sys.executable, "-m", "pip", *argv, "--dry-run", "--no-deps", "--ignore-installed",
                             "--quiet"], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_the_pypi_line_is_marked_for_when_it_is_published():
    text = " ".join(section("Install (to lint traces)").split())
    pypi = re.search(rf"[^.]*`pip install {DISTRIBUTION}`[^.]*\.", text)
    assert pypi and re.search(r"\b(once|when)\b.*\bpublished\b", pypi.group(0), re.I), pypi


def test_the_docs_commands_run_as_contributing_runs_them():
    contributing = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    assert "NO_MKDOCS_2_WARNING=1 mkdocs serve" in contributing
    for name, text in (("README.md", README), ("docs/index.md", (ROOT / "docs" / "index.md").read_text())):
        # Every mkdocs command, in a code block or in backticks, is run with the variable set.
        found = re.findall(r"(?:^|`)((?:\w+=\S+ )*mkdocs (?:serve|build)[^`\n#]*)", text, re.M)
        assert found, f"{name} names no mkdocs command"
        bare = [command for command in found if "NO_MKDOCS_2_WARNING=1" not in command]
        assert not bare, f"{name} runs mkdocs without NO_MKDOCS_2_WARNING=1: {bare}"


def _ci_setup_line() -> str:
    """The line of .ci/run that reads the README's set-up commands."""
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    found = [line for line in ci.splitlines() if line.startswith('setup="$(')]
    assert len(found) == 1, "CI no longer reads the README's set-up section"
    return found[0]


def test_the_set_up_is_two_commands_that_update_the_package_lists_first():
    setup = commands(section("Set up (fresh machine, to work on the project)"))
    assert len(setup) == 2, setup
    packages, environment = setup
    # A machine whose package lists were never updated finds no candidate for the packages.
    assert re.match(r"apt-get update && apt-get install -y \S", packages), packages
    assert "sudo" not in packages  # the README's commands are run as root, as CI runs them
    assert environment.startswith("python3 -m venv .venv && . .venv/bin/activate && pip install -e ")


def test_ci_runs_the_set_up_as_the_readme_writes_it():
    """.ci/run reads the set-up commands from the README and runs them (they cannot drift); it
    installs nothing of its own."""
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    read = subprocess.run(["bash", "-c", f'set -euo pipefail; {_ci_setup_line()}; printf "%s" "$setup"'],
                          cwd=ROOT, capture_output=True, text=True, check=True).stdout
    written = re.search(r"^## Set up \(fresh machine, to work on the project\)\n+```sh\n(.*?)^```", README,
                        re.M | re.S)
    assert written is not None
    assert read == written.group(1).rstrip("\n")
    assert re.search(r'^eval "\$setup"$', ci, re.M)
    code = [line.split("#", 1)[0] for line in ci.splitlines()]
    for own in ("apt-get install", "pip install", "npm ci", "python3 -m venv"):
        assert not any(own in line for line in code), f".ci/run runs {own!r} of its own"
