"""Find a game: ``/sequence find game``, ``/sequence find cancel`` and ``/sequence find
tables`` (the service: :mod:`bot.services.seeks`; the table's components:
:mod:`cogs.common.seek_message`; the listing: :mod:`cogs.common.open_tables`).

A seek's end (its wait run out) is a timer armed from the stored seek, again at start-up, so
a restart keeps it. A seeker banned from the server (or who leaves it, when the bot has the
members intent) is dropped from the queue.
"""

from __future__ import annotations

import contextlib
import logging
from functools import partial

import discord
from discord import app_commands
from discord.ext import commands

from bot.app import SequenceBot
from bot.services.errors import UserError
from bot.services.seek_steps import Match, SeekEnd
from bot.services.seeks import LIVE_WAIT, PLAYER_COUNTS, TURN_LIMITS, SeekRequest
from bot.store.lobbies import LobbyRecord
from bot.store.seeks import OFFERED, SeekRecord
from bot.table.options import format_duration

from .base import SequenceCog, SequenceSubgroup, server_id
from .common.answering import Answering
from .common.components import Components
from .common.lobby_message import game_begins_text, lobby_message
from .common.lookup import cog_of
from .common.open_tables import tables_embeds
from .common.permissions import live_role
from .common.replies import reply, user_name
from .common.seek_message import ComputerOfferButton, ReadyButton, seek_words
from .common.seek_places import table_place
from .common.table import PINGS
from .common.threads import edit_message
from .lobby import Lobby
from .turns import GONE

log = logging.getLogger(__name__)

PLAYER_CHOICES = [app_commands.Choice(name=str(n), value=n) for n in PLAYER_COUNTS]
SPEED_CHOICES = [
    app_commands.Choice(name=f"live ({format_duration(TURN_LIMITS['live'])} a turn)", value="live"),
    app_commands.Choice(name=f"slow ({format_duration(TURN_LIMITS['slow'])} a turn)", value="slow"),
]


