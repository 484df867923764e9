"""Which tournament a command speaks about: the one of its channel (a match thread counts as
its parent channel)."""

from __future__ import annotations

import discord

from bot.services.tournament import TournamentService
from bot.store.tournaments.records import TournamentRecord


def tournament_channel_id(interaction: discord.Interaction) -> int:
    """The channel a command speaks about: a match thread counts as its parent channel."""
    channel = interaction.channel
    if isinstance(channel, discord.Thread) and channel.parent_id:
        return channel.parent_id
    return interaction.channel_id or 0


async def current_tournament(
    service: TournamentService, interaction: discord.Interaction, *, latest: bool = False
) -> TournamentRecord:
    """The open tournament of this channel (or of the thread's channel); with ``latest``,
    the last one held there if none is open."""
    channel_id = tournament_channel_id(interaction)
    if latest:
        return await service.latest_for_channel(channel_id)
    return await service.for_channel(channel_id)
