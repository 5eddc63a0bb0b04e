"""Release engineering: one version everywhere, a source distribution that
installs alone and works, and workflows, action and CI templates that say what
the release needs.

pyproject.toml's ``[project] version`` is the one version (its comment says
why); every other place that writes it is checked against it here.

The sdist is installed into a fresh virtualenv. Tests do not reach the network
for the dependencies (``tests/test_precommit.py`` says why), so by default it is
installed with ``--no-deps`` and the dependencies come from this interpreter's
site-packages, placed after the virtualenv's own; the package itself, its
files and its console script all come from the sdist. With
``TG_TRACE_TRY_REPO=1`` (set by ``.ci/run``, where installs may reach PyPI),
``pip install SDIST`` resolves the dependencies from the index as a user's
install does. Building uses an isolated build environment, as
``tests/test_wheel.py`` does.
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tomllib
import venv
import zipfile
from fnmatch import fnmatch
from pathlib import Path

import pytest
import rdflib
import yaml
from conftest import EXAMPLES, ROOT
from rdflib.namespace import OWL, RDF

# Slow: builds the release's packages and docs (`python -m pytest -m "not slow"` leaves it out; CI runs it).
pytestmark = pytest.mark.slow

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
VERSION = PYPROJECT["project"]["version"]
WORKFLOWS = ROOT / ".github" / "workflows"
ACTION = ROOT / "action.yml"
GITLAB = ROOT / "ci-templates" / "gitlab" / "tg-trace.gitlab-ci.yml"
CHANGELOG = ROOT / "CHANGELOG.md"
TG = "https://trustgraph.ai/ns/"
SHAPES_NS = "https://trustgraph.ai/shapes#"
SHAPES_VERSION_BASE = "https://trustgraph.ai/shapes/"
NETWORK = os.environ.get("TG_TRACE_TRY_REPO") == "1"


def _tg_trace() -> str:
    found = shutil.which("tg-trace") or str(Path(sys.executable).with_name("tg-trace"))
    assert Path(found).exists(), "tg-trace is not installed in this environment"
    return found


def _clean_env(**extra: str) -> dict[str, str]:
    """This environment less what would make a subprocess find the checkout or act as under GitHub Actions."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME") and not k.startswith("GITHUB_")}
    env.update(extra)
    return env


# ---------------------------------------------------------------------------
# One version


def test_version_is_a_release_version():
    assert re.fullmatch(r"\d+\.\d+\.\d+((a|b|rc)\d+)?", VERSION), VERSION
    # Static in pyproject.toml: the one place, read by people and tools alike.
    assert "version" not in PYPROJECT["project"].get("dynamic", [])


def test_package_version_agrees():
    tree = ast.parse((ROOT / "validators" / "tgtrace" / "__init__.py").read_text())
    (value,) = [node.value.value for node in tree.body if isinstance(node, ast.Assign)
                and [t.id for t in node.targets if isinstance(t, ast.Name)] == ["__version__"]]
    assert value == VERSION


def test_ontology_version_agrees():
    graph = rdflib.Graph().parse(ROOT / "ontology" / "trustgraph.ttl", format="turtle")
    header = rdflib.URIRef(TG)
    assert (header, RDF.type, OWL.Ontology) in graph
    assert [str(v) for v in graph.objects(header, OWL.versionInfo)] == [VERSION]
    assert list(graph.objects(header, OWL.versionIRI)) == [rdflib.URIRef(TG + VERSION)]


@pytest.mark.parametrize("path", sorted((ROOT / "shapes").glob("*.ttl")), ids=lambda p: p.name)
def test_every_shapes_file_states_the_version(path):
    # Each file on its own, as the release attaches them one by one.
    graph = rdflib.Graph().parse(path, format="turtle")
    header = rdflib.URIRef(SHAPES_NS)
    assert (header, RDF.type, OWL.Ontology) in graph, f"{path.name}: no owl:Ontology header <{SHAPES_NS}>"
    assert [str(v) for v in graph.objects(header, OWL.versionInfo)] == [VERSION], path.name
    assert list(graph.objects(header, OWL.versionIRI)) == [rdflib.URIRef(SHAPES_VERSION_BASE + VERSION)], path.name


