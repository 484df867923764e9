"""Running the matches: show-up deadlines (kept in the store, re-armed at start-up), check-ins,
and a match's game starting and ending (the tournament consumes the game's events). What each
step did is shown by :mod:`.publish`; places gone are :mod:`.places`'s."""

from __future__ import annotations

import asyncio
import logging
from functools import partial
from typing import TYPE_CHECKING

import discord
from discord.ext import commands

from bot.services.dispatch import Subscriptions
from bot.services.errors import UserError
from bot.services.events import GameEnded, GameStarted
from bot.services.lobbies import Person
from bot.services.scheduler import RETRY
from bot.services.tournament import TournamentService
from bot.store.errors import OUTAGES
from bot.store.lobbies import LobbyRecord
from bot.store.tournaments.records import MatchRecord
from cogs.lobby import Lobby

from ..common.replies import (
    refuse_without,
    reply,
    show_answer,
    table_permission_names,
    user_name,
)
from .places import PlacesGone
from .posting import QUIET, match_text
from .publish import Publishing
from .views import CHECK_IN_COG, CheckInButton

if TYPE_CHECKING:
    from bot.app import SequenceBot


log = logging.getLogger(__name__)


#: The answer to an *I'm here* that crossed the one that began the game (a double click).
BEGUN = "✅ You're here, and the game has begun: it is played in this thread."

