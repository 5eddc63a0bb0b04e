"""What a default run loads: only what it uses, since every module loaded is start-up time."""

import json
import subprocess
import sys

from conftest import EXAMPLES

# Loaded only by the runs that use them: --engine shacl, --jobs, colour, a progress bar,
# list/show, and the other output formats.
NOT_FOR_A_DEFAULT_RUN = ("tgtrace.shacl.reference", "pyshacl", "concurrent.futures.process", "rich",
                         "tgtrace.formats.listshow", "tgtrace.formats.html", "tgtrace.formats.sarif")

# The command's own function (the console script's entry ends the process at once, before the
# modules could be listed): it loads what the command loads.
_RUN = """
import json, sys
sys.argv = ["tg-trace", "lint", sys.argv[1], "--no-config", "--no-color", "--no-progress"]
from tgtrace.cli import main
try:
    main()
except SystemExit as end:
    code = end.code
sys.stderr.write(json.dumps({"code": code, "loaded": sorted(sys.modules)}))
"""


def test_a_default_lint_loads_neither_the_reference_engine_nor_rich():
    result = subprocess.run([sys.executable, "-c", _RUN, str(EXAMPLES / "graph-rag.nq")],
                            capture_output=True, text=True)
    outcome = json.loads(result.stderr)
    assert outcome["code"] == 0 and "all clean" in result.stdout
    assert "tgtrace.formats.text" in outcome["loaded"]
    assert [name for name in NOT_FOR_A_DEFAULT_RUN if name in outcome["loaded"]] == []
