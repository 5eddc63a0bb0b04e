import shutil
from pathlib import Path

import pytest

# Fixtures shared by several test modules, registered as plugins so that a test names them as
# parameters without importing them: a real TrustGraph deployment, one per session, for the tests
# of what talks to a running TrustGraph (gateway_rig); the example traces and reports of the
# output-format tests (formats_support).
pytest_plugins = ["gateway_rig", "formats_support"]

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


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
