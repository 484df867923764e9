"""Showing a tournament step once it has committed: results, games stopped, lobbies closed, new
rounds and their threads with the lobbies seated, tie-breaks and replays, the final standings.

A step is in the outbox until it has been shown (:mod:`bot.services.tournament.steps`): shown
at once by whoever made it, and otherwise at start-up, or once a store outage that cut its
showing short is over (at least once: a thread is opened only for a match without one, a game
stopped only if still on)."""

from __future__ import annotations

import asyncio
import dataclasses
import io
import logging
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

import discord

from bot.services.scheduler import RETRY
from bot.services.tournament import ELIMINATION, Progress, Snapshot, TournamentService
from bot.store.errors import OUTAGES
from bot.store.lobbies import LobbyRecord
from bot.store.tournaments.records import MatchRecord, TournamentRecord
from bot.table.series import series_line
from cogs.common.lobby_message import lobby_message
from cogs.lobby import Lobby
from render.bracket import render_bracket

from ..common.alt_text import bracket_alt
from ..common.describe import shown_name
from ..common.reposting import edit_or_post_anew
from ..common.threads import empty_thread
from .messages import (
    SIGNUP_OPEN,
    bracket,
    correction_text,
    entrant_name,
    mentions,
    pairings_text,
    result_line,
    round_name,
    series_note,
    signup_embed,
    standings_embed,
)
from .posting import PINGS, QUIET, TablesBase, match_text
from .threads import ARCHIVE_AFTER, ThreadQueue, TryLater
from .views import check_in_view, signup_view

if TYPE_CHECKING:
    from bot.app import SequenceBot

log = logging.getLogger(__name__)

#: The scheduler's key of showing the steps a store outage kept from being shown.
SHOW_LATER = ("tournaments", "show")
#: Steps shown lately by this process (never shown again by a recovery that read them before).
_SHOWN_KEPT = 1000
#: What a match's thread says when it is seated again, by why.
_SEATED_AGAIN = {
    "replays": "🔁 The game was drawn, and a knockout match needs a winner: a tie-break game "
    "between the same sides decides it. Check in again.",
    "reseated": "🔁 The game was cancelled: this match is played again.",
}


def next_game_text(lobby: LobbyRecord) -> str:
    """What a best-of match's thread says as its next game is seated."""
    return (
        f"🔁 Next: {series_line(lobby.options, 2)}. The match goes on until a side has won "
        "the majority of its games: check in again."
    )


def _void(snapshot: Snapshot, number: int) -> bool:
    """True when every match of a round was called off (the tournament ended before it)."""
    matches = snapshot.round_matches(number)
    return bool(matches) and all(m.status == "cancelled" for m in matches)