# What each file that shows an install pins, and how to find the pins. Every
# file must pin at least once (a pattern that stopped matching would otherwise
# pass), and every pin must be this version: a snippet must work when copied.
# docs/benchmarks.md is left out on purpose: it records the software a
# measurement was made with.
PIN_PATTERNS = [
    r"trustgraph-ai/trustgraph-ontology@v(\d[^\s\"'#]*)",                # uses: / git+https
    r"trustgraph-ai/trustgraph-ontology/v(\d[^/\s]*)/",                  # raw file of a tag
    r"trustgraph-ontology==(\d[^\s\"'`]*)",                              # pip from PyPI
    r"^\s*#?\s*rev:\s*v(\d\S*)",                                         # pre-commit
    r"TG_TRACE_VERSION:\s*\"([^\"]+)\"",                                 # GitLab template
]
PINNING_FILES = ["docs/ci.md", ".pre-commit-hooks.yaml", "action.yml",
                 "ci-templates/gitlab/tg-trace.gitlab-ci.yml"]


@pytest.mark.parametrize("name", PINNING_FILES)
def test_every_pin_is_this_release(name):
    text = (ROOT / name).read_text()
    pins = [(m.group(0).strip(), m.group(1)) for pattern in PIN_PATTERNS
            for m in re.finditer(pattern, text, re.MULTILINE)]
    assert pins, f"{name} pins no release of trustgraph-ontology"
    wrong = [found for found, version in pins if version != VERSION]
    assert not wrong, f"{name}: pins other than {VERSION}: {wrong}"


def test_changelog_has_this_release_first():
    text = CHANGELOG.read_text()
    assert text.startswith("# Changelog\n")
    assert "keepachangelog.com" in text
    headings = re.findall(r"^## \[([^\]]+)\](.*)$", text, re.MULTILINE)
    assert headings[0] == ("Unreleased", ""), "Keep a Changelog: an [Unreleased] section comes first"
    version, rest = headings[1]
    assert version == VERSION, f"newest release in CHANGELOG.md is {version}, pyproject.toml says {VERSION}"
    assert re.fullmatch(r" - \d{4}-\d{2}-\d{2}", rest), f"## [{version}] needs ' - YYYY-MM-DD'"
    for name, _ in headings:
        assert re.search(rf"^\[{re.escape(name)}\]: https://github\.com/\S+$", text, re.MULTILINE), name
    sections = set(re.findall(r"^### (.+)$", text, re.MULTILINE))
    assert sections <= {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}, sections


# ---------------------------------------------------------------------------
# Distributions


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    """``python -m build``: the sdist, and the wheel built from it."""
    out = tmp_path_factory.mktemp("dist")
    built = subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)],
                           capture_output=True, text=True, env=_clean_env())
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    (sdist,) = out.glob("*.tar.gz")
    (wheel,) = out.glob("*.whl")
    return sdist, wheel


def test_distributions_are_named_for_the_version(dist):
    sdist, wheel = dist
    assert sdist.name == f"trustgraph_ontology-{VERSION}.tar.gz"
    assert wheel.name == f"trustgraph_ontology-{VERSION}-py3-none-any.whl"


