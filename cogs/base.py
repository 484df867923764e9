"""The base of every feature cog whose slash commands are subcommands of ``/sequence``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from discord.ext import commands

if TYPE_CHECKING:
    from bot.app import SequenceBot


class SequenceCog(commands.Cog):
    """A feature cog: its app commands join the shared ``/sequence`` group.

    discord.py gives each cog its own top-level commands; one ``/sequence`` group shared by
    several feature cogs is made by moving the cog's bound commands into the group here.
    """

    def __init__(self, bot: SequenceBot) -> None:
        self.bot = bot
        for command in self.__cog_app_commands__:
            bot.sequence_group.add_command(command)
        self.__cog_app_commands__ = []
