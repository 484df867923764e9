"""Tournaments on Discord: the ``/tournament`` commands and the match tables they run."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.services.tournament import TournamentService

from .commands import TournamentCommands
from .tables import TournamentTables

if TYPE_CHECKING:
    from bot.app import SequenceBot


async def setup(bot: SequenceBot) -> None:
    """Load the two cogs around one service (seeded by the bot's ratings)."""
    service = TournamentService(bot.db, bot.clock, bot.games, bot.ratings)
    bot.tournament_service = service
    tables = TournamentTables(bot, service)
    await bot.add_cog(tables)
    await bot.add_cog(TournamentCommands(bot, service, tables))
