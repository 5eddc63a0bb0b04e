"""The built wheel carries the ontology and shapes and works without the source tree."""

import shutil
import subprocess
import sys
import zipfile

import pytest
from conftest import EXAMPLES, ROOT

# Slow: builds and installs the wheel (`python -m pytest -m "not slow"` leaves it out; CI runs it).
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    work = tmp_path_factory.mktemp("wheel")
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(work), str(ROOT)],
                           capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    wheel = next(work.glob("trustgraph_ontology-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert "tgtrace/data/ontology/trustgraph.ttl" in names
    assert any(n.startswith("tgtrace/data/shapes/") and n.endswith(".ttl") for n in names)
    site = work / "site"
    install = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(site),
                              str(wheel)], capture_output=True, text=True)
    assert install.returncode == 0, install.stderr
    away = work / "elsewhere"
    away.mkdir()
    shutil.copy(EXAMPLES / "supervisor.nq", away / "supervisor.nq")
    return site, away


def run_installed(site, cwd, code):
    # The wheel's copy comes first on the path, ahead of any checkout.
    env_code = f"import sys; sys.path.insert(0, {str(site)!r}); " + code
    return subprocess.run([sys.executable, "-c", env_code], capture_output=True, text=True, cwd=cwd)


def test_wheel_finds_its_files_without_the_checkout(installed):
    site, away = installed
    result = run_installed(site, away, "import tgtrace.ground.resources as r; print(r.ontology_path()); "
                                       "print(len(r.shapes_paths()))")
    assert result.returncode == 0, result.stderr
    path, count = result.stdout.split()
    assert path.startswith(str(site)) and int(count) >= 4


def test_wheel_self_check_and_lint(installed):
    site, away = installed
    result = run_installed(site, away, "import sys; from tgtrace.cli import main; sys.argv=['tg-trace','check']; main()")
    assert result.returncode == 0, result.stdout + result.stderr
    result = run_installed(site, away, "import sys; from tgtrace.cli import main; "
                                       "sys.argv=['tg-trace','lint','supervisor.nq','--no-config']; main()")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "all clean" in result.stdout
