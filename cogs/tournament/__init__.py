"""Tournaments on Discord: the entrants' ``/tournament`` commands, the organisers'
``/tournament-admin``, and the match tables they run."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.services.tournament import TournamentService

from .entrants import TournamentEntrants
from .organisers import TournamentOrganisers
from .tables import TournamentTables

if TYPE_CHECKING:
    from bot.app import SequenceBot


async def setup(bot: SequenceBot) -> None:
    """Load the three cogs around one service (seeded by the bot's ratings)."""
    service = TournamentService(bot.db, bot.clock, bot.games, bot.ratings)
    bot.tournament_service = service
    tables = TournamentTables(bot, service)
    await bot.add_cog(tables)
    await bot.add_cog(TournamentEntrants(bot, service, tables))
    await bot.add_cog(TournamentOrganisers(bot, service, tables))
