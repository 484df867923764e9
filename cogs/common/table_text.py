"""What a game's board message says and shows: its text (the result, or whose turn it is and
when the time runs out), its embed and its buttons."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import discord

from bot.services.timing import LIMIT, clock_stopped, turn_began
from bot.table.away import away_seat
from bot.table.bank import is_bank, is_timed
from bot.table.series import series_line
from render.theme import TEAM_COLOUR_VALUES

from .components import Components
from .describe import banks_line, deadline_note, result_line, scoreline, turn_line

if TYPE_CHECKING:
    from bot.app import SequenceBot
    from bot.store.games.records import GameRecord

#: Makes a button for the board message of a game, or None (cogs register these).
BoardButton = Callable[["GameRecord"], discord.ui.Item | None]


class BoardText:
    """The table's part that words and dresses a board message."""

    bot: SequenceBot
    board_buttons: list[BoardButton]
    #: Buttons under the final board of a game (cogs register these, as ``board_buttons``).
    final_buttons: list[BoardButton]

    def board_view(self, record: GameRecord) -> Components | None:
        """The buttons under a board message (once the game is over, the final board's: a
        Rematch; None when it has none)."""
        makers = self.final_buttons if record.game.is_over() else self.board_buttons
        view = Components()
        for make in makers:
            item = make(record)
            if item is not None:
                view.add_item(item)
        if record.game.is_over() and not view.children:
            return None
        return view

    def board_embed(self, record: GameRecord, headline: str | None) -> discord.Embed:
        """The embed around the board image."""
        game = record.game
        colour_team = game.winner if game.is_over() and game.winner is not None else None
        if colour_team is None:
            colour_team = game.team_of(game.turn)
        moves = len(game.moves)
        embed = discord.Embed(
            title=f"Sequence · game #{record.id} · move {moves}",
            description=headline or None,
            colour=TEAM_COLOUR_VALUES[colour_team],
        )
        # The board is the message's attachment, shown full width under the text; inside the
        # embed, Discord (and SimCord's preview) would shrink the tall image to a thumbnail.
        series = series_line(record.options, game.settings.teams, game.winner, over=game.is_over())
        footer = scoreline(record)
        embed.set_footer(text=footer if series is None else f"{series}\n{footer}")
        return embed

    async def board_line(self, record: GameRecord) -> str:
        """The text above a board: the result, or whose turn it is (and when a time limit
        runs out)."""
        if record.game.is_over():
            return result_line(record)
        return turn_line(record) + await self.deadline_text(record)

    async def deadline_text(self, record: GameRecord) -> str:
        """`` ⏳ Time runs out <t:…:R>.`` for a turn with a time limit (else empty): the
        turn's stored limit, so that every process shows the same moment. At a bank table,
        each seat's bank follows (:func:`banks_line`)."""
        if record.game.is_over() or not is_timed(record.options):
            return ""
        timer = await self.bot.db.timers.get(record.id, LIMIT)
        if timer is not None and timer.payload.get("turn") != record.game.turn_number:
            timer = None
        banks = ""
        if is_bank(record.options):
            now = self.bot.clock()
            paused = away_seat(record.options, record.game.turn, now)
            if paused is not None and not paused.by_computer:
                now = paused.until  # the clock waits for the player's return
            left = None if timer is None else timer.due_at - now
            banks = f" {banks_line(record, left)}"
        if clock_stopped(record.game, len(record.seats)):
            return " ⏸️ Nobody played a whole round: the clock waits for this move." + banks
        if timer is None:
            return banks
        return f" {deadline_note(timer.due_at)}{banks}"

    async def waiting_for(self, record: GameRecord) -> float:
        """Seconds since the turn being played began: how long its move is awaited."""
        entries = await self.bot.db.games.log(record.id)
        return self.bot.clock() - turn_began(record, entries)
