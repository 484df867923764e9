"""The timers of a turn: a reminder and a time limit, from the table's options; and when the
turn being played began.

Pure: the game service stores them in the same transaction as the move that starts the turn.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from bot.game import Game
from bot.game.moves import FORFEIT, SKIP
from bot.store.timers import TimerRecord
from bot.table.away import away_seat
from bot.table.bank import bank_of, is_bank
from bot.table.options import TableOptions

if TYPE_CHECKING:
    from bot.store.games.records import GameRecord, LogEntry

REMINDER = "reminder"
LIMIT = "limit"


def turn_timers(
    record: GameRecord, game: Game, options: TableOptions, now: float
) -> list[TimerRecord]:
    """The reminder and time limit of the turn now starting (none for a computer, or at the end).
    A player away (:mod:`bot.table.away`): none while a computer covers them; with their clock
    paused, both count from their return.
    At a bank table, the limit is the seat's bank (:mod:`bot.table.bank`).

    >>> from types import SimpleNamespace
    >>> from bot.game import Game, GameSettings
    >>> from bot.store.seats import Seat
    >>> game = Game.new(GameSettings.create(2), seed=1)
    >>> record = SimpleNamespace(id=7, seats=[Seat(1, "ann"), Seat(2, "bob")])
    >>> options = TableOptions(turn_time_limit=60, reminder_delay=0)
    >>> [(t.kind, t.due_at) for t in turn_timers(record, game, options, 100.0)]
    [('limit', 160.0)]
    """
    if game.is_over():
        return []
    seat = game.turn
    if record.seats[seat].is_computer:
        return []
    away = away_seat(options, seat, now)
    if away is not None:
        if away.by_computer:
            return []
        now = away.until  # the clock waits for the player's return
    payload = {"turn": game.turn_number, "seat": seat}
    timers = []
    reminder = options.reminder_delay
    if reminder:
        timers.append(TimerRecord(record.id, REMINDER, now + reminder, dict(payload)))
    limit = bank_of(options, seat) if is_bank(options) else options.turn_time_limit
    if (limit or is_bank(options)) and not clock_stopped(game, len(record.seats)):
        timers.append(TimerRecord(record.id, LIMIT, now + limit, dict(payload)))
    return timers


def clock_stopped(game: Game, seats: int) -> bool:
    """True when the last ``seats`` turns all ran out of time (forfeits made for them aside):
    nobody played a whole round, so the time limit waits for the next move rather than skipping
    round after round for ever.

    >>> from bot.game import GameSettings, Move
    >>> game = Game.new(GameSettings.create(2), seed=1)
    >>> game.moves = [Move(SKIP, 0), Move(FORFEIT, 1, "2C"), Move(SKIP, 1)]
    >>> clock_stopped(game, 2), clock_stopped(game, 3)
    (True, False)
    """
    skipped = 0
    for move in reversed(game.moves):
        if move.kind != FORFEIT:
            if move.kind != SKIP:
                break
            skipped += 1
    return skipped >= seats


def turn_began(record: GameRecord, log: Iterable[LogEntry]) -> float:
    """When the turn being played began, as its timers count it: the move that passed the turn,
    the last undo, or the start. A move within the turn (a dead card, a late manual draw, a
    table-talk penalty or forfeit) does not start it again."""
    began = record.created_at
    replay = Game.new(record.game.settings, record.game.seed)
    for entry in log:
        if entry.undone_at is not None:  # an undo starts the turn it returns to again
            began = max(began, entry.undone_at)
            continue
        turn = replay.turn_number
        replay.push(entry.move)
        if replay.turn_number != turn:
            began = max(began, entry.created_at)
    return began
