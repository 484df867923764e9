"""The bank clock's part of a change (issue #39): when a turn ends at a bank table, its seat's
bank becomes what the turn left of it plus the increment, capped (:mod:`bot.table.bank`), in the
options the change commits, so that the bank is saved in the move's own transaction and the
next turn's time limit is read from it.

What a turn left is read from its stored time limit (the bank at the turn's start, plus any day
given meanwhile): the deadline minus the moment of the change, never below 0 (a time-out).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.table.bank import after_turn, bank_of, is_bank

from .timing import LIMIT

if TYPE_CHECKING:
    from bot.store.base import Store

    from .games.draft import Draft


async def settle_bank(db: Store, draft: Draft) -> bool:
    """Set the banks of a change that ends a turn at a bank table (an undo, a cancel or a
    computer's turn leaves them as they are); True if it did. Called in the change's
    transaction once the game is held at its move count, so that the stored limit it reads is
    the one the turn ended with."""
    options, record = draft.options, draft.record
    if not is_bank(options) or draft.undone or draft.cancelled:
        return False
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