def ordinal(place: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th``... (``11th`` to ``13th``)."""
    suffix = "th" if 10 <= place % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(place % 10, "th")
    return f"{place}{suffix}"


class ReadyClick(Answering, ReadyButton, custom_id=ReadyButton.ids.format):
    """Answers Ready on a seekers' table: the last one ready starts the game."""

    async def clicked(self, interaction: discord.Interaction) -> None:
        bot = cog_of(interaction, Find).bot
        channel_id = interaction.channel_id or 0
        lobby, everyone = await bot.lobbies.ready(channel_id, self.lobby_id, interaction.user.id)
        if everyone:
            record = await bot.lobbies.start(channel_id, lobby.host_id)
            await cog_of(interaction, Lobby).begin(interaction, record, edit=True)
            return
        embed, view = await lobby_message(bot.db, lobby)
        await interaction.response.edit_message(embed=embed, view=view)


class ComputerOfferClick(Answering, ComputerOfferButton, custom_id=ComputerOfferButton.ids.format):
    """Answers **Play a computer** under a live seek that found nobody."""

    async def clicked(self, interaction: discord.Interaction) -> None:
        cog = cog_of(interaction, Find)
        match = await cog.bot.seeks.accept_computer(self.seek_id, interaction.user.id)
        await interaction.response.defer(ephemeral=True, thinking=True)
        lobby = await cog.open_table(interaction.guild, match)
        bot = cog.bot
        ready, _ = await bot.lobbies.ready(lobby.channel_id, lobby.id, interaction.user.id)
        record = await bot.lobbies.start(lobby.channel_id, ready.host_id)
        if record.lobby_message_id:
            with contextlib.suppress(discord.HTTPException):
                await edit_message(
                    bot,
                    record.channel_id,
                    record.lobby_message_id,
                    content=game_begins_text(record),
                    embed=None,
                    view=None,
                )
        if interaction.message is not None:  # the offer is taken: its button goes
            with contextlib.suppress(discord.HTTPException):
                await interaction.message.edit(view=None)
        await reply(
            interaction, f"🤖 Your game against the computer begins in <#{lobby.channel_id}>."
        )


class Find(SequenceCog):
    """Seek players for a game, and see the server's open tables and seeks."""

    components = (ReadyClick, ComputerOfferClick)

    find = SequenceSubgroup(name="find", description="Find a game: seek players, see open tables")

    def __init__(self, bot: SequenceBot) -> None:
        super().__init__(bot)
        #: The steps being done in this process (an interaction's table), never done twice.
        self.doing: set[int] = set()

    async def cog_load(self) -> None:
        await super().cog_load()
        for seek in await self.bot.db.seeks.open_everywhere():
            self.schedule_end(seek)

    @commands.Cog.listener()
    async def on_ready(self) -> None:
        """Once the servers are known: do the seeks' steps a crash or a restart left undone
        (a match's table to open, an end to tell)."""
        for step in await self.bot.seeks.undelivered():
            if isinstance(step, SeekEnd):
                await self.tell_end(step)
                continue
            if step.step in self.doing:
                continue
            try:
                await self.open_table(self.bot.get_guild(step.guild_id), step)
            except UserError as error:  # the seekers wait again (open_table saw to it)
                log.info("A found table did not open at start-up: %s", error)

    def schedule_end(self, seek: SeekRecord) -> None:
        """End the seek when its wait runs out (armed again at start-up from the store)."""
        self.bot.scheduler.at(("seek", seek.id), seek.expires_at, partial(self._end, seek.id))

    async def _end(self, seek_id: int) -> None:
        end = await self.bot.seeks.expire(seek_id)
        if end is not None:
            await self.tell_end(end)

    async def tell_end(self, end: SeekEnd) -> None:
        """Tell the seeker their seek ended (with the offer of a computer opponent, if so),
        where they asked; done then, or when Discord refuses for good (a 4xx)."""
        seek = end.seek
        channel = self.bot.get_partial_messageable(seek.channel_id, guild_id=seek.guild_id)
        waited = format_duration(int(seek.expires_at - seek.created_at))
        text = f"⌛ <@{seek.user_id}>, nobody was found for {seek_words(seek)} in {waited}."
        view = Components()
        if seek.status == OFFERED:
            text += " Play a computer instead?"
            view.add_item(ComputerOfferButton(seek.id))
        else:
            text += " `/sequence find game` looks again."
        try:
            await channel.send(text, view=view, allowed_mentions=PINGS)
        except discord.HTTPException as error:
            log.info("The end of seek %d was not posted: %s", seek.id, error)
            if error.status >= 500 or error.status == 429:
                return  # told at the next start
        await self.bot.seeks.told(end)

    # ------------------------------------------------------------------ commands
    @find.command(name="game", description="Look for players; again while looking: stop looking")
    @app_commands.describe(
        players="How many players at the table",
        speed="live (minutes a turn) or slow (a day a turn)",
        rated="Whether the game counts for ratings (default: yes)",
        computer_after=(
            f"Live: be offered a computer opponent if nobody is found in "
            f"{format_duration(int(LIVE_WAIT))} (default: no)"
        ),
    )
    @app_commands.choices(players=PLAYER_CHOICES)
    @app_commands.choices(speed=SPEED_CHOICES)
    async def game(
        self,
        interaction: discord.Interaction[SequenceBot],
        players: int,
        speed: str,
        rated: bool = True,
        computer_after: bool = False,
    ) -> None:
        guild_id = server_id(interaction)
        request = SeekRequest(
            guild_id,
            interaction.user.id,
            user_name(interaction.user),
            players,
            speed,
            rated,
            computer_after,
            interaction.channel_id or 0,
        )
        answer = await self.bot.seeks.seek(request)
        if answer.cancelled is not None:
            self.bot.scheduler.cancel(("seek", answer.cancelled.id))
            await reply(
                interaction,
                f"🛑 You were looking for {seek_words(answer.cancelled)}: asking again stopped "
                "your seek. `/sequence find game` once more starts a new one.",
            )
            return
        seek = answer.seek
        assert seek is not None
        if not answer.seated:
            self.schedule_end(seek)
            others = None
            if answer.match is not None:  # a table of others that waited complete
                await interaction.response.defer(ephemeral=True, thinking=True)
                try:
                    others = await self.open_table(interaction.guild, answer.match)
                except UserError as error:
                    log.info("A waiting table did not open: %s", error)
            wanted = seek.players - answer.place
            text = (
                f"🔎 You are looking for {seek_words(seek)}: you are "
                f"**{ordinal(answer.place)}** in the queue"
                + (f", {wanted} more player(s) wanted" if wanted > 0 else "")
                + f". Your seek ends <t:{int(seek.expires_at)}:R>; `/sequence find cancel` "
                "(or this command again) stops it."
            )
            if answer.held:
                text += f"\n⚠️ A table is complete but cannot open yet: {answer.held}"
            if others is not None:
                text += (
                    f"\nMeanwhile, players who were waiting were seated in <#{others.channel_id}>."
                )
            await reply(interaction, text)
            return
        await interaction.response.defer(ephemeral=True, thinking=True)
        assert answer.match is not None  # seated
        lobby = await self.open_table(interaction.guild, answer.match)
        await reply(
            interaction,
            f"✅ Players found! Your table is in <#{lobby.channel_id}>: press **Ready** there.",
        )

    @find.command(name="cancel", description="Stop looking for a game")
    async def cancel(self, interaction: discord.Interaction[SequenceBot]) -> None:
        seek = await self.bot.seeks.cancel(server_id(interaction), interaction.user.id)
        self.bot.scheduler.cancel(("seek", seek.id))
        await reply(interaction, f"🛑 You stopped looking for {seek_words(seek)}.")

    @find.command(name="tables", description="The open tables and the games people look for here")
    async def tables(self, interaction: discord.Interaction[SequenceBot]) -> None:
        guild_id = server_id(interaction)
        lobbies = await self.bot.db.lobbies.open_in(guild_id)
        seeks = await self.bot.seeks.queue(guild_id)
        await interaction.response.send_message(
            embeds=tables_embeds(lobbies, seeks), ephemeral=True
        )

    # ------------------------------------------------------------------ tables
    async def open_table(self, guild: discord.Guild | None, match: Match) -> LobbyRecord:
        """Open the table of ``match`` in its place and post its lobby; a table that cannot
        open puts the seekers back in the queue, and says why."""
        if match.step is not None:
            self.doing.add(match.step)
        try:
            return await self._open_table(guild, match)
        finally:
            self.doing.discard(match.step or 0)

    async def _open_table(self, guild: discord.Guild | None, match: Match) -> LobbyRecord:
        bot = self.bot
        gone = await self._gone(guild, match)
        if gone:
            await bot.seeks.unmatch(match, gone)
            for seek in match.seeks:
                if seek.user_id not in gone:
                    self.schedule_end(seek)
            raise UserError(
                "Players were found, but one of them has left the server: the others are back "
                "in the queue."
            )
        try:
            if guild is None:
                raise UserError("The server of this table is gone.")
            config = await bot.server_settings.of(match.guild_id)
            first = match.seeks[0]
            options = config.new_table_options(
                rated=first.rated, turn_time_limit=TURN_LIMITS[first.speed]
            )
            place, own = await table_place(bot, guild, config.places, match.channel_id, first.name)
            if own:
                options = options.but(own_thread=True)
            looking = live_role(guild, config.roles.looking) is not None
            lobby = await bot.seeks.seat(match, place.id, options, looking=looking)
        except (UserError, discord.HTTPException) as error:
            await bot.seeks.unmatch(match)
            for seek in match.seeks:
                self.schedule_end(seek)
            raise UserError(
                f"Players were found, but the table could not open ({error}): you are back in "
                "the queue."
            ) from None
        for seek in match.seeks:
            bot.scheduler.cancel(("seek", seek.id))
        await self._post(place, lobby, match, own)
        return lobby

    async def _gone(self, guild: discord.Guild | None, match: Match) -> frozenset[int]:
        """The seekers of ``match`` who are no longer members of the server, as Discord says
        (the bot has no members intent: a leave is not announced to it)."""
        if guild is None:
            return frozenset()
        gone = set()
        for seek in match.seeks:
            try:
                await guild.fetch_member(seek.user_id)
            except discord.NotFound as error:
                if error.code in GONE:
                    gone.add(seek.user_id)
            except discord.HTTPException as error:
                log.info("Could not check seeker %d (HTTP %s)", seek.user_id, error.status)
        return frozenset(gone)

    async def _post(
        self, place: discord.abc.Messageable, lobby: LobbyRecord, match: Match, own: bool
    ) -> None:
        """Arm the table's expiry (it lapses like any lobby) and post its lobby, pinging its
        seekers (a post Discord refused: ``/sequence find tables`` still shows the table)."""
        lobbies = self.bot.get_cog("Lobby")
        if isinstance(lobbies, Lobby):
            lobbies.schedule_expiry(lobby)
        people = " ".join(f"<@{seek.user_id}>" for seek in match.seeks)
        text = f"🔎 {people}: your table of **Sequence** is here. Press **Ready** to begin."
        embed, view = await lobby_message(self.bot.db, lobby)
        try:
            message = await place.send(text, embed=embed, view=view, allowed_mentions=PINGS)
        except discord.HTTPException as error:
            log.info("Table %d's lobby was not posted: %s", lobby.id, error)
            return
        await self.bot.lobbies.set_message(lobby, message.id)
        if own and isinstance(place, discord.Thread):
            for seek in match.seeks:
                with contextlib.suppress(discord.HTTPException):
                    await place.add_user(discord.Object(seek.user_id))

    # ------------------------------------------------------------------ people gone
    @commands.Cog.listener()
    async def on_member_ban(self, guild: discord.Guild, user: discord.abc.User) -> None:
        """A seeker banned from the server is dropped from its queue."""
        await self._drop(guild.id, user.id)

    @commands.Cog.listener()
    async def on_raw_member_remove(self, payload: discord.RawMemberRemoveEvent) -> None:
        """A seeker who left the server is dropped (Discord says so with the members intent)."""
        await self._drop(payload.guild_id, payload.user.id)

    async def _drop(self, guild_id: int, user_id: int) -> None:
        seek = await self.bot.seeks.drop(guild_id, user_id)
        if seek is not None:
            self.bot.scheduler.cancel(("seek", seek.id))
            log.info("Seek %d was dropped: its seeker left the server", seek.id)


async def setup(bot: SequenceBot) -> None:
    """Load the cog."""
    await bot.add_cog(Find(bot))
