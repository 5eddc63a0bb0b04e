"""The command-line reference: the help of ``tg-trace`` and of each of its commands, as it prints them,
and the output formats as the format registry lists them."""

from __future__ import annotations

import click
from tgtrace.formats import FORMATS

from ..context import Context

SRC = "cli.md"
WIDTH = 88


def pages(context: Context, main: click.Group) -> dict[str, str]:
    root = click.Context(main, info_name="tg-trace", terminal_width=WIDTH, max_content_width=WIDTH)
    commands = []
    for name in sorted(getattr(main, "commands", {})):
        command = main.commands[name]
        if getattr(command, "hidden", False):
            continue
        ctx = click.Context(command, info_name=name, parent=root, terminal_width=WIDTH, max_content_width=WIDTH)
        commands.append((name, command.get_help(ctx)))
    return {SRC: context.render("cli.md.j2", SRC, main_help=main.get_help(root), commands=commands)}


def formats_directive(context: Context, args, options, src: str) -> str:
    """<!-- tgdocs:formats -->: a table of every registered --format and what it is for;
    <!-- tgdocs:formats names -->: their names in a sentence."""
    if "names" in args:
        names = [f"`{name}`" for name in FORMATS]
        return f"{', '.join(names[:-1])} and {names[-1]}"
    rows = [f"| `{f.name}` | {f.help} |" for f in FORMATS.values()]
    return "\n".join(["| `--format` | for |", "| --- | --- |", *rows])


DIRECTIVES = {
    "formats": formats_directive,
}
