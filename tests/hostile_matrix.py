"""tg-trace's commands on hostile inputs, in one process (the hostile suite runs it under a 4 GB
limit: a segfault or a runaway parser ends it, which the suite then reports):

    python tests/hostile_matrix.py FILE [FLAG ...]     # every command on FILE, with the flags
    python tests/hostile_matrix.py --runs RUNS.json    # [{"args": [...], "stdin": FILE or null}, ...]

prints one JSON line per run: its arguments, exit status and standard error.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from click.testing import CliRunner
from tgtrace.cli import main

COMMANDS = (
    ("lint",), ("lint", "--format", "json"), ("lint", "--format", "sarif"), ("lint", "--format", "shacl"),
    ("lint", "--format", "html"), ("lint", "--statistics"), ("list",), ("list", "--format", "json"), ("show",),
    ("show", "--format", "json"), ("convert",), ("convert", "--to", "trig"), ("diff",), ("diff", "--format", "json"),
    ("diff", "--format", "markdown"), ("graph",),
)


def every_command(path: str, extra: list[str], folder: str) -> list[dict]:
    runs = []
    for command in COMMANDS:
        args = [*command, *extra]
        if command[0] == "diff":
            args += [path, path]
        elif command[0] == "graph":
            args += ["-o", str(Path(folder) / "trace.dot"), path]
        else:
            args.append(path)
        runs.append({"args": args, "stdin": None})
    return runs


def main_(argv: list[str]) -> int:
    runner = CliRunner()
    with tempfile.TemporaryDirectory() as folder:
        if argv[0] == "--runs":
            runs = json.loads(Path(argv[1]).read_text())
        else:
            runs = every_command(argv[0], argv[1:], folder)
        for one in runs:
            stdin = Path(one["stdin"]).read_bytes() if one.get("stdin") else None
            result = runner.invoke(main, one["args"], input=stdin)
            print(json.dumps({"args": one["args"], "status": result.exit_code, "stderr": result.stderr}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main_(sys.argv[1:]))
