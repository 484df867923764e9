"""Games across days: turn pings by DM, reminders, time limits, ``/sequence-me notify`` and
``/sequence mygames``. Timers live in the store and are re-armed after a restart.

The turn ping by DM carries the player's private hand panel (their hand image and the hand
panel's controls), so a player can move without opening the server: a click there is the same
change through the game service, and the board is posted in the game's channel.
"""

from __future__ import annotations

import dataclasses
import logging
from typing import Any

import discord
from discord import app_commands

from bot.app import SequenceBot
from bot.game import Game
from bot.services.dispatch import delivered_late
from bot.services.events import (
    AwayEnded,
    AwayStarted,
    GameEnded,
    ReminderDue,
    TimedOut,
    TurnDMDue,
    TurnStarted,
)
from bot.store.games.records import GameRecord
from bot.table.away import away_seat
from bot.table.options import format_duration

from .base import SequenceCog, Subscription, works_in_dms
from .clock import give_time_view
from .common.describe import (
    counted,
    describe_move,
    result_line,
    seat_label,
    shown_name,
    team_label,
)
from .common.lookup import sent_before
from .common.rematch_message import rematch_button
from .common.replies import reply, reply_lines
from .common.table import QUIET
from .common.threads import blocked_sentence
from .hand.panel import build_hand_panel

log = logging.getLogger(__name__)

#: Discord's error codes for a member who left the server, and for a deleted account.
GONE = (10007, 10013)
#: The most moves a turn DM tells of (the latest): one round of the largest table.
SINCE_MOST = 12


def board_link(record: GameRecord) -> str:
    """A link to the game's latest board (or its channel); ``record`` is the game as served
    now (an event's copy may name an older board)."""
    base = f"https://discord.com/channels/{record.guild_id}/{record.channel_id}"
    return f"{base}/{record.board_message_id}" if record.board_message_id else base


def since_last_turn(record: GameRecord, game: Game, seat: int) -> list[str]:
    """What the table did since ``seat``'s own last move (or the start), a line a move, at most
    :data:`SINCE_MOST` (the latest); quiet moves (a draw, a forfeit, a penalty) are left out."""
    moves = game.moves
    own = [i for i, m in enumerate(moves) if m.seat == seat and m.kind not in QUIET]
    shown = [m for m in moves[own[-1] + 1 if own else 0 :] if m.kind not in QUIET]
    lines = [describe_move(record, move, game) for move in shown[-SINCE_MOST:]]
    if len(shown) > SINCE_MOST:
        lines.insert(0, f"({counted(len(shown) - SINCE_MOST, 'earlier move')}: see the channel.)")
    return lines


#: How many of a player's latest DMs a late turn DM looks through for itself.
DM_LOOK_BACK = 10