class Publishing(TablesBase):
    """Shows each step once it has committed, and marks it shown."""

    def __init__(self, bot: SequenceBot, service: TournamentService) -> None:
        super().__init__(bot, service)
        self._showing: set[int] = set()
        self._shown: OrderedDict[int, None] = OrderedDict()
        #: The match threads still to open, one by one in the background.
        self.threads = ThreadQueue(self._open_thread, service.step_shown)

    async def publish(self, progress: Progress) -> None:
        """Show what a step did, then mark it shown. A store outage meanwhile leaves it to be
        shown again once the store answers (the step itself is saved: nothing is raised)."""
        step = progress.step
        if step is not None:
            if step in self._showing or step in self._shown:
                return  # being shown, or shown already, by this process
            self._showing.add(step)
        try:
            await self.service.stop_games(progress)
            await self._show(progress)
            if step is not None:
                await self.service.step_shown(step)
                self._shown[step] = None
                while len(self._shown) > _SHOWN_KEPT:
                    self._shown.popitem(last=False)
        except OUTAGES as error:
            log.warning("Showing tournament step %s waits for the store: %s", step, error)
            self.show_later()
        finally:
            if step is not None:
                self._showing.discard(step)

    async def show_undelivered(self) -> None:
        """Show every step of this process's tournaments not shown yet (start-up, and after a
        store outage; raises while the store is down, so the scheduler tries again)."""
        for progress in await self.service.undelivered_steps():
            await self.publish(progress)

    def show_later(self) -> None:
        """Show the steps not shown yet once the store answers (the scheduler runs it again
        while the store is still down)."""
        self.bot.scheduler.at(SHOW_LATER, self.bot.clock() + RETRY, self.show_undelivered)

    async def _show(self, progress: Progress) -> None:
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
            if lobby.match is not None and lobby.match.match_id in off:
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
            score = progress.series.get(match.id)
            series = "" if score is None else series_note(snapshot, match, score)
            line = f"🏁 {result_line(snapshot, match, series)}"
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
        self.threads.enqueue(  # in the background: Discord may hold threads for minutes
            tournament.id, [match.id for match in progress.to_open], progress.threads_step
        )
        for match, lobby in progress.seated:
            thread = self._messageable(match.thread_id or 0, tournament.guild_id)
            await self.seat(thread, snapshot, match, lobby)
        for match, lobby in progress.next_games:
            thread = self._messageable(match.thread_id or 0, tournament.guild_id)
            await self._send(thread, next_game_text(lobby))
            await self.seat(thread, snapshot, match, lobby)
        for why, text in _SEATED_AGAIN.items():
            for match, lobby in getattr(progress, why):
                thread = self._messageable(match.thread_id or 0, tournament.guild_id)
                await self._send(thread, text)
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
        await edit_or_post_anew(
            self.bot,
            tournament.channel_id,
            tournament.message_id,
            lambda message_id: self.service.set_message(tournament, message_id),
            content=SIGNUP_OPEN if view is not None else None,
            embed=signup_embed(snapshot),
            view=view,
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
    async def _open_thread(self, tournament_id: int, match_id: int) -> None:
        """The queue's work (:mod:`.threads`): open one match's table, as the tournament now
        stands; :class:`TryLater` when Discord or the store refuses it for now."""
        try:
            snapshot = await self.service.snapshot(tournament_id)
            match = next((m for m in snapshot.matches if m.id == match_id), None)
            if match is not None:
                await self.open_table(snapshot, match)
        except OUTAGES as error:
            raise TryLater(f"the store: {error}") from error

    async def open_table(self, snapshot: Snapshot, match: MatchRecord) -> None:
        """A public thread for the match in the tournament's channel; the step that seats its
        lobby there is shown at once (none for a match decided, called off or given a thread
        since it was paired). :class:`TryLater` when Discord refuses the thread for now (rate
        limited, or down); another refusal asks the organiser to report the match."""
        tournament = snapshot.tournament
        current = await self.bot.db.tournaments.match(match.id)
        if current is None or current.status != "pending" or current.thread_id is not None:
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
            # A thread opened before the store failed to record it is used, never a second.
            assert self.bot.user is not None
            thread = empty_thread(parent, name, self.bot.user.id) or await parent.create_thread(
                name=name,
                type=discord.ChannelType.public_thread,
                auto_archive_duration=ARCHIVE_AFTER,
            )
        except (discord.HTTPException, TypeError) as error:
            if isinstance(error, discord.HTTPException) and (
                error.status == 429 or error.status >= 500
            ):
                raise TryLater(f"HTTP {error.status}") from error
            log.warning(
                "No thread for match %d of tournament %d: %s", match.id, tournament.id, error
            )
            await self._ask_organiser(snapshot, match, "I could not open a thread for {match}.")
            return
        opened = await self.service.open_match(match.id, thread.id)
        if opened is not None:
            await self.publish(opened)
            return
        # Decided, or called off by the end, as its thread opened: the thread says so.
        now = await self.service.snapshot(tournament.id)
        decided = next((m for m in now.matches if m.id == match.id and m.status == "done"), None)
        if decided is not None:
            await self._send(thread, f"🏁 {result_line(now, decided)}")
        else:
            await self._send(thread, "🛑 This match is off: the tournament ended before it began.")

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
        series = series_line(lobby.options, 2)
        if series is not None:  # a best-of match: which game this is, and the score
            title += f" · {series}"
        embed, view = await lobby_message(self.bot.db, lobby)
        message = await self._send(channel, title, embed=embed, view=view, allowed_mentions=QUIET)
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
