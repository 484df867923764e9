"""``sequence-bot commands``: the live slash commands and the options of ``/sequence new``.

The bot is started in SimCord (offline) so that every cog registers its commands; the README's
tables are printed from that tree (``--markdown``), so they never drift from the code.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import re
import sys
import tempfile
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import discord
from discord import app_commands

from bot.app import create_bot
from bot.config import Settings

from .codes import OK, USAGE

#: The command whose options are the table's house options.
NEW_GAME = "sequence new"


@dataclass(frozen=True)
class Option:
    """One option of a slash command."""

    name: str
    description: str
    required: bool
    default: str
    choices: tuple[str, ...]


@dataclass(frozen=True)
class Command:
    """One command as a user finds it: a slash command or a context menu entry."""

    name: str
    description: str
    kind: str
    options: tuple[Option, ...]

    def usage(self) -> str:
        """``/sequence play <card> <space>``, or a context menu entry's name."""
        if self.kind != "chat_input":
            return self.name
        parts = [f"/{self.name}"]
        if len(self.options) > 3:
            parts.append("[options]")
        else:
            parts += [f"<{o.name}>" if o.required else f"[{o.name}]" for o in self.options]
        return " ".join(parts)


def tree_commands(tree: app_commands.CommandTree) -> list[Command]:
    """Every invocable command of ``tree`` (subcommands of groups, and context menus)."""
    found = []
    for kind in (
        discord.AppCommandType.chat_input,
        discord.AppCommandType.user,
        discord.AppCommandType.message,
    ):
        for command in tree.walk_commands(type=kind):
            if isinstance(command, app_commands.Group):
                continue
            if isinstance(command, app_commands.ContextMenu):
                where = f"Right-click a {kind.name} › Apps › {command.name}"
                found.append(Command(command.name, where, kind.name, ()))
                continue
            options = tuple(_option(p) for p in command.parameters)
            found.append(Command(command.qualified_name, command.description, kind.name, options))
    # The game's own commands first, then other groups; context menus last.
    found.sort(key=lambda c: (c.kind != "chat_input", c.name.split()[0] != "sequence"))
    return found


def _option(parameter: app_commands.Parameter) -> Option:
    default = "" if parameter.required else _default_text(parameter.default)
    named = [c.name for c in parameter.choices if c.value == parameter.default]
    if named and not parameter.required:
        default = named[0]
    return Option(
        parameter.name,
        parameter.description if parameter.description != "…" else "",
        parameter.required,
        default,
        tuple(choice.name for choice in parameter.choices),
    )


def _default_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


async def live_commands() -> list[Command]:
    """Start the real bot in SimCord, offline, and read its command tree."""
    import simcord

    with tempfile.TemporaryDirectory(prefix="sequence-commands-") as tmp:
        bot = create_bot(Settings(database_path=Path(tmp) / "commands.db"))
        async with simcord.run(bot):
            try:
                return tree_commands(bot.tree)
            finally:
                await bot.close()


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def commands_table(commands: list[Command]) -> str:
    """The README's command table (Markdown)."""
    rows = ["| Command | What it does |", "| --- | --- |"]
    for command in commands:
        what = command.description
        usage = f"`{command.usage()}`" if command.kind == "chat_input" else command.usage()
        rows.append(f"| {_cell(usage)} | {_cell(what)} |")
    return "\n".join(rows)


def options_table(commands: list[Command], name: str = NEW_GAME) -> str:
    """The options of ``/sequence new`` (the house options) as a Markdown table."""
    command = next(c for c in commands if c.name == name)
    rows = ["| Option | What it sets | Choices | Default |", "| --- | --- | --- | --- |"]
    for option in command.options:
        choices = ", ".join(option.choices) or "—"
        rows.append(
            f"| `{option.name}` | {_cell(option.description)} | {_cell(choices)} "
            f"| {_cell(option.default) or '—'} |"
        )
    return "\n".join(rows)


def _fill(table: str, block: re.Match[str]) -> str:
    """A generated block's markers around ``table``."""
    return f"{block.group(1)}{table}\n{block.group(2)}"


def update_readme(text: str, commands: list[Command]) -> str:
    """``text`` with its ``<!-- commands -->`` and ``<!-- options -->`` tables regenerated."""
    for marker, table in (
        ("commands", commands_table(commands)),
        ("options", options_table(commands)),
    ):
        pattern = re.compile(rf"(<!-- {marker}:.*?-->\n).*?(<!-- /{marker} -->)", re.S)
        if not pattern.search(text):
            raise ValueError(f"no <!-- {marker}: ... --> ... <!-- /{marker} --> block")
        text = pattern.sub(partial(_fill, table), text)
    return text


def commands_command(args: argparse.Namespace) -> int:
    """Print the commands (plain, or the README's Markdown tables), or refresh the README."""
    from .offline import simcord_missing

    missing = simcord_missing("`sequence-bot commands`")
    if missing:
        print(missing, file=sys.stderr)
        return USAGE
    logging.getLogger("discord").setLevel(logging.ERROR)
    commands = asyncio.run(live_commands())
    if args.write_readme is not None:
        path: Path = args.write_readme
        try:
            path.write_text(update_readme(path.read_text("utf-8"), commands), "utf-8")
        except (OSError, ValueError) as error:  # missing, a folder, not UTF-8, no tables
            reason = getattr(error, "strerror", None) or str(error)
            print(f"error: cannot update {path}: {reason}.", file=sys.stderr)
            return USAGE
        print(f"Updated the command and option tables in {path}")
        return OK
    if args.markdown:
        print(commands_table(commands))
        print()
        print(options_table(commands))
        return OK
    width = max(len(c.usage()) for c in commands)
    for command in commands:
        print(f"{command.usage():<{width}}  {command.description}")
    return OK
