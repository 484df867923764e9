"""Running the matches: a thread per match with its lobby seated, check-ins, show-up deadlines
(kept in the store, re-armed at start-up), results as games end, and the news of each round in
the tournament's channel."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import io
import logging
from collections.abc import AsyncIterator
from functools import partial
from typing import TYPE_CHECKING, Any

import discord
from discord.ext import commands

from bot.services.dispatch import Subscriptions
from bot.services.errors import UserError
from bot.services.events import GameEnded, GameStarted
from bot.services.lobbies import tournament_match
from bot.services.scheduler import RETRY
from bot.services.tournament import ELIMINATION, Progress, Snapshot, TournamentService
from bot.store.errors import OUTAGES
from bot.store.lobbies import LobbyRecord
from bot.store.tournaments.records import MatchRecord, TournamentRecord
from cogs.common.lobby_message import lobby_embed, lobby_view
from cogs.lobby import Lobby
from render.bracket import render_bracket

from ..common.alt_text import bracket_alt
from ..common.describe import shown_name
from ..common.lengths import message_chunks
from ..common.replies import refuse_without, table_permission_names
from .messages import (
    bracket,
    correction_text,
    entrant_name,
    mentions,
    pairings_text,
    result_line,
    round_name,
    signup_embed,
    standings_embed,
)
from .views import CHECK_IN_COG, CheckInButton, check_in_view, signup_view

if TYPE_CHECKING:
    from bot.app import SequenceBot


log = logging.getLogger(__name__)

PINGS = discord.AllowedMentions(users=True, roles=False, everyone=False)
QUIET = discord.AllowedMentions.none()
#: The scheduler's key of the recovery after a store outage cut a tournament's step short.
RECOVERY = ("tournaments", "recover")


def match_text(snapshot: Snapshot, match: MatchRecord) -> str:
    """The match message: who plays, how to start, the show-up deadline, who is here."""
    assert match.entrant_b is not None
    host = snapshot.entrants[match.entrant_a].user_ids[0]
    lines = [
        f"⚔️ {mentions(snapshot, match.entrant_a)} v {mentions(snapshot, match.entrant_b)}: your "
        f"**{shown_name(snapshot.tournament.name)}** match is ready.",
        f"Press **I'm here**: the game starts when everyone has (or <@{host}> presses **Start**).",
    ]
    if match.deadline is not None:
        stamp = int(match.deadline)
        lines.append(
            f"Show up by <t:{stamp}:t> (<t:{stamp}:R>): a side not checked in by then forfeits."
        )
    if match.checkins:
        lines.append("Here: " + ", ".join(f"<@{user}>" for user in match.checkins))
    return "\n".join(lines)


#: An organiser's step the store failed: what it saved goes on by itself once the store answers.
STEP_CUT_SHORT = (
    "I cannot reach my database just now. Whatever part of this was saved goes on by itself "
    "once it answers: look at `/tournament standings` in a minute before trying again; if this "
    "goes on, tell a server admin."
)


def _void(snapshot: Snapshot, number: int) -> bool:
    """True when every match of a round was called off (the tournament ended before it)."""
    matches = snapshot.round_matches(number)
    return bool(matches) and all(m.status == "cancelled" for m in matches)


class TournamentTables(commands.Cog, name=CHECK_IN_COG):
    """Opens match tables, runs show-up clocks and reports results to the tournament."""

    def __init__(self, bot: SequenceBot, service: TournamentService) -> None:
        self.bot = bot
        self.service = service
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
        for match_id in list(self.deadlines):
            self.disarm(match_id)

    @commands.Cog.listener()
    async def on_guild_channel_delete(self, channel: discord.abc.GuildChannel) -> None:
        """A tournament's channel was deleted: nobody can sign up, report or end it there any
        more, so it ends as its organiser's ``/tournament end`` would, rather than counting as
        open (against the organiser's and the server's caps) for ever."""
        tournament = await self.bot.db.tournaments.open_in_channel(channel.id)
        if tournament is not None:
            await self._end_gone(tournament, "its channel was deleted")

    @commands.Cog.listener()
    async def on_raw_thread_delete(self, payload: discord.RawThreadDeleteEvent) -> None:
        """A match's thread was deleted: its show-up clock stops (nobody could check in) and
        the organiser is asked to report its result."""
        await self._thread_gone(payload.thread_id)

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
    async def on_guild_remove(self, guild: discord.Guild) -> None:
        """The bot left a server: its tournaments end as on their channel's deletion (their
        match games with them), rather than counting as open for ever."""
        for tournament in await self.bot.db.tournaments.open_of_guild(guild.id):
            await self._end_gone(tournament, "the bot left its server")

    @commands.Cog.listener()
    async def on_ready(self) -> None:
        """A later session (not a resume; the first is :meth:`_resume`'s): the tournaments of
        servers that removed the bot meanwhile, or whose channel was deleted meanwhile, end, and
        match threads deleted meanwhile are noticed."""
        if self._startup is not None and self._startup.done():
            await self._end_left()
            await self._threads_gone()

    async def _end_left(self) -> None:
        """End the tournaments of servers not among the bot's guilds (they removed it while it
        was down, and Discord sends no removal then), and those whose channel Discord no longer
        knows (deleted while the bot was down)."""
        present = self.bot.table.present_guilds()
        if present is None:
            return
        for tournament in await self.bot.db.tournaments.open_all():
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

    async def _resume(self) -> None:
        """After a restart: re-arm show-up clocks, pair due rounds, open missing tables."""
        await self.bot.wait_until_ready()
        try:
            await self._end_left()
            await self._record_ended_games()
            await self._threads_gone()  # before the clocks: a thread gone stops its clock
            for match in await self.service.pending_deadlines():
                self.arm(match)
            await self._pair_due_rounds()
        except OUTAGES as error:
            log.warning("Resuming the tournaments waits for the store: %s", error)
            self.recover_later()
        except Exception:
            log.exception("Resuming the tournaments failed")

    async def _record_ended_games(self) -> None:
        """Match games that ended while their result could not be recorded (a restart)."""
        for record in await self.service.ended_match_games():
            await self.game_ended(GameEnded(record, cancelled=record.status == "cancelled"))

    async def _pair_due_rounds(self) -> None:
        """Rounds due and tables still missing, paired and opened."""
        for progress in await self.service.resume():
            await self.publish(progress)

    def recover_later(self) -> None:
        """A tournament's step failed half way because the store could not be used (a result
        saved, the next round not paired): finish it once the store answers (the scheduler
        runs the recovery again while the store is still down)."""
        self.bot.scheduler.at(RECOVERY, self.bot.clock() + RETRY, self._recover)

    @contextlib.asynccontextmanager
    async def recovering(self) -> AsyncIterator[None]:
        """Around an organiser's step (a report, a drop, an end): if the store fails half way
        (the result saved, the next round not paired), the rest is done once it answers, and
        the organiser is told so rather than that nothing was saved."""
        try:
            yield
        except OUTAGES as error:
            log.warning("A tournament step found the store unusable: %s", error)
            self.recover_later()
            raise UserError(STEP_CUT_SHORT) from None

    async def _recover(self) -> None:
        await self._record_ended_games()
        await self._pair_due_rounds()

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
            self.deadlines.add(match_id)  # the scheduler runs it again once the store answers
            self.recover_later()  # and whatever it decided before the store failed goes on
            raise
        except Exception:
            log.exception("The show-up deadline of match %d failed", match_id)

    # ------------------------------------------------------------------ check-ins
    async def check_in(self, interaction: discord.Interaction, match_id: int) -> None:
        """A player pressed *I'm here*; the last one to do so starts the game (the check-in is
        saved: if Discord refuses to update the match message, the game starts all the same),
        unless the bot could not post its board in the thread."""
        result = await self.service.check_in(match_id, interaction.user.id)
        try:
            await interaction.response.edit_message(
                content=match_text(result.snapshot, result.match), allowed_mentions=QUIET
            )
        except discord.HTTPException as error:
            if not result.everyone_here:
                raise
            log.info("Could not update the message of match %d (HTTP %s)", match_id, error.status)
        if not result.everyone_here:
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
        lobby = await self.bot.db.lobbies.get_for_channel(thread_id)
        if lobby is None:
            raise UserError("The lobby of this match is closed: ask the organiser.")
        record = await self.bot.lobbies.start(thread_id, lobby.host_id)
        lobby_cog = self.bot.get_cog(Lobby.__cog_name__)
        if not isinstance(lobby_cog, Lobby):
            raise RuntimeError("The Lobby cog is not loaded")
        await lobby_cog.begin(interaction, record, edit=False)

    # ------------------------------------------------------------------ game events
    def subscriptions(self) -> Subscriptions:
        """A match's game starting puts the match on; its end records the result."""
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
        await self.bot.games.cancel(record.id)
        await self.bot.table.notice(
            record,
            "🛑 This is a tournament match: it is played by the teams as drawn, without "
            "computer players. The game was stopped, and the lobby is set again.",
        )

    async def game_ended(self, event: GameEnded) -> None:
        """A match's game ended: record the result, or play the match again if cancelled."""
        record = event.record
        if not event.cancelled:
            try:
                progress = await self.service.game_finished(record)
            except OUTAGES as error:
                log.warning("Game %d's match waits for the store: %s", record.id, error)
                self.recover_later()
                return
            if progress is not None:
                await self.publish(progress)
            return
        found = await self.service.game_cancelled(record)
        if found is None:
            return
        match, lobby = found
        snapshot = await self.service.snapshot(match.tournament_id)
        channel = self._messageable(match.thread_id or 0, snapshot.tournament.guild_id)
        await self._send(channel, "🔁 The game was cancelled: this match is played again.")
        await self.seat(channel, snapshot, match, lobby)

    # ------------------------------------------------------------------ publishing
    async def publish(self, progress: Progress) -> None:
        """Show what a change did: results, closed tables, new rounds, the final standings."""
        snapshot = progress.snapshot
        tournament = snapshot.tournament
        off = {m.id for m in progress.called_off}
        for record in progress.cancelled_games:
            why = "its tournament match was decided"
            if any(m.game_id == record.id for m in progress.called_off):
                why = "the tournament ended"
            await self.bot.table.notice(record, f"🛑 Game #{record.id} was stopped: {why}.")
        lobby_cog = self.bot.get_cog(Lobby.__cog_name__)
        for lobby in progress.closed_lobbies:
            text = "🚪 This match was decided without a game."
            if (tournament_match(lobby) or {}).get("match") in off:
                text = "🛑 This match is off: the tournament ended."
            if isinstance(lobby_cog, Lobby):
                await lobby_cog.close_message(lobby, text)
        for match in progress.called_off:
            self.disarm(match.id)
            await self._strip_check_in(match)
        channel = self._messageable(tournament.channel_id, tournament.guild_id)
        lines = []
        for match in progress.decided:
            self.disarm(match.id)
            line = f"🏁 {result_line(snapshot, match)}"
            lines.append(line)
            if match.thread_id:
                await self._strip_check_in(match)
                thread = self._messageable(match.thread_id, tournament.guild_id)
                await self._send(thread, line)
        for correction in progress.corrected:
            text = correction_text(snapshot, correction)
            lines.append(text)
            if correction.after.thread_id:
                thread = self._messageable(correction.after.thread_id, tournament.guild_id)
                await self._send(thread, text)
        if lines:
            await self._send(channel, "\n".join(lines))
        if progress.paired:  # an end may have called a new round off meanwhile: not shown
            now = await self.service.snapshot(tournament.id)
            progress.paired = [n for n in progress.paired if not _void(now, n)]
        for number in progress.paired:
            if number > 1:
                before = Snapshot(  # the tournament as it stood then: its footer too
                    dataclasses.replace(tournament, round=number - 1),
                    snapshot.entrants,
                    [m for m in snapshot.matches if m.round < number],
                )
                title = f"📊 {tournament.name}: standings after round {number - 1}"
                await self._send(channel, embed=standings_embed(before, title))
            await self._send(channel, pairings_text(snapshot, number))
        for match in progress.to_open:
            await self.open_table(snapshot, match)
        for match, lobby in progress.replays:
            thread = self._messageable(match.thread_id or 0, tournament.guild_id)
            await self._send(
                thread,
                "🔁 The game was drawn, and a knockout match needs a winner: a tie-break game "
                "between the same sides decides it. Check in again.",
            )
            await self.seat(thread, snapshot, match, lobby)
        if progress.finished:
            await self.post_final(snapshot)

    async def refresh_signup(self, tournament: TournamentRecord) -> None:
        """Edit the sign-up message (the buttons go once sign-up is closed; its footer says
        how the tournament stands)."""
        if tournament.message_id is None:
            return
        snapshot = await self.service.snapshot(tournament.id)
        view = signup_view(tournament.id) if snapshot.tournament.status == "signup" else None
        channel = self.bot.get_partial_messageable(tournament.channel_id)
        with contextlib.suppress(discord.HTTPException):
            await channel.get_partial_message(tournament.message_id).edit(
                embed=signup_embed(snapshot), view=view
            )

    async def post_final(self, snapshot: Snapshot) -> None:
        """The final standings, the champion and (knockout) the bracket."""
        tournament = snapshot.tournament
        champion = snapshot.champion()
        head = f"🎉 **{shown_name(tournament.name)}** is over."
        if champion is not None:
            head += f" Congratulations to the champion, **{entrant_name(snapshot, champion)}** " + (
                f"({mentions(snapshot, champion)})!"
            )
        kwargs: dict[str, Any] = {
            "embed": standings_embed(snapshot, f"🏆 {tournament.name}: final standings")
        }
        if tournament.format == ELIMINATION:
            kwargs["file"] = await self.bracket_file(snapshot)
        channel = self._messageable(tournament.channel_id, tournament.guild_id)
        await self._send(channel, head, allowed_mentions=PINGS, **kwargs)
        await self.refresh_signup(tournament)

    async def bracket_file(self, snapshot: Snapshot) -> discord.File:
        """The knockout bracket as an image (drawn off the event loop)."""
        rounds, champion, names = bracket(snapshot)
        title = snapshot.tournament.name
        png = await asyncio.to_thread(render_bracket, title, rounds, champion, names)
        alt = bracket_alt(title, rounds, champion, names)
        return discord.File(io.BytesIO(png), filename="bracket.png", description=alt)

    # ------------------------------------------------------------------ match tables
    async def open_table(self, snapshot: Snapshot, match: MatchRecord) -> None:
        """A public thread for the match in the tournament's channel, with its lobby seated
        (none for a match decided or called off since it was paired)."""
        tournament = snapshot.tournament
        current = await self.bot.db.tournaments.match(match.id)
        if current is None or current.status != "pending":
            return
        parent = self.bot.get_channel(tournament.channel_id)
        name = (
            f"{tournament.name} · R{match.round} · #{match.id} · {snapshot.name(match.entrant_a)}"
            f" v {snapshot.name(match.entrant_b)}"
        )[:100]
        try:
            if parent is None:
                parent = await self.bot.fetch_channel(tournament.channel_id)
            if not isinstance(parent, discord.TextChannel):
                raise TypeError(f"channel {tournament.channel_id} cannot hold threads")
            thread = await parent.create_thread(name=name, type=discord.ChannelType.public_thread)
        except (discord.HTTPException, TypeError) as error:
            log.warning(
                "No thread for match %d of tournament %d: %s", match.id, tournament.id, error
            )
            await self._ask_organiser(snapshot, match, "I could not open a thread for {match}.")
            return
        opened = await self.service.open_match(match.id, thread.id)
        if opened is not None:
            await self.seat(thread, snapshot, *opened)
            return
        # Decided, or called off by the end, as its thread opened: the thread says so.
        now = await self.service.snapshot(tournament.id)
        decided = next((m for m in now.matches if m.id == match.id and m.status == "done"), None)
        if decided is not None:
            await self._send(thread, f"🏁 {result_line(now, decided)}")
        else:
            await self._send(thread, "🛑 This match is off: the tournament ended before it began.")

    async def _ask_organiser(self, snapshot: Snapshot, match: MatchRecord, news: str) -> None:
        """Ping the organiser in the tournament's channel to report a match nobody can play
        (``news`` says why, ``{match}`` where it names the match)."""
        tournament = snapshot.tournament
        named = (
            f"{entrant_name(snapshot, match.entrant_a)} v "
            f"{entrant_name(snapshot, match.entrant_b)} (match #{match.id})"
        )
        channel = self._messageable(tournament.channel_id, tournament.guild_id)
        await self._send(
            channel,
            f"⚠️ {news.format(match=named)} <@{tournament.organiser_id}>, please report its "
            "result with `/tournament report`.",
            allowed_mentions=PINGS,
        )

    async def seat(
        self,
        channel: discord.abc.Messageable,
        snapshot: Snapshot,
        match: MatchRecord,
        lobby: LobbyRecord,
    ) -> None:
        """Post the seated lobby and the match message (pings, check-in), arm the clock."""
        total = snapshot.total_rounds() or match.round
        name = shown_name(snapshot.tournament.name)
        title = f"🎲 **{name}** · {round_name(match.round, total)} · match #{match.id}"
        if snapshot.tournament.format != ELIMINATION:
            title = f"🎲 **{name}** · round {match.round} · match #{match.id}"
        message = await self._send(
            channel, title, embed=lobby_embed(lobby), view=lobby_view(lobby), allowed_mentions=QUIET
        )
        if message is not None:
            await self.bot.lobbies.set_message(lobby, message.id)
        note = await self._send(
            channel,
            match_text(snapshot, match),
            view=check_in_view(match.id),
            allowed_mentions=PINGS,
        )
        if note is not None:
            match = await self.service.set_match_message(match, note.id) or match
            if match.status != "pending":  # its game began as the message was posted
                await self._strip_check_in(match)
        self.arm(match)

    async def _strip_check_in(self, match: MatchRecord) -> None:
        """Take the *I'm here* button off the match message."""
        if match.thread_id is None or match.message_id is None:
            return
        thread = self._messageable(match.thread_id, None)
        with contextlib.suppress(discord.HTTPException):
            await thread.get_partial_message(match.message_id).edit(view=None)

    def _messageable(self, channel_id: int, guild_id: int | None) -> Any:
        channel = self.bot.get_channel(channel_id)
        if channel is not None:
            return channel
        return self.bot.get_partial_messageable(channel_id, guild_id=guild_id)

    async def _send(
        self, channel: Any, content: str | None = None, **kwargs: Any
    ) -> discord.Message | None:
        """Send, logging (not raising) a refusal: the tournament itself is already saved.

        Content past Discord's limit goes out in several messages, whole lines each (the
        last one carries the rest of ``kwargs``, and is returned).
        """
        kwargs.setdefault("allowed_mentions", QUIET)
        *first, last = message_chunks(content.split("\n")) if content else [content]
        try:
            for part in first:
                await channel.send(part, allowed_mentions=kwargs["allowed_mentions"])
            return await channel.send(last, **kwargs)
        except discord.HTTPException as error:
            log.warning("Could not post to channel %s (HTTP %s)", channel.id, error.status)
            return None