class TournamentTables(PlacesGone, Publishing, commands.Cog, name=CHECK_IN_COG):
    """Opens match tables, runs show-up clocks and reports results to the tournament."""

    def __init__(self, bot: SequenceBot, service: TournamentService) -> None:
        super().__init__(bot, service)
        #: Matches whose show-up clock is armed on the shared scheduler.
        self.deadlines: set[int] = set()
        self._startup: asyncio.Task[None] | None = None

    async def cog_load(self) -> None:
        self.bot.add_dynamic_items(CheckInButton)
        self.bot.bus.register(self)
        self._startup = asyncio.create_task(self._resume())

    async def cog_unload(self) -> None:
        self.bot.remove_dynamic_items(CheckInButton)
        self.bot.bus.unregister(self)
        if self._startup is not None:
            self._startup.cancel()
        self.threads.stop()
        for match_id in list(self.deadlines):
            self.disarm(match_id)

    @commands.Cog.listener()
    async def on_ready(self) -> None:
        """A later session (not a resume; the first is :meth:`_resume`'s): the tournaments of
        servers that removed the bot meanwhile, or whose channel was deleted meanwhile, end, and
        match threads deleted meanwhile are noticed."""
        if self._startup is not None and self._startup.done():
            await self._end_left()
            await self._threads_gone()

    async def _resume(self) -> None:
        """After a restart: show the steps not shown yet, re-arm show-up clocks."""
        await self.bot.wait_until_ready()
        try:
            await self._end_left()
            await self.show_undelivered()
            await self._threads_gone()  # before the clocks: a thread gone stops its clock
            await self._arm_pending()
        except OUTAGES as error:
            log.warning("Resuming the tournaments waits for the store: %s", error)
            self.bot.scheduler.at(
                ("tournaments", "resume"), self.bot.clock() + RETRY, self._resume_after_outage
            )
        except Exception:
            log.exception("Resuming the tournaments failed")

    async def _resume_after_outage(self) -> None:
        """The start-up's steps the store kept from running (the scheduler retries them)."""
        await self.show_undelivered()
        await self._arm_pending()

    async def _arm_pending(self) -> None:
        for match in await self.service.pending_deadlines():
            if match.id not in self.deadlines:
                self.arm(match)

    # ------------------------------------------------------------------ show-up clocks
    def arm(self, match: MatchRecord) -> None:
        """Forfeit the match by the check-in rule if it has not started by its deadline (on
        the shared scheduler; the deadline is stored with the match and re-armed at start-up)."""
        self.disarm(match.id)
        if match.deadline is not None:
            self.deadlines.add(match.id)
            self.bot.scheduler.at(
                ("show-up", match.id), match.deadline, partial(self._expire, match.id)
            )

    def disarm(self, match_id: int) -> None:
        """Stop a match's show-up clock (started, decided or reseated)."""
        self.deadlines.discard(match_id)
        self.bot.scheduler.cancel(("show-up", match_id))

    async def _expire(self, match_id: int) -> None:
        self.deadlines.discard(match_id)
        try:
            progress = await self.service.expire(match_id)
            if progress is not None:
                await self.publish(progress)
        except OUTAGES:
            self.deadlines.add(match_id)  # nothing was saved: the scheduler runs it again
            raise
        except Exception:
            log.exception("The show-up deadline of match %d failed", match_id)

    # ------------------------------------------------------------------ check-ins
    async def check_in(self, interaction: discord.Interaction, match_id: int) -> None:
        """A player pressed *I'm here*; the last one to do so starts the game (the check-in is
        saved: if Discord refuses to update the match message, the game starts all the same),
        unless the bot could not post its board in the thread."""
        result = await self.service.check_in(match_id, interaction.user.id)
        lobby = await self._sit_down_again(result.match, interaction.user)
        text = match_text(result.snapshot, result.match)
        everyone = result.everyone_here  # then the game's beginning tells them
        try:  # saved already: when Discord refuses the answer, the message is edited directly
            await show_answer(
                interaction, text, discord.utils.MISSING, tell=not everyone, allowed_mentions=QUIET
            )
        except discord.HTTPException as error:
            if not everyone:
                raise
            log.info("Could not update the message of match %d (HTTP %s)", match_id, error.status)
        if not everyone:
            return
        in_thread = isinstance(interaction.channel, discord.Thread)
        refuse_without(  # as the host's Start would be: the check-ins are kept meanwhile
            interaction.app_permissions,
            table_permission_names(in_thread),
            "post the board here",
            "this channel",
            "then press **I'm here** again",
        )
        thread_id = result.match.thread_id or 0
        try:
            if lobby is None:
                raise UserError("The lobby of this match is closed: ask the organiser.")
            record = await self.bot.lobbies.start(thread_id, lobby.host_id)
        except UserError:
            if self.bot.games.find_in_channel(thread_id) is None:
                raise
            await reply(interaction, BEGUN)  # a click that crossed the one that began it
            return
        await self._lobby_cog().begin(interaction, record, edit=False)

    async def _sit_down_again(
        self, match: MatchRecord, user: discord.abc.User
    ) -> LobbyRecord | None:
        """A drawn player who left the match's lobby and then presses *I'm here* sits down
        again on their side (else everyone would be here and no game could begin). The
        match's open lobby, or None."""
        thread_id = match.thread_id or 0
        lobby = await self.bot.db.lobbies.get_for_channel(thread_id)
        if lobby is None or any(seat.user_id == user.id for seat in lobby.seats):
            return lobby
        lobby = await self.bot.lobbies.join(thread_id, Person(user.id, user_name(user)))
        await self._lobby_cog().refresh_message(lobby)
        return lobby

    def _lobby_cog(self) -> Lobby:
        lobby_cog = self.bot.get_cog(Lobby.__cog_name__)
        if not isinstance(lobby_cog, Lobby):
            raise RuntimeError("The Lobby cog is not loaded")
        return lobby_cog

    # ------------------------------------------------------------------ game events
    def subscriptions(self) -> Subscriptions:
        """A match's game starting puts the match on; its end records the result. Both are
        delivered at least once: a second delivery of the same event changes nothing (a store
        outage makes the dispatcher try the event again)."""
        return [(GameStarted, self.game_started), (GameEnded, self.game_ended)]

    async def game_started(self, event: GameStarted) -> None:
        """A game began: if it is a match played as drawn, the match is on; else it stops."""
        record = event.record
        found = await self.service.game_started(record)
        if found is None:
            return
        match, as_drawn = found
        self.disarm(match.id)
        await self._strip_check_in(match)
        if as_drawn:
            return
        live = self.bot.games.records.get(record.id)
        if live is None or live.game.is_over():
            return  # stopped by a first delivery already
        await self.bot.games.cancel(record.id)
        await self.bot.table.notice(
            record,
            "🛑 This is a tournament match: it is played by the teams as drawn, without "
            "computer players. The game was stopped, and the lobby is set again.",
        )

    async def game_ended(self, event: GameEnded) -> None:
        """A match's game ended: record the result (and pair what it makes due), or play the
        match again if it was cancelled, in one step; then show it."""
        record = event.record
        if event.cancelled:
            progress = await self.service.game_cancelled(record)
        else:
            progress = await self.service.game_finished(record)
        if progress is not None:
            await self.publish(progress)
