import os
import shutil
from pathlib import Path

import pytest
from tgtrace.ground.escaping import forget_secrets

# Fixtures shared by several test modules, registered as plugins so that a test names them as
# parameters without importing them: a real TrustGraph deployment, one per session, for the tests
# of what talks to a running TrustGraph (gateway_rig); the example traces and reports of the
# output-format tests (formats_support).
pytest_plugins = ["gateway_rig", "formats_support"]

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"

# Parallel runs (pytest-xdist: "-n auto --dist loadfile" in pyproject.toml's addopts). A module runs whole
# on one worker, as in one process, so that its module-scoped fixtures are set up once (test_shacl_engines'
# JavaScript engines start with the module and run for minutes). Session-scoped fixtures are set up once
# per worker that uses them: the modules below share one, an expensive one, and run on the same worker.
SHARED_WORKER = {
    # The real TrustGraph deployment (gateway_rig's ``trustgraph``): RabbitMQ and five processes.
    "test_gateway.py": "trustgraph",
    "test_gateway_rig.py": "trustgraph",
    "test_watch_soak.py": "trustgraph",
    # The docs site, built with mkdocs once per process (docs_support.built_site).
    "test_docs_changes.py": "docs-site",
    "test_docs_complete.py": "docs-site",
    "test_docs_site.py": "docs-site",
    "test_docs_trace_changes.py": "docs-site",
}
# The work that runs for minutes on one worker (a module, or the modules of a shared worker),
# longest first: each is handed out before the rest, so that the run does not end with one
# worker on a long module while the others wait (xdist orders by the number of tests, and a few
# tests of minutes each would come last).
LONGEST_FIRST = ("test_shacl_engines.py", "trustgraph", "test_reference_engine_bounds.py",
                 "test_component_parameters.py", "test_gateway_hostile.py", "docs-site", "test_cluster.py")


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist's: unknown under -p no:xdist
def pytest_configure(config):
    """The package compiled to bytecode once, before the workers start. Where the environment sets
    PYTHONDONTWRITEBYTECODE (these machines do), each of the hundreds of tg-trace processes the
    tests start compiled the package's modules anew, a tenth of a second or more each time;
    compileall writes the bytecode the processes then read."""
    if not hasattr(config, "workerinput"):
        import compileall

        compileall.compile_dir(str(ROOT / "validators" / "tgtrace"), quiet=1)


def pytest_xdist_make_scheduler(config, log):
    """--dist loadfile, with the modules of ``SHARED_WORKER`` sent to a worker together; any other
    --dist is xdist's own."""
    if config.getoption("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class SharedWorkerScheduling(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            module = super()._split_scope(nodeid)  # tests/test_x.py
            return SHARED_WORKER.get(module.rsplit("/", 1)[-1], module)

        def _assign_work_unit(self, node) -> None:
            waiting = {scope.rsplit("/", 1)[-1]: scope for scope in self.workqueue}
            longest = next((waiting[name] for name in LONGEST_FIRST if name in waiting), None)
            if longest is not None:
                self.workqueue.move_to_end(longest, last=False)
            super()._assign_work_unit(node)

    return SharedWorkerScheduling(config, log)


def example_traces(suffix: str) -> list[Path]:
    found = sorted(EXAMPLES.glob(f"*{suffix}"))
    # A check that matched no file validates nothing: fail instead.
    assert found, f"no example traces *{suffix} under {EXAMPLES}"
    return found


def shapes_with_rule(folder: Path, rule: str) -> Path:
    """A contributor's copy of the packaged shapes in ``folder``, with ``rule`` (Turtle) added to
    agent.ttl, as CONTRIBUTING's "adding a rule" does: what TG_TRACE_SHAPES then names."""
    shutil.copytree(ROOT / "shapes", folder)
    with open(folder / "agent.ttl", "a", encoding="utf-8") as handle:
        handle.write(rule)
    return folder


@pytest.fixture
def examples_dir() -> Path:
    return EXAMPLES


def _restore(environment: dict) -> None:
    if os.environ != environment:
        os.environ.clear()
        os.environ.update(environment)


@pytest.fixture(autouse=True, scope="module")
def _environment_of_one_module_only():
    """The environment as it was before the module's own fixtures: a module-scoped one (test_cluster's
    Dask cluster) is set up before any test's, and would otherwise leave what it wrote to the
    modules after it."""
    environment = dict(os.environ)
    yield
    _restore(environment)


@pytest.fixture(autouse=True)
def _process_state_of_one_test_only():
    """What a test leaves in its process is not the next test's. A token a command conceals (for the
    rest of its process, as a command should): else a token such as "wrong" hides every "wrong" of
    the findings after it. The environment: a library may write into it (Dask's nannies did
    MALLOC_TRIM_THRESHOLD_, which made every tg-trace started after a cluster test three times slower)."""
    environment = dict(os.environ)
    yield
    forget_secrets()
    _restore(environment)
