"""The command-line reference: the help of ``tg-trace`` and of each of its commands, as it prints them."""

from __future__ import annotations

import click

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
