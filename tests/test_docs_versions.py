"""The versioned docs site: the docs workflow's own mike commands, run here into a
temporary repository's local gh-pages branch (no remote, no push, no network)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tomllib

import pytest
import yaml
from conftest import ROOT
from docs_support import require

# Slow: builds the versioned docs (`python -m pytest -m "not slow"` leaves it out; CI runs it).
pytestmark = pytest.mark.slow

VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
# What the docs build reads; the rest of the checkout (virtualenv, history, artefacts, caches, the tests'
# JavaScript engines) is not copied: tests running beside this one may be writing there (.hypothesis).
SKIP = shutil.ignore_patterns(".venv", ".git", "site", "ci-artifacts", "__pycache__", ".pytest_cache", "*.egg-info",
                              ".hypothesis", "node_modules")


def _deploy_script() -> str:
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "docs.yml").read_text())
    (step,) = [s for s in workflow["jobs"]["deploy"]["steps"] if s.get("name") == "Deploy with mike"]
    # The same commands, kept local: nothing is pushed, and there is no origin to fetch from.
    return step["run"].replace(" --push", "")


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    require(shutil.which("dot") is not None, "Graphviz 'dot' is not installed (Debian package graphviz)")
    checkout = tmp_path_factory.mktemp("checkout") / "trustgraph-ontology"
    shutil.copytree(ROOT, checkout, ignore=SKIP)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "GITHUB_"))}
    env.update(VERSION=VERSION, NO_MKDOCS_2_WARNING="1", GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1",
               GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.org",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.org")

    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=checkout, env=env, check=True, capture_output=True,
                              text=True).stdout

    git("init", "-q", "-b", "main")
    git("commit", "-q", "--allow-empty", "-m", "the release")  # mike names the commit it deploys
    result = subprocess.run(["sh", "-e", "-c", _deploy_script()], cwd=checkout, env=env, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    return git


def test_mike_lists_the_release_as_latest(pages):
    versions = json.loads(pages("show", "gh-pages:versions.json"))
    assert versions == [{"version": VERSION, "title": VERSION, "aliases": ["latest"]}]


def test_the_site_root_sends_readers_to_latest(pages):
    assert "latest/" in pages("show", "gh-pages:index.html")


def test_each_version_has_its_pages_and_downloads(pages):
    files = set(pages("ls-tree", "-r", "--name-only", "gh-pages").split())
    for name in ("index.html", "rules/index.html", "downloads/trustgraph.ttl", "downloads/trustgraph.jsonld",
                 "downloads/trustgraph.rdf", "downloads/trustgraph.nt"):
        assert f"{VERSION}/{name}" in files
    # latest is an alias of the release, so its URLs hold the same files.
    assert pages("cat-file", "-p", "gh-pages:latest").strip() == VERSION
    # The version selector is configured in every page; Material fills it from versions.json.
    assert '"provider": "mike"' in pages("show", f"gh-pages:{VERSION}/index.html")


def test_mike_comes_pinned_with_the_docs_extra():
    docs = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["docs"]
    assert any(d.startswith("mike==") for d in docs)
    assert yaml.safe_load((ROOT / "mkdocs.yml").read_text())["extra"]["version"]["provider"] == "mike"