def test_twine_accepts_both(dist):
    checked = subprocess.run([sys.executable, "-m", "twine", "check", "--strict", *map(str, dist)],
                             capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_sdist_holds_the_sources_and_nothing_else(dist):
    sdist, _ = dist
    top = f"trustgraph_ontology-{VERSION}/"
    with tarfile.open(sdist) as archive:
        names = {name.removeprefix(top) for name in archive.getnames()}
    expected = {"PKG-INFO", "pyproject.toml", "README.md", "CHANGELOG.md", "ontology/trustgraph.ttl",
                "validators/tgtrace/__init__.py", "validators/tgtrace/cli.py", "mkdocs.yml"}
    expected |= {f"shapes/{p.name}" for p in (ROOT / "shapes").glob("*.ttl")}
    expected |= {f"examples/{p.name}" for p in EXAMPLES.glob("*.nq")}
    assert expected <= names, sorted(expected - names)
    assert "tests/js/package-lock.json" in names
    for junk in (".venv/", ".git/", "site/", "ci-artifacts/", ".hypothesis/", "__pycache__/", "node_modules/"):
        assert not any(name.startswith(junk) or f"/{junk}" in name for name in names), junk


def test_wheel_built_from_the_sdist_carries_the_data_and_the_version(dist):
    _, wheel = dist
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        metadata = archive.read(f"trustgraph_ontology-{VERSION}.dist-info/METADATA").decode()
    assert "tgtrace/data/ontology/trustgraph.ttl" in names
    assert {f"tgtrace/data/shapes/{p.name}" for p in (ROOT / "shapes").glob("*.ttl")} <= names
    assert f"\nVersion: {VERSION}\n" in metadata


@pytest.fixture(scope="module")
def fresh(dist, tmp_path_factory):
    """A fresh virtualenv (no system site-packages) with the sdist installed alone, and the sdist unpacked."""
    sdist, _ = dist
    work = tmp_path_factory.mktemp("fresh")
    env_dir = work / "venv"
    venv.EnvBuilder(with_pip=True, system_site_packages=False, symlinks=os.name != "nt").create(env_dir)
    assert "include-system-site-packages = false" in (env_dir / "pyvenv.cfg").read_text()
    python = env_dir / "bin" / "python"
    pip = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    if not NETWORK:
        pip.append("--no-deps")
    installed = subprocess.run([*pip, str(sdist)], capture_output=True, text=True, env=_clean_env(), cwd=work)
    assert installed.returncode == 0, installed.stdout[-3000:] + installed.stderr[-3000:]
    if not NETWORK:
        # The dependencies from this interpreter, after the virtualenv's own packages. A path
        # line in a .pth file does not run that folder's .pth files, so this environment's
        # editable install of the checkout stays out.
        own = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                             capture_output=True, text=True, check=True).stdout.strip()
        ours = {sysconfig.get_path("purelib"), sysconfig.get_path("platlib")}
        Path(own, "zz_test_dependencies.pth").write_text("\n".join(sorted(ours)) + "\n")
    with tarfile.open(sdist) as archive:
        archive.extractall(work / "unpacked", filter="data")
    (source,) = (work / "unpacked").iterdir()
    away = work / "away"
    away.mkdir()
    return env_dir, source, away


def _run(fresh, *args, cwd):
    env_dir, _, _ = fresh
    return subprocess.run([str(env_dir / "bin" / args[0]), *args[1:]], capture_output=True, text=True,
                          cwd=cwd, env=_clean_env(NO_COLOR="1"))


def test_installed_package_is_the_sdists(fresh):
    env_dir, _, away = fresh
    result = _run(fresh, "python", "-c", "import tgtrace, tgtrace.ground.resources as r; "
                  "print(tgtrace.__file__); print(r.ontology_path()); print(tgtrace.__version__)", cwd=away)
    assert result.returncode == 0, result.stderr
    module, ontology, version = result.stdout.split()
    assert Path(module).resolve().is_relative_to(env_dir.resolve()), module
    assert Path(ontology).resolve().is_relative_to(env_dir.resolve()), ontology
    assert version == VERSION
    result = _run(fresh, "tg-trace", "--version", cwd=away)
    assert result.stdout.strip() == f"tg-trace, version {VERSION}", result.stdout + result.stderr


def test_installed_sdist_self_checks_and_lints_the_examples(fresh):
    _, source, _ = fresh
    # From the unpacked sdist, as a user who downloaded it would: its examples, its (absent) config.
    check = _run(fresh, "tg-trace", "check", cwd=source)
    assert check.returncode == 0, check.stdout + check.stderr
    lint = _run(fresh, "tg-trace", "lint", "examples/", cwd=source)
    assert lint.returncode == 0, lint.stdout + lint.stderr
    assert re.search(r"\d+ files, \d+ traces( \([^)]*\))?, \d+ triples: ", lint.stdout), lint.stdout


# ---------------------------------------------------------------------------
# Workflows


def _load(path: Path) -> dict:
    return yaml.safe_load(path.read_text())


def _triggers(workflow: dict) -> dict:
    # YAML 1.1 reads the key `on` as true.
    on = workflow.get("on", workflow.get(True))
    return {name: {} for name in on} if isinstance(on, list) else on


