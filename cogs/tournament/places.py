"""Places gone: a tournament's channel deleted, or its server left, ends it as its organiser's
``/tournament-admin end`` would; a match's thread deleted stops its clock and asks the organiser for
its result. Also what went while the bot was down, noticed at READY."""

from __future__ import annotations

import contextlib
import logging

import discord
from discord.ext import commands

from bot.services.errors import UserError
from bot.store.tournaments.records import TournamentRecord

from .posting import TablesBase

log = logging.getLogger(__name__)


class PlacesGone(TablesBase):
    """The tables' answers to channels, threads and servers that are gone."""

    @commands.Cog.listener()
    async def on_guild_channel_delete(self, channel: discord.abc.GuildChannel) -> None:
        """A tournament's channel was deleted: nobody can sign up, report or end it there any
        more, so it ends as its organiser's ``/tournament-admin end`` would, rather than counting as
        open (against the organiser's and the server's caps) for ever."""
        tournament = await self.bot.db.tournaments.open_in_channel(channel.id)
        if tournament is not None:
            await self._end_gone(tournament, "its channel was deleted")

    @commands.Cog.listener()
    async def on_raw_thread_delete(self, payload: discord.RawThreadDeleteEvent) -> None:
        """A match's thread was deleted: its show-up clock stops (nobody could check in) and
        the organiser is asked to report its result."""
        await self._thread_gone(payload.thread_id)

    @commands.Cog.listener()
    async def on_guild_remove(self, guild: discord.Guild) -> None:
        """The bot left a server: its tournaments end as on their channel's deletion (their
        match games with them), rather than counting as open for ever."""
        for tournament in await self.bot.db.tournaments.open_of_guild(guild.id):
            await self._end_gone(tournament, "the bot left its server")

    async def _thread_gone(self, thread_id: int) -> None:
        """A match's thread is gone: stop its clock and ask the organiser for its result."""
        gone = await self.service.thread_gone(thread_id)
        if gone is not None:
            match, snapshot = gone
            self.disarm(match.id)
            await self._ask_organiser(snapshot, match, "The thread of {match} was deleted.")

    async def _threads_gone(self) -> None:
        """At READY: open matches' threads deleted while the bot was down (Discord sent no
        deletion) are gone as on a deletion, looked up as the game tables' are."""
        for guild_id, threads in (await self.service.open_threads()).items():
            for thread_id in await self.bot.table.unknown_places(guild_id, threads):
                await self._thread_gone(thread_id)

    @commands.Cog.listener()
    async def on_shard_ready(self, shard_id: int) -> None:
        """One shard's new session after the bot was ready (no ``on_ready`` then): the
        tournaments of that shard's servers that removed the bot meanwhile end."""
        if self.bot.is_ready():
            await self._end_left(shard_id)

    async def _end_left(self, shard_id: int | None = None) -> None:
        """End the tournaments of servers not among the bot's guilds (they removed it while it
        was down, and Discord sends no removal then), and those whose channel Discord no longer
        knows (deleted while the bot was down). ``shard_id``: only that shard's, at its READY."""
        table = self.bot.table
        present = table.present_guilds(shard_id)
        if present is None:
            return
        for tournament in await self.bot.db.tournaments.open_all():
            if shard_id is not None and table.shard_of(tournament.guild_id) != shard_id:
                continue
            if tournament.guild_id not in present:
                await self._end_gone(tournament, "the bot left its server while it was down")
            elif await self.bot.table.unknown_places(tournament.guild_id, [tournament.channel_id]):
                await self._end_gone(tournament, "its channel was deleted while the bot was down")

    async def _end_gone(self, tournament: TournamentRecord, why: str) -> None:
        """End a tournament nobody can reach any more, as its organiser's end would."""
        with contextlib.suppress(UserError):  # it ended meanwhile
            progress = await self.service.end(tournament.id, tournament.organiser_id, True)
            log.info("Tournament %d ended: %s", tournament.id, why)
            await self.publish(progress)
