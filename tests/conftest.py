from pathlib import Path

import pytest

# A real TrustGraph deployment, one per session, for the tests of what talks to a running TrustGraph.
from gateway_rig import trustgraph  # noqa: F401

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


def example_traces(suffix: str) -> list[Path]:
    found = sorted(EXAMPLES.glob(f"*{suffix}"))
    # A check that matched no file validates nothing: fail instead.
    assert found, f"no example traces *{suffix} under {EXAMPLES}"
    return found


@pytest.fixture
def examples_dir() -> Path:
    return EXAMPLES
