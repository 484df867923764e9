"""The shared ``/sequence`` group, and the base of every feature cog whose commands join it."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

import discord
from discord import app_commands
from discord.ext import commands

from .common.answering import answer_errors

if TYPE_CHECKING:
    from bot.app import SequenceBot
    from bot.store.games.records import GameRecord

#: The ``extras`` key of a ``/sequence`` subcommand that also answers in direct messages.
IN_DMS = "in_dms"

NOT_IN_DMS = "Sequence is played in a server channel or thread, not in DMs."

#: A game event a cog answers, and its handler.
Subscription = tuple[type[Any], Callable[[Any], Awaitable[None]]]

CommandT = TypeVar("CommandT", bound=app_commands.Command[Any, ..., Any])


def works_in_dms(command: CommandT) -> CommandT:
    """Let a ``/sequence`` subcommand answer in DMs too (put it above ``@app_commands.command``)."""
    command.extras[IN_DMS] = True
    return command


def server_id(interaction: discord.Interaction) -> int:
    """The server of a command that runs only in servers (a ``/sequence`` subcommand not
    marked :func:`works_in_dms`, or a guild-only command)."""
    if interaction.guild_id is None:
        raise app_commands.NoPrivateMessage(NOT_IN_DMS)
    return interaction.guild_id


class SequenceGroup(app_commands.Group):
    """``/sequence``: one slash-command group that several feature cogs fill.

    Discord decides where a command can be used (servers, DMs) for a whole top-level command
    only. A few subcommands are useful in DMs (the rules, the turn-DM setting, your games), so
    the group is offered in DMs, and there it refuses every subcommand not marked
    :func:`works_in_dms`, with :data:`NOT_IN_DMS`.
    """

    def __init__(self) -> None:
        super().__init__(name="sequence", description="Play Sequence, the card-and-chip board game")

    async def interaction_check(self, interaction: discord.Interaction) -> bool:
        command = interaction.command
        if interaction.guild_id is None and not (command and command.extras.get(IN_DMS)):
            raise app_commands.NoPrivateMessage(NOT_IN_DMS)
        return True


class SequenceSubgroup(app_commands.Group):
    """A group of ``/sequence`` subcommands (``/sequence find ...``). discord.py asks only a
    command's own group whether it may run, not the group above: this one refuses DMs as
    :class:`SequenceGroup` does."""

    interaction_check = SequenceGroup.interaction_check


class SequenceCog(commands.Cog):
    """A feature cog: its app commands are subcommands of the shared ``/sequence`` group.

    What a cog adds to the bot is added when it loads and removed when it unloads, so that
    ``reload_extension`` works: its subcommands (to the group), its persistent :attr:`components`
    (``bot.add_dynamic_items``), its :meth:`board_button` (under every board message)
    and its :meth:`subscriptions` (game events, on ``bot.bus``).
    The failures of its subcommands are answered in one place (:mod:`cogs.common.answering`):
    a command raises a ``UserError``, and the user reads its text.
    A subclass that overrides :meth:`cog_load` or :meth:`cog_unload` calls ``super()``.
    """

    #: The persistent components (``DynamicItem`` classes) whose clicks this cog answers.
    components: ClassVar[tuple[type[discord.ui.DynamicItem[Any]], ...]] = ()

    #: A button this cog adds under a board message, or None (see :meth:`Table.board_view`).
    board_button: Callable[[GameRecord], discord.ui.Item[Any] | None] | None = None

    #: A button this cog adds under a game's final board, or None.
    final_board_button: Callable[[GameRecord], discord.ui.Item[Any] | None] | None = None

    def subscriptions(self) -> list[Subscription]:
        """The game events this cog answers while it is loaded, each with its handler."""
        return []

    def __init__(self, bot: SequenceBot) -> None:
        self.bot = bot
        # discord.py would add the cog's app commands to the tree as top-level commands when it
        # loads: these are subcommands of the shared group instead, so the cog keeps them here
        # and hands them to the group itself (discord.py's GroupCog makes one group per cog).
        self.subcommands = list(self.__cog_app_commands__)
        self.__cog_app_commands__ = []
        answer_errors(*self.subcommands)

    async def cog_load(self) -> None:
        group = self.bot.sequence_group
        for command in self.subcommands:
            group.add_command(command)
        self.bot.add_dynamic_items(*self.components)
        if self.board_button is not None:
            self.bot.table.board_buttons.append(self.board_button)
        if self.final_board_button is not None:
            self.bot.table.final_buttons.append(self.final_board_button)
        self.bot.bus.register(self)

    async def cog_unload(self) -> None:
        group = self.bot.sequence_group
        for command in self.subcommands:
            if group.get_command(command.name) is command:
                group.remove_command(command.name)
        self.bot.remove_dynamic_items(*self.components)
        if self.board_button is not None and self.board_button in self.bot.table.board_buttons:
            self.bot.table.board_buttons.remove(self.board_button)
        final = self.final_board_button
        if final is not None and final in self.bot.table.final_buttons:
            self.bot.table.final_buttons.remove(final)
        self.bot.bus.unregister(self)
