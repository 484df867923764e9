"""Games across days: the turn's reminder and time limit, kept in the store so they survive
restarts, and what happens when the time runs out."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot.game import Move
from bot.game.moves import FORFEIT, REMOVE, SKIP

from .errors import UserError
from .games import GameService, MoveOutcome
from .lobbies import is_computer

if TYPE_CHECKING:
    from bot.store.database import Database
    from bot.store.games import GameRecord
    from bot.store.timers import TimerRecord

log = logging.getLogger(__name__)

REMINDER = "reminder"
LIMIT = "limit"


@dataclass(frozen=True)
class Expiry:
    """What a time limit did: the forfeits made for the player, then the policy's move."""

    record: GameRecord
    seat: int
    forfeits: list[MoveOutcome]
    policy: str
    outcome: MoveOutcome | None


class TurnClock:
    """Arms, checks and fires the per-turn timers of every game."""

    def __init__(self, db: Database, games: GameService, clock: Callable[[], float]) -> None:
        self.db = db
        self.games = games
        self.clock = clock

    async def arm(self, record: GameRecord) -> list[TimerRecord]:
        """Set the reminder and the time limit for the turn now starting (or clear them)."""
        game = record.game
        armed: list[TimerRecord] = []
        if game.is_over():
            await self.db.timers.clear_game(record.id)
            return armed
        seat = game.turn
        now = self.clock()
        payload = {"turn": game.turn_number, "seat": seat}
        human = not is_computer(record.seats[seat])
        reminder = int(record.options.get("reminder_delay") or 0)
        if reminder and human:
            armed.append(await self.db.timers.set(record.id, REMINDER, now + reminder, payload))
        else:
            await self.db.timers.clear(record.id, REMINDER)
        limit = int(record.options.get("turn_time_limit") or 0)
        if limit and human:
            armed.append(await self.db.timers.set(record.id, LIMIT, now + limit, payload))
        else:
            await self.db.timers.clear(record.id, LIMIT)
        return armed

    def is_current(self, timer: TimerRecord) -> GameRecord | None:
        """The game if the timer still belongs to the turn being played, else None."""
        record = self.games.records.get(timer.game_id)
        if record is None or record.game.is_over():
            return None
        if timer.payload.get("turn") != record.game.turn_number:
            return None
        return record

    async def remind_again(self, record: GameRecord, timer: TimerRecord) -> TimerRecord:
        """After a reminder, the next one comes one delay later (at most one per delay)."""
        delay = int(record.options.get("reminder_delay") or 0)
        return await self.db.timers.set(record.id, REMINDER, self.clock() + delay, timer.payload)

    async def expire(
        self, record: GameRecord, computer_move: Callable[..., object] | None = None
    ) -> Expiry:
        """The turn's time ran out: forfeit owed cards at random, then apply the game's policy."""
        game = record.game
        seat = game.turn
        await self.db.timers.clear(record.id, LIMIT)
        await self.db.timers.clear(record.id, REMINDER)
        forfeits = []
        while game.owed_forfeits[seat] and game.hands[seat]:
            card = game.forfeit_choice(seat)
            forfeits.append(
                await self.games.apply(record.id, Move(FORFEIT, seat, card), actor_id=None)
            )
        policy = str(record.options.get("time_limit_policy") or "skip")
        outcome: MoveOutcome | None = None
        if policy == "remove":
            outcome = await self.games.apply(record.id, Move(REMOVE, seat), actor_id=None)
        elif policy == "skip":
            outcome = await self.games.apply(record.id, Move(SKIP, seat), actor_id=None)
        return Expiry(record, seat, forfeits, policy, outcome)


def require_host(record: GameRecord, user_id: int, action: str) -> None:
    """Only the host of a game may do ``action``."""
    if record.options.get("host_id") != user_id:
        raise UserError(f"Only the host (<@{record.options.get('host_id')}>) can {action}.")