def _steps(workflow: dict):
    for job in workflow["jobs"].values():
        yield from job.get("steps", [])


def _runs(job: dict) -> str:
    return "\n".join(step.get("run", "") for step in job.get("steps", []))


def test_ci_runs_the_ci_script_on_pushes_and_pull_requests():
    workflow = _load(WORKFLOWS / "ci.yml")
    assert {"push", "pull_request"} <= set(_triggers(workflow))
    assert workflow["permissions"] == {"contents": "read"}
    assert any(re.search(r"(^|\s)(bash\s+)?\.ci/run\b", step.get("run", "")) for step in _steps(workflow))


def test_release_builds_tests_publishes_and_attaches():
    workflow = _load(WORKFLOWS / "release.yml")
    triggers = _triggers(workflow)
    assert set(triggers) == {"push"}
    tags = triggers["push"]["tags"]
    assert any(fnmatch(f"v{VERSION}", pattern) for pattern in tags)
    assert not any(fnmatch("main", pattern) for pattern in tags)
    assert workflow["permissions"] == {"contents": "read"}
    jobs = workflow["jobs"]

    build = jobs["build"]
    runs = _runs(build)
    assert '!= "v$version"' in runs, "the tag must be checked against pyproject.toml's version"
    assert "python -m build" in runs and "twine check" in runs
    # The built wheel, in a virtualenv of its own, self-checks and lints the examples.
    assert re.search(r"-m venv ", runs) and re.search(r"pip\"? install .*dist/\*\.whl", runs)
    assert re.search(r"tg-trace\"? check\b", runs) and re.search(r"tg-trace\"? lint examples/", runs)

    # Nothing is published unless the full CI passed on the tagged commit.
    assert jobs["ci"]["uses"] == "./.github/workflows/ci.yml"
    assert "workflow_call" in _triggers(_load(WORKFLOWS / "ci.yml"))

    publish = jobs["publish"]
    assert {"ci", "build"} <= set(publish["needs"])
    assert publish["permissions"] == {"id-token": "write"}
    assert publish["environment"]["name"] == "pypi"
    (step,) = [s for s in publish["steps"] if s.get("uses", "").startswith("pypa/gh-action-pypi-publish@")]
    # Trusted publishing: no token or password anywhere.
    assert not {"password", "user"} & set(step.get("with") or {})
    for name, job in jobs.items():
        if name != "publish":
            assert "id-token" not in (job.get("permissions") or {}), name

    release = jobs["github-release"]
    assert "publish" in release["needs"]
    assert release["permissions"] == {"contents": "write"}
    runs = _runs(release)
    assert "gh release create" in runs
    assert "ontology/*.ttl" in runs and "shapes/*.ttl" in runs


def test_docs_deploy_the_release_with_mike():
    workflow = _load(WORKFLOWS / "docs.yml")
    triggers = _triggers(workflow)
    assert any(fnmatch(f"v{VERSION}", pattern) for pattern in triggers["push"]["tags"])
    assert workflow["permissions"] == {"contents": "write"}
    runs = "\n".join(step.get("run", "") for step in _steps(workflow))
    assert 'mike deploy --push --update-aliases "$VERSION" latest' in runs
    # The docs' version is the tag's, and the tag must be pyproject.toml's.
    assert 'pyproject.toml' in runs and '!= "v$version"' in runs
    assert "mkdocs-material" in " ".join(PYPROJECT["project"]["optional-dependencies"]["docs"])


PINNED = re.compile(r"^[\w.-]+/[\w.-]+(/[\w./-]+)?@(v\d+\.\d+\.\d+|[0-9a-f]{40})$")
ACTION_FILES = sorted(WORKFLOWS.glob("*.yml")) + [ACTION]


