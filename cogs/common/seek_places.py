"""Where a table ``/sequence find`` seated opens: the server's games place (the first text
channel of ``table_channels``; a thread of its own there with ``thread_tables``), else the
channel where the last of its seekers asked. A text channel that already holds a lobby or a
game gives the table a thread of its own instead (one table per channel or thread)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord

from bot.services.errors import UserError

from .own_threads import open_own_thread
from .table_channels import live_places

if TYPE_CHECKING:
    from bot.app import SequenceBot
    from bot.services.server_settings import TablePlaces


def games_channel(guild: discord.Guild, places: TablePlaces, asked_in: int) -> Any:
    """The channel the table goes to (before any thread of its own): the first text channel
    the server lists for tables (a listed category's first), else where the seeker asked."""
    for place in live_places(guild, places.channels):
        inside = place.text_channels if isinstance(place, discord.CategoryChannel) else [place]
        for channel in inside:
            if isinstance(channel, discord.TextChannel):
                return channel
    channel = guild.get_channel_or_thread(asked_in)
    if channel is None:
        raise UserError("The channel where the table was to open is gone.")
    return channel


async def busy(bot: SequenceBot, channel_id: int) -> bool:
    """Whether a lobby or a game holds the channel."""
    if await bot.db.lobbies.get_for_channel(channel_id) is not None:
        return True
    return await bot.db.games.active_for_channel(channel_id) is not None


async def table_place(
    bot: SequenceBot, guild: discord.Guild, places: TablePlaces, asked_in: int, host_name: str
) -> tuple[Any, bool]:
    """The channel or thread where the seekers' table opens, and whether it is a thread of
    its own (made here). Discord's refusals of a thread: a clear :class:`UserError`."""
    channel = games_channel(guild, places, asked_in)
    is_text = isinstance(channel, discord.TextChannel) and not channel.is_news()
    if is_text and (places.threads or await busy(bot, channel.id)):
        return await open_own_thread(bot, channel, host_name), True
    return channel, False