class Turns(SequenceCog):
    """Keeps slow games moving: the words of reminders, time-outs and turn DMs.

    The turn clock (:mod:`bot.services.turns`) decides when; this cog only tells the players.
    """

    def subscriptions(self) -> list[Subscription]:
        return [
            (ReminderDue, self.remind),
            (TimedOut, self.timed_out),
            (TurnStarted, self.turn_started),
            (TurnDMDue, self.held_dm_due),
            (AwayStarted, self.went_away),
            (AwayEnded, self.came_back),
            (GameEnded, self.game_over_dm),
        ]

    async def remind(self, event: ReminderDue) -> None:
        """Nudge the player to move, in the channel and (if they asked) by DM; a player who
        has left the server leaves the game instead. Nothing once the turn has passed (the
        player moved as it fell due): nobody is told it is still their turn."""
        record, seat = self.bot.table.live(event.record), event.seat

        def passed() -> bool:
            return record.game.turn_number != event.turn

        if passed() or await self.left_the_server(record, seat):
            return
        waited = format_duration(await self.bot.table.waiting_for(record))
        deadline = await self.bot.table.deadline_text(record)
        text = (
            f"⏰ {seat_label(record, seat, mention=True)}, it is still your turn in game "
            f"#{record.id} ({team_label(record.game.team_of(seat))}); waiting {waited}.{deadline} "
            f"{board_link(record)}"
        )
        if passed():
            return
        view = give_time_view(record)
        await self.bot.table.notice(record, text, **({"view": view} if view else {}))
        if record.status != "active" or passed():  # cancelled (its channel is gone), or moved
            return
        if await self.bot.turn_dms.quiet_until(record.seats[seat].user_id) is not None:
            return  # the player's quiet hours: the channel's reminder is enough
        await self.direct_message(
            record,
            seat,
            f"⏰ Reminder: it is your turn in Sequence game #{record.id}: {board_link(record)}"
            + deadline,
        )

    async def went_away(self, event: AwayStarted) -> None:
        """Tell the table that a player went away, until when, and how they are covered."""
        record = self.bot.table.live(event.record)
        who, until = seat_label(record, event.seat), int(event.until)
        if event.cover == "computer":
            how = f"a computer plays their turns (marked 🤖 for {who})."
            if event.unrated:
                how += " A computer playing makes this game **unrated**."
        else:
            how = "their clock stops, and at their turn the table waits for them."
            if record.game.turn == event.seat and not record.game.is_over():
                how += await self.bot.table.deadline_text(record)  # held: from their return
        await self.bot.table.notice(
            record, f"🏖️ {who} is away until <t:{until}:f> (<t:{until}:R>): {how}"
        )

    async def came_back(self, event: AwayEnded) -> None:
        """Tell the table that a player is back."""
        record = self.bot.table.live(event.record)
        when = "is back early" if event.early else "is back: their time away is over"
        deadline = ""
        if record.game.turn == event.seat and not record.game.is_over():
            deadline = await self.bot.table.deadline_text(record)
        await self.bot.table.notice(
            record, f"👋 {seat_label(record, event.seat, mention=True)} {when}.{deadline}"
        )

    async def left_the_server(self, record: GameRecord, seat: int) -> bool:
        """True when the player of ``seat`` is no longer a member of the game's server (Discord
        says so): they could never move again, so they leave their games there, as a banned
        player does. (The bot has no members intent: a leave is not announced to it.)"""
        guild = self.bot.get_guild(record.guild_id)
        user_id = record.seats[seat].user_id
        if guild is None or record.seats[seat].is_computer:
            return False
        try:
            await guild.fetch_member(user_id)
            return False
        except discord.NotFound as error:
            if error.code not in GONE:
                return False
        except discord.HTTPException as error:
            log.info(
                "Could not check member %d of game %d (HTTP %s)", user_id, record.id, error.status
            )
            return False
        await self.bot.table.notice(
            record,
            f"🚪 {seat_label(record, seat)} is no longer in this server, so they leave game "
            f"#{record.id}.",
        )
        await self.bot.games.leave_server(user_id, record.guild_id)
        return True

    async def timed_out(self, event: TimedOut) -> None:
        """Say that the turn's time ran out, and what happens (the board follows as a move).
        A plain skip is left to its board, which says so ("… ran out of time: the turn
        passes."): a notice before it would tell the table twice. A player skipped or stood
        in for who has left the server leaves the game, as at a reminder (a turn may time out
        before any reminder falls due)."""
        record = self.bot.table.live(event.record)
        if event.policy != "skip" or event.forfeits:
            who = seat_label(record, event.seat)
            lines = [f"⌛ {who} ran out of time."]
            lines += [f"The bot forfeited a random card for {who} (table talk)."] * event.forfeits
            if event.policy == "computer":
                lines.append("A computer player moves for them this turn.")
            await self.bot.table.notice(record, "\n".join(lines))
        if event.policy != "remove":  # removed already: no more turns to wait out
            await self.left_the_server(record, event.seat)

    async def turn_started(self, event: TurnStarted) -> None:
        """Ping the player whose turn it is by DM, if they asked for it, with their hand panel
        drawn for this turn (a click on it after the turn moved on is refused as stale). In
        the player's quiet hours, the DM is held until they end (see :meth:`held_dm_due`)."""
        record, game = self.bot.table.live(event.record), event.game
        seat = game.turn
        # Played already (the board before it waited for Discord's rate limits): no DM.
        if record.seats[seat].is_computer or record.game.turn_number != game.turn_number:
            return
        if away_seat(record.options, seat, self.bot.clock()) is not None:
            return  # away: no turn DM (the table says until when)
        user_id = record.seats[seat].user_id
        if await self.bot.turn_dms.wanted(user_id):
            until = await self.bot.turn_dms.quiet_until(user_id)
            if until is not None:
                await self.bot.held_dms.hold(record.id, game.turn_number, seat, until)
                return
        await self.turn_dm(record, game, seat)

    async def held_dm_due(self, event: TurnDMDue) -> None:
        """The player's quiet hours ended: the turn DM held through them, if its turn is still
        being played (with the game as it is now)."""
        record = self.bot.table.live(event.record)
        if record.game.turn_number != event.turn or record.game.turn != event.seat:
            return
        if away_seat(record.options, event.seat, self.bot.clock()) is not None:
            return
        await self.turn_dm(record, record.game, event.seat)

    async def game_over_dm(self, event: GameEnded) -> None:
        """Tell each player who gets turn DMs how the game ended, with a link to its final
        board and, where it has one, its Rematch button (not in their quiet hours, not for a
        cancelled game, never twice)."""
        if event.cancelled:
            return
        record = self.bot.table.live(event.record)
        again = " Press **Rematch** under it to play again." if rematch_button(record) else ""
        text = f"🏁 Sequence game #{record.id} is over: {board_link(record)}{again}\n"
        text += result_line(record)
        for seat, info in enumerate(record.seats):
            if info.is_computer or await self.bot.turn_dms.quiet_until(info.user_id):
                continue
            if delivered_late() and await self._dm_sent_before(info.user_id, text):
                continue  # sent before a crash: the event came again
            await self.direct_message(record, seat, text)

    async def turn_dm(self, record: GameRecord, game: Game, seat: int) -> None:
        """The turn DM: what happened since the player's last move, the link, the deadline
        and their hand panel drawn for ``game``."""
        happened = "".join(f"{line}\n" for line in since_last_turn(record, game, seat))
        deadline = await self.bot.table.deadline_text(dataclasses.replace(record, game=game))
        link = board_link(record)
        text = f"{happened}🎲 Your turn in Sequence game #{record.id}: {link}{deadline}"
        paused = self.bot.table.blocked_code(record)
        if paused is not None:  # the table learnt it as it posted this move's board
            text += f"\n⏸️ The game is paused: {blocked_sentence(paused, record.channel_id)}."
        if delivered_late() and await self._dm_sent_before(record.seats[seat].user_id, text):
            return  # sent before a crash: the event came again
        await self.direct_message(record, seat, text, panel_game=game)

    async def _dm_sent_before(self, user_id: int, text: str) -> bool:
        """Whether the bot's latest DMs to ``user_id`` begin with ``text``."""
        try:
            user = self.bot.get_user(user_id) or await self.bot.fetch_user(user_id)
            channel = user.dm_channel or await user.create_dm()
        except discord.HTTPException:
            return False
        sent = text.replace("**", "")
        found = await sent_before(
            channel, self.bot.user, lambda message: message.content.startswith(sent), DM_LOOK_BACK
        )
        return found is not None

    async def direct_message(
        self, record: GameRecord, seat: int, text: str, *, panel_game: Any = None
    ) -> None:
        """DM a player who opted in; a failure never breaks the game. A refusal (DMs closed) is
        noted and told once at the table, and no DM is tried again until ``/sequence-me notify``.

        With ``panel_game`` (the game as the turn began), the DM also carries the player's hand
        panel: their hand image and controls, for their eyes only."""
        user_id = record.seats[seat].user_id
        if record.seats[seat].is_computer or not await self.bot.turn_dms.wanted(user_id):
            return
        kwargs: dict[str, Any] = {}
        if panel_game is not None:
            drawn = dataclasses.replace(record, game=panel_game)
            panel = await build_hand_panel(drawn, seat, with_image=True)
            text = f"{text}\n{panel.content}"
            kwargs = {"files": panel.files(), "embeds": panel.embeds}
            if panel.view is not None:
                kwargs["view"] = panel.view
        try:
            user = self.bot.get_user(user_id) or await self.bot.fetch_user(user_id)
            await user.send(text.replace("**", ""), **kwargs)
        except discord.Forbidden:
            log.info("Could not DM user %d (refused); noted, told at the table", user_id)
            await self.bot.turn_dms.refused(user_id)
            await self.bot.table.notice(
                record,
                f"📪 <@{user_id}>, your turn DMs cannot reach you: Discord refused them (your "
                "DMs are closed). Allow direct messages from this server's members, then use "
                "`/sequence-me notify on` to get them again.",
            )
        except discord.HTTPException as error:
            log.info("Could not DM user %d (HTTP %s)", user_id, error.status)

    # ------------------------------------------------------------------ commands
    @works_in_dms
    @app_commands.command(
        name="mygames", description="Your active games in this server (in a DM: everywhere)"
    )
    async def mygames(self, interaction: discord.Interaction[SequenceBot]) -> None:
        # From the store: in a cluster, another process may serve some of them.
        records = await self.bot.db.games.active_of(interaction.user.id, interaction.guild_id)
        if not records:
            where = "here" if interaction.guild_id is not None else "in any server"
            await reply(
                interaction,
                f"You are not in any active game {where}. Open one with `/sequence new`.",
            )
            return
        servers = await self.server_names(records, interaction)
        lines = []
        for record in sorted(records, key=lambda r: r.id):
            game = record.game
            waiting = record.seats[game.turn]
            mine = waiting.user_id == interaction.user.id
            turn = "**your turn**" if mine else f"{shown_name(waiting.name)}'s turn"
            deadline = await self.bot.table.deadline_text(record)
            lines.append(
                f"• Game #{record.id} in <#{record.channel_id}>"
                f"{server_of(record, servers)}: {turn}{deadline} · "
                f"[board]({board_link(record)})"
            )
        await reply_lines(interaction, lines)

    async def server_names(
        self, records: list[GameRecord], interaction: discord.Interaction[SequenceBot]
    ) -> dict[int, str]:
        """The names of the games' servers, for a listing of every server (a DM), where two
        channels may share a name; none in a server's own listing. A server this process's
        gateway does not show (in a cluster, another process runs its shard) is asked of
        Discord's API (the answer deferred first: that takes a round trip)."""
        if interaction.guild_id is not None:
            return {}
        names: dict[int, str] = {}
        for guild_id in sorted({record.guild_id for record in records}):
            guild = self.bot.get_guild(guild_id)
            if guild is None:
                if not interaction.response.is_done():
                    await interaction.response.defer(ephemeral=True, thinking=True)
                try:
                    guild = await self.bot.fetch_guild(guild_id)
                except discord.HTTPException:  # gone, or Discord refused: the channel only
                    continue
            names[guild_id] = guild.name
        return names


def server_of(record: GameRecord, servers: dict[int, str]) -> str:
    """`` (on **Server**)`` when ``servers`` names the game's server, else empty."""
    name = servers.get(record.guild_id)
    return "" if name is None else f" (on **{shown_name(name)}**)"


async def setup(bot: SequenceBot) -> None:
    """Load the cog."""
    await bot.add_cog(Turns(bot))