@pytest.mark.parametrize("path", ACTION_FILES, ids=lambda p: p.name)
def test_every_action_used_is_pinned(path):
    document = _load(path)
    steps = document["runs"]["steps"] if path == ACTION else list(_steps(document))
    uses = [step["uses"] for step in steps if "uses" in step]
    assert uses, path.name
    for ref in uses:
        if ref.startswith("./"):
            continue
        assert PINNED.match(ref), f"{path.name}: {ref} is not pinned to a version tag or a commit"
    # A commit pin says which release it is, so people and Dependabot can read it.
    for line in path.read_text().splitlines():
        found = re.search(r"uses:\s*(\S+@[0-9a-f]{40})(.*)$", line)
        if found:
            assert re.match(r"\s+#\s*v\d+\.\d+\.\d+\s*$", found.group(2)), f"{path.name}: {line.strip()}"


def test_one_pin_per_action_across_workflows_action_and_docs():
    """The same action is pinned to the same release everywhere; the docs name that release."""
    releases: dict[str, set[str]] = {}
    for path in ACTION_FILES:
        for found in re.finditer(r"uses:\s*([\w.-]+/[\w.-]+)(?:/[\w./-]+)?@([0-9a-f]{40})\s+#\s*(v\S+)",
                                 path.read_text()):
            releases.setdefault(found.group(1), set()).add(found.group(3))
    for action, tags in releases.items():
        assert len(tags) == 1, f"{action} pinned to several releases: {tags}"
    docs = (ROOT / "docs" / "ci.md").read_text()
    for found in re.finditer(r"uses:\s*([\w.-]+/[\w.-]+)(?:/[\w./-]+)?@(\S+)", docs):
        action, tag = found.groups()
        assert re.fullmatch(r"v\d+\.\d+\.\d+", tag), f"docs/ci.md: {found.group(0)}"
        if action in releases:
            assert {tag} == releases[action], f"docs/ci.md pins {action}@{tag}, the workflows {releases[action]}"


# ---------------------------------------------------------------------------
# The GitHub Action


def _action_step(name: str) -> dict:
    (step,) = [s for s in _load(ACTION)["runs"]["steps"] if s.get("id") == name]
    return step


def test_action_is_composite_with_its_inputs():
    action = _load(ACTION)
    assert action["runs"]["using"] == "composite"
    assert {"paths", "fail-on", "target-version", "config", "sarif", "version"} <= set(action["inputs"])
    assert action["inputs"]["sarif"]["default"] == "false"
    assert action["inputs"]["version"]["default"] == ""
    for step in action["runs"]["steps"]:
        # Inputs reach scripts as environment variables, never pasted into the script's text.
        assert "${{" not in step.get("run", ""), step.get("name")
    install = _action_step("install")["run"]
    assert "$GITHUB_ACTION_PATH" in install and "trustgraph-ontology==" in install
    (upload,) = [s for s in action["runs"]["steps"] if s.get("uses", "").startswith("github/codeql-action/upload-sarif@")]
    assert "sarif-file" in upload["if"]


@pytest.fixture
def lint_step(tmp_path):
    """Run the action's lint step as the runner would, with this environment's tg-trace."""
    script = _action_step("lint")["run"]
    for example in ("graph-rag.nq", "legacy-react-one-shot.nq"):
        shutil.copy(EXAMPLES / example, tmp_path / example)

    def run(**inputs: str):
        output, summary = tmp_path / "output", tmp_path / "summary.md"
        output.write_text("")
        summary.write_text("")
        env = _clean_env(GITHUB_ACTIONS="true", GITHUB_OUTPUT=str(output), GITHUB_STEP_SUMMARY=str(summary),
                         RUNNER_TEMP=str(tmp_path), TG_TRACE=_tg_trace(), NO_COLOR="1",
                         INPUT_PATHS="*.nq", INPUT_FAIL_ON="", INPUT_CONFIG="", INPUT_SARIF="false",
                         INPUT_TARGET_VERSION="")
        env.update({"INPUT_" + k.upper(): v for k, v in inputs.items()})
        result = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", script], capture_output=True, text=True, cwd=tmp_path, env=env)
        assert result.returncode == 0, result.stdout + result.stderr  # the last step gives the status
        outputs = dict(line.split("=", 1) for line in output.read_text().splitlines())
        return result, outputs, summary.read_text()

    return run


def _summaries(text: str) -> int:
    return len(re.findall(r"^## .*tg-trace (passed|failed)", text, re.MULTILINE))


