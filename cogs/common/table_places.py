"""The places of a game's table that are gone: a deleted channel or thread, a server that
removed the bot (also while it was down). Nobody can play there any more, so the games end
(cancelled, no result) and the lobbies close, rather than reminding and counting against their
players' caps for ever."""

from __future__ import annotations

import contextlib
import logging
from collections import defaultdict
from collections.abc import Iterable
from typing import TYPE_CHECKING

import discord

from bot.services.errors import UserError
from bot.store.shards import shard_of

if TYPE_CHECKING:
    from bot.app import SequenceBot
    from bot.store.games.records import GameRecord

log = logging.getLogger(__name__)

#: Discord's error code for a channel (or thread) it does not know: it was deleted.
UNKNOWN_CHANNEL = 10003


class TablePlaces:
    """The table's part that ends the games and lobbies of places that are gone."""

    bot: SequenceBot
    #: Per shard, the servers Discord announced since its current session's READY.
    announced: dict[int, set[int]]

    async def table_gone(self, channel_id: int) -> None:
        """The channel or thread of a game was deleted: nobody can play it any more, so it is
        cancelled (no result), rather than reminding its players and counting against their
        games for ever. An open lobby there is closed: nobody could join, start or cancel it,
        and it counted against its host's, its players' and the server's caps."""
        lobby = await self.bot.db.lobbies.get_for_channel(channel_id)
        if lobby is not None and lobby.match is None:  # a match: the organiser's
            await self.bot.lobbies.expire(lobby.id, channel_id)
            log.info("Lobby %d was closed: its channel was deleted", lobby.id)
        record = self.bot.games.find_in_channel(channel_id)
        if record is None:
            return
        if await self.bot.db.tournaments.match_for_game(record.id) is not None:
            # A cancelled match is replayed in its thread, which is gone: the organiser
            # decides the match (/tournament-admin report) instead.
            log.info("Game %d's match thread was deleted: left to the organiser", record.id)
            return
        with contextlib.suppress(UserError):  # it ended meanwhile
            await self.bot.games.cancel(record.id)
            log.info("Game %d was cancelled: its channel was deleted", record.id)

    async def threads_gone(self, channel: discord.abc.GuildChannel) -> None:
        """A channel that holds threads was deleted, and its threads with it. Discord announces
        only the channel, and discord.py only the threads it keeps (not an archived one), so
        each other table of the server whose channel is not known here is looked up: one that
        Discord no longer knows went with the channel, and is gone as on a deletion."""
        if not isinstance(channel, (discord.TextChannel, discord.ForumChannel)):
            return
        await self.places_gone(channel.guild.id)

    async def server_gone(self, guild_id: int) -> None:
        """The bot left a server (it was removed, or the server deleted): nobody can play its
        tables there any more, so each is gone as on a deletion, rather than its games
        reminding and timing out for ever and counting against their players' caps."""
        for channel_id in sorted(await self._places(guild_id)):
            await self.table_gone(channel_id)
        self.bot.ratings.forget(guild_id)
        await self.bot.server_settings.forget_server(guild_id)

    async def servers_left(self, shard_id: int | None = None) -> None:
        """At READY (a new session): a server whose tables or settings this process serves but
        which is not among the bot's guilds removed the bot while it was down (Discord then
        sends no removal), and is gone as on a removal. A server in an outage is among the guilds,
        unavailable, and keeps its tables. ``shard_id``: only that shard's servers, at its own
        READY (:meth:`present_guilds`)."""
        present = self.present_guilds(shard_id)
        if present is None:
            return
        places = await self._places_by_server()
        known = places.keys() | await self.bot.server_settings.configured_servers()
        if shard_id is not None:
            places = {g: p for g, p in places.items() if self.shard_of(g) == shard_id}
            known = {g for g in known if self.shard_of(g) == shard_id}
        for guild_id in sorted(known - present):
            log.info("Server %d removed the bot while it was down: its tables end", guild_id)
            await self.server_gone(guild_id)
        for guild_id in sorted(places.keys() & present):
            await self.places_gone(guild_id, places[guild_id])

    async def places_gone(self, guild_id: int, places: set[int] | None = None) -> None:
        """The tables of a server whose channel or thread is not known here and that Discord
        no longer knows either were deleted (while the bot was down, say): each is gone as on
        a deletion, even a game that would never post again to find out. ``places``: the
        server's tables, if already read (:meth:`_places`)."""
        if places is None:
            places = await self._places(guild_id)
        for channel_id in await self.unknown_places(guild_id, places):
            await self.table_gone(channel_id)

    async def unknown_places(self, guild_id: int, places: Iterable[int]) -> list[int]:
        """Those of a server's channels and threads ``places`` not known here that Discord no
        longer knows either: deleted (while the bot was down, say); none while the server is
        unavailable."""
        guild = self.bot.get_guild(guild_id)
        if guild is None or guild.unavailable:
            return []
        return [
            channel_id
            for channel_id in sorted(places)
            if guild.get_channel_or_thread(channel_id) is None and await self._unknown(channel_id)
        ]

    def present_guilds(self, shard_id: int | None = None) -> set[int] | None:
        """The ids of the bot's guilds on this process's shards (None if unknown: without the
        guilds intent, discord.py keeps none). ``shard_id``: of that shard after its READY of
        a new session: discord.py keeps the guilds of the shard's previous session (a server
        that removed the bot meanwhile among them), so only those Discord announced since
        that READY, and those it says are unavailable (an outage), are present."""
        if not self.bot.intents.guilds:
            return None
        if shard_id is None:
            return {guild.id for guild in self.bot.guilds}
        announced = self.announced.get(shard_id, set())
        return {
            guild.id
            for guild in self.bot.guilds
            if guild.shard_id == shard_id and (guild.unavailable or guild.id in announced)
        }

    def shard_connected(self, shard_id: int) -> None:
        """A shard's new session began (its READY): the servers it announces are counted anew."""
        self.announced[shard_id] = set()

    def guild_announced(self, guild: discord.Guild) -> None:
        """Discord sent a server (as available, or joined) on its shard's current session."""
        self.announced.setdefault(guild.shard_id, set()).add(guild.id)

    def shard_of(self, guild_id: int) -> int:
        """The shard of a server, on this bot's shard count."""
        return shard_of(guild_id, self.bot.shard_count or 1)

    async def _places(self, guild_id: int) -> set[int]:
        """The channels and threads of a server's active games (of this process) and open
        lobbies."""
        return (await self._places_by_server()).get(guild_id, set())

    async def _places_by_server(self) -> dict[int, set[int]]:
        """:meth:`_places` of every server this process has tables in, read once."""
        places: dict[int, set[int]] = defaultdict(set)
        for record in self.bot.games.records.values():
            places[record.guild_id].add(record.channel_id)
        for lobby in await self.bot.db.lobbies.list_all():
            places[lobby.guild_id].add(lobby.channel_id)
        return places

    async def _unknown(self, channel_id: int) -> bool:
        """True when Discord says it does not know the channel or thread (it was deleted)."""
        try:
            await self.bot.fetch_channel(channel_id)
        except discord.NotFound as error:
            return error.code == UNKNOWN_CHANNEL
        except discord.HTTPException:
            return False
        return False

    async def _refused(self, record: GameRecord, error: discord.HTTPException) -> None:
        """After a post Discord refused: a channel it no longer knows was deleted (while the
        bot was down, say, so that no deletion was heard), and the game is cancelled as on a
        deletion."""
        if isinstance(error, discord.NotFound) and error.code == UNKNOWN_CHANNEL:
            await self.table_gone(record.channel_id)
