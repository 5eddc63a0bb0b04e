"""The command-line reference: the help of ``tg-trace`` and of each of its commands, as it prints them;
the output formats as the format registry lists them, and the configuration keys as the options table
declares them."""

from __future__ import annotations

import click
from tgtrace.formats import KINDS, REPORT, of_kind
from tgtrace.run.options import KEYS

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
    """<!-- tgdocs:formats [KIND] -->: a table of every registered format of a kind (report, the
    default: lint's --format; live: watch's; view: list's and show's; rdf: convert's --to) and what
    it is for; <!-- tgdocs:formats [KIND] names -->: their names in a sentence."""
    kinds = [a for a in args if a in KINDS]
    kind = kinds[0] if kinds else REPORT
    registered = of_kind(kind)
    if "names" in args:
        names = [f"`{name}`" for name in registered]
        return f"{', '.join(names[:-1])} and {names[-1]}"
    option = "--to" if kind == "rdf" else "--format"
    rows = [f"| `{f.name}` | {f.help} |" for f in registered.values()]
    return "\n".join([f"| `{option}` | for |", "| --- | --- |", *rows])


def config_keys_directive(context: Context, args, options, src: str) -> str:
    """<!-- tgdocs:config-keys -->: every key of the configuration file, as the options table declares it."""
    rows = [f"| `{key}` | {option.key_help} |" for key, option in KEYS.items()]
    return "\n".join(["| key | value |", "| --- | --- |", *rows])


DIRECTIVES = {
    "formats": formats_directive,
    "config-keys": config_keys_directive,
}
