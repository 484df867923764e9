"""Ending a game early: ``/sequence resign`` (a team resigns when all its members have) and
``/sequence cancel`` (the host or a moderator, :func:`~cogs.common.permissions.moderates`; also
closes an open lobby); and what a server's changes do to its tables (a channel deleted,
permissions changed, a ban)."""

from __future__ import annotations

import logging

import discord
from discord import app_commands
from discord.ext import commands

from bot.app import SequenceBot
from bot.services.errors import UserError
from bot.store.games.records import GameRecord

from .base import SequenceCog
from .common.describe import listed, team_label
from .common.permissions import moderates
from .common.replies import reply
from .lobby import Lobby
from .tournament.authority import authority

log = logging.getLogger(__name__)


class Endings(SequenceCog):
    """Resigning and cancelling."""

    @app_commands.command(
        name="resign", description="Resign; your team resigns when all its players have"
    )
    async def resign(self, interaction: discord.Interaction[SequenceBot]) -> None:
        record = self.bot.games.for_channel(interaction.channel_id or 0)
        result = await self.bot.games.vote_resign(record.id, interaction.user.id)
        team = record.game.team_of(self.bot.games.require_seat(record, interaction.user.id))
        if result.outcome is None:
            waiting = listed([f"<@{uid}>" for uid in result.waiting_for])
            verb = "uses" if len(result.waiting_for) == 1 else "use"
            await reply(
                interaction,
                f"🏳️ <@{interaction.user.id}> wants {team_label(team)} to resign. "
                f"The team resigns when {waiting} also {verb} `/sequence resign`.",
                ephemeral=False,
            )
            return
        await reply(interaction, f"🏳️ {team_label(team)} resigns.", ephemeral=False)

    @app_commands.command(
        name="cancel", description="Cancel the lobby or game here (host or a moderator)"
    )
    async def cancel(self, interaction: discord.Interaction[SequenceBot]) -> None:
        channel_id = interaction.channel_id or 0
        moderator = await moderates(interaction)
        record = self.bot.games.find_in_channel(channel_id)
        if record is None:
            lobby = await self.bot.lobbies.cancel(channel_id, interaction.user.id, moderator)
            await reply(interaction, "🚪 The lobby was cancelled.", ephemeral=False)
            lobby_cog = self.bot.get_cog(Lobby.__cog_name__)
            if isinstance(lobby_cog, Lobby):
                await lobby_cog.close_message(lobby)
            return
        await self.require_may_cancel(interaction, record, moderator)
        await self.bot.games.cancel(record.id)
        await reply(
            interaction,
            f"🛑 Game #{record.id} was cancelled by <@{interaction.user.id}>. No result is recorded.",  # noqa: E501
            ephemeral=False,
        )

    async def require_may_cancel(
        self, interaction: discord.Interaction[SequenceBot], record: GameRecord, moderator: bool
    ) -> None:
        """The host or a moderator cancels a casual game. A tournament match's game is played
        again once cancelled, so only those who run the tournament may
        (:mod:`cogs.tournament.authority`): a player about to lose could otherwise have it
        replayed."""
        tournaments = self.bot.db.tournaments
        match = await tournaments.match_for_game(record.id)
        tournament = None if match is None else await tournaments.get(match.tournament_id)
        if tournament is not None:
            may = await authority(self.bot, interaction)
            may.require(
                tournament,
                interaction.user.id,
                "cancel a tournament match's game (it is then played again); "
                "a side that gives up uses `/sequence resign`",
            )
            return
        if interaction.user.id != record.options.host_id and not moderator:
            raise UserError("Only the host or a moderator can cancel the game.")

    @commands.Cog.listener()
    async def on_guild_channel_delete(self, channel: discord.abc.GuildChannel) -> None:
        await self.bot.table.table_gone(channel.id)
        await self.bot.table.threads_gone(channel)

    @commands.Cog.listener()
    async def on_guild_remove(self, guild: discord.Guild) -> None:
        await self.bot.table.server_gone(guild.id)

    @commands.Cog.listener()
    async def on_ready(self) -> None:
        """A new session (not a resume): servers that removed the bot meanwhile are gone, and
        tables paused for a thread unlocked meanwhile catch up."""
        await self.bot.table.servers_left()
        for guild in self.bot.guilds:
            await self.bot.table.threads_announced(guild)

    @commands.Cog.listener()
    async def on_shard_connect(self, shard_id: int) -> None:
        self.bot.table.shard_connected(shard_id)

    @commands.Cog.listener()
    async def on_guild_available(self, guild: discord.Guild) -> None:
        self.bot.table.guild_announced(guild)

    @commands.Cog.listener()
    async def on_guild_join(self, guild: discord.Guild) -> None:
        self.bot.table.guild_announced(guild)

    @commands.Cog.listener()
    async def on_shard_ready(self, shard_id: int) -> None:
        """One shard's new session after the bot was ready (with ``SHARD_COUNT``, a shard that
        reconnects fires no ``on_ready``): the servers of that shard that removed the bot
        while it was down are gone. At the first session, :meth:`on_ready` does it for all."""
        if self.bot.is_ready():
            await self.bot.table.servers_left(shard_id)
            for guild in self.bot.guilds:
                if guild.shard_id == shard_id:
                    await self.bot.table.threads_announced(guild)

    @commands.Cog.listener()
    async def on_raw_thread_delete(self, payload: discord.RawThreadDeleteEvent) -> None:
        await self.bot.table.table_gone(payload.thread_id)

    @commands.Cog.listener()
    async def on_guild_channel_update(
        self, before: discord.abc.GuildChannel, after: discord.abc.GuildChannel
    ) -> None:
        if before.overwrites != after.overwrites:
            self.bot.table.permissions_changed(after.guild.id)

    @commands.Cog.listener()
    async def on_raw_thread_update(self, payload: discord.RawThreadUpdateEvent) -> None:
        """A thread locked by a moderator pauses its table; unlocked, the table catches up."""
        locked = bool(payload.data.get("thread_metadata", {}).get("locked"))
        thread = payload.thread or self.bot.get_channel(payload.thread_id)
        await self.bot.table.thread_changed(
            payload.thread_id, locked=locked, may_manage=_may_manage(thread)
        )

    @commands.Cog.listener()
    async def on_thread_remove(self, thread: discord.Thread) -> None:
        """The bot was removed from a thread: a private one it can no longer post in pauses
        its table (a public one it still may post in). discord.py also says so of a thread
        that merely left its cache (archived, in a thread list sync): Discord is asked."""
        me = self.bot.user
        if not thread.is_private() or _may_manage(thread) or me is None:
            return
        try:
            await thread.fetch_member(me.id)
            return  # still a member
        except (discord.NotFound, discord.Forbidden):
            await self.bot.table.bot_in_thread(thread.id, member=False)
        except discord.HTTPException:
            return  # unknown for now: a refused post will tell

    @commands.Cog.listener()
    async def on_thread_join(self, thread: discord.Thread) -> None:
        """The bot was added (back) to a thread: its table catches up."""
        await self.bot.table.bot_in_thread(thread.id, member=True)

    @commands.Cog.listener()
    async def on_guild_role_update(self, before: discord.Role, after: discord.Role) -> None:
        if before.permissions != after.permissions:
            self.bot.table.permissions_changed(after.guild.id)

    @commands.Cog.listener()
    async def on_member_ban(self, guild: discord.Guild, user: discord.abc.User) -> None:
        """A player banned from the server can never move again: they leave their games there
        as a player removed for time does (their team plays on; the last of a team gone, the
        game ends), instead of being waited for for ever."""
        for game_id in await self.bot.games.leave_server(user.id, guild.id):
            log.info("Game %d: a banned player left the game", game_id)


def _may_manage(thread: object) -> bool:
    """True when the bot has Manage Threads in ``thread`` (it may post in a locked or private
    thread all the same); False when unknown."""
    if not isinstance(thread, discord.Thread) or thread.guild.me is None:
        return False
    return thread.permissions_for(thread.guild.me).manage_threads


async def setup(bot: SequenceBot) -> None:
    """Load the cog."""
    await bot.add_cog(Endings(bot))
