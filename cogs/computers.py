"""Computer players: when a computer's turn comes (or it owes a forfeit), it moves after a pause."""

from __future__ import annotations

import asyncio
import logging
import random

import discord
from discord import app_commands
from discord.ext import commands

from bot.app import SequenceBot
from bot.game import card_label, player_view, space_name
from bot.game.ai import NoMoveError, choose_move
from bot.game.ai import hint as suggest_move
from bot.game.cards import is_one_eyed
from bot.game.moves import DEAD, FORFEIT, PASS, PLAY, Move
from bot.services.errors import UserError
from bot.services.games import MoveOutcome
from bot.store.games import GameRecord

from .base import SequenceCog
from .common.replies import reply, reporting

log = logging.getLogger(__name__)


def computer_seats_to_act(record: GameRecord) -> list[int]:
    """Computer seats that must act now: the one to move, and any owing a forfeit."""
    game = record.game
    if game.is_over():
        return []
    seats = [
        seat
        for seat, info in enumerate(record.seats)
        if info.get("bot_level")
        and not game.out[seat]
        and (game.owed_forfeits[seat] or seat in game.owed_draws)
    ]
    if record.seats[game.turn].get("bot_level") and game.turn not in seats:
        seats.append(game.turn)
    return seats


def describe_hint(move: Move) -> str:
    """A hint in words."""
    if move.kind == PLAY:
        verb = "remove the chip on" if is_one_eyed(move.card or "") else "play it on"
        return f"Try {card_label(move.card or '')}: {verb} **{space_name(move.space or 0)}**."
    if move.kind == DEAD:
        return f"Turn in the dead {card_label(move.card or '')} first."
    if move.kind == FORFEIT:
        return f"Forfeit {card_label(move.card or '')}: it is the card you need least."
    if move.kind == PASS:
        return "Nothing can be played: pass."
    return "Draw your card."


class Computers(SequenceCog):
    """Runs the computer players of every game, one task per game at a time; and hints."""

    def __init__(self, bot: SequenceBot) -> None:
        super().__init__(bot)
        self.tasks: dict[int, asyncio.Task[None]] = {}

    async def cog_load(self) -> None:
        for record in list(self.bot.games.records.values()):
            self.wake(record)

    async def cog_unload(self) -> None:
        for task in self.tasks.values():
            task.cancel()

    def wake(self, record: GameRecord) -> None:
        """Start the game's computer task if a computer has something to do."""
        if record.id in self.tasks or not computer_seats_to_act(record):
            return
        self.tasks[record.id] = asyncio.create_task(self._run(record.id))

    @commands.Cog.listener()
    async def on_sequence_move(self, outcome: MoveOutcome) -> None:
        self.wake(outcome.record)

    @commands.Cog.listener()
    async def on_sequence_start(self, record: GameRecord) -> None:
        self.wake(record)

    @commands.Cog.listener()
    async def on_sequence_undo(self, record: GameRecord) -> None:
        self.wake(record)

    @app_commands.command(name="hint", description="A suggestion for your move (practice games)")
    async def hint(self, interaction: discord.Interaction) -> None:
        async with reporting(interaction):
            record = self.bot.games.for_channel(interaction.channel_id or 0)
            seat = self.bot.games.require_seat(record, interaction.user.id)
            if not record.options.get("hints") or record.options.get("rated", True):
                raise UserError(
                    "Hints are off at this table: they are for unrated practice games "
                    "(open one with `/sequence new hints:True`)."
                )
            game = record.game
            if seat != game.turn and not game.owed_forfeits[seat]:
                raise UserError("It is not your turn: a hint waits until it is.")
            budget = self.bot.settings.computer_budget_ms
            move = await asyncio.to_thread(suggest_move, player_view(game, seat), budget)
            await reply(interaction, f"💡 {describe_hint(move)}")

    async def _run(self, game_id: int) -> None:
        try:
            while True:
                record = self.bot.games.records.get(game_id)
                if record is None:
                    return
                seats = computer_seats_to_act(record)
                if not seats:
                    return
                await asyncio.sleep(self.bot.settings.computer_move_delay)
                if await self.move_for(record, seats[0]) is None:
                    return
        except Exception:
            log.exception("The computer player of game %d failed", game_id)
        finally:
            self.tasks.pop(game_id, None)

    async def move_for(
        self, record: GameRecord, seat: int, level: str | None = None
    ) -> MoveOutcome | None:
        """Choose (from the seat's view only) and play one move for ``seat``."""
        game = record.game
        level = level or record.seats[seat].get("bot_level") or "medium"
        view = player_view(game, seat)
        rng = random.Random(f"{game.seed}:{len(game.moves)}:{seat}")
        budget = self.bot.settings.computer_budget_ms
        try:
            move = await asyncio.to_thread(choose_move, view, level, rng, budget)
        except NoMoveError:
            return None
        try:
            outcome = await self.bot.games.apply(
                record.id, move, actor_id=None, expected_turn=view.turn_number
            )
        except UserError:
            # Neither the move nor the refusal is logged: both can name a card of the hand.
            log.warning(
                "A computer's %s move in game %d (seat %d) was refused", move.kind, record.id, seat
            )
            return None
        if outcome.turn_passed or outcome.finished:
            await self.bot.table.after_move(outcome)
        return outcome


async def setup(bot: SequenceBot) -> None:
    """Load the cog."""
    await bot.add_cog(Computers(bot))
