"""The bank clock's part of a change (issue #39): when a turn ends at a bank table, its seat's
bank becomes what the turn left of it plus the increment, capped (:mod:`bot.table.bank`), in the
options the change commits, so that the bank is saved in the move's own transaction and the
next turn's time limit is read from it.

What a turn left is read from its stored time limit (the bank at the turn's start, plus any day
given meanwhile): the deadline minus the moment of the change, never below 0 (a time-out).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.game.moves import REMOVE, SKIP
from bot.table.bank import after_turn, bank_of, is_bank

from .timing import LIMIT

if TYPE_CHECKING:
    from bot.store.base import Store

    from .games.draft import Draft


async def settle_bank(db: Store, draft: Draft) -> bool:
    """Set the banks of a change that ends a turn at a bank table, or takes turns back (a
    cancel or a computer's turn leaves them as they are); True if it did. Called in the
    change's transaction once the game is held at its move count, so that the stored limit it
    reads is the one the turn ended with."""
    options, record = draft.options, draft.record
    if not is_bank(options) or draft.cancelled:
        return False
    if draft.undone:
        draft.options = options.but(banks=_taken_back(draft))
        return True
    before = record.game
    seat = before.turn
    if record.seats[seat].is_computer:
        return False
    timer = await db.timers.get(record.id, LIMIT)
    if timer is not None and timer.payload.get("turn") == before.turn_number:
        left = timer.due_at - draft.now
    else:  # the clock waited for this move (nobody played a whole round): nothing spent
        left = bank_of(options, seat)
    draft.options = options.but(banks=after_turn(options, len(record.seats), seat, left))
    return True


def _taken_back(draft: Draft) -> tuple[int, ...]:
    """The banks once an undo took back ``draft.undone``: each turn a person played that is
    taken back gives back the increment it earned (the time it spent is not returned; the turn
    interrupted is not charged; a time-out keeps its increment, lest the turn run out again at
    once)."""
    options, record = draft.options, draft.record
    banks = [bank_of(options, seat) for seat in range(len(record.seats))]
    replay = draft.game.copy()  # the game as the undo leaves it
    for move in draft.undone:
        turn, seat = replay.turn_number, replay.turn
        replay.push(move)
        played = move.seat == seat and move.kind not in (SKIP, REMOVE)  # not a time-out
        if replay.turn_number != turn and played and not record.seats[seat].is_computer:
            banks[seat] = max(0, banks[seat] - options.bank_increment)
    return tuple(banks)
