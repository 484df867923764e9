"""Computer players: when a computer's turn comes (or it owes a forfeit), it moves after a pause."""

from __future__ import annotations

import asyncio
import logging
import random

from discord.ext import commands

from bot.app import SequenceBot
from bot.game import player_view
from bot.game.ai import NoMoveError, choose_move
from bot.services.errors import UserError
from bot.services.games import MoveOutcome
from bot.store.games import GameRecord

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


class Computers(commands.Cog):
    """Runs the computer players of every game, one task per game at a time."""

    def __init__(self, bot: SequenceBot) -> None:
        self.bot = bot
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
        except UserError as error:
            log.warning("Computer move %s in game %d refused: %s", move, record.id, error)
            return None
        if outcome.turn_passed or outcome.finished:
            await self.bot.table.after_move(outcome)
        return outcome


async def setup(bot: SequenceBot) -> None:
    """Load the cog."""
    await bot.add_cog(Computers(bot))