def test_action_annotates_and_writes_one_summary(lint_step):
    result, outputs, summary = lint_step()
    assert outputs["exit-code"] == "0"
    assert "sarif-file" not in outputs
    assert re.search(r"^::warning file=legacy-react-one-shot\.nq,line=\d+,title=T004::", result.stdout, re.MULTILINE)
    assert _summaries(summary) == 1


def test_action_fails_on_and_writes_sarif_with_still_one_summary(lint_step, tmp_path):
    result, outputs, summary = lint_step(fail_on="warning", sarif="true")
    assert outputs["exit-code"] == "1"
    sarif = json.loads(Path(outputs["sarif-file"]).read_text())
    assert sarif["version"] == "2.1.0"
    assert any(r["ruleId"] == "T004" for r in sarif["runs"][0]["results"])
    assert _summaries(summary) == 1


def test_action_passes_the_config_and_reports_usage_errors(lint_step, tmp_path):
    # Not a name tg-trace finds by itself: only the input makes it read.
    (tmp_path / "lint-settings.toml").write_text('ignore = ["T004"]\nfail-on = "warning"\n')
    _, outputs, _ = lint_step(config="lint-settings.toml", fail_on="")
    assert outputs["exit-code"] == "0"
    _, outputs, _ = lint_step(config="missing.toml")
    assert outputs["exit-code"] == "2"
    _, outputs, _ = lint_step(sarif="yes")
    assert outputs["exit-code"] == "2"


def test_action_target_version_makes_older_traces_errors(lint_step, tmp_path):
    shutil.copy(EXAMPLES / "releases" / "2.1.16" / "react.nq", tmp_path / "old-react.nq")
    result, outputs, _ = lint_step()
    assert outputs["exit-code"] == "0"  # judged by its own trace model: information only
    result, outputs, _ = lint_step(target_version="2.11")
    assert outputs["exit-code"] == "1"
    assert re.search(r"^::error file=old-react\.nq,line=\d+", result.stdout, re.MULTILINE)
    _, outputs, _ = lint_step(target_version="two")
    assert outputs["exit-code"] == "2"


# ---------------------------------------------------------------------------
# The GitLab CI template


def test_gitlab_template_job():
    template = _load(GITLAB)
    assert template["variables"]["TG_TRACE_VERSION"] == VERSION
    job = template["tg-trace"]
    assert job["image"].startswith("python:3.")
    assert job["artifacts"]["when"] == "always"
    # Dot-files: a directory's walk never reads a report back as a trace.
    assert job["artifacts"]["reports"]["junit"] == ".tg-trace-junit.xml"
    assert job["artifacts"]["reports"]["codequality"] == ".tg-trace-code-quality.json"
    assert any("trustgraph-ontology==${TG_TRACE_VERSION}" in line for line in job["script"])


@pytest.mark.parametrize(("fail_on", "status"), [("", 0), ("warning", 1)])
def test_gitlab_template_script_logs_reports_and_fails(tmp_path, fail_on, status):
    template = _load(GITLAB)
    script = [line for line in template["tg-trace"]["script"] if "pip install" not in line]
    shutil.copy(EXAMPLES / "legacy-react-one-shot.nq", tmp_path)
    env = _clean_env(PATH=f"{Path(_tg_trace()).parent}{os.pathsep}{os.environ['PATH']}", NO_COLOR="1",
                     **{k: str(v) for k, v in template["variables"].items()})
    env.update(TG_TRACE_PATHS="*.nq", TG_TRACE_FAIL_ON=fail_on)
    result = subprocess.run(["sh", "-c", "\n".join(script)], capture_output=True, text=True, cwd=tmp_path, env=env)
    assert result.returncode == status, result.stdout + result.stderr
    assert "T004" in result.stdout
    report = (tmp_path / ".tg-trace-junit.xml").read_text()
    assert "<testsuite" in report and ("<failure" in report) == bool(status)
    # The merge request's inline findings: every finding, whatever fails the job.
    quality = json.loads((tmp_path / ".tg-trace-code-quality.json").read_text())
    assert [(i["check_name"], i["location"]["path"]) for i in quality] == [("T004", "legacy-react-one-shot.nq")]
