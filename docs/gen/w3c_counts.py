"""Write docs/gen/w3c-pass-counts.json: per constraint component, how many W3C SHACL
test-suite cases each engine passes, for the "Constraint components" page.

    python docs/gen/w3c_counts.py            # rewrite the file
    python docs/gen/w3c_counts.py --check    # exit 1 when the file is out of date

The counts come from tests/w3c_suite.py (``pass_counts``), the runner the W3C
tests use; running it takes a few seconds, so the docs build reads this file
instead and never imports from tests/. tests/test_docs_components.py fails
when the file no longer matches what the engines do, so the page cannot lie.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
OUTPUT = HERE / "w3c-pass-counts.json"
ENGINES = ("fast", "reference")

sys.path.insert(0, str(ROOT / "tests"))
from w3c_suite import pass_counts  # noqa: E402  (tests/ is not a package)


def counts() -> dict[str, dict[str, list[int]]]:
    """Engine name -> component IRI -> [cases passed, cases run]."""
    return {engine: {component: list(pair) for component, pair in pass_counts(engine).items()} for engine in ENGINES}


def text(data: dict) -> str:
    """JSON with one component per line, so that a change reads as a one-line diff."""
    engines = []
    for engine in sorted(data):
        rows = [f"    {json.dumps(c)}: {json.dumps(pair)}" for c, pair in sorted(data[engine].items())]
        engines.append(f"  {json.dumps(engine)}: {{\n" + ",\n".join(rows) + "\n  }")
    return "{\n" + ",\n".join(engines) + "\n}\n"


def main(argv: list[str]) -> int:
    wanted = text(counts())
    if "--check" in argv:
        current = OUTPUT.read_text(encoding="utf-8") if OUTPUT.exists() else ""
        if current != wanted:
            print(f"{OUTPUT.relative_to(ROOT)} is out of date: run python {(HERE / Path(__file__).name).relative_to(ROOT)}")
            return 1
        return 0
    OUTPUT.write_text(wanted, encoding="utf-8")
    print(f"wrote {OUTPUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
